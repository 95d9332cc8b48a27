"""Token counts by regex (words, single CJK characters, punctuation): close to word-piece counts for
English, and safe offline (no tokenizer download); and the overlap of two sets (of words, of members)."""

from __future__ import annotations

import re

# The Han (Chinese) characters, as regex ranges: one table for every module that tells Chinese apart.
HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RE = re.compile(f"[{HAN_RANGES}]")

_TOKEN_RE = re.compile(rf"[{HAN_RANGES}]|[^\W{HAN_RANGES}]+|[^\w\s]")


def count_tokens(text: str) -> int:
    return len(_TOKEN_RE.findall(text))


_SUBWORD_RE = re.compile(rf"[{HAN_RANGES}]|[A-Za-z]+|\d{{1,3}}|[^\W{HAN_RANGES}\d]+|[^\w\s]+|\S")


def estimate_subword_tokens(text: str) -> int:
    """About how many tokens an LLM's subword tokenizer (BPE, SentencePiece) makes of `text`: a word up to
    6 letters is one, a longer one one more per 6 letters further, numbers per 3 digits, a run of punctuation
    one per 2 marks (tokenizers merge `": [{"`), each CJK character one."""
    count = 0
    for piece in _SUBWORD_RE.findall(text):
        if piece[0].isalpha() and len(piece) > 1:
            count += 1 + (len(piece) - 1) // 6
        elif not piece[0].isalnum():
            count += (len(piece) + 1) // 2
        else:
            count += 1
    return count


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def singular(word: str) -> str | None:
    """The word without a plural -s ("stages" -> "stage"), None where it has none to drop (short words and
    -ss: "bus", "class")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else None
