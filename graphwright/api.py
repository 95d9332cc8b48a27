"""GraphRAG: the Python face of graphwright. `GraphRAG.from_env().search("...")`."""

from __future__ import annotations

import json
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
from graphwright.models import EntityProfile, EntityRef, Evidence, GraphStats, IngestReport, SearchResult
from graphwright.pipeline import IngestPipeline, ProgressCallback
from graphwright.search.filters import parse_filter

SearchMode = Literal["vector", "hybrid", "local", "global", "path", "auto", "agent", "multihop", "corrective",
                     "cypher"]
SEARCH_MODES: tuple[str, ...] = ("vector", "hybrid", "local", "global", "path", "auto", "agent", "multihop",
                                 "corrective", "cypher")
GRAPH_MODES: tuple[str, ...] = ("local", "global", "path")
LLM_MODES: tuple[str, ...] = ("agent", "multihop", "cypher")  # these cannot run offline
FILTERABLE_MODES: tuple[str, ...] = ("vector", "hybrid", "auto")


HYDE_PROMPT = "Write one short factual passage, as an encyclopedia would, that answers the question."


class LLMRequiredError(ValueError):
    """A mode or option that needs an LLM, asked for with none configured."""


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

    def build_communities(self, max_cluster_size: int = 10, seed: int = 42,  # noqa: ANN201 - CommunityRun
                          progress: ProgressCallback | None = None):
        """Hierarchical Leiden over the entity graph plus a report per community; unchanged communities
        keep their reports. With an LLM configured the reports are written by it, else extractive."""
        from graphwright.communities.upkeep import CommunityBuilder

        self.init()
        builder = CommunityBuilder(self.store, self.embedder, self.settings, self.llm)
        return builder.build(max_cluster_size, seed, progress)

    def stats(self) -> dict[str, int]:
        return self.store.counts()

    def inspect(self) -> GraphStats:
        """Counts, entities and relations by type, communities by level, index states and, for the local
        server, the database's size on disk."""
        types = self.store.type_counts()
        store_dir = self.settings.home / "neo4j" / "data" / "databases" / self.settings.neo4j_database
        size = sum(f.stat().st_size for f in store_dir.rglob("*") if f.is_file()) if store_dir.is_dir() else None
        indexes = [{k: row.get(k) for k in ("name", "type", "labelsOrTypes", "properties", "state",
                                             "populationPercent")} for row in self.store.indexes()]
        return GraphStats(counts=self.store.counts(), entity_types=types["entities"],
                          relation_types=types["relations"],
                          community_levels={r["level"]: r["communities"] for r in self.store.community_levels()},
                          indexes=indexes, store_bytes=size)

    def check(self) -> dict[str, dict[str, Any]]:
        """Rules of the graph model some element breaks ({} when the graph is consistent): documents with a
        wrong number of chunks, chunks without a document or embedding, entities nothing mentions, relations
        citing missing chunks, duplicate entity names."""
        return self.store.integrity_problems()

    def entity(self, name: str, relations: int = 25) -> EntityProfile | None:
        """The entity a name means (exact name first, else the closest name, misspellings forgiven) with its
        relations, sources and communities; None when no name is close (meaning alone is not enough here:
        every entity is the nearest vector of something)."""
        from graphwright.search.linking import EntityLinker
        from graphwright.search.local import relation_refs

        linker = EntityLinker(self.store)
        found = linker.exact(name)[0] or [e for e in linker.link(name, self.embedder.embed([name])[0], 3)[0]
                                          if e.how == "fulltext"]
        if not found:
            return None
        profile = self.store.entity_profile(found[0].id)
        if profile is None:
            return None
        ref = EntityRef(id=profile["id"], name=profile["name"], type=profile["type"],
                        description=profile["description"], how=found[0].how)
        return EntityProfile(entity=ref, labels=profile["labels"], aliases=profile["aliases"],
                             degree=profile["degree"],
                             relations=relation_refs(self.store.entity_relations(ref.id, relations)),
                             sources=self.store.entity_sources(ref.id), communities=profile["communities"])

    # --- search ------------------------------------------------------------------------------------------
    def search(self, question: str, mode: SearchMode = "hybrid", k: int | None = None,
               where: list[str] | list[MetadataFilter] | None = None, generate: bool = True,
               level: int | None = None, source: str | None = None, target: str | None = None,
               hyde: bool = False) -> SearchResult:
        """Retrieve for `question` and answer: from the retrieval itself offline, or with the LLM when one is
        configured and `generate` is true. `level` picks the community level of `global`; `source` and
        `target` name the endpoints of `path` instead of reading them from the question; `hyde` (vector and
        hybrid, needs an LLM) searches with the embedding of a hypothetical answer as well as the question's.
        `agent`, `multihop` and `cypher` need an LLM; `auto` and `corrective` work offline too."""
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
        if where and mode not in FILTERABLE_MODES:
            raise ValueError("metadata filters (--where) apply to the vector and hybrid modes only")
        if (mode in LLM_MODES or hyde) and (self.llm is None or not generate):
            what = "--hyde" if hyde and mode not in LLM_MODES else f"mode {mode!r}"
            raise LLMRequiredError(f"{what} needs an LLM: set OPENAI_BASE_URL and/or OPENAI_API_KEY "
                                   "(offline, use vector, hybrid, local, global, path, corrective or auto)")
        if hyde and mode not in ("vector", "hybrid"):
            raise ValueError("--hyde applies to the vector and hybrid modes only")
        if mode == "auto":
            return self._auto(question, k, where, generate, level, source, target)
        k = k or self.settings.top_k
        filters = [w if isinstance(w, MetadataFilter) else parse_filter(w) for w in where or []]
        timings: dict[str, float] = {}
        started = time.perf_counter()
        _ = self.embedder.dimension  # loads the model once per GraphRAG; timed apart from the query
        timings["load_model_ms"] = (time.perf_counter() - started) * 1000

        llm = self.llm if generate else None
        if llm is not None:
            llm.usage = Usage()  # token use of this question only
        if mode in ("agent", "multihop", "corrective", "cypher"):
            # Their retrievals embed what they search for (sub-questions, rewrites, tool queries).
            return self._agentic(mode, question, k, llm, timings)

        started = time.perf_counter()
        embedding = self.embedder.embed([question])[0]
        timings["embed_ms"] = (time.perf_counter() - started) * 1000
        trace = []
        if hyde:
            embedding, step = self._hyde(question, embedding)
            trace.append(step)
        started = time.perf_counter()
        if mode not in GRAPH_MODES:
            chunks = self._retriever(mode).retrieve(question, k, filters or None, embedding=embedding)
            timings["retrieve_ms"] = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            answer = generated_answer(question, chunks, llm) if llm else retrieval_answer(chunks)
            timings["answer_ms"] = (time.perf_counter() - started) * 1000
            return SearchResult(question=question, mode=mode, answer=answer.text, answer_kind=answer.kind,
                                chunks=chunks, citations=answer.citations, timings_ms=timings, trace=trace,
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

    def _hyde(self, question: str, embedding: list[float]):  # noqa: ANN202 - (embedding, TraceStep)
        """HyDE: embed a passage the LLM imagines as the answer, averaged with the question's own vector,
        so the search looks for text shaped like an answer without forgetting what was asked."""
        from graphwright.models import TraceStep

        passage = self.llm.chat([{"role": "system", "content": HYDE_PROMPT},
                                 {"role": "user", "content": question}]).text
        imagined = self.embedder.embed([passage])[0]
        mixed = [a + b for a, b in zip(embedding, imagined)]
        norm = sum(x * x for x in mixed) ** 0.5 or 1.0
        return [x / norm for x in mixed], TraceStep(step=1, kind="hyde", name="hypothetical passage",
                                                    summary=passage[:300])

    def _auto(self, question: str, k: int | None, where: list | None, generate: bool, level: int | None,
              source: str | None, target: str | None) -> SearchResult:
        from graphwright.models import TraceStep
        from graphwright.search.linking import EntityLinker
        from graphwright.search.router import route

        started = time.perf_counter()
        named = len(EntityLinker(self.store).exact(question)[0])
        chosen, problem = route(question, named, self.llm if generate else None)
        notes = [problem] if problem else []
        mode = chosen.mode
        if where and mode not in ("vector", "hybrid"):
            notes.append(f"router chose {mode}, but filters apply to vector and hybrid only: used hybrid")
            mode = "hybrid"
        routed_ms = (time.perf_counter() - started) * 1000
        result = self.search(question, mode, k, where, generate, level, source, target)  # type: ignore[arg-type]
        result.trace.insert(0, TraceStep(step=0, kind="route", name=mode, summary=chosen.why,
                                         arguments={"by": chosen.by, "named_entities": named}))
        result.notes = [f"auto -> {mode} ({chosen.by}): {chosen.why}", *notes, *result.notes]
        result.timings_ms = {"route_ms": routed_ms, **result.timings_ms}
        return result

    def _agentic(self, mode: str, question: str, k: int, llm: LLMClient | None,
                 timings: dict[str, float]) -> SearchResult:
        """agent, multihop, corrective and cypher: several retrievals (or LLM turns) for one answer."""
        from graphwright.models import TraceStep
        from graphwright.search.answer import cited_ids, generated_answer, graph_citations, retrieval_answer
        from graphwright.search.local import GraphContext

        settings = self.settings
        started = time.perf_counter()
        notes: list[str] = []
        kind = "generated"
        if mode == "agent":
            from graphwright.search.agent import Agent

            agent = Agent(self, llm, settings.agent_max_steps, settings.agent_tool_chars)
            text, trace, notes = agent.run(question)
            context = agent.seen
            citations = graph_citations(context, cited_ids(text))
        elif mode == "multihop":
            from graphwright.search.multihop import answer_multihop

            hybrid = self._retriever("hybrid")
            text, chunks, trace = answer_multihop(question, llm, lambda q: hybrid.retrieve(q, k),
                                                  settings.multihop_max_hops)
            context = GraphContext(chunks=chunks)
            citations = graph_citations(context, cited_ids(text))
        elif mode == "corrective":
            from graphwright.search.corrective import corrective_retrieve
            from graphwright.search.linking import EntityLinker

            hybrid = self._retriever("hybrid")
            names = [e.name for e in EntityLinker(self.store).exact(question)[0]]
            chunks, trace, notes = corrective_retrieve(question, lambda q: hybrid.retrieve(q, k), llm, names,
                                                       settings.rewrite_attempts, settings.grade_use,
                                                       settings.grade_refine)
            answer = generated_answer(question, chunks, llm) if llm else retrieval_answer(chunks)
            text, kind, citations = answer.text, answer.kind, answer.citations
            context = GraphContext(chunks=chunks)
        else:
            from graphwright.search.cypher import Text2Cypher

            run = Text2Cypher(self.store, llm, settings.cypher_max_rows, settings.cypher_timeout).run(question)
            trace = [TraceStep(step=i, kind="cypher", name="rejected or failed", arguments={"query": a["query"]},
                               summary=a["error"], ok=False) for i, a in enumerate(run.attempts, start=1)]
            if run.error is None:
                trace.append(TraceStep(step=len(trace) + 1, kind="cypher", name="ran", arguments={"query": run.query},
                                       summary=f"{len(run.rows)} rows{' (truncated)' if run.truncated else ''}"))
                rows = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in run.rows)
                text = f"Rows of the read-only query (generated from the live schema):\n{run.query}\n\n{rows}"
            else:
                text = f"No read-only query could be run: {run.error}"
            kind, citations, context = "retrieval", [], GraphContext(notes=[f"cypher: {run.query}"])
        timings["agentic_ms"] = (time.perf_counter() - started) * 1000
        evidence = {name: getattr(context, name) for name in Evidence.model_fields}
        evidence["trace"] = trace
        evidence["notes"] = [*evidence["notes"], *notes]
        return SearchResult(question=question, mode=mode, answer=text, answer_kind=kind, citations=citations,
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
