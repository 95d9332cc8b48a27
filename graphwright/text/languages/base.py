"""What a language gives the rest of graphwright: how its text splits into words and sentences, which words
carry nothing, which point back at what was said before, and how the offline parts speak it.

Chosen per document and per question by `detect` (languages/__init__.py), so a mixed corpus works: an English
question reads the English cues, a Chinese one the Chinese cues, whatever else the graph holds."""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable


class Language(Protocol):
    code: str  # ISO 639-1: "en", "zh"
    name: str
    # Whether words are written without spaces, so that search needs the language's own segmentation: its
    # chunks then carry `index_terms`, searched by a whitespace-analysed index (graph_store/queries.py).
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

    def split_sentences(self, text: str) -> list[str]: ...

    def report(self, key: str, **values: object) -> str:
        """An offline report's sentence in this language: `key` names the template, `values` fill it."""
        ...


@runtime_checkable
class Translating(Protocol):
    """A language whose passages a question in another language can still find by words: it says that
    question in its own search terms (dictionary query translation), for a corpus no embedder reads in both."""

    def search_terms_from(self, words: list[str], source: str) -> list[dict[str, float]]:
        """For a question's `words` in language `source`: one group per word or phrase of the question, each
        mapping this language's index terms (a phrase of terms when separated by spaces) that may stand for it
        to a weight; [] when this language cannot translate from `source`."""
        ...
