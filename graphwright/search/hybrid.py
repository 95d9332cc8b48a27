"""Hybrid RAG: fulltext (BM25) and vector candidates fused by reciprocal rank fusion, optionally reranked."""

from __future__ import annotations

from graphwright.config import Settings
from graphwright.embeddings import Embedder
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.queries import MetadataFilter
from graphwright.models import RetrievedChunk
from graphwright.search.base import SearchContext, ToolSpec
from graphwright.search.rerank import Reranker
from graphwright.search.results import rows_to_chunks
from graphwright.search.vector import PassageMode, VectorRetriever
from graphwright.text.lucene import to_lucene

# Candidates per side before fusion: enough depth for RRF to matter without scanning everything.
_CANDIDATE_FACTOR = 4
_MIN_CANDIDATES = 20


def reciprocal_rank_fusion(rankings: dict[str, list[RetrievedChunk]], k: int = 60,
                           weights: dict[str, float] | None = None) -> list[RetrievedChunk]:
    """score(d) = sum over rankings of weight / (k + rank) (weight 1 unless given); each side's own score is
    kept in `scores`."""
    fused: dict[str, RetrievedChunk] = {}
    totals: dict[str, float] = {}
    for name, ranking in rankings.items():
        for chunk in ranking:
            entry = fused.get(chunk.chunk_id)
            if entry is None:
                entry = chunk.model_copy(update={"scores": {}})
                fused[chunk.chunk_id] = entry
            entry.scores[name] = chunk.score
            entry.scores[f"{name}_rank"] = float(chunk.rank)
            weight = (weights or {}).get(name, 1.0)
            totals[chunk.chunk_id] = totals.get(chunk.chunk_id, 0.0) + weight / (k + chunk.rank)
    ordered = sorted(fused.values(), key=lambda c: (-totals[c.chunk_id], c.chunk_id))
    for rank, chunk in enumerate(ordered, start=1):
        chunk.score = totals[chunk.chunk_id]
        chunk.scores["rrf"] = chunk.score
        chunk.rank = rank
    return ordered


class HybridRetriever:
    def __init__(self, store: Neo4jStore, embedder: Embedder, rrf_k: int = 60,
                 reranker: Reranker | None = None) -> None:
        self.store = store
        self.vector = VectorRetriever(store, embedder)
        self.rrf_k = rrf_k
        self.reranker = reranker

    @classmethod
    def from_settings(cls, store: Neo4jStore, embedder: Embedder, settings: Settings) -> HybridRetriever:
        """The hybrid retriever as configured: with the cross-encoder reranker when one is set."""
        reranker = None
        if settings.rerank_model:
            from graphwright.search.rerank import CrossEncoderReranker

            reranker = CrossEncoderReranker(settings.rerank_model, settings.embedding_device)
        return cls(store, embedder, settings.rrf_k, reranker)

    def fulltext(self, question: str, k: int, filters: list[MetadataFilter] | None = None) -> list[RetrievedChunk]:
        lucene = to_lucene(question)
        if not lucene:
            return []
        return rows_to_chunks(self.store.retrieval.fulltext_search(lucene, k, filters), "fulltext")

    def retrieve(self, question: str, k: int, filters: list[MetadataFilter] | None = None,
                 embedding: list[float] | None = None) -> list[RetrievedChunk]:
        depth = max(k * _CANDIDATE_FACTOR, _MIN_CANDIDATES)
        fused = reciprocal_rank_fusion(
            {"fulltext": self.fulltext(question, depth, filters),
             "vector": self.vector.retrieve(question, depth, filters, embedding)},
            self.rrf_k,
        )
        if self.reranker is not None:
            fused = self.reranker.rerank(question, fused[:depth])
        return fused[:k]


class HybridMode(PassageMode):
    name = "hybrid"
    summary = "passages by BM25 and embedding similarity, fused by reciprocal rank (optionally reranked)"
    tool = ToolSpec("hybrid_search", "Passages by keywords (BM25) and meaning; best for names, codes, numbers.")

    def retriever(self, ctx: SearchContext) -> HybridRetriever:
        return HybridRetriever.from_settings(ctx.store, ctx.embedder, ctx.settings)
