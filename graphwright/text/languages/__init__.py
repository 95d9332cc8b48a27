"""Languages behind one seam: a `Language` (base.py) per module, registered here by code, chosen for a text
by `detect`. Adding one = a module with an object satisfying `Language`, plus one line in `LANGUAGES`."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from graphwright.text.languages.base import Language

# code -> "module:object"; imported on first use (Chinese loads jieba only when a text needs it).
LANGUAGES: dict[str, str] = {
    "en": "graphwright.text.languages.english:ENGLISH",
    "zh": "graphwright.text.languages.chinese:CHINESE",
}
DEFAULT = "en"

__all__ = ["DEFAULT", "LANGUAGES", "Language", "detect", "language"]


@cache
def language(code: str) -> Language:
    """The registered language `code`; unknown codes are an error (a setting names one)."""
    target = LANGUAGES.get(code)
    if target is None:
        raise KeyError(f"unknown language {code!r}; registered: {', '.join(sorted(LANGUAGES))}")
    module, _, name = target.partition(":")
    found: Language = getattr(import_module(module), name)
    return found


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
