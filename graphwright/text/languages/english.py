"""English: words split at spaces and punctuation, sentences at their ends (initials kept whole)."""

from __future__ import annotations

import re

from graphwright.text.sentences import split_sentences as _split_sentences
from graphwright.text.stopwords import STOPWORDS

_WORD_RE = re.compile(r"[\w][\w'’.\-&]*", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")

_TEMPLATES = {
    "and": " and ",
    "comma": ", ",
    "group": "A group of {size} entities ({kinds}) centred on {names}.",
    "ties": " Strongest ties: {ties}.",
    "tie": "{source} {relation} {target}",
    "kind": "{count} {type}",
    "finding": "{source} {relation} {target} (weight {weight:g})",
    "rating": "{size} members, {relations} internal relations shown, density {density:.2f}",
    "unnamed": "(unnamed)",
    "related": "related to",
}


class English:
    code = "en"
    name = "English"
    segmented = False
    stopwords = frozenset(STOPWORDS)
    # "that" and "there" are left out: in questions they are mostly a relative pronoun ("the film that...")
    # and an expletive ("is there...").
    anaphors = frozenset(
        """it its itself he him his himself she her hers herself they them their theirs themselves this these
        those former latter""".split()
    )
    personal_anaphors = frozenset("he him his himself she her hers herself".split())
    impersonal_anaphors = frozenset("it its itself".split())
    ellipsis = re.compile(r"^\s*(and|also|what about|how about|same for|as for)\b", re.IGNORECASE)
    thematic = re.compile(
        r"\b(themes?|topics?|overall|overview|summari[sz]e|summary|main (?:ideas|points|subjects)|whole corpus|"
        r"these documents|the corpus|the dataset|across (?:all|the)|in general|broadly)\b",
        re.IGNORECASE,
    )
    connection = re.compile(
        r"\b(connected|connection|connects?|relationship between|related to|link(?:ed|s)? "
        r"(?:to|between)|path (?:from|between)|how (?:are|is|do|does) .+ relate)\b",
        re.I,
    )
    intersection = re.compile(r"\b(also|both|in common|common|shared|share|as well as|at the same time)\b", re.I)

    def claim(self, text: str) -> float:
        # The fallback: any text with Latin letters, at half certainty, so a script-specific language wins.
        return 0.5 if _LATIN.search(text) or not text.strip() else 0.1

    def words(self, text: str) -> list[str]:
        return _WORD_RE.findall(text)

    def join(self, words: list[str]) -> str:
        return " ".join(words)

    def names(self, sentence: str) -> list[tuple[str, str]]:
        return []  # English names come from the extractors' own parser and rules

    def terms(self, text: str, *, document: bool = False) -> list[str]:
        return []

    def index_terms(self, text: str) -> str:
        return ""

    def query_terms(self, text: str) -> str:
        return self.index_terms(text)

    def split_sentences(self, text: str) -> list[str]:
        return _split_sentences(text)

    def report(self, key: str, **values: object) -> str:
        if key == "type":
            return str(values["type"]).lower()
        return _TEMPLATES[key].format(**values)


ENGLISH = English()
