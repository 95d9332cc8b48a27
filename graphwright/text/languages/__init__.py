"""Languages behind one seam: a `Language` (base.py) per module, registered here by code, chosen for a text
by `detect`. Adding one = a module with an object satisfying `Language`, plus one line in `LANGUAGES` (or
`LANGUAGES.register(code, "module:object")`)."""

from __future__ import annotations

from graphwright.registry import Registry
from graphwright.text.languages.base import Language

# code -> "module:object"; imported on first use (Chinese loads jieba only when a text needs it). An unknown
# code is a KeyError: a setting or a stored chunk names one.
LANGUAGES: Registry[Language] = Registry(
    "language",
    {
        "en": "graphwright.text.languages.english:ENGLISH",
        "zh": "graphwright.text.languages.chinese:CHINESE",
    },
    unknown=KeyError,
)
DEFAULT = "en"

__all__ = ["DEFAULT", "LANGUAGES", "Language", "detect", "language"]


def language(code: str) -> Language:
    """The registered language `code`; unknown codes are an error (a setting names one)."""
    return LANGUAGES.load(code)


def detect(text: str) -> Language:
    """The language that claims `text` most surely (English when none does)."""
    best = language(DEFAULT)
    score = best.claim(text)
    for code in LANGUAGES:
        if code != DEFAULT:
            candidate = language(code)
            claim = candidate.claim(text)
            if claim > score:
                best, score = candidate, claim
    return best
