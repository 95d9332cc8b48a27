"""Reads of chunks: vector and fulltext search, chunks by id, documents."""

from __future__ import annotations

from typing import cast

from graphwright.graph_store.connection import Role
from graphwright.graph_store.queries import graph as q
from graphwright.graph_store.queries.documents import DOCUMENT_STATUS_COUNTS, GET_DOCUMENT, LIST_DOCUMENTS
from graphwright.graph_store.queries.entities import CHUNKS_MATCHING, DOCUMENT_CHUNKS, EXISTING_CHUNKS
from graphwright.graph_store.queries.retrieval import (
    CORPUS_LANGUAGES,
    FULLTEXT_SEARCH,
    TERM_COUNTS,
    TERMS_SEARCH,
    VECTOR_SEARCH,
    fulltext_search_filtered,
    vector_search_filtered,
)
from graphwright.graph_store.queries.schema import CHUNK_FULLTEXT_INDEX, CHUNK_TERMS_INDEX
from graphwright.graph_store.rows import (
    ChunkRow,
    DocumentListRow,
    DocumentProfileRow,
    DocumentRow,
    EmbeddedChunkRow,
    ScoredChunkRow,
)
from graphwright.models import DocumentQuery, MetadataFilter


class RetrievalReads(Role):
    def vector_search(
        self, embedding: list[float], k: int, filters: list[MetadataFilter] | None = None
    ) -> list[ScoredChunkRow]:
        if filters:
            query, params = vector_search_filtered(filters)
            return cast(list[ScoredChunkRow], self.connection.read(query, embedding=embedding, k=k, **params))
        return cast(
            list[ScoredChunkRow],
            self.connection.read(VECTOR_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100)),
        )

    def fulltext_search(
        self, lucene_query: str, k: int, filters: list[MetadataFilter] | None = None, *, terms: bool = False
    ) -> list[ScoredChunkRow]:
        if filters:
            index = CHUNK_TERMS_INDEX if terms else CHUNK_FULLTEXT_INDEX
            query, params = fulltext_search_filtered(filters, index)
            rows = self.connection.read(query, query=lucene_query, k=k, scan=max(k * 50, 500), **params)
        else:
            rows = self.connection.read(TERMS_SEARCH if terms else FULLTEXT_SEARCH, query=lucene_query, k=k)
        return cast(list[ScoredChunkRow], rows)

    def corpus_languages(self) -> set[str]:
        return {r["language"] for r in self.connection.read(CORPUS_LANGUAGES)}

    def term_counts(self, clauses: dict[str, str], limit: int = 1000) -> dict[str, int]:
        if not clauses:
            return {}
        terms = [{"term": t, "clause": c} for t, c in clauses.items()]
        return {r["term"]: r["chunks"] for r in self.connection.read(TERM_COUNTS, terms=terms, limit=limit)}

    def co_mentions(self, a: str, b: str, limit: int) -> list[ChunkRow]:
        return cast(list[ChunkRow], self.connection.read(q.CO_MENTIONS, a=a, b=b, limit=limit))

    def chunks_with_ids(self, ids: list[str]) -> list[ChunkRow]:
        rows = {r["chunk_id"]: cast(ChunkRow, r) for r in self.connection.read(q.CHUNKS_BY_IDS, ids=ids)}
        return [rows[i] for i in ids if i in rows]

    def all_chunks(self) -> list[EmbeddedChunkRow]:
        return cast(list[EmbeddedChunkRow], self.connection.read(q.ALL_CHUNKS))

    # --- chunk texts by id, document or phrase (what an imported graph is tied to) ------------------------
    def chunks_by_id(self, ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(EXISTING_CHUNKS, ids=ids)}

    def document_chunks(self, document_id: str) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(DOCUMENT_CHUNKS, id=document_id)}

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(CHUNKS_MATCHING, query=lucene_query, k=k)}

    # --- documents ----------------------------------------------------------------------------------------
    def get_document(self, document_id: str) -> DocumentRow | None:
        rows = self.connection.read(GET_DOCUMENT, id=document_id)
        return cast(DocumentRow, rows[0]) if rows else None

    def list_documents(self, query: DocumentQuery | None = None) -> list[DocumentListRow]:
        """The documents table a page at a time (stored, interrupted and failed), filtered and sorted."""
        query = query or DocumentQuery()
        rows = self.connection.read(
            LIST_DOCUMENTS[query.descending],
            offset=query.offset,
            limit=query.limit,
            search=query.search.lower() if query.search else None,
            status=query.status,
            language=query.language,
            sort=query.sort,
            stored=query.stored,
        )
        return cast(list[DocumentListRow], rows)

    def document_status_counts(self, *, search: str | None = None, language: str | None = None) -> dict[str, int]:
        rows = self.connection.read(
            DOCUMENT_STATUS_COUNTS, search=search.lower() if search else None, language=language
        )
        return {r["status"]: r["n"] for r in rows}

    def passage_similarities(
        self, ids: list[str], embedding: list[float], languages: frozenset[str] | None = None
    ) -> dict[str, float]:
        rows = self.connection.read(q.PASSAGE_SIMILARITIES, ids=ids, embedding=embedding)
        return {
            r["id"]: float(r["score"])
            for r in rows
            if languages is None or r["language"] is None or r["language"] in languages
        }

    def document_sections(self, ids: list[str], limit: int = 20_000) -> list[tuple[str, str]]:
        rows = self.connection.read(q.DOCUMENT_SECTIONS, ids=ids, limit=limit)
        return [(r["id"], r["section"]) for r in rows]

    def documents_passing(self, ids: list[str], filters: list[MetadataFilter]) -> set[str]:
        query, params = q.documents_passing(filters)
        return {r["id"] for r in self.connection.read(query, ids=ids, **params)}

    def document_profiles(self, limit: int = 10_000) -> list[DocumentProfileRow]:
        return cast(list[DocumentProfileRow], self.connection.read(q.DOCUMENT_PROFILES, limit=limit))

    def known_documents(self, keys: list[str]) -> set[str]:
        return {r["key"] for r in self.connection.read(q.DOCUMENTS_KNOWN, keys=keys) if r["known"]}
