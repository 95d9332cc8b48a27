"""What a language gives the rest of graphwright: how its text splits into words and sentences, which words
carry nothing, which point back at what was said before, and how the offline parts speak it.

Chosen per document and per question by `detect` (languages/__init__.py), so a mixed corpus works: an English
question reads the English cues, a Chinese one the Chinese cues, whatever else the graph holds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable


class Language(Protocol):
    code: str  # ISO 639-1: "en", "zh"
    name: str
    # Whether words are written without spaces, so that search needs the language's own segmentation: its
    # chunks then carry `index_terms`, searched by a whitespace-analysed index (graph_store/queries/retrieval.py).
    segmented: bool
    stopwords: frozenset[str]
    # Words that point back at something said before ("it", "他"), and openings of an elliptic follow-up
    # ("and the director?", "那导演呢？").
    anaphors: frozenset[str]
    personal_anaphors: frozenset[str]
    impersonal_anaphors: frozenset[str]
    ellipsis: re.Pattern[str]
    # The router's cues: corpus-wide wording, connection wording, intersection wording.
    thematic: re.Pattern[str]
    connection: re.Pattern[str]
    intersection: re.Pattern[str]

    def claim(self, text: str) -> float:
        """How sure this language is that `text` is written in it, 0..1 (detection takes the highest)."""
        ...

    def words(self, text: str) -> list[str]:
        """The text's words in order, case kept, punctuation dropped: what question spans are built from."""
        ...

    def join(self, words: list[str]) -> str:
        """Words back into a name as the language writes one ("Buzz Aldrin", "知识图谱")."""
        ...

    def names(self, sentence: str) -> list[tuple[str, str]]:
        """(name, TYPE) of the names and terms the language's own tagger finds in a sentence, in order; [] for
        a language whose names the extractors find themselves (English)."""
        ...

    def terms(self, text: str, *, document: bool = False) -> list[str]:
        """Terms a whole text (a chunk, or with `document` a whole document, which asks more of a term) shows
        by repeating them, which its sentences alone do not; [] when the language has none to add."""
        ...

    def index_terms(self, text: str) -> str:
        """For a segmented language: the text's search terms, lowercased, separated by single spaces (what
        the terms index stores and a question is matched against); "" for the others."""
        ...

    def query_terms(self, text: str) -> str:
        """The terms a question is searched by in the index of `index_terms` (its own terms, and what else finds
        the passages holding them)."""
        ...

    def split_sentences(self, text: str) -> list[str]: ...

    def report(self, key: str, **values: object) -> str:
        """An offline report's sentence in this language: `key` names the template, `values` fill it."""
        ...


@dataclass(frozen=True)
class Alternatives:
    """One word or phrase of a question in another language's index terms: its candidate translations with a
    prior weight each (how common the reading is), and the word as written (text in Latin letters keeps RAG,
    token, Neo4j). A term with a space in it is a phrase of index terms."""

    source: str
    translations: dict[str, float] = field(default_factory=dict)
    as_written: dict[str, float] = field(default_factory=dict)

    def reweighted(self, corpus_counts: dict[str, int]) -> Alternatives:
        """The translations the corpus uses, weighted by how many of its passages use each (the corpus, not a
        general dictionary, says which sense it writes: 置信 "confidence" in a text on retrieval, 信心
        elsewhere); the word as written kept as it is."""
        used = {t: corpus_counts.get(t, 0) for t in self.translations if corpus_counts.get(t, 0) > 0}
        total = sum(used.values())
        return replace(self, translations={t: n / total for t, n in used.items()} if total else {})

    def terms(self) -> dict[str, float]:
        merged = dict(self.translations)
        for term, weight in self.as_written.items():
            merged[term] = merged.get(term, 0.0) + weight
        return merged


@runtime_checkable
class Translating(Protocol):
    """A language whose passages a question in another language can still find by words: it says that
    question in its own search terms (dictionary query translation), for a corpus no embedder reads in both."""

    def search_terms_from(self, words: list[str], source: str) -> list[Alternatives]:
        """For a question's `words` in language `source`: one `Alternatives` per word or phrase of the
        question; [] when this language cannot translate from `source`."""
        ...
