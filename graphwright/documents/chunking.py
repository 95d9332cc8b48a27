"""Split text into overlapping chunks that end on sentence boundaries and prefer paragraph breaks.

Tokens are counted with a regex (words, single CJK characters, punctuation), close to what
word-piece tokenizers produce for English and safe offline (no tokenizer download).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from graphwright.documents.tables import is_table_block
from graphwright.models import Chunk, Document, DocumentPart
from graphwright.text.code_blocks import paragraphs
from graphwright.text.languages import detect
from graphwright.text.sentences import split_sentences
from graphwright.text.tokens import count_tokens

# A paragraph break ends the chunk early once it is this full, so chunks rarely straddle topics.
_PARAGRAPH_BREAK_FILL = 0.75


@dataclass(frozen=True)
class _Unit:
    text: str
    n_tokens: int
    starts_paragraph: bool
    page: int | None = None
    section: str = ""


@dataclass(frozen=True)
class TextChunk:
    text: str
    n_tokens: int
    page_start: int | None = None
    page_end: int | None = None
    section: str = ""


def _pack(items: list[str], size: int, separator: str) -> list[str]:
    """Consecutive items joined into pieces of at most `size` tokens (an item alone may be longer)."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for item in items:
        n = count_tokens(item)
        if current and count + n > size:
            pieces.append(separator.join(current))
            current, count = [], 0
        current.append(item)
        count += n
    if current:
        pieces.append(separator.join(current))
    return pieces


def _split_long(sentence: str, size: int) -> list[str]:
    """A sentence longer than a chunk is cut between tokens (never inside a word)."""
    return _pack(re.findall(r"\S+", sentence), size, " ")


def _code_pieces(block: str, size: int) -> list[str]:
    """A code block with its line breaks, cut between lines when it is longer than a chunk (a line longer
    than a chunk between tokens)."""
    lines: list[str] = []
    for line in (line.rstrip() for line in block.strip("\n").splitlines()):
        lines += _split_long(line, size) if count_tokens(line) > size else [line]
    return [p for p in _pack(lines, size, "\n") if p.strip()]


def _units(parts: list[DocumentPart], size: int) -> list[_Unit]:
    units: list[_Unit] = []
    for part in parts:
        for paragraph, code in paragraphs(part.text):
            first = True
            if code or is_table_block(paragraph):  # kept as written: a row a line, code's breaks are code
                for piece in _code_pieces(paragraph, size):
                    units.append(_Unit(piece, count_tokens(piece), first, part.page, part.section))
                    first = False
                continue
            for sentence in split_sentences(" ".join(paragraph.split())):
                n = count_tokens(sentence)
                pieces = _split_long(sentence, size) if n > size else [sentence]
                for piece in pieces:
                    units.append(_Unit(piece, count_tokens(piece), first, part.page, part.section))
                    first = False
    return units


def _chunk(units: list[_Unit], n_tokens: int, fresh: int) -> TextChunk:
    """The page span covers every unit; the section is that of the chunk's first new unit (the overlap
    carried over belongs to the previous chunk's section)."""
    pages = [u.page for u in units if u.page is not None]
    return TextChunk(
        _join(units), n_tokens, min(pages, default=None), max(pages, default=None), units[len(units) - fresh].section
    )


def _join(units: list[_Unit]) -> str:
    out = ""
    for i, unit in enumerate(units):
        if i:
            out += "\n\n" if unit.starts_paragraph else " "
        out += unit.text
    return out


def chunk_text(text: str, size: int = 200, overlap: int = 40) -> list[TextChunk]:
    return chunk_parts([DocumentPart(text=text)], size, overlap)


def chunk_parts(parts: list[DocumentPart], size: int = 200, overlap: int = 40) -> list[TextChunk]:
    """Chunks flow across parts (a sentence cut by a page break still joins its neighbours), and each
    records the pages and section it came from."""
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    chunks: list[TextChunk] = []
    current: list[_Unit] = []
    fresh = 0  # units in `current` that no earlier chunk holds
    for unit in _units(parts, size):
        count = sum(u.n_tokens for u in current)
        full = count + unit.n_tokens > size
        paragraph_break = unit.starts_paragraph and fresh and count >= size * _PARAGRAPH_BREAK_FILL
        if current and fresh and (full or paragraph_break):
            chunks.append(_chunk(current, count, fresh))
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
        chunks.append(_chunk(current, sum(u.n_tokens for u in current), fresh))
    return chunks


# A document's chunks with their ids, context and language: what the pipeline writes.
def chunk_id(document_id: str, index: int, text: str) -> str:
    """Content-addressed: an unchanged chunk keeps its id across re-ingests, a changed one gets a new id."""
    digest = hashlib.sha256(f"{document_id}\x00{index}\x00{text}".encode()).hexdigest()
    return f"c_{digest[:24]}"


# Enough of a document to tell its language; a book need not be read twice for it.
_LANGUAGE_SAMPLE_CHARS = 20_000


def chunk_context(document: Document, section: str) -> str:
    """What a passage is part of, embedded and indexed with it: its document's title, what the document is
    about (its profile: "3M COMPANY 10-K fiscal year 2018") and its section or page heading."""
    about = str(document.metadata.get("about") or "")
    pieces = [document.title, about if about.casefold() not in document.title.casefold() else "", section]
    return " | ".join(p for p in pieces if p)


def make_chunks(document: Document, size: int, overlap: int) -> list[Chunk]:
    parts = document.parts or [DocumentPart(text=document.text)]
    language = detect(document.title + "\n" + document.text[:_LANGUAGE_SAMPLE_CHARS])
    return [
        Chunk(
            id=chunk_id(document.id, i, piece.text),
            document_id=document.id,
            index=i,
            text=piece.text,
            n_tokens=piece.n_tokens,
            context=chunk_context(document, piece.section),
            page_start=piece.page_start,
            page_end=piece.page_end,
            section=piece.section,
            language=language.code,
            terms=language.index_terms(document.title + "\n" + piece.text) if language.segmented else "",
        )
        for i, piece in enumerate(chunk_parts(parts, size, overlap))
    ]
