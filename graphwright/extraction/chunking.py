"""Split text into overlapping chunks that end on sentence boundaries and prefer paragraph breaks.

Tokens are counted with a regex (words, single CJK characters, punctuation), close to what
word-piece tokenizers produce for English and safe offline (no tokenizer download).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwright.text.sentences import split_sentences
from graphwright.text.tokens import count_tokens

_PARAGRAPH_RE = re.compile(r"\n\s*\n")
# A paragraph break ends the chunk early once it is this full, so chunks rarely straddle topics.
_PARAGRAPH_BREAK_FILL = 0.75


@dataclass(frozen=True)
class _Unit:
    text: str
    n_tokens: int
    starts_paragraph: bool


@dataclass(frozen=True)
class TextChunk:
    text: str
    n_tokens: int




def _split_long(sentence: str, size: int) -> list[str]:
    """A sentence longer than a chunk is cut between tokens (never inside a word)."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for match in re.finditer(r"\S+", sentence):
        word = match.group(0)
        n = count_tokens(word)
        if current and count + n > size:
            pieces.append(" ".join(current))
            current, count = [], 0
        current.append(word)
        count += n
    if current:
        pieces.append(" ".join(current))
    return pieces


def _units(text: str, size: int) -> list[_Unit]:
    units: list[_Unit] = []
    for paragraph in _PARAGRAPH_RE.split(text):
        first = True
        for sentence in split_sentences(" ".join(paragraph.split())):
            n = count_tokens(sentence)
            pieces = _split_long(sentence, size) if n > size else [sentence]
            for piece in pieces:
                units.append(_Unit(piece, count_tokens(piece), first))
                first = False
    return units


def _join(units: list[_Unit]) -> str:
    out = ""
    for i, unit in enumerate(units):
        if i:
            out += "\n\n" if unit.starts_paragraph else " "
        out += unit.text
    return out


def chunk_text(text: str, size: int = 200, overlap: int = 40) -> list[TextChunk]:
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    chunks: list[TextChunk] = []
    current: list[_Unit] = []
    fresh = 0  # units in `current` that no earlier chunk holds
    for unit in _units(text, size):
        count = sum(u.n_tokens for u in current)
        full = count + unit.n_tokens > size
        paragraph_break = unit.starts_paragraph and fresh and count >= size * _PARAGRAPH_BREAK_FILL
        if current and fresh and (full or paragraph_break):
            chunks.append(TextChunk(_join(current), count))
            tail: list[_Unit] = []
            for prev in reversed(current):
                if sum(u.n_tokens for u in tail) + prev.n_tokens > overlap:
                    break
                tail.insert(0, prev)
            current, fresh = tail, 0
            while current and sum(u.n_tokens for u in current) + unit.n_tokens > size:
                current.pop(0)
        current.append(unit)
        fresh += 1
    if current and fresh:
        chunks.append(TextChunk(_join(current), sum(u.n_tokens for u in current)))
    return chunks
