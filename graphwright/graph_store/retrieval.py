"""Reads of chunks: vector and fulltext search, chunks by id, documents."""

from __future__ import annotations

from typing import cast

from graphwright.graph_store import queries as q
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.rows import ChunkRow, DocumentListRow, DocumentRow, EmbeddedChunkRow, ScoredChunkRow
from graphwright.models import MetadataFilter
from graphwright.text.languages import detect
from graphwright.text.lucene import to_lucene


class RetrievalReads:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection

    def vector_search(
        self, embedding: list[float], k: int, filters: list[MetadataFilter] | None = None
    ) -> list[ScoredChunkRow]:
        if filters:
            query, params = q.vector_search_filtered(filters)
            return cast(list[ScoredChunkRow], self.connection.read(query, embedding=embedding, k=k, **params))
        return cast(
            list[ScoredChunkRow],
            self.connection.read(q.VECTOR_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100)),
        )

    def fulltext_search(
        self, lucene_query: str, k: int, filters: list[MetadataFilter] | None = None, *, terms: bool = False
    ) -> list[ScoredChunkRow]:
        """BM25 over the chunks' text and context, or with `terms` over the segmented search terms of
        chunks in a language written without spaces."""
        if filters:
            index = q.CHUNK_TERMS_INDEX if terms else q.CHUNK_FULLTEXT_INDEX
            query, params = q.fulltext_search_filtered(filters, index)
            rows = self.connection.read(query, query=lucene_query, k=k, scan=max(k * 50, 500), **params)
        else:
            rows = self.connection.read(q.TERMS_SEARCH if terms else q.FULLTEXT_SEARCH, query=lucene_query, k=k)
        return cast(list[ScoredChunkRow], rows)

    def keyword_search(
        self, question: str, k: int, filters: list[MetadataFilter] | None = None
    ) -> list[ScoredChunkRow]:
        """BM25 for a question as its language reads it: a question in a language written without spaces
        (Chinese) matches the segmented terms of chunks in that language, word for word; any other the
        chunks' text. A graph written before chunks had terms (nothing found there) is read the old way."""
        language = detect(question)
        if language.segmented:
            terms = to_lucene(language.index_terms(question))
            rows = self.fulltext_search(terms, k, filters, terms=True) if terms else []
            if rows:
                return rows
        lucene = to_lucene(question)
        return self.fulltext_search(lucene, k, filters) if lucene else []

    def co_mentions(self, a: str, b: str, limit: int) -> list[ChunkRow]:
        return cast(list[ChunkRow], self.connection.read(q.CO_MENTIONS, a=a, b=b, limit=limit))

    def chunks_with_ids(self, ids: list[str]) -> list[ChunkRow]:
        """Chunk rows (with document title and source) in the order of `ids`; unknown ids are skipped."""
        rows = {r["chunk_id"]: cast(ChunkRow, r) for r in self.connection.read(q.CHUNKS_BY_IDS, ids=ids)}
        return [rows[i] for i in ids if i in rows]

    def all_chunks(self) -> list[EmbeddedChunkRow]:
        """Every chunk with its text, document and embedding: the corpus the plain-Python peers search."""
        return cast(list[EmbeddedChunkRow], self.connection.read(q.ALL_CHUNKS))

    # --- chunk texts by id, document or phrase (what an imported graph is tied to) ------------------------
    def chunks_by_id(self, ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(q.EXISTING_CHUNKS, ids=ids)}

    def document_chunks(self, document_id: str) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(q.DOCUMENT_CHUNKS, id=document_id)}

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self.connection.read(q.CHUNKS_MATCHING, query=lucene_query, k=k)}

    # --- documents ----------------------------------------------------------------------------------------
    def get_document(self, document_id: str) -> DocumentRow | None:
        rows = self.connection.read(q.GET_DOCUMENT, id=document_id)
        return cast(DocumentRow, rows[0]) if rows else None

    def list_documents(self, offset: int = 0, limit: int = 100) -> list[DocumentListRow]:
        """Documents by id, a page at a time."""
        return cast(list[DocumentListRow], self.connection.read(q.LIST_DOCUMENTS, offset=offset, limit=limit))

    def known_documents(self, keys: list[str]) -> set[str]:
        """Which of `keys` name a document by id or title."""
        return {r["key"] for r in self.connection.read(q.DOCUMENTS_KNOWN, keys=keys) if r["known"]}
