"""Which entity an answer gives: "Who directed Blood Street?" asks for a person, and its answer's passages
name him ("Leo Fong") among other names. A follow-up's pronoun ("Where was he born?") most often stands for
that entity, not for the subject the question named: after an answer, what it found is what the
conversation is about. Offline we read what kind of entity a question asks for from its wh-word (a person
for who, a place for where, a thing for which/what + noun) and pick, among the answer's entities that the
question did not name, the one the answer states as the answer: named right beside a word of the relation
the question asks about ("directed by Luis Mandoki" for "Who is the director of Gaby?"), or joined to the
question's subject in the graph by a relation of that name (DIRECTED). Then one of that kind, then one the
graph relates to the subject at all, then the one the answer names most. Types come second because an
offline graph's are often wrong (a director typed CONCEPT); a relation stated in the text is evidence.

A question about its own subject ("Tell me about X", "When was X launched?", "How tall is X?") asks for no
entity: its answer is about X, and X stays what a pronoun stands for."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from graphwright.models import EntityRef
from graphwright.search.linking import EntityLinker, Mention, question_words
from graphwright.text.stopwords import STOPWORDS

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
_A_TYPE_OF = {"person": "PERSON", "place": "LOCATION", "thing": "PRODUCT"}  # one typed entity of each kind
_NOT_THINGS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
# Two words share a stem when they begin alike for this many letters ("director" and DIRECTED).
_STEM = 5
ANSWER_CANDIDATES = 8  # the answer's names looked at: those it repeats most, then those it names first
# A name states the answer when a word of the question's relation is at most this many words from it:
# "directed by Luis Mandoki", "his mother was Ermengarde of Tours", "founded in 2000 by Jeff Bezos".
_BESIDE = 3


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
    stated: dict[str, str] | None = None,
    fits: Callable[[str], bool] = lambda _type: True,
) -> Answered | None:
    """The entity of `candidates` (the answer's, most named first, none of them `asked`) that answers
    `question`, or None when the question asks for no entity or no candidate is of its kind, stated beside
    the question's relation (`stated`: id -> the word, see `stated_beside`) nor related to its subject.
    `fits` says which types the follow-up's pronoun can stand for ("he": not a place)."""
    wanted = asked_for(question)
    # "it" after "Who founded X?": a pronoun that cannot stand for what was asked does not stand for the answer
    if wanted is None or not candidates or not fits(_A_TYPE_OF[wanted]):
        return None
    stated = stated or {}
    relations = _relations(linker, asked, candidates)
    words = _relation_words(question, asked)
    best: tuple[tuple[int, int, int, int], EntityRef, str] | None = None
    for rank, ref in enumerate(candidates):
        kind_ok = agrees(wanted, ref.type)
        linked = relations.get(ref.id, [])
        by_question = [t for t in linked if _shares_stem(t, words)]
        says = stated.get(ref.id)
        key = (int(bool(says or by_question)), int(kind_ok), int(bool(linked)), -rank)
        if not (kind_ok or linked or says) or not fits(ref.type):
            continue
        why = f"a {wanted} the answer names" if kind_ok else f"named by the answer (typed {ref.type})"
        if says:
            why += f", beside {says!r}"
        if linked:
            why += f", related to the question's subject by {(by_question or linked)[0]}"
        if best is None or key > best[0]:
            best = (key, ref, why)
    if best is None:
        return None
    return Answered(entity=best[1], wanted=wanted, why=best[2])


def stated_beside(
    question: str, asked: Sequence[EntityRef], answer: str, mentions: Sequence[Mention]
) -> dict[str, str]:
    """The entities `answer` names at most _BESIDE words from a word of the relation `question` asks about
    ("directed" beside "Luis Mandoki" for "Who is the director of ...?"), id -> that word; `mentions` index
    `question_words(answer)`. The question's own names are not the relation ("Story" of "Gaby: A True
    Story")."""
    stems = {w[:_STEM] for w in _relation_words(question, asked)}
    if not stems:
        return {}
    words = question_words(answer)
    own = {e.id for e in asked}
    line_of, about = _lines(answer)
    subject_lines = {line_of[m.start] for m in mentions if m.entity_id in own}
    found: dict[str, str] = {}
    for mention in mentions:
        if mention.entity_id in own or mention.entity_id in found:
            continue
        # only what is said of the subject: a line naming it, or under a heading that does ("[1] Lothair
        # II" over "His mother was Ermengarde of Tours"); "X directed Y" of another film is no answer
        if not subject_lines & about[line_of[mention.start]]:
            continue
        near = words[max(0, mention.start - _BESIDE) : mention.start] + words[mention.end : mention.end + _BESIDE]
        word = next((w for w in near if len(w) >= _STEM and w.lower()[:_STEM] in stems), None)
        if word is not None:
            found[mention.entity_id] = word
    return found


def _lines(text: str) -> tuple[list[int], list[set[int]]]:
    """For each word of `question_words(text)`, its line; for each line, itself and the lines it sits under
    (each less indented line before it, nearest first): a passage's heading, a list's title."""
    line_of: list[int] = []
    about: list[set[int]] = []
    headings: list[tuple[int, int]] = []  # (indent, line) of the open headings, least indented first
    for number, line in enumerate(text.split("\n")):
        line_of += [number] * len(question_words(line))
        if not line.strip():
            about.append({number})
            continue
        indent = len(line) - len(line.lstrip())
        while headings and headings[-1][0] >= indent:
            headings.pop()
        about.append({number, *(h for _, h in headings)})
        headings.append((indent, number))
    return line_of, about


def _relation_words(question: str, asked: Sequence[EntityRef]) -> list[str]:
    """The question's words that can name a relation: long enough to stem, not a stopword, not a word of a
    name it asks about."""
    names = {w.lower() for e in asked for w in question_words(e.name)}
    return [
        w
        for w in (w.lower() for w in question_words(question))
        if len(w) >= _STEM and w not in STOPWORDS and w not in names and w not in _WH_WORDS
    ]


_WH_WORDS = frozenset("which where whose".split())


def _relations(
    linker: EntityLinker, asked: Sequence[EntityRef], candidates: Sequence[EntityRef]
) -> dict[str, list[str]]:
    """For each candidate, the types of the relations that join it to an entity the question named."""
    if not asked:
        return {}
    seeds = [e.id for e in asked]
    ids = [*seeds, *(c.id for c in candidates)]
    found: dict[str, list[str]] = {}
    for row in linker.graph.relations_among(ids, seeds, 4 * len(ids)):
        for end, other in ((row["source_id"], row["target_id"]), (row["target_id"], row["source_id"])):
            if other in seeds and end not in seeds:
                found.setdefault(end, []).append(row["type"])
    return found


def _shares_stem(relation_type: str, words: Sequence[str]) -> bool:
    """Whether a relation type's words and the question's relation words share a stem: DIRECTED and
    "director"."""
    parts = [p for p in relation_type.lower().split("_") if len(p) >= _STEM]
    return any(w[:_STEM] == p[:_STEM] for p in parts for w in words)
