"""The rows the store returns, typed: each TypedDict names the columns of the query that produces it, so a
caller reading a key the query does not return is a type error, not a KeyError at run time."""

from __future__ import annotations

from typing import Any, TypedDict


class ChunkRow(TypedDict):
    """A chunk with its document's title and source (CHUNKS_BY_IDS, CO_MENTIONS, evidence)."""

    chunk_id: str
    document_id: str
    text: str
    title: str | None
    source: str | None
    pages: str | None  # "3–4" for a PDF passage
    section: str | None


class ScoredChunkRow(ChunkRow):
    """A ranked chunk (vector and fulltext search); `score` is the index's, `language` the chunk's."""

    score: float
    language: str | None


class ChunkVectorRow(TypedDict):
    """A passage as the summary tree clusters it (CHUNK_VECTORS_PAGE)."""

    id: str
    document_id: str
    text: str
    embedding: list[float]


class SummaryRow(TypedDict):
    """A summary of the tree found by a question (SUMMARY_SEARCH); `score` is the vector index's."""

    id: str
    level: int
    title: str
    text: str
    method: str
    score: float


class DocumentProfileRow(TypedDict):
    """What a document's profile says (DOCUMENT_PROFILES)."""

    id: str
    issuer: str
    aliases: list[str]
    tickers: list[str]
    kind: str | None
    fiscal_year: int | None
    fiscal_quarter: int | None
    years: list[int]


class EmbeddedChunkRow(ChunkRow):
    """A chunk with its embedding: the corpus the plain-Python eval peers search."""

    embedding: list[float]


class NeighbourhoodRow(TypedDict):
    """A question's walk graph in parallel lists (NEIGHBOURHOOD): the passages of the cut; those that mention
    entities with the entities each mentions; every entity of the cut with its full degree parts (passages
    mentioning it, relations), the entities it relates to anywhere, and its synonym list."""

    chunks: list[str]
    chunk_ids: list[str]
    chunk_entities: list[list[str]]
    entity_ids: list[str]
    mentions: list[int]
    relations: list[int]
    related: list[list[str]]
    similar: list[list[str]]


class EntityRow(TypedDict):
    id: str
    name: str
    type: str
    description: str


class ScoredEntityRow(EntityRow):
    score: float


class KeyedEntityRow(EntityRow):
    key: str
    degree: int


class FoundEntityRow(TypedDict):
    id: str
    name: str
    type: str
    degree: int


class CatalogEntityRow(TypedDict):
    id: str
    key: str
    name: str
    type: str


class RelationRow(TypedDict):
    """An extracted relation between two entities, with its support (fields of RelationRef)."""

    source_id: str
    source: str
    type: str
    target_id: str
    target: str
    description: str
    weight: float
    chunk_ids: list[str]
    evidence: list[str]


class PathNode(TypedDict):
    id: str
    name: str
    type: str


class PathRow(TypedDict):
    nodes: list[PathNode]
    relations: list[RelationRow]


class CommonNeighbourRow(EntityRow):
    relations: list[RelationRow]


class CommunityRow(TypedDict, total=False):
    """A community report as search reads it (COMMUNITY_VECTOR_SEARCH, COMMUNITIES_AT_LEVEL,
    ENTITY_COMMUNITIES, COMMUNITIES_BY_LEVEL); `score` or `hits` say how it was found."""

    id: str
    level: int
    title: str | None
    summary: str | None
    findings: str | None
    rating: float
    cited_chunks: list[str]
    size: int | None
    members: list[str] | None
    stale: bool
    score: float | None
    hits: int
    report_kind: str | None


class CommunityCatalogRow(TypedDict):
    """A stored community with its report, as upkeep reads it to decide what to keep."""

    id: str
    level: int
    members: list[str] | None
    graph_hash: str | None
    parent: str | None
    title: str | None
    summary: str | None
    findings: str | None
    rating: float
    rating_explanation: str | None
    report_kind: str | None
    stale: bool
    report_members: list[str] | None
    cited_chunks: list[str]


class CommunityLevelRow(TypedDict):
    level: int
    communities: int
    members: int


class CommunityMemberRow(TypedDict):
    id: str
    name: str
    type: str
    degree: int | None
    description: str | None


class CommunityRelationRow(TypedDict):
    source: str
    target: str
    type: str
    weight: float | None
    description: str | None
    evidence: list[str] | None
    chunk_ids: list[str] | None


class CommunityContextRow(TypedDict):
    id: str
    members: list[CommunityMemberRow]
    relations: list[CommunityRelationRow]


class DocumentChunk(TypedDict):
    id: str
    index: int
    text: str
    n_tokens: int


class DocumentRow(TypedDict):
    """A document's properties (id, source, title, content_hash, n_chunks and its metadata) and chunks."""

    document: dict[str, Any]
    chunks: list[DocumentChunk]


class DocumentListRow(TypedDict):
    """One row of the documents table (LIST_DOCUMENTS): a stored document, one an interrupted ingest staged,
    or a file that failed (`error`); `status` says which."""

    id: str
    title: str | None
    source: str | None
    chunks: int | None
    content_hash: str | None
    ingested_at: str | None
    languages: list[str] | None
    error: str | None
    status: str


class EntityListRow(TypedDict):
    """One row of the entities table (LIST_ENTITIES)."""

    id: str
    name: str
    type: str
    degree: int
    chunks: int
    description: str | None


class OverviewRow(TypedDict):
    """An entity of the explorer's overview and its relations to the others shown (GRAPH_OVERVIEW)."""

    id: str
    name: str
    type: str
    degree: int
    out: list[dict[str, Any]]


class ExportEntityRow(TypedDict):
    id: str
    name: str
    type: str
    description: str | None
    degree: int


class ExportRelationRow(TypedDict):
    source: str
    target: str
    type: str
    weight: float | None
    description: str | None
    chunk_ids: list[str] | None


class TopEntityRow(TypedDict):
    name: str
    type: str
    degree: int | None
    chunks: int


class EntityProfileRow(TypedDict):
    id: str
    name: str
    type: str
    labels: list[str]
    description: str
    aliases: list[str]
    degree: int
    communities: list[dict[str, Any]]


class EntitySourceRow(TypedDict):
    document_id: str
    chunks: int
    mentions: int
    chunk_ids: list[str]


class IndexRow(TypedDict):
    name: str
    type: str
    labelsOrTypes: list[str] | None  # Neo4j's column names
    properties: list[str] | None
    state: str
    populationPercent: float


class IntegrityProblem(TypedDict):
    n: int
    examples: list[Any]


class MetaRow(TypedDict):
    """What the graph was embedded with; `reembed_model` while a `graphwright reembed` is unfinished."""

    model: str | None
    dimension: int | None
    reembed_model: str | None


class EmbeddingSourceRow(TypedDict):
    """A node whose embedding `graphwright reembed` recomputes: the fields its text is made from."""

    id: str
    fields: dict[str, str]
    done: bool
