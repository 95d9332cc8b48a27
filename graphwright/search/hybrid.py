"""Hybrid RAG: fulltext (BM25) and vector candidates fused by a convex combination of their scores, each
scaled by its own best, optionally reranked.

Why scores and not ranks: reciprocal rank fusion throws away how far apart candidates are, so a passage
that one side ranks 2nd by a hair and the other does not see at all ties with a clear winner. Scaled
scores keep that margin. Why 0.8 on the dense side: of the weights tried (0.5 to 0.9) it is the one whose
hybrid is at least as good as the better of its two parts at R@2 and R@5 on both shared eval sets at once
(docs/benchmarks.md); dense similarity carries paraphrase, BM25 the exact names it adds. A question holding
an identifier (QX-7719-ZB) is the other way round: a sentence embedding sees the code as sub-word noise
while BM25 matches it exactly, so there the weights swap. So they do for a question in a language the embedder
was not trained on (the bundled English model on a Chinese question): its similarities are noise around
0.8 for every passage, and would bury the exact words BM25 found. And so they do, passage by passage, for a
passage in a language the embedder does not read (an English question, Chinese passages found by the question's
translation into Chinese terms): its similarity to anything is the same noise, so such a passage is ranked by
its words alone (the keyword ranking puts it on the scale of the question's own language's passages by the
share of the question it holds: graph_store/retrieval.py).

Inside the documents a question names (a company's filing for the year it asks about: search/document_focus.py)
the keyword side weighs nothing unless the question holds an identifier: the names and years that chose the
documents are on every one of their pages, and the words left are ordinary wording that the embedding reads
better (FinanceBench's shared half: BM25 alone puts the gold page in the top 5 for 13% of questions, meaning
for 60%, and a keyword weight of 0.2, the default, or 0.1 put hybrid below vector there: docs/benchmarks.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from graphwright.config import Settings
from graphwright.embeddings import Embedder
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.search.base import SearchContext, SearchQuery, ToolSpec
from graphwright.search.evidence import Retrieval
from graphwright.search.keywords import keyword_search
from graphwright.search.rerank import Reranker
from graphwright.search.results import rows_to_chunks
from graphwright.search.vector import PassageMode, VectorRetriever
from graphwright.text.languages import detect
from graphwright.text.languages.base import Language
from graphwright.text.lucene import has_identifier

# Candidates per side before fusion: enough depth for a passage one side ranks low to still count.
_CANDIDATE_FACTOR = 4
_MIN_CANDIDATES = 20


Weights = Mapping[str, float]
# A passage the embedder cannot read (an English question, a Chinese passage found by the question's
# translation) is ranked by its words alone, at full weight: its similarity is noise, and any share of that
# noise would lift it above English passages that match the question better.
_WORDS_ONLY: Weights = {"vector": 0.0, "fulltext": 1.0}
_MEANING_ONLY: Weights = {"vector": 1.0, "fulltext": 0.0}


def convex_fusion(
    rankings: dict[str, list[RetrievedChunk]], weights: Weights | Callable[[RetrievedChunk], Weights]
) -> list[RetrievedChunk]:
    """score(d) = sum over rankings of weight * score / (that ranking's best score); a side that did not
    find d adds nothing. `weights` may depend on the passage. Each side's own score and rank are kept in
    `scores`."""
    fused: dict[str, RetrievedChunk] = {}
    totals: dict[str, float] = {}
    for name, ranking in rankings.items():
        best = max((c.score for c in ranking), default=0.0)
        if best <= 0:
            continue
        for chunk in ranking:
            entry = fused.get(chunk.chunk_id)
            if entry is None:
                entry = chunk.model_copy(update={"scores": {}})
                fused[chunk.chunk_id] = entry
            entry.scores[name] = chunk.score
            entry.scores[f"{name}_rank"] = float(chunk.rank)
            weight = (weights(chunk) if callable(weights) else weights).get(name, 1.0)
            share = weight * max(chunk.score, 0.0) / best
            totals[chunk.chunk_id] = totals.get(chunk.chunk_id, 0.0) + share
    ordered = sorted(fused.values(), key=lambda c: (-totals[c.chunk_id], c.chunk_id))
    for rank, chunk in enumerate(ordered, start=1):
        chunk.score = totals[chunk.chunk_id]
        chunk.scores["fused"] = chunk.score
        chunk.rank = rank
    return ordered


class HybridRetriever:
    def __init__(
        self, store: GraphStore, embedder: Embedder, vector_weight: float = 0.8, reranker: Reranker | None = None
    ) -> None:
        self.store = store
        self.vector = VectorRetriever(store, embedder)
        self.weights = {"vector": vector_weight, "fulltext": 1.0 - vector_weight}
        self.reranker = reranker

    @classmethod
    def from_settings(cls, store: GraphStore, embedder: Embedder, settings: Settings) -> HybridRetriever:
        """The hybrid retriever as configured: with the cross-encoder reranker when one is set."""
        reranker = None
        if settings.search.rerank_model:
            from graphwright.search.rerank import CrossEncoderReranker

            reranker = CrossEncoderReranker(settings.search.rerank_model, settings.embedding.device)
        return cls(store, embedder, settings.search.hybrid_vector_weight, reranker)

    def fulltext(
        self, question: str, k: int, filters: list[MetadataFilter] | None = None, *, asked: Language | None = None
    ) -> list[RetrievedChunk]:
        return rows_to_chunks(keyword_search(self.store.retrieval, question, k, filters, asked=asked), "fulltext")

    def retrieve(
        self,
        question: str,
        k: int,
        filters: list[MetadataFilter] | None = None,
        embedding: list[float] | None = None,
        *,
        focused: bool = False,
        asked: Language | None = None,
    ) -> list[RetrievedChunk]:
        """`focused`: searching inside the documents the question names (see the module's docstring);
        `asked`: the question's language, where the caller has it."""
        asked = asked or detect(question)
        depth = max(k * _CANDIDATE_FACTOR, _MIN_CANDIDATES)
        dense = self.vector.similarities(self.vector.retrieve(question, depth, filters, embedding))
        swapped = {"vector": self.weights["fulltext"], "fulltext": self.weights["vector"]}
        weights: Weights | Callable[[RetrievedChunk], Weights] = swapped
        if self.vector.reads(asked) and not has_identifier(question):
            readable = _MEANING_ONLY if focused else self.weights
            weights = lambda chunk: readable if self.vector.reads_passage(chunk) else _WORDS_ONLY  # noqa: E731
        keywords = self.fulltext(question, depth, filters, asked=asked)
        fused = convex_fusion({"fulltext": keywords, "vector": dense}, weights)
        if self.reranker is not None:
            fused = self.reranker.rerank(question, fused[:depth])
        return fused[:k]


class HybridMode(PassageMode):
    name = "hybrid"
    summary = "passages by BM25 and embedding similarity, fused by their scaled scores (optionally reranked)"
    routable = True
    route_when = "identifiers, codes, numbers, exact phrases"
    tool = ToolSpec("hybrid_search", "Passages by keywords (BM25) and meaning; best for names, codes, numbers.")

    def retriever(self, ctx: SearchContext) -> HybridRetriever:
        return HybridRetriever.from_settings(ctx.store, ctx.embedder, ctx.settings)

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        retriever = self.retriever(ctx)
        chunks = retriever.retrieve(
            query.text, query.k, query.filters or None, query.embedding, focused=query.focused, asked=query.language
        )
        return Retrieval(chunks=chunks)
