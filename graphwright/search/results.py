"""Turning store rows into ranked RetrievedChunk records, and a document's rows into its passages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from graphwright.graph_store.rows import ChunkRow, ScoredChunkRow
from graphwright.models import DocumentPassage, DocumentText, RetrievedChunk

if TYPE_CHECKING:
    from graphwright.graph_store.contracts import RetrievalRole


def chunk_from_row(row: ChunkRow, score: float, rank: int, scores: dict[str, float]) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=row["chunk_id"],
        document_id=row["document_id"],
        text=row["text"],
        score=score,
        rank=rank,
        title=row.get("title"),
        source=row.get("source"),
        scores=scores,
        pages=row.get("pages"),
        section=row.get("section"),
        language=cast(ScoredChunkRow, row).get("language"),  # only ranked rows say
    )


def rows_to_chunks(rows: Sequence[ScoredChunkRow], score_name: str) -> list[RetrievedChunk]:
    return [
        chunk_from_row(row, float(row["score"]), rank, {score_name: float(row["score"])})
        for rank, row in enumerate(rows, start=1)
    ]


def evidence_chunks(rows: Sequence[ChunkRow], kind: str = "evidence") -> list[RetrievedChunk]:
    """Chunk rows that are evidence rather than a ranking (a path's edges, a report's findings): in the
    order given, scored 1/rank."""
    return [chunk_from_row(r, 1.0 / rank, rank, {kind: 1.0}) for rank, r in enumerate(rows, start=1)]


def document_text(retrieval: RetrievalRole, document_id: str) -> DocumentText | None:
    """A stored document's passages in order (None when there is no such document)."""
    found = retrieval.get_document(document_id)
    if found is None:
        return None
    ids = [c["id"] for c in found["chunks"] if c.get("id")]
    rows = {r["chunk_id"]: r for r in retrieval.chunks_with_ids(ids)}
    return DocumentText(
        document_id=document_id,
        title=found["document"].get("title"),
        source=found["document"].get("source"),
        chunks=[
            DocumentPassage(
                chunk_id=i, text=rows[i]["text"], pages=rows[i].get("pages"), section=rows[i].get("section")
            )
            for i in ids
            if i in rows
        ],
    )
