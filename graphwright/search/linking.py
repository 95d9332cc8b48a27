"""Entity linking: which entities of the graph a question is about.

Three signals, strongest first: an exact name match (every 1-6 word span of the question, compared by
normalized key, so case and punctuation do not matter), the entity fulltext index on names, and the entity
vector index. Exact matches covered by a longer exact match ("Apollo" inside "Apollo 11") are dropped."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphwright.graph_store.contracts import EntityIndex
from graphwright.graph_store.rows import KeyedEntityRow
from graphwright.models import EntityRef
from graphwright.text.languages import LANGUAGES, detect, language
from graphwright.text.languages.base import Language
from graphwright.text.lucene import has_unspaced_script, to_lucene
from graphwright.text.normalize import normalize_key
from graphwright.text.stopwords import STOPWORDS

_WORD_RE = re.compile(r"[\w][\w'’.\-&]*", re.UNICODE)
_MAX_SPAN_WORDS = 6
# Words that point back at something said before (search/followup.py), in every language. Never a name of
# their own: an entity named "Him" is not what "the place of birth of him" asks about.
ANAPHORS = frozenset().union(*(language(code).anaphors for code in LANGUAGES))
QUESTION_WORDS = (
    STOPWORDS
    | ANAPHORS
    | frozenset().union(*(language(code).stopwords for code in LANGUAGES))
    | {
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "be",
        "connected",
        "related",
        "linked",
        "name",
        "whose",
        "whom",
        "can",
        "could",
    }
)
# Scores on one scale: exact matches rank above any fulltext or vector candidate.
_EXACT_BASE = 2.0
_FUSION_K = 10
_FUZZY_MIN_CHARS = 5
_FUZZY_MAX_CHARS = 30  # a longer "word" is no name's misspelling, and its automaton is costly
_MAX_FUZZY_TERMS = 32


@dataclass(frozen=True)
class Mention:
    """An exact match of a question span: which words it covers, so later steps know where it sits."""

    entity_id: str
    start: int
    end: int  # exclusive word index


_POSSESSIVE_RE = re.compile(r"['’]s$|['’]$")


def question_words(question: str, spoken: Language | None = None) -> list[str]:
    """Words with possessives and trailing dots removed: "Acme Corp's" -> ["Acme", "Corp"]; a text in a
    language written without spaces split as that language splits it ("知识图谱是什么" -> 知识, 图谱, 是, 什么).
    `spoken`: the text's language, where the caller has it."""
    spoken = spoken or detect(question)
    if spoken.segmented:
        return spoken.words(question)
    return [_POSSESSIVE_RE.sub("", w).rstrip(".") for w in _WORD_RE.findall(question)]


_SENTENCE_END = tuple(".?!:;")
_OPENERS = " \t\n\"'“‘("


def named_mentions(
    question: str, mentions: Sequence[Mention], linked: Sequence[EntityRef] = (), *, spoken: Language | None = None
) -> set[str]:
    """The entities the question writes as names: a mention holding an acronym, a digit, or a capital that is
    not there only because a sentence starts with it ("Give a response" names nothing; "board" in an all-lowercase
    question is a word, not a name). In a script without case every mention counts, and so does each of the
    `linked` entities whose whole name the question holds verbatim ("潘淑" in "潘淑是哪里人"), however the
    segmenter cut the words ("潘淑是 / 哪里 / 人"). What local search lets rank its passages by the walk: a word
    that merely equals some entity's name says nothing about where to walk."""
    if (spoken or detect(question)).segmented:
        whole = {e.id for e in linked if len(e.name) >= 2 and has_unspaced_script(e.name) and e.name in question}
        return {m.entity_id for m in mentions} | whole
    named: list[bool] = []
    for match in _WORD_RE.finditer(question):
        word, before = match.group(), question[: match.start()].rstrip(_OPENERS)
        starts_sentence = not before or before.endswith(_SENTENCE_END)
        acronym = sum(ch.isupper() for ch in word) > 1 or word[:1].isdigit()  # USD, PP&E, 3M: names anywhere
        capital = word[:1].isupper() or has_unspaced_script(word)
        named.append(acronym or (capital and not starts_sentence))
    return {m.entity_id for m in mentions if any(named[m.start : m.end])}


def candidate_spans(words: list[str], names_only: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, key) for each span of 1-6 words that is not only stopwords; with `names_only`, only
    the name-shaped ones, beginning and ending with a capital or a digit ("Leo Fong", "The Curse of the
    Jade Scorpion"): what an answer, long and written in sentences, is matched by."""
    spans = []
    # A question that capitalizes its names is trusted: its all-lowercase spans ("film", "translated") are
    # ordinary words, not names. An all-lowercase question gets every span.
    cased = any(w[:1].isupper() for w in words[1:])
    for start in range(len(words)):
        if names_only and not _name_shaped(words[start]):
            continue
        for end in range(start + 1, min(start + _MAX_SPAN_WORDS, len(words)) + 1):
            if names_only and not _name_shaped(words[end - 1]):
                continue
            span = words[start:end]
            if all(w.lower() in QUESTION_WORDS for w in span):
                continue
            if cased and not any(w[:1].isupper() or w[:1].isdigit() or has_unspaced_script(w) for w in span):
                continue
            key = normalize_key(" ".join(span))
            if len(key) >= 2:
                spans.append((start, end, key))
    return spans


def name_query(question: str) -> str:
    """Lucene query on entity names: the question's words, plus an edit-distance-1 variant of each longer
    word so a misspelt name ("Armstong") still finds its entity."""
    lucene = to_lucene(question)
    if not lucene:
        return ""
    words = [
        w
        for w in dict.fromkeys(question_words(question))
        if _FUZZY_MIN_CHARS <= len(w) <= _FUZZY_MAX_CHARS
        and w.isalpha()
        and not has_unspaced_script(w)
        and w.lower() not in QUESTION_WORDS
    ]
    if len(words) > _MAX_FUZZY_TERMS:  # each is an automaton for Lucene to build: the longest (rarest) first
        longest = set(sorted(words, key=len, reverse=True)[:_MAX_FUZZY_TERMS])
        words = [w for w in words if w in longest][:_MAX_FUZZY_TERMS]
    fuzzy = [f"{w}~1" for w in words]
    return f"name:({lucene})" + (f" OR name:({' '.join(fuzzy)})" if fuzzy else "")


class EntityLinker:
    def __init__(self, graph: EntityIndex) -> None:
        self.graph = graph  # only what linking reads (`store.graph` keeps it), so a test fakes just that

    def exact(self, question: str) -> tuple[list[EntityRef], list[Mention]]:
        return self.exact_many([question])[0]

    def exact_many(
        self, texts: list[str], names_only: Sequence[bool] = ()
    ) -> list[tuple[list[EntityRef], list[Mention]]]:
        """`exact` of each text, in one read of the graph (a conversation's turns at once). A text marked
        `names_only` (an answer, long and written in sentences) is matched by name-shaped spans only: those
        that begin and end with a capital or a digit ("Leo Fong", "The Curse of the Jade Scorpion")."""
        strict = [*names_only, *[False] * (len(texts) - len(names_only))]
        spans = [candidate_spans(question_words(text), only) for text, only in zip(texts, strict)]
        keys = sorted({key for found in spans for _, _, key in found})
        rows = {r["key"]: r for r in self.graph.entities_by_key(keys)} if keys else {}
        return [_exact_matches(found, rows) for found in spans]

    def entities(self, ids: list[str]) -> list[EntityRef]:
        """Entities by id, in the order given (those no longer in the graph left out)."""
        return [
            EntityRef(id=r["id"], name=r["name"], type=r["type"], description=r["description"])
            for r in self.graph.entities_with_ids(ids)
        ]

    def link(self, question: str, embedding: list[float], k: int = 5) -> tuple[list[EntityRef], list[Mention]]:
        """Up to `k` entities: exact matches first, then the others fused by reciprocal rank. When the
        question names an entity exactly, a fuzzy candidate must be found by both name and meaning; else
        every entity is close to something, and the nearest few are noise around a clear anchor."""
        exact, mentions = self.exact(question)
        fused: dict[str, EntityRef] = {}
        found_by: dict[str, set[str]] = {}
        lucene = name_query(question)
        rankings = {
            "fulltext": self.graph.entity_name_search(lucene, 3 * k) if lucene else [],
            "vector": self.graph.entity_vector_search(embedding, 3 * k),
        }
        for how, rows in rankings.items():
            for rank, row in enumerate(rows, start=1):
                ref = fused.setdefault(
                    row["id"],
                    EntityRef(
                        id=row["id"], name=row["name"], type=row["type"], description=row["description"], how=how
                    ),
                )
                ref.score += 1.0 / (_FUSION_K + rank)
                found_by.setdefault(row["id"], set()).add(how)
        exact_ids = {e.id for e in exact}
        others = [r for r in fused.values() if r.id not in exact_ids and (not exact or len(found_by[r.id]) > 1)]
        others.sort(key=lambda r: (-r.score, r.name))
        return (exact + others)[: max(k, len(exact))], mentions


def _name_shaped(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


def _exact_matches(
    spans: list[tuple[int, int, str]], rows: Mapping[str, KeyedEntityRow]
) -> tuple[list[EntityRef], list[Mention]]:
    """The entities whose key a span matches, longest spans first, with where each was mentioned."""
    found = [(start, end, rows[key]) for start, end, key in spans if key in rows]
    # Longest spans first; a span inside one already taken is part of that name, not its own mention.
    found.sort(key=lambda f: (-(f[1] - f[0]), f[0]))
    taken: list[tuple[int, int]] = []
    refs: dict[str, EntityRef] = {}
    mentions: list[Mention] = []
    for start, end, row in found:
        if any(s <= start and end <= e for s, e in taken):
            continue
        taken.append((start, end))
        mentions.append(Mention(row["id"], start, end))
        score = _EXACT_BASE + 0.1 * (end - start) + min(row["degree"], 50) / 1000
        if row["id"] not in refs or refs[row["id"]].score < score:
            refs[row["id"]] = EntityRef(
                id=row["id"],
                name=row["name"],
                type=row["type"],
                description=row["description"],
                score=score,
                how="exact",
            )
    mentions.sort(key=lambda m: m.start)
    return sorted(refs.values(), key=lambda r: -r.score), mentions
