"""Follow-up questions: what a question takes from the conversation before it, offline.

"Who was the first president of it?" names nothing; a search of it alone finds nothing about the journal
asked of a turn before. Offline we decide whether the question depends on its conversation (a pronoun,
an ellipsis like "and the director?", or no entity of its own) and, if it does, carry in the entities the
earlier turns named, newer turns before older ones. When the last question asked for an entity ("Who
directed Blood Street?") and its answer gives one of that kind, the pronoun most likely stands for that
entity ("Where was he born?": Leo Fong), so it is carried at full weight beside the question's subject
(search/answer_entity.py), and passage search looks for both: the chain's evidence is the subject's
passage, which states the answer, and the answer's own; otherwise the questions' entities come first, then
those an answer named. A pronoun's gender or person ("he", "it") puts the referents that agree with it
first. A question that names an entity and refers back to nothing changes topic: nothing is carried.

How a mode uses what was carried is the same for all of them (SearchQuery): passage retrieval searches
for the question with the carried names added (`SearchQuery.text`); `local` also restarts its walk at the
carried entities, with less weight than the question's own. With an LLM the engine rewrites the question
into a standalone one instead (`followup_rewrite` prompt)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphwright.errors import LLMError
from graphwright.llm import LLM
from graphwright.llm.prompts import render
from graphwright.models import ChatTurn, EntityRef
from graphwright.search.answer_entity import ANSWER_CANDIDATES, Answered, answered_entity, stated_beside
from graphwright.search.linking import ANAPHORS, EntityLinker, Mention, question_words
from graphwright.text.languages import LANGUAGES, detect, language
from graphwright.text.languages.base import Language

# How much a carried entity counts against one the question names (1.0): an answer's entities count less
# than a question's (an offline answer is passages, full of names), and each earlier exchange half as
# much as the next. Fixed on principle, not fitted to a data set.
ANSWER_WEIGHT = 0.5
DECAY = 0.5
# Pronouns agree with what they stand for: "he" is a person, "it" is not ("they", "this" may be either). An
# entity that does not agree with the question's pronoun keeps this share of its weight (its type may be
# wrong, and a question may mix pronouns).
PERSONAL = frozenset().union(*(language(code).personal_anaphors for code in LANGUAGES))
IMPERSONAL = frozenset().union(*(language(code).impersonal_anaphors for code in LANGUAGES))
DISAGREEING = 0.5
UNTYPED = frozenset({"CONCEPT", ""})
CARRIED_ENTITIES = 5
ANSWER_ENTITIES = 3  # the names an answer repeats most (then those it names first)
TEXT_NAMES = 3  # at most this many carried names are added to what passage retrieval searches for
HISTORY_TURNS = 6  # the most recent turns (3 exchanges) a follow-up looks at
# What of each turn is linked: its start, where a question names its subject and an answer its best
# evidence; a 20,000-character turn would otherwise cost a graph read of tens of thousands of spans.
_TURN_CHARS = 2000


@dataclass
class FollowUp:
    """What a question takes from its conversation: whether it depends on it, why, the carried entities
    (score = weight in (0, 1]) and the names added to the text passage modes search for."""

    depends: bool
    reason: str
    entities: list[EntityRef] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    answered: str = ""  # the entity the last answer gave, when it is what the question refers to

    def note(self) -> str:
        if not self.depends:
            return f"follow-up: stands alone ({self.reason})"
        carried = ", ".join(f"{e.name} ({e.score:.2f})" for e in self.entities) or "nothing found to carry"
        return f"follow-up ({self.reason}): carried {carried}"


def anaphors(question: str, names: Sequence[Mention] = (), spoken: Language | None = None) -> list[str]:
    """The words of the question that refer back ("it", "his", "these"); a word inside a name the
    question says ("It" of the song "Changed It") is part of that name. `spoken`: the question's language."""
    inside = {i for m in names for i in range(m.start, m.end)}
    words = question_words(question, spoken)
    return [w for i, w in enumerate(words) if w.lower() in ANAPHORS and i not in inside]


def dependence(
    question: str, named: list[EntityRef], names: Sequence[Mention] = (), spoken: Language | None = None
) -> tuple[bool, str]:
    """Whether the question needs its conversation, and why: a pronoun or an ellipsis always does; a
    question naming an entity of its own and pointing back at nothing stands alone (a topic shift); one
    naming nothing needs what came before."""
    spoken = spoken or detect(question)
    pointing = anaphors(question, names, spoken)
    if pointing:
        return True, f"refers back with {', '.join(dict.fromkeys(w.lower() for w in pointing))!s}"
    if spoken.ellipsis.search(question):  # "and his wife?", "what about the sequel?", "那导演呢？"
        return True, "elliptic"
    if named:
        return False, f"names {', '.join(e.name for e in named[:3])}"
    return True, "names no entity of its own"


def _answer_entities(
    found: tuple[list[EntityRef], list[Mention]], asked: set[str], limit: int = ANSWER_ENTITIES
) -> list[EntityRef]:
    """The entities an answer is about: those it names most often (then first), besides those its question
    named. An offline answer is passages and graph lines, where the bridge entity ("Leo Fong" for "who
    directed Blood Street?") recurs and a name the search only guessed at appears once."""
    refs, mentions = found
    by_id = {e.id: e for e in refs}
    counts: dict[str, int] = {}
    for mention in mentions:
        counts[mention.entity_id] = counts.get(mention.entity_id, 0) + 1
    first = {m.entity_id: i for i, m in reversed(list(enumerate(mentions)))}
    ranked = sorted((i for i in counts if i not in asked), key=lambda i: (-counts[i], first[i]))
    return [by_id[i] for i in ranked[:limit]]


def resolve(linker: EntityLinker, question: str, history: list[ChatTurn], spoken: Language | None = None) -> FollowUp:
    """What `question` takes from `history` (oldest turn first), in a few reads of the graph: the names of
    the question and of every recent turn at once, the entities stored turns named, and (when the last
    question asked for an entity) the relations between its subject and its answer's entities."""
    recent = history[-HISTORY_TURNS:]
    texts = texts_of(recent)
    linked = linker.exact_many([question, *texts], [False, *(t.role == "assistant" for t in recent)])
    named, names = linked[0]
    spoken = spoken or detect(question)
    depends, reason = dependence(question, named, names, spoken)
    if not depends or not history:
        return FollowUp(depends=False, reason=reason if history else "no history")
    stored_ids = list(dict.fromkeys(i for t in recent for i in t.entity_ids))
    stored = {e.id: e for e in linker.entities(stored_ids)} if stored_ids else {}
    pointing = {w.lower() for w in anaphors(question, names, spoken)}
    # "it" after "who directed X?" finds no answered entity it agrees with: it stands for X, the subject
    answered = _last_answer(linker, recent, linked, stored, lambda kind: agreement(pointing, kind) == 1.0)
    own = {e.id for e in named}
    carried: dict[str, EntityRef] = {}
    exchange = 0  # 0 for the latest exchange, 1 for the one before...
    for position in range(len(recent) - 1, -1, -1):
        turn = recent[position]
        weight = DECAY**exchange * (1.0 if turn.role == "user" else ANSWER_WEIGHT)
        if turn.role == "user":
            refs = linked[position + 1][0]
        else:
            refs = _answer_entities(linked[position + 1], _asked(recent, position, linked))
            if answered is not None and exchange == 0:
                ref = answered.entity.model_copy(update={"score": 1.0, "how": "answered"})
                carried[ref.id] = ref
        refs = [*(stored[i] for i in turn.entity_ids if i in stored), *refs]
        for ref in refs:
            if ref.id in own or (ref.id in carried and carried[ref.id].score >= weight):
                continue
            carried[ref.id] = ref.model_copy(update={"score": weight, "how": "carried"})
        if turn.role == "user":  # an exchange begins with its question
            exchange += 1
    agreeing: dict[str, bool] = {}
    for ref in carried.values():
        factor = agreement(pointing, ref.type)
        agreeing[ref.id] = factor == 1.0
        ref.score *= factor
    # A referent the pronoun agrees with comes before any it does not ("it" after "who directed X?": X).
    entities = sorted(carried.values(), key=lambda e: (not agreeing[e.id], -e.score))[:CARRIED_ENTITIES]
    # Passage retrieval has no weights: it searches for the likeliest referents only, those of the top
    # weight ("its mirror" after a question about Hubble: Hubble, not the other telescopes the answer named).
    top = entities[0] if entities else None
    first = [e for e in entities if top and agreeing[e.id] == agreeing[top.id] and e.score >= top.score - 1e-9]
    searched = [e.name for e in first]
    chosen = answered.entity.name if answered is not None and top is not None and top.id == answered.entity.id else ""
    if answered is not None and chosen:
        reason += f"; the last answer's {chosen} ({answered.why})"
        # The chain's evidence is the subject's passage (which states the answer) and the answer's own: both
        # are searched for, and a wrong pick still leaves the subject found.
        searched = [chosen, *(e.name for e in linked[len(recent) - 1][0] if e.id not in own)]
    return FollowUp(depends=True, reason=reason, entities=entities, names=searched[:TEXT_NAMES], answered=chosen)


def texts_of(turns: list[ChatTurn]) -> list[str]:
    """What of each turn is linked (its start)."""
    return [t.content[:_TURN_CHARS] for t in turns]


def _asked(recent: list[ChatTurn], position: int, linked: list[tuple[list[EntityRef], list[Mention]]]) -> set[str]:
    """The entities the question before answer `position` named: carried from it, not again from the answer."""
    before = recent[position - 1] if position and recent[position - 1].role == "user" else None
    return {e.id for e in linked[position][0]} | set(before.entity_ids) if before else set()


def _last_answer(
    linker: EntityLinker,
    recent: list[ChatTurn],
    linked: list[tuple[list[EntityRef], list[Mention]]],
    stored: dict[str, EntityRef],
    fits: Callable[[str], bool],
) -> Answered | None:
    """The entity the latest answer gave, when the latest question asked for one (search/answer_entity.py)."""
    if len(recent) < 2 or recent[-1].role != "assistant" or recent[-2].role != "user":
        return None
    position = len(recent) - 1
    asked_ids = _asked(recent, position, linked)
    asked = [*linked[position][0], *(stored[i] for i in recent[-2].entity_ids if i in stored)]
    question = recent[-2].content[:_TURN_CHARS]
    refs, mentions = linked[position + 1]
    stated = stated_beside(question, asked, recent[position].content[:_TURN_CHARS], mentions)
    candidates = _answer_entities(linked[position + 1], asked_ids, ANSWER_CANDIDATES)
    seen = {c.id for c in candidates} | asked_ids
    # a name stated as the answer counts however often the answer repeats it
    candidates += [r for r in refs if r.id in stated and r.id not in seen]
    seen |= set(stated)
    candidates += [stored[i] for i in recent[-1].entity_ids if i in stored and i not in seen]
    return answered_entity(linker, question, asked, candidates, stated, fits)


def agreement(pointing: set[str], entity_type: str) -> float:
    """How well an entity of `entity_type` agrees with the question's pronouns (1.0, or DISAGREEING). An
    untyped entity (CONCEPT, the offline extractor's word for "no kind known") agrees with any: most
    people an offline graph knows only from a passage title are untyped."""
    if entity_type.upper() in UNTYPED:
        return 1.0
    person = entity_type.upper() == "PERSON"
    if pointing & PERSONAL and not pointing & IMPERSONAL:
        return 1.0 if person else DISAGREEING
    if pointing & IMPERSONAL and not pointing & PERSONAL:
        return DISAGREEING if person else 1.0
    return 1.0


_REWRITE_TURN_CHARS = 1000
_MAX_REWRITE_CHARS = 1000


def rewrite(llm: LLM, question: str, history: list[ChatTurn]) -> str | None:
    """The question as the LLM makes it stand alone, or None when its reply is no usable question (empty,
    or far longer than a question)."""
    transcript = "\n".join(
        f"{turn.role}: {' '.join(turn.content[:_REWRITE_TURN_CHARS].split())}" for turn in history[-HISTORY_TURNS:]
    )
    try:
        reply = llm.chat(
            [
                {"role": "system", "content": render("followup_rewrite")},
                {"role": "user", "content": f"Conversation:\n{transcript}\n\nLast question: {question}"},
            ],
            task="followup_rewrite",
        ).text
    except LLMError:  # empty, or the endpoint failed: the offline reading carries the entities instead
        return None
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    if not lines or len(lines[0]) > _MAX_REWRITE_CHARS:
        return None
    return lines[0].removeprefix("Rewritten question:").strip().strip('"') or None
