"""GraphRAG: the Python face of graphwright. `GraphRAG.from_env().search("...")`."""

from __future__ import annotations

import logging
import warnings
from contextlib import ExitStack
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphwright.api.inspection import Inspection
from graphwright.api.workspaces import Workspaces
from graphwright.config import Settings, check_workspace_name
from graphwright.conversations import Conversations
from graphwright.embeddings import Embedder, make_embedder
from graphwright.embeddings.base import MeteredEmbedder
from graphwright.errors import InvalidRequestError, SchemaConflictError
from graphwright.extraction.base import LearnsFromExamples
from graphwright.graph_schema import GraphSchema, schema_changes
from graphwright.graph_store import GraphStore, open_store
from graphwright.graph_store.schema import SchemaPlan, check_model
from graphwright.llm import LLM
from graphwright.llm.registry import make_llm
from graphwright.models import (
    ChatTurn,
    ConversationOwner,
    CostEstimate,
    CurationChange,
    ExtractionExample,
    IngestReport,
    KnowledgeBaseCheck,
    MetadataFilter,
    SearchEvent,
    SearchResult,
    SourceRecord,
    SyncReport,
    check_history_size,
)
from graphwright.pipeline import IngestPipeline, Naming, ProgressCallback
from graphwright.search.base import SearchQuery
from graphwright.search.engine import SearchEngine
from graphwright.search.filters import parse_filter
from graphwright.search.options import SearchOptions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from graphwright.communities.raptor import RaptorRun
    from graphwright.communities.upkeep import CommunityRun, RefreshRun
    from graphwright.curation import Curation
    from graphwright.documents.parse_worker import ParseWorker
    from graphwright.evaluation.datasets import Dataset
    from graphwright.extraction.byog import ImportReport
    from graphwright.reembed import ReembedReport

log = logging.getLogger(__name__)


def _turns(history: Sequence[ChatTurn | Mapping[str, Any]]) -> list[ChatTurn]:
    """History as ChatTurns; a turn that is not `{"role": "user"|"assistant", "content": text}` is refused
    by its position."""
    from pydantic import ValidationError

    check_history_size(len(history))
    turns = []
    for number, turn in enumerate(history):
        try:
            turns.append(turn if isinstance(turn, ChatTurn) else ChatTurn.model_validate(turn))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise InvalidRequestError(f"`history[{number}]{'.' + where if where else ''}`: {problem['msg']}") from exc
    return turns


def check_backend_names(settings: Settings) -> None:
    """Every backend the settings name is registered (each package keeps its own registry); InvalidRequestError
    listing the registered names otherwise. Nothing is imported or built."""
    from graphwright.algorithms.registry import GRAPH_ALGORITHMS
    from graphwright.embeddings.registry import EMBEDDING_BACKENDS
    from graphwright.extraction.registry import EXTRACTORS
    from graphwright.graph_store.backends import STORE_BACKENDS
    from graphwright.llm.registry import LLM_BACKENDS

    STORE_BACKENDS.target(settings.store_backend)
    LLM_BACKENDS.target(settings.llm.backend)
    EMBEDDING_BACKENDS.target(settings.embedding.backend)
    EXTRACTORS.target(settings.extractor)
    if settings.graph_algorithms != "auto":
        GRAPH_ALGORITHMS.target(settings.graph_algorithms)


# What a workspace may set for itself when it is created (`graphwright workspace create --extractor ...`).
WORKSPACE_SETTINGS = ("extractor", "entity_types")


def _with_workspace_settings(settings: Settings, stored: Mapping[str, Any], name: str) -> Settings:
    given = settings.model_fields_set
    update: dict[str, Any] = {k: v for k, v in stored.items() if k in WORKSPACE_SETTINGS and k not in given}
    update["workspace"] = name
    return settings.updated(**update)


def _embedding_usage(embedder: Embedder) -> dict[str, float] | None:
    if not isinstance(embedder, MeteredEmbedder):
        return None
    return {k: float(v) for k, v in vars(embedder.usage).items()}


def _moved(part: str, name: str) -> Any:
    """A method that moved to a sub-object (`GraphRAG.inspect.stats`): still callable where it was, warning."""

    def method(self: GraphRAG, *args: Any, **kwargs: Any) -> Any:
        old = {"info": "workspace_info", "create": "create_workspace", "delete": "delete_workspace"}.get(name, name)
        warnings.warn(f"GraphRAG.{old}() is now GraphRAG.{part}.{name}()", DeprecationWarning, stacklevel=2)
        return getattr(getattr(self, part), name)(*args, **kwargs)

    return method


class GraphRAG:
    """One graph, one embedder, optionally one LLM. Close it (or use `with`) to release the driver.

    Each part can be injected: `store` (anything keeping graph_store's `GraphStore` contract), `embedder`
    (anything with `name`, `dimension` and `embed`), `llm` (anything that keeps the `graphwright.llm.LLM`
    protocol); otherwise they come from `settings` (the store from the backend `GRAPHWRIGHT_STORE_BACKEND`
    names, Neo4j by default)."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        *,
        workspace: str | None = None,
    ) -> None:
        name = check_workspace_name(workspace or settings.workspace)
        check_backend_names(settings)  # a misspelt backend is said at once, before anything is opened
        if store is None:
            store = open_store(settings, workspace=name)
        elif store.workspace.name != name:
            store = store.in_workspace(name)
        self.store = store
        self.workspace = name
        self._given_settings = settings  # what another workspace starts from (not this one's own settings)
        # A workspace other than default must exist; it may carry its own extractor and entity types, used
        # where the settings do not name one.
        self.settings = _with_workspace_settings(settings, store.workspaces.get(name)["settings"], name)
        self._embedder = embedder
        self._llm = llm
        self._embedder_checked = False
        self._reader: ParseWorker | None = None

    def in_workspace(self, name: str) -> GraphRAG:
        """The same driver, embedder and LLM in workspace `name` (NotFoundError if there is none); closing it
        leaves them open."""
        return GraphRAG(self._given_settings, self.store.in_workspace(name), self._embedder, self._llm, workspace=name)

    @classmethod
    def from_env(cls, **overrides: Any) -> GraphRAG:
        return cls(Settings(**overrides))

    def __enter__(self) -> GraphRAG:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
        self.store.close()

    def _file_reader(self) -> ParseWorker:
        """The child process this instance's ingests read files in (started at the first file, kept between
        ingests so each does not pay for a new one; closed with the instance)."""
        if self._reader is None:
            from graphwright.documents.parse_worker import ParseWorker, parse_budget

            self._reader = ParseWorker(parse_budget(self.settings))
        return self._reader

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @cached_property
    def llm(self) -> LLM | None:
        """The injected LLM, else the OpenAI-compatible client when one is configured, else None."""
        if self._llm is not None:
            return self._llm
        return make_llm(self.settings)

    def _check_embedder(self) -> None:
        """Once per instance: a question embedded by another model than the graph's would match noise."""
        if not self._embedder_checked:
            check_model(self.store.admin.meta(), self.embedder.name)
            self._embedder_checked = True

    def reembed(self, progress: Callable[[str, int], None] | None = None) -> ReembedReport:
        """Re-embed chunks, entities and community reports with the configured embedder, into new vector
        indexes at its dimension; the graph is kept. Resumes an interrupted run. `progress(label, done)`."""
        from graphwright.reembed import reembed

        self.store.verify()
        report = reembed(self.store, self.embedder, self.settings, progress=progress)
        self._embedder_checked = False
        return report

    @cached_property
    def engine(self) -> SearchEngine:
        return SearchEngine(self.store, self.embedder, self.settings, self.llm)

    # --- schema and data ---------------------------------------------------------------------------------
    def init(self) -> list[str]:
        """Create constraints and indexes (idempotent); refuse an index of another embedding dimension."""
        self.store.verify()
        plan = SchemaPlan(
            dimension=self.embedder.dimension,
            embedding_model=self.embedder.name,
            analyzer=self.settings.fulltext_analyzer,
        )
        return self.store.admin.ensure_schema(plan)

    def ingest(
        self,
        paths: list[str | Path],
        *,
        base: str | Path | None = None,
        metadata: dict[str, Any] | None = None,
        glob: str | None = None,
        text_field: str | None = None,
        extractor: str | None = None,
        schema: GraphSchema | None = None,
        examples: list[ExtractionExample] | None = None,
        progress: ProgressCallback | None = None,
        update_communities: bool = True,
        relative_sources: bool = False,
        reextract: bool = False,
        cluster: str | None = None,
        cluster_insecure: bool = False,
        naming: Naming | None = None,
    ) -> IngestReport:
        """Load, chunk, embed and write; with an extractor (default `auto`: the LLM when configured, else
        offline NLP; `none` skips it) also the typed entity graph, each fact tied to its chunks. When the
        graph already has communities and something changed, they are brought up to date. `relative_sources`
        names files by their path below `base` (documents' sources, failures), not where they lie.
        `schema` (else GRAPHWRIGHT_SCHEMA, else the one stored in the graph) is what the graph may hold:
        stored with the graph the first time, and every extracted triple is checked against it. `examples`
        are worked examples the extractor may learn from (the LLM as few-shot prompts; the offline extractor,
        with a schema, as its mapping onto it). `reextract` processes unchanged documents again (hand curation
        is applied to what it extracts, as to every write). `cluster` (a Dask scheduler's address, the
        `cluster` extra): its workers embed and extract, and the graph written is the one this process alone
        would write (graphwright/dask_ingest); `tls://` with the certificates of `graphwright cluster certs`, or
        plain TCP on loopback (`cluster_insecure` allows it elsewhere). `naming`: how a sync names staged
        copies of remote items, and where it learns which documents each file gave (pipeline.Naming)."""
        from graphwright.extraction.registry import make_extractor

        chosen = make_extractor(self.settings, extractor, self.llm)
        active = self._schema_for_run(schema)  # a bad or conflicting schema stops here, before any write
        self.init()
        if examples and isinstance(chosen, LearnsFromExamples):
            chosen.use_examples(examples)
        with ExitStack() as stack:
            embedder: Embedder = self.embedder
            if cluster:
                from graphwright.dask_ingest import Cluster, ClusterEmbedder, ClusterExtractor

                connection = stack.enter_context(Cluster(cluster, home=self.settings.home, insecure=cluster_insecure))
                choice = extractor or self.settings.extractor
                connection.check(embedder, chosen, choice)
                embedder = ClusterEmbedder(connection, embedder)
                if chosen is not None:
                    chosen = ClusterExtractor(connection, chosen, choice, examples)
            pipeline = IngestPipeline(
                self.settings,
                self.store,
                embedder,
                chosen,
                active,
                reextract=reextract,
                reader=self._file_reader(),
                naming=naming,
            )
            spent = _embedding_usage(self.embedder)
            report = pipeline.ingest(
                [Path(p) for p in paths],
                Path(base) if base else None,
                metadata,
                glob,
                text_field,
                progress,
                relative_sources,
            )
        if spent is not None:  # an endpoint embedder: what this ingest cost, like the LLM's line
            report.embedding_usage = {k: v - spent[k] for k, v in (_embedding_usage(self.embedder) or {}).items()}
        if update_communities and report.documents_written:
            self.keep_derived_current(report)
        return report

    def keep_derived_current(self, report: IngestReport | None = None) -> None:
        """After documents were written or deleted: existing communities and the summary tree brought up to
        date (what they hold of deleted passages goes); what changed is said in `report`."""
        run = self._keep_communities_current()
        tree = self._keep_tree_current()
        if report is not None and run is not None:
            report.communities = run.counts()
        if report is not None and tree is not None:
            report.raptor = {k: getattr(tree, k) for k in ("summaries", "written", "kept", "removed")}

    # --- sources kept in step ----------------------------------------------------------------------------
    def sync(
        self,
        location: str | Path,
        *,
        glob: str | None = None,
        depth: int | None = None,
        max_pages: int | None = None,
        extractor: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> SyncReport:
        """Bring the workspace in step with a folder, a web page or site (`http(s)://`, a sitemap), or an
        S3-compatible bucket (`s3://bucket/prefix`): what is new or changed is ingested, what is gone is
        deleted with everything derived from it, and the source is remembered (`sources()`), so the next
        sync compares against this one. Options given replace the remembered ones; none given, a known
        source is read as before. SourceError when the source cannot be listed (nothing is deleted then)."""
        from graphwright.api.sync import sync

        given = {"glob": glob, "depth": depth, "max_pages": max_pages}
        options = {k: v for k, v in given.items() if v is not None}
        return sync(self, str(location), options=options or None, extractor=extractor, progress=progress)

    def sources(self) -> list[SourceRecord]:
        """The sources this workspace keeps in step with, with their last sync."""
        return self.store.sources.list()

    def forget_source(self, source_id: str, *, documents: bool = False) -> SourceRecord:
        """Stop keeping a source in step (NotFoundError if it is not one); with `documents`, also delete every
        document it gave, with everything derived from them."""
        from graphwright.api.sync import forget

        return forget(self, source_id, documents=documents)

    def import_graph(self, path: str | Path, *, schema: GraphSchema | None = None) -> ImportReport:
        """Load entities and relations extracted elsewhere (JSONL), tied to existing chunks; with a graph
        schema (given, configured or stored) each record is checked against it like extracted ones."""
        from graphwright.extraction.byog import GraphImporter
        from graphwright.extraction.resolution import EntityIndex, Resolver
        from graphwright.extraction.schema_check import apply_schema, schema_entity_types
        from graphwright.pipeline import entity_text

        active = self._schema_for_run(schema)
        self.init()
        extractions, report = GraphImporter(self.store.retrieval).read(Path(path))
        types = self.settings.entity_type_list
        if active is not None:
            report.schema_checks = dict(apply_schema(extractions, active))
            types = schema_entity_types(active) if active.node_types else types
        index = EntityIndex.from_rows(self.store.graph.entity_catalog())
        resolver = Resolver(types, self.settings.resolution_threshold)
        entities, relations = resolver.resolve(extractions, index)
        new = [e for e in entities if e.id not in index.embedded]
        for entity, vector in zip(new, self.embedder.embed([entity_text(e) for e in new])):
            entity.embedding = vector
        if entities:
            self.store.writes.write_graph(entities, relations, self.settings.write_batch_size)
            self.store.writes.link_similar(self.settings.write_batch_size)
        report.entities, report.relations = len(entities), len(relations)
        return report

    # --- graph schema --------------------------------------------------------------------------------
    def graph_schema(self) -> GraphSchema | None:
        """The schema stored with the graph, if one was given."""
        stored = self.store.admin.graph_schema()
        return GraphSchema.model_validate_json(stored) if stored else None

    def set_graph_schema(self, schema: GraphSchema, *, replace: bool = False) -> GraphSchema:
        """Store the graph's schema. A different schema than the stored one is refused (SchemaConflictError,
        saying what changed) unless `replace`: the graph already written keeps its types, so replacing
        is for a schema that grows, or before re-ingesting (`graphwright reset`, then ingest)."""
        stored = self.graph_schema()
        if stored is not None and stored != schema and not replace:
            raise SchemaConflictError(
                f"the graph already has another schema ({schema_changes(stored, schema)}); pass replace=True "
                "(`graphwright schema set FILE --replace`) to use the new one from now on"
            )
        if stored != schema:
            self.store.admin.set_graph_schema(schema.to_json())
        return schema

    def _schema_for_run(self, given: GraphSchema | None) -> GraphSchema | None:
        """The schema an ingest or import uses: the one given, else GRAPHWRIGHT_SCHEMA's file, else the
        stored one. A given or configured schema is stored the first time and must match it after."""
        if given is None and self.settings.schema_file is not None:
            given = GraphSchema.from_file(self.settings.schema_file)
        if given is None:
            return self.graph_schema()
        return self.set_graph_schema(given)

    def delete_document(self, document_id: str, update_communities: bool = True) -> int | None:
        """Remove a document, its chunks, and entities and relations no other chunk supports; returns the
        number of chunks removed, None if unknown. Existing communities are brought up to date. A row of the
        documents table that is no stored document (a failed file, an interrupted ingest's staged chunks) is
        forgotten the same way: 0 chunks removed."""
        chunk_ids = list(self.store.retrieval.document_chunks(document_id))
        removed = self.store.writes.delete_document(document_id)
        if removed is None:
            return 0 if self.store.writes.forget_record(document_id) else None
        self.forget_answers(chunk_ids)
        if update_communities:
            self._keep_communities_current()
            self._keep_tree_current()  # a summary must not speak for passages that are gone
        return removed

    def forget_answers(self, chunk_ids: list[str]) -> int:
        """Forget the LLM answers cached about these chunks (their extractions, the summaries they fed): a
        deleted or rewritten passage leaves no answer quoting it on disk. How many went."""
        from graphwright.llm.cache import ResponseCache, cache_folder

        if not chunk_ids:
            return 0
        return ResponseCache(cache_folder(self.settings.home)).forget_about(chunk_ids)

    def estimate_ingest(
        self,
        paths: list[str | Path],
        *,
        base: str | Path | None = None,
        glob: str | None = None,
        text_field: str | None = None,
        extractor: str | None = None,
        schema: GraphSchema | None = None,
        examples: list[ExtractionExample] | None = None,
        communities: bool = False,
    ) -> CostEstimate:
        """What `ingest` (and with `communities`, `index`) would ask of the LLM, before any call: the files are
        read and chunked as an ingest does, unchanged documents skipped, cached answers counted as free.
        Nothing is embedded or written."""
        from graphwright.extraction.llm_extractor import LLMExtractor
        from graphwright.extraction.registry import make_extractor
        from graphwright.llm import estimate
        from graphwright.llm.client import LLMClient
        from graphwright.llm.prompts import render
        from graphwright.llm.tasks import TYPICAL_RATES
        from graphwright.llm.tokens import estimate_prompt

        chosen = make_extractor(self.settings, extractor, self.llm)
        if examples and isinstance(chosen, LearnsFromExamples):
            chosen.use_examples(examples)
        pipeline = IngestPipeline(self.settings, self.store, self.embedder, chosen, self._schema_for_run(schema))
        documents, chunks = pipeline.plan(
            [Path(p) for p in paths], Path(base) if base else None, None, glob, text_field
        )
        result = CostEstimate(documents=documents, chunks=len(chunks))
        llm = chosen.llm.inner if isinstance(chosen, LLMExtractor) else self.llm
        if not isinstance(llm, LLMClient):
            result.notes.append("no LLM calls: the extractor is offline" if self.llm is None else "not an endpoint")
            return result
        # What the endpoint keeps of a prompt and how fast it is decide the figures: learned once, then remembered
        if not llm.memory.traits.probed and self.settings.llm.probe:
            llm.probe_once()
            if llm.memory.traits.probed:
                result.notes.append(
                    "the endpoint was probed once (a few one-token requests and one short reply): its system role, "
                    "width and speed, remembered in llm-endpoints.json"
                )
        if isinstance(chosen, LLMExtractor):
            first = estimate.stage(llm, "extract", "extract", [chosen.prompt(text) for _, text in chunks])
            result.stages.append(first)
            glean = estimate.learned_rate(llm, "glean", "extract")
            result.stages.append(
                estimate.follow_on(
                    llm,
                    "glean",
                    "glean",
                    first,
                    glean if glean is not None else float(self.settings.llm.gleanings),
                    estimate_prompt([{"role": "user", "content": render("glean")}]),
                    "rate of past runs" if glean is not None else "every gleaning pass (at most)",
                )
            )
            for task in ("repair", "summarize"):
                rate = estimate.learned_rate(llm, task, "extract")
                basis = "rate of past runs"
                if rate is None:
                    rate, basis = TYPICAL_RATES[task], "a first guess of the rate (measured by the first run)"
                extra = 0 if task == "repair" else -first.prompt_tokens // max(first.calls, 1) + 120
                result.stages.append(estimate.follow_on(llm, task, task, first, rate, extra, basis))
            if llm.memory.traits.glean is False:
                result.stages = [s for s in result.stages if s.task != "glean"]
                result.notes.append(f"gleaning: skipped on this endpoint ({llm.memory.traits.glean_note})")
        if communities:
            result.notes.append(
                "community reports: one LLM call per community (the graph's size decides how many), "
                f"at most GRAPHWRIGHT_REPORT_BUDGET ({self.settings.report_budget}); not in these figures"
            )
        return estimate.priced(result, self.settings.llm.price_input, self.settings.llm.price_output)

    def estimate_communities(
        self, max_cluster_size: int = 10, seed: int = 42, *, full: bool = False, budget: int | None = None
    ) -> CostEstimate:
        """What `build_communities` would ask of the LLM: detection and the report plan as a build makes
        them, each LLM report's prompt counted, cached answers free. Nothing is written."""
        from graphwright.communities.upkeep import CommunityBuilder
        from graphwright.llm import estimate
        from graphwright.llm.client import LLMClient

        result = CostEstimate()
        if not isinstance(self.llm, LLMClient):
            result.notes.append("no LLM calls: reports are extractive offline")
            return result
        builder = CommunityBuilder(self.store, self.embedder, self.settings, self.llm)
        prompts = builder.report_prompts(max_cluster_size, seed, full=full, budget=budget)
        result.stages.append(estimate.stage(self.llm, "community reports", "community_report", prompts))
        return estimate.priced(result, self.settings.llm.price_input, self.settings.llm.price_output)

    def estimate_eval(
        self, dataset: Dataset, modes: list[str], ks: list[int], *, generate: bool = True
    ) -> CostEstimate:
        """What `graphwright eval` would ask of the LLM, before any call: one answer per question and mode,
        from the passages it answers from. Passages are not retrieved in a dry run: each is counted as a chunk
        of GRAPHWRIGHT_CHUNK_SIZE tokens; modes that ask more than once (auto, corrective, multihop, agent,
        global) are counted at one call a question, so their figures are floors."""
        from graphwright.evaluation.runner import DEPTH
        from graphwright.llm import estimate
        from graphwright.llm.client import LLMClient
        from graphwright.search.answer import estimate_prompt_messages

        result = CostEstimate()
        answering = generate and self.llm is not None and any(q.answer for q in dataset.questions)
        if not answering or not isinstance(self.llm, LLMClient):
            result.notes.append("no LLM calls: retrieval is scored without answers")
            return result
        depth = max(DEPTH, max(ks))
        prompts = [estimate_prompt_messages(q.question, depth, self.settings.chunk_size) for q in dataset.questions]
        for mode in modes:
            result.stages.append(estimate.stage(self.llm, f"answers ({mode})", "answer", prompts))
        several = sorted(set(modes) & {"auto", "corrective", "multihop", "agent", "global"})
        if several:
            result.notes.append(f"{', '.join(several)}: more than one call a question; counted as one (a floor)")
        return estimate.priced(result, self.settings.llm.price_input, self.settings.llm.price_output)

    def build_communities(
        self,
        max_cluster_size: int = 10,
        seed: int = 42,
        progress: ProgressCallback | None = None,
        *,
        full: bool = False,
        budget: int | None = None,
    ) -> CommunityRun:
        """Hierarchical Leiden over the entity graph plus a report per community. Communities whose members'
        relations did not change are kept with their reports (`full` detects everything anew). With an LLM
        configured reports are written by it, at most `budget` of them (None: no cap), else extractive."""
        from graphwright.communities.upkeep import CommunityBuilder

        self.init()
        builder = CommunityBuilder(self.store, self.embedder, self.settings, self.llm)
        return builder.build(max_cluster_size, seed, progress, full=full, budget=budget)

    def build_raptor(self, progress: ProgressCallback | None = None) -> RaptorRun:
        """The RAPTOR summary tree over the workspace's passages, for the `raptor` mode: clusters of passages
        by meaning, summarized (extractively; with an LLM, the broadest GRAPHWRIGHT_RAPTOR_LLM_BUDGET of them by
        the LLM, extractive where its reply is unusable), clustered and summarized again. Summaries over unchanged
        passages are kept, so a rebuild after an ingest redoes only what changed."""
        from graphwright.communities.cluster_summary import ClusterSummarizer
        from graphwright.communities.raptor import RaptorBuilder

        self.init()
        llm, budget = self.llm, self.settings.raptor_llm_budget
        writer = ClusterSummarizer(llm, budget, self.settings.llm.concurrency) if llm is not None and budget else None
        builder = RaptorBuilder(
            self.store, self.embedder, self.settings.fulltext_analyzer, writer, self.settings.raptor_clustering
        )
        return builder.build(progress)

    def check_knowledge_bases(self) -> list[KnowledgeBaseCheck]:
        """Each knowledge base of GRAPHWRIGHT_KNOWLEDGE_BASES asked one short question: whether it answers,
        in what time, with how many passages; a failure is reported per source, not raised (a broken file is)."""
        from graphwright.search.knowledge_sources import check_sources

        return check_sources(self.engine.context())

    def _keep_tree_current(self) -> RaptorRun | None:
        """After passages changed: an existing RAPTOR tree brought up to date, only what changed redone (None
        when the workspace has none, or GRAPHWRIGHT_RAPTOR_ON_INGEST is off)."""
        if not self.settings.raptor_on_ingest or not self.store.summaries.catalog():
            return None
        return self.build_raptor()

    def _keep_communities_current(self) -> CommunityRun | None:
        """After the graph changed: existing communities brought up to date (None when it has none yet)."""
        if not self.store.communities.community_levels():
            return None
        return self.build_communities(budget=self.settings.report_budget)

    def refresh_communities(
        self, budget: int | None = None, level: int | None = None, progress: ProgressCallback | None = None
    ) -> RefreshRun:
        """Rewrite stale community reports with the LLM, the most important first (rating, size, change);
        `budget` defaults to GRAPHWRIGHT_REPORT_BUDGET. Needs an LLM."""
        from graphwright.communities.upkeep import CommunityBuilder

        self.init()
        builder = CommunityBuilder(self.store, self.embedder, self.settings, self.llm)
        return builder.refresh(self.settings.report_budget if budget is None else budget, level, progress)

    @cached_property
    def inspect(self) -> Inspection:
        """What the graph holds and whether it is well: `stats()`, `documents()`, `entity(name)`, `check()`,
        `health()`, `graph()` (counts by type, indexes, size) and `read_cypher(query)`."""
        return Inspection(self.store, self.settings, lambda: self.embedder)

    @cached_property
    def workspaces(self) -> Workspaces:
        """The database's workspaces: `list()`, `names()`, `info(name)`, `create(name)`, `delete(name)`."""

        def initialize(name: str) -> None:
            with self.in_workspace(name) as created:
                created.init()

        return Workspaces(self.store, initialize)

    # Before the sub-objects, these were GraphRAG's own; they still answer, with a DeprecationWarning.
    stats = _moved("inspect", "stats")
    documents = _moved("inspect", "documents")
    read_cypher = _moved("inspect", "read_cypher")
    health = _moved("inspect", "health")
    check = _moved("inspect", "check")
    entity = _moved("inspect", "entity")
    workspace_info = _moved("workspaces", "info")
    create_workspace = _moved("workspaces", "create")
    delete_workspace = _moved("workspaces", "delete")

    def curation(self, *, who: str | None = None, communities: bool = True) -> Curation:
        """Hand changes of the entity graph with an audit trail and undo (`graphwright docs curation`). `who` is the
        author the history records (default `cli:<login>`); after each change the synonym lists are filled
        and, unless `communities=False`, existing communities are brought up to date."""
        from graphwright.curation import Curation

        def after(change: CurationChange) -> None:
            self.store.writes.link_similar(self.settings.write_batch_size)
            if communities:
                self._keep_communities_current()

        return Curation(
            self.store.curation,
            embed=lambda texts: self.embedder.embed(texts),  # the model loads only when a change needs it
            after=after,
            schema=self.graph_schema,
            who=who,
        )

    # --- search ------------------------------------------------------------------------------------------
    def search(
        self,
        question: str,
        options: SearchOptions | None = None,
        *,
        owner: str | ConversationOwner = "",
        **overrides: Any,
    ) -> SearchResult:
        """Retrieve for `question` with a registered mode (`graphwright.search.registry`) and answer: from
        the retrieval itself offline, or with the LLM when one is configured and `generate` is true. The
        options (`SearchOptions`, or the same names as keywords, which override it): `mode`, `k`, `where`
        filters documents by metadata ("year>=2020" or MetadataFilter); `level` picks the community level of
        `global`; `source` and `target` name the endpoints of `path`; `hyde` (vector and hybrid, needs an LLM)
        also searches with the embedding of a hypothetical answer. `agent`, `multihop` and `cypher` need an
        LLM. `history` is the conversation before the question (`[{"role": "user"|"assistant", "content":
        ...}]`, oldest first): a follow-up ("who founded it?") is searched with what it refers to.
        `conversation_id` names a stored conversation (`conversations().create()`) instead: its turns are the
        history and the answer becomes its next turn; `owner` is whose conversations those are (the server
        passes the caller's key). Bad or unknown options raise InvalidRequestError (a ValueError) naming
        them; an unknown conversation NotFoundError."""
        chosen = SearchOptions.of(options, **overrides)
        result = self.engine.search(self._query(question, chosen, owner))
        if chosen.conversation_id:
            self.conversations(owner).remember(chosen.conversation_id, result)
            result.conversation_id = chosen.conversation_id
        return result

    def search_stream(
        self,
        question: str,
        options: SearchOptions | None = None,
        *,
        owner: str | ConversationOwner = "",
        **overrides: Any,
    ) -> Iterator[SearchEvent]:
        """`search` as it happens: the Evidence when retrieval is done, then the answer in AnswerDelta pieces
        (token by token with an LLM), then the SearchResult. Bad parameters raise before the first event."""
        chosen = SearchOptions.of(options, **overrides)
        events = self.engine.stream(self._query(question, chosen, owner))
        return self._remembered(events, chosen.conversation_id, owner) if chosen.conversation_id else events

    def _remembered(
        self, events: Iterator[SearchEvent], conversation_id: str, owner: str | ConversationOwner
    ) -> Iterator[SearchEvent]:
        """The stream, with its result kept as the conversation's next turn before it is given out."""
        try:
            for event in events:
                if isinstance(event, SearchResult):
                    self.conversations(owner).remember(conversation_id, event)
                    event.conversation_id = conversation_id
                yield event
        finally:
            events.close()  # type: ignore[attr-defined]

    def conversations(self, owner: str | ConversationOwner = "") -> Conversations:
        """The stored conversations of `owner` (the server passes the caller's key as a ConversationOwner, which
        seals their text; "" for the library and a server without keys)."""
        return Conversations(self.store, self.settings, owner)

    def _query(self, question: str, options: SearchOptions, owner: str | ConversationOwner = "") -> SearchQuery:
        """The one SearchQuery of a search, built here and passed down whole."""
        if options.history and options.conversation_id:
            raise InvalidRequestError("give `history` or `conversation_id`, not both")
        if options.conversation_id:
            turns = self.conversations(owner).history(options.conversation_id)
        else:
            turns = _turns(options.history)
        return SearchQuery(
            history=turns,
            question=question,
            mode=options.mode,
            k=options.k or self.settings.search.top_k,
            filters=self._filters(options.where),
            generate=options.generate,
            level=options.level,
            source=options.source,
            target=options.target,
            hyde=options.hyde,
            caller=owner.name if isinstance(owner, ConversationOwner) else owner,
            tenant=isinstance(owner, ConversationOwner) and owner.tenant,
            reach=owner.reach if isinstance(owner, ConversationOwner) else None,
        )

    def _filters(self, where: Sequence[str | MetadataFilter] | None) -> list[MetadataFilter]:
        """`where` parsed, after the once-per-instance embedder check every search needs first."""
        filters = [w if isinstance(w, MetadataFilter) else parse_filter(w) for w in where or []]
        self._check_embedder()
        return filters
