"""Which entity an answer gives: "Who directed Blood Street?" asks for a person, and its answer's passages
name him ("Leo Fong") among other names. A follow-up's pronoun ("Where was he born?") most often stands for
that entity, not for the subject the question named: after an answer, what it found is what the
conversation is about. Offline we read what kind of entity a question asks for from its wh-word (a person
for who, a place for where, a thing for which/what + noun) and pick, among the answer's entities that the
question did not name, one of that kind, preferring one the graph relates to the question's subject (by the
relation the question asks about, where the types say so), then the one the answer names most.

A question about its own subject ("Tell me about X", "When was X launched?", "How tall is X?") asks for no
entity: its answer is about X, and X stays what a pronoun stands for."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from graphwright.models import EntityRef
from graphwright.search.linking import EntityLinker, question_words

Wanted = Literal["person", "place", "thing"]

# A wh-question, after an optional preposition ("In which city...", "For whom...").
_WH_RE = re.compile(
    r"^\s*(?:(?:in|on|at|from|for|with|by|to|of)\s+)?(who|whom|whose|where|which|what)\b\s*(\w+)?\s*(\w+)?\s*(\w+)?",
    re.IGNORECASE,
)
# After which/what, nouns that ask for a value (a time, an amount, a kind), not an entity of the graph.
_VALUE_NOUNS = frozenset(
    """year years date time day month century decade age number amount percentage percent size height length
    weight population kind type sort genre colour color language nationality profession occupation role
    position title name reason language""".split()
)
_PLACE_NOUNS = frozenset(
    """place city country state town village region province county location area island continent capital
    birthplace district nation""".split()
)
_PERSON_NOUNS = frozenset(
    """person man woman people actor actress director singer writer author player president leader politician
    founder king queen prince princess emperor composer performer producer musician artist scientist poet
    painter architect engineer inventor chairman ceo coach manager spouse husband wife father mother son
    daughter brother sister child""".split()
)
_AUX = frozenset("is are was were does do did has have had".split())
# Types as extractors write them: spaCy's labels, the LLM prompt's, a schema's usual ones.
_PERSON_TYPES = frozenset({"PERSON", "PER", "PEOPLE", "HUMAN", "CHARACTER"})
_PLACE_TYPES = frozenset(
    {"GPE", "LOC", "LOCATION", "FAC", "FACILITY", "PLACE", "CITY", "COUNTRY", "STATE", "REGION", "GEO"}
)
_NOT_THINGS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
# Two words share a stem when they begin alike for this many letters ("director" and DIRECTED).
_STEM = 5
ANSWER_CANDIDATES = 8  # the answer's names looked at: those it repeats most, then those it names first


def asked_for(question: str) -> Wanted | None:
    """What kind of entity `question` asks for, or None when it asks about its own subject."""
    match = _WH_RE.match(question)
    if not match:
        return None
    wh, *following = (w.lower() if w else "" for w in match.groups())
    if wh in ("who", "whom", "whose"):
        return "person"
    if wh == "where":
        return "place"
    noun = following[0]
    if noun in _AUX:  # "what is the place of birth of X?": the noun after the article says
        rest = [w for w in following[1:] if w and w not in ("the", "a", "an")]
        if not rest:
            return None
        noun = rest[0]
    return _by_noun(noun)


def _by_noun(noun: str) -> Wanted | None:
    if not noun or noun in _VALUE_NOUNS or noun in ("many", "much", "often", "long", "far", "old"):
        return None
    if noun in _PLACE_NOUNS:
        return "place"
    if noun in _PERSON_NOUNS or noun.endswith(("ist", "ian")):
        return "person"
    return "thing"


def agrees(wanted: Wanted, entity_type: str) -> bool:
    kind = entity_type.upper()
    if wanted == "person":
        return kind in _PERSON_TYPES
    if wanted == "place":
        return kind in _PLACE_TYPES
    return kind not in _PERSON_TYPES and kind not in _NOT_THINGS


@dataclass(frozen=True)
class Answered:
    """The entity an answer gave, and why it was chosen (for the trace)."""

    entity: EntityRef
    wanted: Wanted
    why: str


def answered_entity(
    linker: EntityLinker,
    question: str,
    asked: Sequence[EntityRef],
    candidates: Sequence[EntityRef],
) -> Answered | None:
    """The entity of `candidates` (the answer's, most named first, none of them `asked`) that answers
    `question`, or None when the question asks for no entity or no candidate is of its kind nor related to
    its subject."""
    wanted = asked_for(question)
    if wanted is None or not candidates:
        return None
    relations = _relations(linker, asked, candidates)
    words = [w.lower() for w in question_words(question)]
    best: tuple[tuple[int, int, int, int], EntityRef, str] | None = None
    for rank, ref in enumerate(candidates):
        kind_ok = agrees(wanted, ref.type)
        linked = relations.get(ref.id, [])
        by_question = [t for t in linked if _shares_stem(t, words)]
        key = (int(kind_ok), int(bool(by_question)), int(bool(linked)), -rank)
        if not kind_ok and not linked:
            continue
        why = f"a {wanted} the answer names" if kind_ok else f"named by the answer, not a {wanted}"
        if linked:
            why += f", related to the question's subject by {(by_question or linked)[0]}"
        if best is None or key > best[0]:
            best = (key, ref, why)
    if best is None:
        return None
    return Answered(entity=best[1], wanted=wanted, why=best[2])


def _relations(
    linker: EntityLinker, asked: Sequence[EntityRef], candidates: Sequence[EntityRef]
) -> dict[str, list[str]]:
    """For each candidate, the types of the relations that join it to an entity the question named."""
    if not asked:
        return {}
    seeds = [e.id for e in asked]
    ids = [*seeds, *(c.id for c in candidates)]
    found: dict[str, list[str]] = {}
    for row in linker.store.graph.relations_among(ids, seeds, 4 * len(ids)):
        for end, other in ((row["source_id"], row["target_id"]), (row["target_id"], row["source_id"])):
            if other in seeds and end not in seeds:
                found.setdefault(end, []).append(row["type"])
    return found


def _shares_stem(relation_type: str, words: Sequence[str]) -> bool:
    """Whether a relation type's words and the question's share a stem: DIRECTED and "director"."""
    parts = [p for p in relation_type.lower().split("_") if len(p) >= _STEM]
    return any(w[:_STEM] == p[:_STEM] for p in parts for w in words if len(w) >= _STEM)
