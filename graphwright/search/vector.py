"""Naive RAG: the chunk vector index, top k by cosine similarity."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from graphwright.embeddings import Embedder, embed_questions, knows_language, similarity
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.search.base import SearchContext, SearchMode, SearchQuery, ToolSpec
from graphwright.search.evidence import Retrieval
from graphwright.search.results import rows_to_chunks
from graphwright.text.languages.base import Language


class Retriever(Protocol):
    def retrieve(
        self, question: str, k: int, filters: list[MetadataFilter] | None = None, embedding: list[float] | None = None
    ) -> list[RetrievedChunk]: ...


def cosine(index_score: float) -> float:
    """Neo4j's cosine vector index scores (1 + cos) / 2; fusion and the walk's seeds work in cosine."""
    return 2.0 * index_score - 1.0


class VectorRetriever:
    def __init__(self, store: GraphStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def retrieve(
        self, question: str, k: int, filters: list[MetadataFilter] | None = None, embedding: list[float] | None = None
    ) -> list[RetrievedChunk]:
        vector = embedding if embedding is not None else embed_questions(self.embedder, [question])[0]
        return rows_to_chunks(self.store.retrieval.vector_search(vector, k, filters), "vector")

    def reads(self, asked: Language) -> bool:
        """Whether the embedder was trained on the question's language (`asked`): else its similarities are
        noise."""
        return knows_language(self.embedder, asked.code)

    def reads_passage(self, chunk: RetrievedChunk) -> bool:
        """Whether the embedder was trained on the passage's language (one of unknown language is taken to be
        read): its similarity to a passage it cannot read is noise too, whatever the question's language."""
        return chunk.language is None or knows_language(self.embedder, chunk.language)

    def similarity(self, cosine_similarity: float) -> float:
        """A cosine on the common scale (above a calibrated embedder's floor)."""
        return similarity(self.embedder, cosine_similarity)

    def similarities(self, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
        """The chunks with their index scores as cosine similarity on the common scale (above a calibrated
        embedder's floor): what fusion and the walk's seeds compare."""
        return [c.model_copy(update={"score": similarity(self.embedder, cosine(c.score))}) for c in chunks]


class PassageMode(SearchMode, ABC):
    """A mode that ranks passages with one retriever; it takes metadata filters and HyDE."""

    filterable = True
    accepts_hyde = True
    ranks_passages = True

    @abstractmethod
    def retriever(self, ctx: SearchContext) -> Retriever: ...

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        chunks = self.retriever(ctx).retrieve(query.text, query.k, query.filters or None, query.embedding)
        return Retrieval(chunks=chunks)


class VectorMode(PassageMode):
    name = "vector"
    summary = "passages by embedding similarity"
    routable = True
    route_when = "paraphrased question, nothing exact to match"
    tool = ToolSpec("vector_search", "Passages semantically close to the query.")

    def retriever(self, ctx: SearchContext) -> Retriever:
        return VectorRetriever(ctx.store, ctx.embedder)
