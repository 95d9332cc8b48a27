"""The RAPTOR summary tree in Neo4j: the passages' vectors it is built from, its summaries written and read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from graphwright.errors import QueryRejectedError
from graphwright.graph_store.connection import Role, write_batches
from graphwright.graph_store.queries import summaries as q
from graphwright.graph_store.rows import ChunkVectorRow, ScoredChunkRow, SummaryRow
from graphwright.models import MetadataFilter


class SummaryStore(Role):
    def ensure_schema(self, dimension: int, analyzer: str) -> None:
        for statement in q.summary_schema(dimension, analyzer):
            self.connection.write(statement)

    def chunk_vectors(self, page: int = 5000) -> Iterator[ChunkVectorRow]:
        """Every passage with its vector, a page at a time (a corpus of filings does not fit one answer)."""
        after = ""
        while True:
            rows = self.connection.read(q.CHUNK_VECTORS_PAGE, after=after, limit=page)
            yield from cast(list[ChunkVectorRow], rows)
            if len(rows) < page:
                return
            after = rows[-1]["id"]

    def entity_names(self, chunk_ids: list[str], limit: int) -> list[str]:
        return [r["name"] for r in self.connection.read(q.CHUNK_ENTITY_NAMES, ids=chunk_ids, limit=limit)]

    def catalog(self) -> dict[str, int]:
        return {r["id"]: int(r["links"]) for r in self.connection.read(q.SUMMARY_CATALOG)}

    def texts_and_vectors(self, ids: list[str]) -> dict[str, tuple[str, list[float]]]:
        """Stored summaries' text and vector, by id (a new parent of kept summaries reads them)."""
        rows = self.connection.read(q.SUMMARY_TEXTS, ids=ids)
        return {r["id"]: (r["text"], list(r["embedding"])) for r in rows}

    def write(
        self,
        removed: Sequence[str],
        rows: Sequence[dict[str, Any]],
        chunk_links: Sequence[dict[str, str]],
        summary_links: Sequence[dict[str, str]],
        batch_size: int = 2000,
    ) -> None:
        """Remove vanished summaries, then write new ones and their links, in bounded transactions: a tree is
        derived data, so a crash midway leaves a tree the next build completes, never a lost passage."""
        for statement, data, key in (
            (q.DELETE_SUMMARIES, removed, "ids"),
            (q.WRITE_SUMMARIES, rows, "rows"),
            (q.LINK_SUMMARY_CHUNKS, chunk_links, "rows"),
            (q.LINK_SUMMARY_SUMMARIES, summary_links, "rows"),
        ):
            write_batches(self.connection, statement, key, data, batch_size)

    def search(self, embedding: list[float], k: int) -> list[SummaryRow]:
        """The summaries closest to `embedding`; none in a workspace whose tree was never built (its index is
        made by the first build)."""
        try:
            rows = self.connection.read(q.SUMMARY_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100))
        except QueryRejectedError as exc:
            if "no such vector schema index" in str(exc):
                return []
            raise
        return cast(list[SummaryRow], rows)

    def leaves(
        self, summary_ids: list[str], embedding: list[float], n: int, filters: list[MetadataFilter] | None = None
    ) -> dict[str, list[ScoredChunkRow]]:
        """Each summary's `n` leaf passages closest to `embedding` (score: their cosine), closest first, of the
        documents `filters` keep."""
        found: dict[str, list[ScoredChunkRow]] = {i: [] for i in summary_ids}
        query, params = q.summary_leaves(filters)
        for row in self.connection.read(query, ids=summary_ids, embedding=embedding, n=n, **params):
            summary = row.pop("summary")
            found[summary].append(cast(ScoredChunkRow, row))
        return found
