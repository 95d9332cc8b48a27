"""Questions as Lucene fulltext queries: every question parses, and nothing in it is query syntax."""

from __future__ import annotations

import re

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_LUCENE_OPERATORS = {"AND", "OR", "NOT", "TO"}
# Codes such as QX-7719-ZB, ISO/IEC-27001 or v2.3.1: the analyzer splits them into pieces that other
# codes share, so they are searched as exact phrases.
CODE_RE = re.compile(r"^\w+(?:[-/._:]\w+)+$")
_EDGE_PUNCTUATION = ".,;:!?()[]{}'\""


def has_identifier(text: str) -> bool:
    """A code that mixes letters and digits (QX-7719-ZB, v2.3.1, U-20); a year range (1945-1949) is not one."""
    for word in text.split():
        core = word.strip(_EDGE_PUNCTUATION)
        if CODE_RE.match(core) and any(ch.isdigit() for ch in core) and any(ch.isalpha() for ch in core):
            return True
    return False


def to_lucene(question: str) -> str:
    """Plain words for the Lucene parser: specials escaped, operators neutralized, so any question parses."""
    terms = []
    for word in question.split():
        core = word.strip(_EDGE_PUNCTUATION)
        if CODE_RE.match(core) and any(ch.isdigit() for ch in core):
            terms.append(f'"{core}"')
            continue
        if word in _LUCENE_OPERATORS:
            word = word.lower()
        escaped = _LUCENE_SPECIAL.sub(r"\\\1", word)
        if escaped.strip("\\"):
            terms.append(escaped)
    return " ".join(terms)
