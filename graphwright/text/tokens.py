"""Token counts by regex (words, single CJK characters, punctuation): close to word-piece counts for
English, and safe offline (no tokenizer download); and the overlap of two sets (of words, of members)."""

from __future__ import annotations

import re

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")


def count_tokens(text: str) -> int:
    return len(_TOKEN_RE.findall(text))


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
