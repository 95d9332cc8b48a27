"""The store's contract: each role of graph_store/store.py as a Protocol, and `GraphStore`, the store as the
rest of the package sees it. Search, the pipeline, communities, evaluation and the server are typed against
these, never against `Neo4jStore`, so a second backend (another database, an in-memory one for tests) keeps
these methods and registers in `STORE_BACKENDS` (config.py); `tests/store_contract.py` is what it must pass.

A consumer that needs a part of a role takes the smaller protocol it is built from (`EntityIndex`, what entity
linking reads), so a test fakes only that part. Rows are the TypedDicts of rows.py: a backend returns the
same keys Neo4j's queries do."""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from graphwright.graph_store.rows import (
    CatalogEntityRow,
    ChunkRow,
    ChunkVectorRow,
    CommonNeighbourRow,
    CommunityCatalogRow,
    CommunityContextRow,
    CommunityLevelRow,
    CommunityRow,
    DocumentListRow,
    DocumentProfileRow,
    DocumentRow,
    EmbeddedChunkRow,
    EmbeddingSourceRow,
    EntityListRow,
    EntityProfileRow,
    EntityRow,
    EntitySourceRow,
    ExportEntityRow,
    ExportRelationRow,
    FoundEntityRow,
    IndexRow,
    IntegrityProblem,
    KeyedEntityRow,
    MetaRow,
    NeighbourhoodRow,
    OverviewRow,
    PathRow,
    RelationRow,
    ScoredChunkRow,
    ScoredEntityRow,
    SummaryRow,
    TopEntityRow,
)

if TYPE_CHECKING:
    from graphwright.curation.contract import CurationRole
    from graphwright.graph_store.schema import SchemaPlan
    from graphwright.graph_store.workspace_names import Workspace
    from graphwright.models import (
        Chunk,
        CypherRows,
        Document,
        DocumentQuery,
        Entity,
        MetadataFilter,
        Relation,
        SourceRecord,
    )


@dataclass(frozen=True)
class ReadLimits:
    """How much a read-only query may return and how long it may run (`GraphRole.read_only`)."""

    max_rows: int = 50
    max_bytes: int = 1_000_000
    timeout: float = 10.0
    max_concurrent: int = 2


class RetrievalRole(Protocol):
    """Chunk search and chunk reads (`store.retrieval`)."""

    def vector_search(
        self, embedding: list[float], k: int, filters: list[MetadataFilter] | None = None
    ) -> list[ScoredChunkRow]: ...

    def fulltext_search(
        self, lucene_query: str, k: int, filters: list[MetadataFilter] | None = None, *, terms: bool = False
    ) -> list[ScoredChunkRow]:
        """BM25 over the chunks' text and context, or with `terms` over the segmented search terms of
        chunks in a language written without spaces."""

    def corpus_languages(self) -> set[str]:
        """The languages the corpus's documents are written in (none for a graph written before they said)."""

    def term_counts(self, clauses: dict[str, str], limit: int = 1000) -> dict[str, int]:
        """How many chunks' search terms match each clause (term -> its Lucene clause), counted up to `limit`."""

    def co_mentions(self, a: str, b: str, limit: int) -> list[ChunkRow]: ...

    def chunks_with_ids(self, ids: list[str]) -> list[ChunkRow]:
        """Chunk rows (with document title and source) in the order of `ids`; unknown ids are skipped."""

    def all_chunks(self) -> list[EmbeddedChunkRow]:
        """Every chunk with its text, document and embedding: the corpus the plain-Python peers search."""

    def chunks_by_id(self, ids: list[str]) -> dict[str, str]: ...

    def document_chunks(self, document_id: str) -> dict[str, str]: ...

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]: ...

    def get_document(self, document_id: str) -> DocumentRow | None: ...

    def list_documents(self, query: DocumentQuery | None = None) -> list[DocumentListRow]:
        """The documents table a page at a time: stored documents, interrupted ones and failed files, filtered
        and sorted as `query` says (default: the first 100 by id)."""

    def document_status_counts(self, *, search: str | None = None, language: str | None = None) -> dict[str, int]:
        """How many rows of the documents table have each status, with the same filters."""

    def known_documents(self, keys: list[str]) -> set[str]:
        """Which of `keys` name a document by id or title."""

    def document_profiles(self, limit: int = 10_000) -> list[DocumentProfileRow]:
        """The documents with a profile (an issuer), at most `limit` of them."""

    def passage_similarities(
        self, ids: list[str], embedding: list[float], languages: frozenset[str] | None = None
    ) -> dict[str, float]:
        """Each passage's cosine similarity to `embedding` (Neo4j's [0, 1] index scale), by chunk id; with
        `languages`, only of passages in one of them (or of no known language)."""

    def documents_passing(self, ids: list[str], filters: list[MetadataFilter]) -> set[str]:
        """Which of the documents `ids` pass the metadata `filters`."""

    def document_sections(self, ids: list[str], limit: int = 20_000) -> list[tuple[str, str]]:
        """(document id, heading) for each distinct section or page heading of the documents `ids`."""


class EntityIndex(Protocol):
    """Entities found by name, key, id or embedding, and the relations among some: what entity linking and
    follow-up resolution read."""

    def entities_by_key(self, keys: list[str]) -> list[KeyedEntityRow]: ...

    def entity_name_search(self, lucene_query: str, k: int) -> list[ScoredEntityRow]: ...

    def entity_vector_search(self, embedding: list[float], k: int) -> list[ScoredEntityRow]: ...

    def entities_with_ids(self, ids: list[str]) -> list[EntityRow]:
        """Entity rows in the order of `ids`; unknown ids are skipped."""

    def relations_among(self, ids: list[str], seeds: list[str], limit: int) -> list[RelationRow]: ...


class GraphRole(EntityIndex, Protocol):
    """The entity graph read: linking, neighbourhoods, paths, profiles, read-only Cypher (`store.graph`)."""

    def entity_catalog(self) -> list[CatalogEntityRow]: ...

    def entity_descriptions(self, ids: list[str]) -> dict[str, str]:
        """The stored description of each of these entities that has one."""
        ...

    def neighbourhood(
        self, entity_ids: list[str], chunk_ids: list[str], embedding: list[float], per_entity: int, hub: int
    ) -> NeighbourhoodRow:
        """The walk's cut around linked entities and seed passages, in one read (search/neighbourhood.py)."""

    def shortest_paths(self, source: str, target: str, limit: int) -> list[PathRow]: ...

    def common_neighbours(self, a: str, types_a: list[str], b: str, types_b: list[str]) -> list[CommonNeighbourRow]: ...

    def entity_relations(self, entity_id: str, limit: int) -> list[RelationRow]: ...

    def entity_lookup(self, text: str, limit: int) -> list[FoundEntityRow]:
        """Entities whose name or an alias contains `text` (all, by degree, when it is empty)."""

    def relation_types(self) -> list[str]:
        """The extracted relation types of this workspace, by their names as queries return them."""

    def top_entities(self, limit: int = 5) -> list[TopEntityRow]: ...

    def list_entities(
        self, offset: int = 0, limit: int = 100, *, search: str | None = None, type: str | None = None
    ) -> list[EntityListRow]:
        """Entities whose name contains `search` (lower case), of a `type` (lower case), most connected first."""

    def count_entities(self, *, search: str | None = None, type: str | None = None) -> int: ...

    def overview(self, limit: int = 150, types: list[str] | None = None, min_degree: int = 0) -> list[OverviewRow]:
        """The `limit` most connected entities (of `types`, of degree >= `min_degree`) with the relations among
        them: the explorer's whole-graph view."""

    def export_entities(self, ids: list[str] | None = None) -> Iterator[ExportEntityRow]:
        """Every entity (or those of `ids`), streamed."""

    def export_relations(self, ids: list[str] | None = None) -> Iterator[ExportRelationRow]:
        """Every relation between entities (or among those of `ids`), streamed."""

    def entity_profile(self, entity_id: str) -> EntityProfileRow | None: ...

    def entity_sources(self, entity_id: str, limit: int = 20) -> list[EntitySourceRow]: ...

    def read_only(self, query: str, limits: ReadLimits, caller: str = "") -> CypherRows:
        """Cypher written outside graphwright, run only if every lock of `read_only.py` shows it reads, and only
        `limits.max_concurrent` at a time for one `caller` (a key's fingerprint; "" is everyone without a
        key): a query Neo4j cannot interrupt holds a core, so one key cannot hold them all (BusyError)."""

    def schema_text(self) -> str:
        """The live graph model as a prompt sees it: labels with their properties, relationship types."""


class WritesRole(Protocol):
    """Documents, chunks and their entity graph, each document atomically (`store.writes`)."""

    def link_similar(self, batch_size: int = 500, workers: int = 0) -> int:
        """Give every entity without a synonym list one; returns how many got one. Run after the writes
        (the vector index holds the new entities then), it also fills in a graph built before synonym lists
        existed. Derived data: an entity without a list is still whole, it just has no synonym edges.
        Batches run `workers` at a time (default: this machine's cores, at most 4): one transaction runs
        on one of Neo4j's threads, each batch sets only its own entities' lists, and each list depends only
        on the vector index, so the lists are the same as one batch at a time (tested) in ~60% of the time
        on 2 cores."""

    def document_hashes(self, ids: list[str]) -> dict[str, str]: ...

    def stored_vectors(self, document_ids: list[str], texts: list[str]) -> dict[str, list[float]]:
        """Embedded text -> vector of the stored chunks of these documents whose text is among `texts`: a
        changed document's unchanged passages keep their vectors (the graph's model made them: an ingest
        with another model is refused) instead of being embedded again."""

    def write_documents(
        self,
        items: list[tuple[Document, list[Chunk]]],
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:
        """Replace documents, their chunks and their share of the entity graph in ONE transaction: each
        document lands whole or not at all. Grouping saves a commit (and its fsync) per document; callers
        retry one by one on failure."""

    def clear_staged(self, document_id: str, keep: str | None = None) -> None:
        """Drop a document's staged chunks, but those of the stage `keep` (an interrupted run's, to resume)."""

    def staged_extractions(self, document_id: str, stage: str) -> dict[str, str]:
        """Chunk id -> extraction (JSON) of the chunks an interrupted run staged for `stage`."""

    def record_failures(self, failed: list[tuple[str, str]], cleared: list[str]) -> None:
        """Keep the (source, error) of files an ingest could not read or write, for the documents table, and
        forget earlier failures of the `cleared` sources (read this time)."""

    def stage_chunks(
        self,
        document_id: str,
        stage: str,
        chunks: list[Chunk],
        batch_size: int = 500,
        extractions: dict[str, str] | None = None,
    ) -> None:
        """Part of a large document's chunks, with embeddings and extractions (JSON, by chunk id), under a
        label no search reads."""

    def commit_staged(
        self,
        document: Document,
        chunks: list[Chunk],
        stage: str,
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:
        """Replace a document by its staged chunks and their entity graph in ONE transaction."""

    def delete_document(self, document_id: str) -> int | None:
        """Remove a document, its chunks, and the entities and relations only it supported;
        None when no such document exists."""

    def forget_record(self, record_id: str) -> bool:
        """Forget a row of the documents table that is no stored document: a failed file's record (by its
        source) and what an interrupted ingest staged (by document id); whether there was one."""

    def write_graph(self, entities: list[Entity], relations: list[Relation], batch_size: int = 500) -> None:
        """Entities and relations whose chunks already exist (imported graphs), in one transaction."""


class CommunitiesRole(Protocol):
    """The Leiden input and community reports (`store.communities`)."""

    def entity_edges(self) -> list[tuple[str, str, float]]:
        """The undirected, weighted entity graph in one streamed query (both directions summed)."""

    def entity_ids(self) -> list[str]: ...

    def community_catalog(self) -> list[CommunityCatalogRow]: ...

    def community_context(
        self, communities: list[dict[str, Any]], max_members: int = 30, max_relations: int = 20
    ) -> dict[str, CommunityContextRow]: ...

    def write_communities(
        self,
        removed: list[str],
        rows: list[dict[str, Any]],
        embeddings: list[dict[str, Any]],
        members: list[dict[str, str]],
        parents: list[dict[str, str]],
        graph_hashes: Sequence[dict[str, str]] = (),
        batch_size: int = 5000,
    ) -> None:
        """Write new or rewritten reports, link new communities, then remove vanished ones, in bounded
        transactions (one transaction for 100k entities' links exceeds Neo4j's transaction memory limit,
        measured). Kept communities are not touched but for their `graph_hash`."""

    def communities(self, level: int | None = None, limit: int = 20) -> list[CommunityRow]: ...

    def community_levels(self) -> list[CommunityLevelRow]: ...

    def entity_communities(self, ids: list[str], limit: int) -> list[CommunityRow]: ...

    def community_vector_search(self, embedding: list[float], k: int, level: int | None) -> list[CommunityRow]: ...

    def communities_at_level(self, level: int, embedding: list[float]) -> list[CommunityRow]: ...


class SummariesRole(Protocol):
    """The RAPTOR summary tree (`store.summaries`): what it is built from, its summaries written and read."""

    def ensure_schema(self, dimension: int, analyzer: str) -> None:
        """The tree's constraint and indexes, made by its first build."""

    def chunk_vectors(self, page: int = 5000) -> Iterator[ChunkVectorRow]:
        """Every passage with its vector, a page at a time."""

    def entity_names(self, chunk_ids: list[str], limit: int) -> list[str]:
        """The entities these passages mention most, most mentioned first."""

    def catalog(self) -> dict[str, int]:
        """Summary id (named by what it covers) -> how many passages and summaries it is linked to."""

    def texts_and_vectors(self, ids: list[str]) -> dict[str, tuple[str, list[float]]]:
        """Stored summaries' text and vector, by id."""

    def write(
        self,
        removed: Sequence[str],
        rows: Sequence[dict[str, Any]],
        chunk_links: Sequence[dict[str, str]],
        summary_links: Sequence[dict[str, str]],
        batch_size: int = 2000,
    ) -> None:
        """Remove vanished summaries, then write new ones and their links."""

    def search(self, embedding: list[float], k: int) -> list[SummaryRow]: ...

    def leaves(
        self, summary_ids: list[str], embedding: list[float], n: int, filters: list[MetadataFilter] | None = None
    ) -> dict[str, list[ScoredChunkRow]]:
        """Each summary's `n` leaf passages closest to `embedding`, closest first, of the documents `filters`
        keep."""


class AdminRole(Protocol):
    """Schema, counts, integrity rules, re-embedding, reset (`store.admin`)."""

    def vector_index_dimensions(self) -> dict[str, int | None]:
        """This workspace's vector indexes by their base name (`chunk_embedding`)."""

    def ensure_schema(self, plan: SchemaPlan) -> list[str]:
        """Create what is missing; raise SchemaMismatchError on an incompatible existing index."""

    def await_indexes(self, seconds: int = 300) -> None:
        """Until every index is online (populated after a write)."""

    def meta(self) -> MetaRow | None:
        """What the graph was embedded with (None for an empty database)."""

    def graph_schema(self) -> str | None:
        """The stored graph schema's JSON, if one was given."""

    def set_graph_schema(self, schema_json: str) -> None: ...

    def begin_reembed(self, model: str, batch: int = 10_000) -> None:
        """Vectors staged by an interrupted run for *another* model are dropped; for this model they are kept,
        so a re-run resumes."""

    def embedding_page(self, label: str, after: str, limit: int) -> list[EmbeddingSourceRow]: ...

    def stage_embeddings(self, label: str, rows: list[dict[str, Any]]) -> None: ...

    def finish_reembed(self, plan: SchemaPlan, batch: int = 2_000) -> None:
        """Drop the vector indexes, move every staged vector into `embedding`, and build the indexes again
        at the new dimension. The graph itself (nodes, relations, text) is never touched."""

    def indexes(self) -> list[IndexRow]:
        """This workspace's indexes."""

    def reset(self, batch: int = 10_000) -> None:
        """Delete this workspace's nodes, indexes and constraints; other workspaces keep theirs. The default
        workspace's reset also takes nodes of nobody's labels (the database belongs to graphwright)."""

    def counts(self) -> dict[str, int]: ...

    def type_counts(self) -> dict[str, dict[str, int]]:
        """Entities by type and relations by type."""

    def integrity_problems(self) -> dict[str, IntegrityProblem]:
        """Rules of the graph model that some element breaks: {rule: {"n": count, "examples": [...]}}."""

    def resumable(self) -> IntegrityProblem:
        """Chunks an interrupted ingest staged ({"n", "examples": document ids}): the same ingest resumes."""


class ConversationsRole(Protocol):
    """Stored conversations and their turns, each owned (`store.conversations`)."""

    def create(self, conversation_id: str, owner: str, title: str = "") -> dict[str, Any]: ...

    def append(self, conversation_id: str, owner: str, turn: dict[str, Any], max_turns: int, title: str) -> int | None:
        """Add a turn (question, answer, mode, standalone, chunk_ids, entity_ids) and keep the newest
        `max_turns`; `title` names the conversation if it has no title yet. Its index, or None when the owner
        has no such conversation."""

    def get(self, conversation_id: str, owner: str) -> dict[str, Any] | None: ...

    def list(self, owner: str, offset: int = 0, limit: int = 100) -> list[dict[str, Any]]: ...

    def delete(self, conversation_id: str, owner: str) -> bool: ...

    def reseal(
        self, conversation_id: str, old: str, owner: str, title: str, turns: builtins.list[dict[str, Any]]
    ) -> int:
        """Give `old`'s conversation to `owner` with its texts replaced (re-sealed); 1 if it moved, 0 if it was
        no longer `old`'s."""

    def expire(self, days: int) -> int:
        """Delete conversations untouched for `days` days; how many went."""


class GdsRole(Protocol):
    """Leiden and PageRank in Neo4j Graph Data Science (`store.gds`), over graphs the caller sends as
    integer-id edges; a backend without GDS answers None to `version` and is never asked the rest."""

    def version(self) -> str | None:
        """`gds.version()`, or None when the server has no GDS (asked once per store)."""

    def leiden(
        self, edges: Sequence[tuple[int, int, float]], start: Mapping[int, int], *, resolution: float, seed: int
    ) -> dict[int, int]: ...

    def pagerank(
        self,
        edges: Sequence[tuple[int, int, float]],
        sources: Sequence[int],
        *,
        damping: float,
        iterations: int,
        tolerance: float,
    ) -> dict[int, float]: ...


class WorkspacesRole(Protocol):
    """Which workspaces the database holds: the one role of no workspace (`store.workspaces`)."""

    def names(self) -> list[str]:
        """Every workspace, `default` first."""

    def others_exist(self) -> bool: ...

    def get(self, name: str) -> dict[str, Any]:
        """A workspace's record (name, created_at, settings); NotFoundError if there is none."""

    def create(self, name: str, settings: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def forget(self, name: str) -> None:
        """Remove a workspace from the registry (its data is deleted first, by its store's reset). With the
        last one gone the registry's constraint goes too: the database is as it was before workspaces."""


class SourcesRole(Protocol):
    """The sources a workspace keeps in step with (`graphwright sync`, `watch`): one record each."""

    def list(self) -> builtins.list[SourceRecord]: ...

    def get(self, source_id: str) -> SourceRecord | None: ...

    def put(self, record: SourceRecord) -> None:
        """Store a record whole, replacing the one of the same id."""

    def forget(self, source_id: str) -> bool:
        """Forget a source's record (its documents stay); whether there was one."""


class GraphStore(Protocol):
    """A store of one workspace: its roles, and the same store in another workspace. Roles are read-only
    attributes, so a backend may hold any object that keeps the role's protocol."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def retrieval(self) -> RetrievalRole: ...

    @property
    def graph(self) -> GraphRole: ...

    @property
    def writes(self) -> WritesRole: ...

    @property
    def communities(self) -> CommunitiesRole: ...

    @property
    def summaries(self) -> SummariesRole: ...

    @property
    def admin(self) -> AdminRole: ...

    @property
    def conversations(self) -> ConversationsRole: ...

    @property
    def curation(self) -> CurationRole: ...

    @property
    def gds(self) -> GdsRole: ...

    @property
    def sources(self) -> SourcesRole: ...

    @property
    def workspaces(self) -> WorkspacesRole: ...

    def in_workspace(self, name: str) -> GraphStore:
        """This store's connection in workspace `name` (closing it leaves the connection open)."""

    def verify(self) -> None:
        """GraphStoreError unless the database answers."""

    def close(self) -> None: ...
