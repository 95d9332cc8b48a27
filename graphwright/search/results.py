"""Turning store rows into ranked RetrievedChunk records."""

from __future__ import annotations

from typing import Any

from graphwright.models import RetrievedChunk


def rows_to_chunks(rows: list[dict[str, Any]], score_name: str) -> list[RetrievedChunk]:
    return [
        RetrievedChunk(chunk_id=row["chunk_id"], document_id=row["document_id"], text=row["text"],
                       score=float(row["score"]), rank=rank, title=row.get("title"), source=row.get("source"),
                       scores={score_name: float(row["score"])})
        for rank, row in enumerate(rows, start=1)
    ]
