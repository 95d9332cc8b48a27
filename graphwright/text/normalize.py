"""Names, keys, entity types and relation types made safe and comparable.

Labels and relationship types become Cypher *identifiers*, so they are reduced to [A-Za-z0-9_] here and
passed to Neo4j through `$(...)` dynamic labels; free text never becomes Cypher code."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from graphwright.text.tokens import HAN_RANGES, HAN_RE

DEFAULT_ENTITY_TYPES = ("PERSON", "ORGANIZATION", "LOCATION", "EVENT", "PRODUCT", "TECHNOLOGY", "CONCEPT")
FALLBACK_TYPE = "CONCEPT"
FALLBACK_RELATION = "RELATED_TO"
# Relationship types graphwright itself uses between its own nodes; an extracted relation may not take them.
RESERVED_RELATIONS = {"PART_OF", "NEXT", "MENTIONS", "IN_COMMUNITY", "PARENT_OF", "SUMMARIZES"}
_MAX_TYPE_LENGTH = 48
# The labels of graphwright's own nodes in a workspace, one list for the whole package: graph_store/workspace_names.py
# renders exactly these per workspace.
NODE_LABELS = (
    "Document",
    "Chunk",
    "StagedChunk",
    "FailedFile",
    "Entity",
    "Concept",
    "Community",
    "Summary",
    "Conversation",
    "Turn",
    "GraphwrightMeta",
    "CurationChange",
    "SyncedSource",
)
# Never an entity type's label, in any workspace: our own nodes' labels but Concept (what an untyped entity is
# labelled), and the database's registry of workspaces.
INTERNAL_LABELS = (frozenset(NODE_LABELS) - {"Concept"}) | {"GraphwrightWorkspace"}
_NON_WORD = re.compile(r"[^0-9A-Za-z]+")
_SPACES = re.compile(r"\s+")
_KEY_DROP = re.compile(r"[^\w\s]", re.UNICODE)
_HAN_SPACE = re.compile(f"(?<=[{HAN_RANGES}]) | (?=[{HAN_RANGES}])")


def clean_name(name: str) -> str:
    """Display form: unicode-normalized, single spaces, no surrounding quotes or trailing punctuation;
    brackets go only when they wrap the whole name."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip(" \"'`“”‘’.,;:!?")
    while len(text) > 2 and (text[0], text[-1]) in {("(", ")"), ("[", "]"), ("{", "}")}:
        text = text[1:-1].strip()
    return text


def normalize_key(name: str) -> str:
    """Comparison key: case, accents, punctuation and whitespace do not matter ("Chang'e" == "change"); no
    space next to a Chinese character, which is written without them ("知识 图谱" == "知识图谱")."""
    text = unicodedata.normalize("NFKD", clean_name(name).casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _KEY_DROP.sub("", text.replace("-", " ").replace("/", " "))
    text = _SPACES.sub(" ", text).strip()
    return _HAN_SPACE.sub("", text) if " " in text and HAN_RE.search(text) else text


def entity_id(key: str) -> str:
    return "e_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def entity_type(raw: str | None, allowed: tuple[str, ...] = DEFAULT_ENTITY_TYPES) -> str:
    """UPPER type from the allowed list (plurals and case forgiven), else CONCEPT."""
    value = _NON_WORD.sub("_", (raw or "").strip().upper()).strip("_")
    if value in allowed:
        return value
    if value.endswith("S") and value[:-1] in allowed:
        return value[:-1]
    aliases = {
        "ORG": "ORGANIZATION",
        "ORGANISATION": "ORGANIZATION",
        "COMPANY": "ORGANIZATION",
        "PLACE": "LOCATION",
        "GPE": "LOCATION",
        "LOC": "LOCATION",
        "PER": "PERSON",
        "PEOPLE": "PERSON",
    }
    mapped = aliases.get(value) or aliases.get(value[:-1] if value.endswith("S") else value)
    return mapped if mapped in allowed else (FALLBACK_TYPE if FALLBACK_TYPE in allowed else allowed[0])


def _label_of(type_: str) -> str:
    parts = [p for p in _NON_WORD.split(type_) if p]
    return "".join(p[:1].upper() + p[1:].lower() for p in parts)[:_MAX_TYPE_LENGTH]


def is_internal_label(type_: str) -> bool:
    """Whether a type's label would be one graphwright keeps for its own nodes."""
    return _label_of(type_) in INTERNAL_LABELS


def entity_label(type_: str) -> str:
    """PERSON -> Person, HUMAN_RESOURCE -> HumanResource: the label Neo4j Browser shows. A type whose label
    graphwright keeps for its own nodes (INTERNAL_LABELS) is shown as Concept: a type is text from documents,
    a schema, an import or a curator, and must never make an entity pass for a workspace, a passage or a
    curation record."""
    label = _label_of(type_)
    if not label or not label[0].isalpha() or label in INTERNAL_LABELS:
        return "Concept"
    return label


def relation_type(raw: str | None) -> str:
    """Free text -> UPPER_SNAKE identifier ("invested in" -> INVESTED_IN); junk -> RELATED_TO."""
    ascii_text = unicodedata.normalize("NFKD", raw or "").encode("ascii", "ignore").decode()
    # camelCase -> camel_Case before upper-casing
    ascii_text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", ascii_text)
    value = _NON_WORD.sub("_", ascii_text).strip("_").upper()[:_MAX_TYPE_LENGTH].strip("_")
    if not value or not value[0].isalpha() or value in RESERVED_RELATIONS:
        return FALLBACK_RELATION
    return value
