"""Naive RAG: the chunk vector index, top k by cosine similarity."""

from __future__ import annotations

from graphwright.embeddings import Embedder
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.queries import MetadataFilter
from graphwright.models import RetrievedChunk
from graphwright.search.results import rows_to_chunks


class VectorRetriever:
    def __init__(self, store: Neo4jStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def retrieve(self, question: str, k: int, filters: list[MetadataFilter] | None = None,
                 embedding: list[float] | None = None) -> list[RetrievedChunk]:
        vector = embedding if embedding is not None else self.embedder.embed([question])[0]
        return rows_to_chunks(self.store.vector_search(vector, k, filters), "vector")
