"""One passage per page first."""

from __future__ import annotations

from graphwright.models import RetrievedChunk
from graphwright.search.diversity import crowded, deeper, one_per_page_first


def _chunk(cid: str, doc: str, pages: str | None) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=cid, document_id=doc, text="", score=1.0, rank=1, pages=pages)


def test_the_first_passage_of_each_page_comes_first() -> None:
    ranked = [
        _chunk("a", "f.pdf", "19"),
        _chunk("b", "f.pdf", "19"),
        _chunk("c", "f.pdf", "60"),
        _chunk("d", "g.pdf", "19"),
    ]
    out = one_per_page_first(ranked)
    assert [(c.chunk_id, c.rank) for c in out] == [("a", 1), ("c", 2), ("d", 3), ("b", 4)]


def test_passages_without_pages_keep_their_order() -> None:
    ranked = [_chunk("a", "notes.md", None), _chunk("b", "notes.md", None), _chunk("c", "other.md", None)]
    assert one_per_page_first(ranked) == ranked and not crowded(ranked)
    assert crowded([_chunk("a", "f.pdf", "3"), _chunk("b", "f.pdf", "3")])
    assert deeper(5) == 40 and deeper(30) == 60 and deeper(500) == 200
