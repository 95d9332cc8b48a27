"""One passage per page first: the top of a ranking over long documents covers distinct places.

Why: a page of a filing splits into several passages that share its heading and its words, so the passages of
one page crowd the top k together (five of a "Results of operations" page above the statement that answers).
Measured on FinanceBench's shared half, the first passage of each page ahead of the rest moved the gold page
into the top 5 for 8-10 points more of the questions at no cost to the top 10. Passages without pages (records,
Word and HTML sections, plain text) are each their own place: rankings over them are unchanged, and so is the
work (a mode is asked again deeper only when its top k holds two passages of one page)."""

from __future__ import annotations

from graphwright.models import RetrievedChunk

# How deep a passage mode is asked when it ranks long documents' passages: twice k, and at least as deep as
# the headings' reordering needs to reach a statement's page (the depth it was measured at), at most 200.
DEPTH_FACTOR = 2
MIN_DEPTH = 40
MAX_DEPTH = 200


def place(chunk: RetrievedChunk) -> tuple[str, str]:
    return (chunk.document_id, chunk.pages) if chunk.pages else (chunk.document_id, chunk.chunk_id)


def one_per_page_first(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """The first passage of each page in ranking order, then the others in ranking order; ranks renumbered."""
    seen: set[tuple[str, str]] = set()
    first: list[RetrievedChunk] = []
    rest: list[RetrievedChunk] = []
    for chunk in chunks:
        (rest if place(chunk) in seen else first).append(chunk)
        seen.add(place(chunk))
    if not rest:
        return chunks
    return [c.model_copy(update={"rank": rank}) for rank, c in enumerate([*first, *rest], start=1)]


def crowded(chunks: list[RetrievedChunk]) -> bool:
    """Whether two of the passages share a page."""
    places = [place(c) for c in chunks]
    return len(set(places)) < len(places)


def deeper(k: int) -> int:
    return min(max(k * DEPTH_FACTOR, MIN_DEPTH), MAX_DEPTH)
