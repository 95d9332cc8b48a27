"""Sentence splitting that keeps initials and abbreviations ("John F. Kennedy", "Dr. Smith") whole."""

from __future__ import annotations

import re

_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F])|(?<=[。！？；])")
_ABBREVIATION_END_RE = re.compile(
    r"(?:\b[A-HJ-UWYZ]|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Capt|Lt|Corp|Inc|Ltd|Co|vs|etc|No|Vol|Fig|e\.g|i\.e))\.$"
)


def split_sentences(paragraph: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END_RE.split(paragraph.strip()) if p and p.strip()]
    merged: list[str] = []
    for part in parts:
        # "John F. Kennedy", "Dr. Smith": a period after an initial or abbreviation does not end a sentence
        if merged and _ABBREVIATION_END_RE.search(merged[-1]):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return merged
