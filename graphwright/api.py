"""GraphRAG: the Python face of graphwright. `GraphRAG.from_env().search("...")`."""

from __future__ import annotations

import time
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from graphwright.config import Settings
from graphwright.embeddings import Embedder, make_embedder
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.queries import MetadataFilter
from graphwright.graph_store.schema import SchemaPlan
from graphwright.llm import LLMClient, Usage
from graphwright.models import Evidence, IngestReport, SearchResult
from graphwright.pipeline import IngestPipeline, ProgressCallback
from graphwright.search.filters import parse_filter

SearchMode = Literal["vector", "hybrid", "local", "global", "path"]
SEARCH_MODES: tuple[str, ...] = ("vector", "hybrid", "local", "global", "path")
GRAPH_MODES: tuple[str, ...] = ("local", "global", "path")


class GraphRAG:
    """One graph, one embedder, optionally one LLM. Close it (or use `with`) to release the driver."""

    def __init__(self, settings: Settings, store: Neo4jStore | None = None,
                 embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.store = store or Neo4jStore(settings.neo4j_uri, settings.neo4j_user,
                                         settings.neo4j_password.get_secret_value(), settings.neo4j_database)
        self._embedder = embedder

    @classmethod
    def from_env(cls, **overrides: Any) -> GraphRAG:
        return cls(Settings(**overrides))

    def __enter__(self) -> GraphRAG:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @cached_property
    def llm(self) -> LLMClient | None:
        return LLMClient(self.settings) if self.settings.llm_configured else None

    # --- schema and data ---------------------------------------------------------------------------------
    def init(self) -> list[str]:
        """Create constraints and indexes (idempotent); refuse an index of another embedding dimension."""
        self.store.verify()
        plan = SchemaPlan(dimension=self.embedder.dimension, embedding_model=self.embedder.name,
                          analyzer=self.settings.fulltext_analyzer)
        return self.store.ensure_schema(plan)

    def ingest(self, paths: list[str | Path], *, base: str | Path | None = None,
               metadata: dict[str, Any] | None = None, glob: str | None = None, text_field: str | None = None,
               extractor: str | None = None, progress: ProgressCallback | None = None,
               update_communities: bool = True) -> IngestReport:
        """Load, chunk, embed and write; with an extractor (default `auto`: the LLM when configured, else
        offline NLP; `none` skips it) also the typed entity graph, each fact tied to its chunks. When the
        graph already has communities and something changed, they are brought up to date."""
        from graphwright.extraction.base import make_extractor

        chosen = make_extractor(self.settings, extractor, self.llm)
        self.init()
        pipeline = IngestPipeline(self.settings, self.store, self.embedder, chosen)
        report = pipeline.ingest([Path(p) for p in paths], Path(base) if base else None, metadata, glob,
                                 text_field, progress)
        if update_communities and report.documents_written and self.store.community_levels():
            run = self.build_communities()
            report.communities = {"kept": run.kept, "rewritten": run.rewritten, "created": run.created,
                                  "removed": run.removed}
        return report

    def import_graph(self, path: str | Path):  # noqa: ANN201 - graphwright.extraction.byog.ImportReport
        """Load entities and relations extracted elsewhere (JSONL), tied to existing chunks."""
        from graphwright.extraction.byog import GraphImporter
        from graphwright.extraction.resolution import EntityIndex, Resolver
        from graphwright.pipeline import entity_text

        self.init()
        extractions, report = GraphImporter(self.store).read(Path(path))
        index = EntityIndex.from_rows(self.store.entity_catalog())
        resolver = Resolver(self.settings.entity_type_list, self.settings.resolution_threshold)
        entities, relations = resolver.resolve(extractions, index)
        new = [e for e in entities if e.id not in index.embedded]
        for entity, vector in zip(new, self.embedder.embed([entity_text(e) for e in new])):
            entity.embedding = vector
        if entities:
            self.store.write_graph(entities, relations, self.settings.write_batch_size)
        report.entities, report.relations = len(entities), len(relations)
        return report

    def delete_document(self, document_id: str, update_communities: bool = True) -> int | None:
        """Remove a document, its chunks, and entities and relations no other chunk supports; returns the
        number of chunks removed, None if unknown. Existing communities are brought up to date."""
        removed = self.store.delete_document(document_id)
        if removed is not None and update_communities and self.store.community_levels():
            self.build_communities()
        return removed

    def build_communities(self, max_cluster_size: int = 10, seed: int = 42):  # noqa: ANN201 - CommunityRun
        """Hierarchical Leiden over the entity graph plus a report per community; unchanged communities
        keep their reports. With an LLM configured the reports are written by it, else extractive."""
        from graphwright.communities.upkeep import CommunityBuilder

        self.init()
        return CommunityBuilder(self.store, self.embedder, self.settings, self.llm).build(max_cluster_size, seed)

    def stats(self) -> dict[str, int]:
        return self.store.counts()

    # --- search ------------------------------------------------------------------------------------------
    def search(self, question: str, mode: SearchMode = "hybrid", k: int | None = None,
               where: list[str] | list[MetadataFilter] | None = None, generate: bool = True,
               level: int | None = None, source: str | None = None, target: str | None = None) -> SearchResult:
        """Retrieve for `question` and answer: from the retrieval itself offline, or with the LLM when one is
        configured and `generate` is true. `level` picks the community level of `global`; `source` and
        `target` name the endpoints of `path` instead of reading them from the question."""
        from graphwright.search.answer import (
            cited_ids,
            generated_answer,
            generated_graph_answer,
            graph_citations,
            offline_graph_answer,
            retrieval_answer,
        )

        if not question.strip():
            raise ValueError("the question is empty")
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown mode {mode!r}; available: {', '.join(SEARCH_MODES)}")
        if where and mode in GRAPH_MODES:
            raise ValueError("metadata filters (--where) apply to the vector and hybrid modes only")
        k = k or self.settings.top_k
        filters = [w if isinstance(w, MetadataFilter) else parse_filter(w) for w in where or []]
        timings: dict[str, float] = {}
        started = time.perf_counter()
        _ = self.embedder.dimension  # loads the model once per GraphRAG; timed apart from the query
        timings["load_model_ms"] = (time.perf_counter() - started) * 1000

        started = time.perf_counter()
        embedding = self.embedder.embed([question])[0]
        timings["embed_ms"] = (time.perf_counter() - started) * 1000

        llm = self.llm if generate else None
        if llm is not None:
            llm.usage = Usage()  # token use of this question only
        started = time.perf_counter()
        if mode not in GRAPH_MODES:
            chunks = self._retriever(mode).retrieve(question, k, filters or None, embedding=embedding)
            timings["retrieve_ms"] = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            answer = generated_answer(question, chunks, llm) if llm else retrieval_answer(chunks)
            timings["answer_ms"] = (time.perf_counter() - started) * 1000
            return SearchResult(question=question, mode=mode, answer=answer.text, answer_kind=answer.kind,
                                chunks=chunks, citations=answer.citations, timings_ms=timings,
                                token_usage=llm.usage.as_dict() if llm else {})

        context, reduced = self._graph_context(mode, question, embedding, k, level, source, target, llm)
        timings["retrieve_ms"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        if reduced is not None:
            answer_text, kind = reduced, "generated"
            citations = graph_citations(context, cited_ids(reduced))
        else:
            answer = generated_graph_answer(question, context, llm) if llm else \
                offline_graph_answer(mode, context, k)
            answer_text, kind, citations = answer.text, answer.kind, answer.citations
        timings["answer_ms"] = (time.perf_counter() - started) * 1000
        evidence = {name: getattr(context, name) for name in Evidence.model_fields}
        return SearchResult(question=question, mode=mode, answer=answer_text, answer_kind=kind, citations=citations,
                            timings_ms=timings, token_usage=llm.usage.as_dict() if llm else {}, **evidence)

    def _graph_context(self, mode: str, question: str, embedding: list[float], k: int, level: int | None,
                       source: str | None, target: str | None, llm: LLMClient | None):  # noqa: ANN202
        """(GraphContext, the map-reduce answer of `global` with an LLM or None)."""
        if mode == "local":
            from graphwright.search.local import LocalSearch

            searcher = LocalSearch(self.store, self._retriever("hybrid"), self.settings)
            return searcher.search(question, embedding, k), None
        if mode == "path":
            from graphwright.search.path import PathSearch

            searcher = PathSearch(self.store, self.settings.path_max, self.settings.context_tokens)
            return searcher.search(question, embedding, source, target), None
        from graphwright.search.global_search import GlobalSearch

        found = GlobalSearch(self.store, self.settings, llm).search(question, embedding, level)
        return found.context, found.answer

    def _retriever(self, mode: str):  # noqa: ANN202 - one of the retrievers in graphwright.search
        from graphwright.search.hybrid import HybridRetriever
        from graphwright.search.vector import VectorRetriever

        if mode == "vector":
            return VectorRetriever(self.store, self.embedder)
        reranker = None
        if self.settings.rerank_model:
            from graphwright.search.rerank import CrossEncoderReranker

            reranker = CrossEncoderReranker(self.settings.rerank_model, self.settings.embedding_device)
        return HybridRetriever(self.store, self.embedder, self.settings.rrf_k, reranker)
