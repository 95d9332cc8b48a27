"""What the graph may hold: node types, relationship types and the patterns that join them, in the shape of
neo4j-graphrag's `GraphSchema` (so a schema written for it loads here), from JSON or YAML.

A schema is closed or open per part: `additional_node_types`, `additional_relationship_types` and
`additional_patterns` say whether anything outside it is allowed. As in neo4j-graphrag, each defaults to
True when its list is empty and False otherwise. A pattern's end may be a literal (`Literal`, `string`,
`number`, `date`, `Year`, `xsd:...`): a value, not an entity type.

Extractors check every triple against it (`check`), the store keeps it beside the graph, and Text2Cypher and
the agent read it."""

from __future__ import annotations

import json
import logging
import re
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graphwright.errors import SchemaFileError

_log = logging.getLogger(__name__)

# Pattern ends that stand for a value rather than an entity type.
LITERAL_TYPES = frozenset(
    {"literal", "string", "number", "integer", "float", "double", "date", "datetime", "year", "boolean", "text"}
)

Verdict = Literal[
    "ok",
    "unknown relation type",
    "unknown entity type",
    "pattern not in schema",
    "reversed pattern",
]


# What graphwright keeps on every entity. A schema may declare them (neo4j-graphrag schemas often give every
# node type a `name`): they stay graphwright's, and no literal is written over them.
RESERVED_PROPERTIES = frozenset(
    {"id", "name", "key", "type", "description", "aliases", "degree", "similar", "embedding", "literal_keys"}
)


def is_literal(type_: str) -> bool:
    return type_.lower() in LITERAL_TYPES or type_.lower().startswith("xsd:")


def _key(label: str) -> str:
    """Labels compare without case, spaces or underscores ("birth place" = "birthPlace" = "BIRTH_PLACE")."""
    return re.sub(r"[\s_\-]+", "", label).lower()


class PropertyType(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    type: str = "STRING"  # neo4j-graphrag's: STRING, INTEGER, FLOAT, BOOLEAN, DATE (others are kept as text)
    description: str = ""


class LiteralProperty(BaseModel):
    """A literal fact kept as a property too: `(:Person)-[:BIRTH_DATE]->("1966-08-14")` sets
    `Person.birthDate` when the schema's Person declares a birthDate property."""

    model_config = ConfigDict(frozen=True)

    node_type: str  # the subject's node type, as the schema names it
    relationship: str  # the relationship type, as the schema names it
    key: str  # the property, named as the schema names it
    kind: str  # its declared type


def literal_value(text: str, kind: str) -> Any:
    """A literal's text in the type its property declares (`"1966-08-14"` -> a date); the text when it does
    not read as one."""
    value = text[1:-1] if len(text) > 1 and text[0] == text[-1] == '"' else text
    kind = kind.upper()
    try:
        if kind == "INTEGER":
            return int(value.replace(",", ""))
        if kind == "FLOAT":
            return float(value.replace(",", ""))
        if kind == "BOOLEAN" and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if kind == "DATE":
            return date.fromisoformat(value)
    except ValueError:
        pass
    return value


class NodeType(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1)
    description: str = ""
    properties: list[PropertyType] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"label": data} if isinstance(data, str) else data


class RelationshipType(NodeType):
    pass


class Pattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    relationship: str
    target: str

    @model_validator(mode="before")
    @classmethod
    def _from_triple(cls, data: Any) -> Any:
        if isinstance(data, (list, tuple)):
            if len(data) != 3:
                raise ValueError(f"a pattern is [source type, relationship type, target type], got {list(data)}")
            return {"source": data[0], "relationship": data[1], "target": data[2]}
        return data


MAX_SCHEMA_BYTES = 1 << 20  # a schema of thousands of types fits in far less
MAX_LABELLED_BYTES = 64 << 20  # worked examples and gold sentences: some hundred thousand lines


def read_bounded_text(path: Path, *, limit: int, what: str) -> str:
    """A user's file as UTF-8 text, refused whole when it is larger than `limit` bytes or not text."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise SchemaFileError(f"{path}: the {what} file is {size:,} bytes; at most {limit:,} are read")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaFileError(f"{path}: cannot read the {what} file ({exc})") from exc


class GraphSchema(BaseModel):
    """The schema of one knowledge base (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")  # `title`, `constraints` and other neo4j-graphrag fields

    node_types: list[NodeType] = Field(default_factory=list)
    relationship_types: list[RelationshipType] = Field(default_factory=list)
    patterns: list[Pattern] = Field(default_factory=list)
    additional_node_types: bool | None = None
    additional_relationship_types: bool | None = None
    additional_patterns: bool | None = None

    @field_validator("node_types", "relationship_types")
    @classmethod
    def _unique(cls, types: list[NodeType]) -> list[NodeType]:
        """A type declared twice alike is kept once (benchmark ontologies repeat some); declared twice
        differently, the schema is ambiguous and refused."""
        seen: dict[str, NodeType] = {}
        kept = []
        for t in types:
            earlier = seen.get(_key(t.label))
            if earlier is None:
                seen[_key(t.label)] = t
                kept.append(t)
            elif earlier == t:
                _log.warning("the schema declares %r twice, alike: read once", t.label)
            else:
                raise ValueError(f"{t.label!r} is declared twice, differently (as {earlier.label!r})")
        return kept

    @model_validator(mode="after")
    def _defaults_and_references(self) -> GraphSchema:
        if self.additional_node_types is None:
            self.additional_node_types = not self.node_types
        if self.additional_relationship_types is None:
            self.additional_relationship_types = not self.relationship_types
        if self.additional_patterns is None:
            self.additional_patterns = not self.patterns
        nodes, relations = self._node_keys(), self._relation_keys()
        for p in self.patterns:
            for end in (p.source, p.target):
                if _key(end) not in nodes and not is_literal(end):
                    raise ValueError(
                        f"pattern ({p.source}, {p.relationship}, {p.target}) names the undeclared node type "
                        f"{end!r}; declare it in node_types"
                    )
            if _key(p.relationship) not in relations:
                raise ValueError(
                    f"pattern ({p.source}, {p.relationship}, {p.target}) names the undeclared relationship type "
                    f"{p.relationship!r}; declare it in relationship_types"
                )
        return self

    def _node_keys(self) -> dict[str, NodeType]:
        return {_key(t.label): t for t in self.node_types}

    def _relation_keys(self) -> dict[str, RelationshipType]:
        return {_key(t.label): t for t in self.relationship_types}

    # --- reading a schema --------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, source: str = "schema", *, declare_missing: bool = False) -> GraphSchema:
        """A schema from JSON or YAML text. `declare_missing` adds node and relationship types that patterns
        name but the lists omit, and drops repeated declarations (for benchmark files written that way); a
        user's schema is checked strictly."""
        data = _load_mapping(text, source)
        if declare_missing:
            data = _with_missing_declared(data)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'schema'}: {e['msg']}" for e in exc.errors())
            raise SchemaFileError(f"{source}: not a graph schema: {problems}") from exc

    @classmethod
    def from_file(cls, path: Path, *, declare_missing: bool = False) -> GraphSchema:
        text = read_bounded_text(path, limit=MAX_SCHEMA_BYTES, what="schema")
        return cls.parse(text, str(path), declare_missing=declare_missing)

    def to_json(self) -> str:
        return self.model_dump_json()

    # --- using it ----------------------------------------------------------------------------------
    def relation_label(self, label: str) -> str | None:
        """The declared relationship type a label names (ignoring case, spaces and underscores), if any."""
        found = self._relation_keys().get(_key(label))
        return found.label if found else None

    def relationship_description(self, label: str) -> str:
        found = self._relation_keys().get(_key(label))
        return found.description if found else ""

    def node_label(self, label: str) -> str | None:
        found = self._node_keys().get(_key(label))
        return found.label if found else None

    def literal_properties(self) -> list[LiteralProperty]:
        """Where the schema says a literal is a property: a pattern from a node type to a literal whose
        relationship the node type declares as a property (by name, ignoring case, spaces and underscores)."""
        out = []
        nodes = self._node_keys()
        for p in self.patterns:
            node = nodes.get(_key(p.source))
            if node is None or not is_literal(p.target):
                continue
            for prop in node.properties:
                if _key(prop.name) == _key(p.relationship) and prop.name.lower() not in RESERVED_PROPERTIES:
                    out.append(
                        LiteralProperty(
                            node_type=node.label,
                            relationship=p.relationship,
                            key=prop.name,
                            kind=prop.type,
                        )
                    )
        return list(dict.fromkeys(out))

    def _patterns_of(self, relation_label: str) -> list[Pattern]:
        return [p for p in self.patterns if _key(p.relationship) == _key(relation_label)]

    def end_types(self, relation: str) -> tuple[str | None, str | None]:
        """The type the schema's patterns give each end of a relation (its domain and range), where every
        pattern of that relation agrees; None at an end they do not fix."""
        label = self.relation_label(relation)
        same = self._patterns_of(label) if label is not None else []
        sources, targets = {p.source for p in same}, {p.target for p in same}
        return (
            next(iter(sources)) if len(sources) == 1 else None,
            next(iter(targets)) if len(targets) == 1 else None,
        )

    def check(self, source_type: str, relation: str, target_type: str) -> Verdict:
        """Whether a triple of these types is allowed; the reason when it is not."""
        relation_label = self.relation_label(relation)
        if relation_label is None and not self.additional_relationship_types:
            return "unknown relation type"
        for end in (source_type, target_type):
            if self.node_label(end) is None and not is_literal(end) and not self.additional_node_types:
                return "unknown entity type"
        if self.additional_patterns or not self.patterns or relation_label is None:
            return "ok"
        source, target = _key(source_type), _key(target_type)
        same_relation = self._patterns_of(relation_label)
        for p in same_relation:
            literal_end = is_literal(p.target) and is_literal(target_type)
            if _key(p.source) == source and (_key(p.target) == target or literal_end):
                return "ok"
        if any(_key(p.source) == target and _key(p.target) == source for p in same_relation):
            return "reversed pattern"
        return "pattern not in schema"

    def describe(self) -> str:
        """The schema as prompt text: types with descriptions, then the allowed patterns."""
        lines = ["Node types:"]
        lines += [f"- {t.label}" + (f": {t.description}" if t.description else "") for t in self.node_types]
        lines.append("Relationship types:")
        lines += [f"- {t.label}" + (f": {t.description}" if t.description else "") for t in self.relationship_types]
        if self.patterns:
            lines.append("Allowed patterns (source type, relationship, target type):")
            lines += [f"- ({p.source})-[{p.relationship}]->({p.target})" for p in self.patterns]
        closed = [
            what
            for what, open_ in (
                ("node types", self.additional_node_types),
                ("relationship types", self.additional_relationship_types),
                ("patterns", self.additional_patterns),
            )
            if not open_
        ]
        if closed:
            lines.append(f"Use only the {', '.join(closed)} listed above.")
        return "\n".join(lines)


def schema_changes(old: GraphSchema, new: GraphSchema) -> str:
    """What differs between two schemas, in a line: "node types +Planet -City; patterns +(...)"."""
    parts = []
    for what, before, after in (
        ("node types", {t.label for t in old.node_types}, {t.label for t in new.node_types}),
        ("relationship types", {t.label for t in old.relationship_types}, {t.label for t in new.relationship_types}),
        (
            "patterns",
            {f"({p.source})-[{p.relationship}]->({p.target})" for p in old.patterns},
            {f"({p.source})-[{p.relationship}]->({p.target})" for p in new.patterns},
        ),
    ):
        changed = [f"+{x}" for x in sorted(after - before)] + [f"-{x}" for x in sorted(before - after)]
        if changed:
            parts.append(
                f"{what} {' '.join(changed[:6])}" + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
            )
    old_flags, new_flags = old.model_dump(), new.model_dump()
    for flag in ("additional_node_types", "additional_relationship_types", "additional_patterns"):
        if old_flags[flag] != new_flags[flag]:
            parts.append(f"{flag} {old_flags[flag]} -> {new_flags[flag]}")
    return "; ".join(parts) or "descriptions or properties differ"


def _load_mapping(text: str, source: str) -> dict[str, Any]:
    if not text.strip():
        raise SchemaFileError(f"{source}: the schema file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as json_error:
        import yaml  # YAML is a superset of JSON; a JSON file that fails both is reported as JSON

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            detail = f"JSON: {json_error.msg} at line {json_error.lineno}"
            if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
                detail += f"; YAML: {exc.problem} at line {exc.problem_mark.line + 1}"
            raise SchemaFileError(f"{source}: neither valid JSON nor valid YAML ({detail})") from exc
    if not isinstance(data, dict):
        raise SchemaFileError(f"{source}: a schema is a mapping with node_types, relationship_types and patterns")
    return data


def _with_missing_declared(data: dict[str, Any]) -> dict[str, Any]:
    def labels(items: list[Any]) -> set[str]:
        return {_key(i if isinstance(i, str) else str(i.get("label", ""))) for i in items}

    def unique(items: list[Any]) -> list[Any]:  # benchmark files declare some types twice
        seen: set[str] = set()
        kept = []
        for item in items:
            key = _key(item if isinstance(item, str) else str(item.get("label", "")))
            if key not in seen:
                seen.add(key)
                kept.append(item)
        return kept

    nodes, relations = unique(list(data.get("node_types") or [])), unique(list(data.get("relationship_types") or []))
    known_nodes, known_relations = labels(nodes), labels(relations)
    for p in data.get("patterns") or []:
        triple = p if isinstance(p, (list, tuple)) else [p.get("source"), p.get("relationship"), p.get("target")]
        if len(triple) != 3:
            continue
        for end in (triple[0], triple[2]):
            if isinstance(end, str) and _key(end) not in known_nodes and not is_literal(end):
                nodes.append({"label": end})
                known_nodes.add(_key(end))
        if isinstance(triple[1], str) and _key(triple[1]) not in known_relations:
            relations.append({"label": triple[1]})
            known_relations.add(_key(triple[1]))
    return {**data, "node_types": nodes, "relationship_types": relations}
