"""Pydantic records shared by every layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, computed_field

# Limits of the graph model: how long a merged entity description and one piece of relation evidence may grow.
MAX_DESCRIPTION = 1000
MAX_EVIDENCE = 500

# Metadata filter operators accepted from users; anything else is refused before a query is built.
FILTER_OPERATORS = {"=": "=", "!=": "<>", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "~": "CONTAINS"}

# Operators only the search itself builds (a document focus: `id in [...]`), never parsed from a user.
INTERNAL_FILTER_OPERATORS = {"in": "IN"}


@dataclass(frozen=True)
class MetadataFilter:
    """One condition on a document's metadata (`year>=2020` is key "year", op ">=", value 2020); the
    operators are `FILTER_OPERATORS`, and keys and values reach Cypher as parameters."""

    key: str
    op: str
    value: Any


class DocumentPart(BaseModel):
    """A stretch of a document that says where it is: a PDF page, a Word or HTML section. Chunks keep it."""

    text: str
    page: int | None = None  # 1-based page of a PDF
    section: str = ""  # heading path, "Chapter 2 › Results"


class Document(BaseModel):
    id: str
    source: str
    title: str
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    content_hash: str = ""
    # What the document says it is about: a title it states (a record's `title`, a markdown heading), not
    # one made up from its file name. Every chunk of the document mentions it as an entity.
    subject: str = ""
    # Set by the PDF, Word and HTML loaders: the text in located parts (then `text` is them joined).
    parts: list[DocumentPart] = Field(default_factory=list)
    # Set at ingest for a language written without spaces, before the text is let go: the compounds the whole
    # document keeps coming back to (extraction/document_terms.py), entities of the chunks that use them.
    terms: list[str] = Field(default_factory=list)


def page_span(start: int | None, end: int | None) -> str | None:
    """ "3" or "3–4", the way a citation shows pages; None when the text has no pages."""
    if start is None:
        return None
    return str(start) if end in (None, start) else f"{start}–{end}"


class Chunk(BaseModel):
    id: str
    document_id: str
    index: int
    text: str
    n_tokens: int
    # What the chunk is part of (its document's title): embedded and full-text indexed with the text, so a
    # passage that never repeats its subject's name is still found by it; never shown as the chunk's text.
    context: str = ""
    embedding: list[float] | None = None
    page_start: int | None = None
    page_end: int | None = None
    section: str = ""
    # Its document's language (text/languages), and for a language written without spaces its search terms
    # (segmented context and text), which the `chunk_terms` index holds.
    language: str = "en"
    terms: str = ""

    @property
    def pages(self) -> str | None:
        return page_span(self.page_start, self.page_end)

    @property
    def embedding_text(self) -> str:
        return chunk_embedding_text(self.context, self.text)


def chunk_embedding_text(context: str, text: str) -> str:
    return f"{context}\n{text}" if context else text


def entity_embedding_text(name: str, type_: str, description: str) -> str:
    """Name, type and the start of the description: enough to link a question to an entity, and short,
    because on a 2-core machine entity embeddings cost as much as chunk embeddings (measured on a novel)."""
    return f"{name} ({type_.lower()}): {description}"[:100]


def community_embedding_text(title: str, summary: str) -> str:
    """Title and the start of the summary: embedding dominates the cost of many small communities."""
    return f"{title}. {summary}"[:200]


class FileFailure(BaseModel):
    """A file or record that could not be ingested, and why."""

    source: str
    error: str


class IngestReport(BaseModel):
    documents_seen: int = 0
    documents_written: int = 0
    documents_unchanged: int = 0
    chunks_written: int = 0
    # chunks of a large document an interrupted run had embedded and extracted, taken up instead of redone
    chunks_resumed: int = 0
    # passages of a changed document that did not change: their stored vectors kept, not embedded again
    vectors_reused: int = 0
    entities_written: int = 0
    relations_written: int = 0
    extractor: str = "none"
    extraction_failures: list[FileFailure] = Field(default_factory=list)
    # Chunks whose LLM reply stayed unusable, given the offline extractor's graph instead, by reason
    extraction_fallbacks: dict[str, int] = Field(default_factory=dict)
    llm_usage: dict[str, float] = Field(default_factory=dict)
    embedding_usage: dict[str, float] = Field(default_factory=dict)  # endpoint embedder: calls, tokens, cached
    communities: dict[str, int] = Field(default_factory=dict)  # kept/rewritten/created/removed, when updated
    raptor: dict[str, int] = Field(default_factory=dict)  # summaries/written/kept of the RAPTOR tree, when updated
    # What the graph schema pruned or repaired, by reason ("dropped relation: pattern not in schema": 3)
    schema_checks: dict[str, int] = Field(default_factory=dict)
    failures: list[FileFailure] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # files in the given folders of a type we do not read
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    # Busy seconds by stage (embed chunks, extract, resolve, embed entities, write, synonyms); the chunks are
    # embedded while they are parsed, so these add up to more than `seconds` when that overlap pays.
    stage_seconds: dict[str, float] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def found_nothing(self) -> bool:
        """No document and no failure: the paths held nothing we read."""
        return not self.documents_seen and not self.failures


class SyncedItem(BaseModel):
    """One file, page or object of a source as the last sync left it."""

    version: str  # what says it changed: size and mtime, an ETag, Last-Modified, or the body's hash
    documents: list[str] = Field(default_factory=list)  # the documents it gave (a JSON file gives several)
    failed: str = ""  # why it could not be read; tried again when its version changes
    links: list[str] = Field(default_factory=list)  # a web page's same-site links, followed again after a 304
    depth: int = 0  # a web page's distance from the start page


class SourceRecord(BaseModel):
    """A folder, web site or bucket a workspace keeps in step with: where, how, and what it last held."""

    id: str  # the location as remembered: an absolute folder, a URL, s3://bucket/prefix
    kind: str  # folder, web, s3 (graphwright/sources/registry.py)
    location: str
    options: dict[str, Any] = Field(default_factory=dict)  # glob, depth, max_pages, ...
    items: dict[str, SyncedItem] = Field(default_factory=dict)
    last_sync: str = ""  # ISO time of the last finished sync
    counts: dict[str, int] = Field(default_factory=dict)  # the last sync's added/changed/removed/unchanged/failed
    error: str = ""  # why the last sync stopped, when the source itself failed

    def summary(self) -> dict[str, Any]:
        """The record without its items: what a list shows."""
        documents = sum(len(i.documents) for i in self.items.values())
        failed = sum(1 for i in self.items.values() if i.failed)
        return {
            **self.model_dump(exclude={"items"}),
            "items": len(self.items),
            "documents": documents,
            "failed": failed,
        }


class SyncReport(BaseModel):
    """What one sync of a source did."""

    source: str
    kind: str
    added: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    unchanged: int = 0
    failures: list[FileFailure] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # listed but not read: a type we do not read, robots.txt, caps
    documents_removed: int = 0
    ingest: IngestReport | None = None
    seconds: float = 0.0

    @property
    def touched(self) -> bool:
        return bool(self.added or self.changed or self.removed)


class RetrievedChunk(BaseModel):
    chunk_id: str
    document_id: str
    text: str
    score: float
    rank: int
    title: str | None = None
    source: str | None = None
    scores: dict[str, float] = Field(default_factory=dict)  # per retriever: vector, fulltext, fused, ppr, rerank
    pages: str | None = None  # "3–4" for a PDF passage
    section: str | None = None  # heading path of a Word or HTML passage
    language: str | None = None  # the passage's language, where the search knows it (text/languages)
    # How well the passage matches the question, comparable across questions and modes (`score` is each
    # mode's own, often over its best): the question's and the passage's embeddings' cosine on the common
    # scale; None where the embedder does not read the passage's language or the mode embeds no question.
    relevance: float | None = None
    # A passage from a knowledge base beyond this workspace (search/knowledge_sources.py): its name there, and
    # the id the passage has in it (`chunk_id` is a citable id made from both)
    knowledge_base: str | None = None
    origin_id: str | None = None

    def strength(self) -> str:
        """How the passage's match is shown, the one number everywhere (answer, tables, the page): its
        relevance (comparable across questions) where known, else the mode's own score."""
        return f"relevance {self.relevance:.2f}" if self.relevance is not None else f"score {self.score:.3f}"

    @property
    def cited_as(self) -> str:
        """How a citation names the passage: "report.pdf p.3–4", or the document's title; a knowledge base's
        passage leads with the knowledge base ("hq: contract.pdf")."""
        if self.knowledge_base:
            return f"{self.knowledge_base}: {self.title or self.document_id.split(':', 1)[-1]}"
        if self.pages:
            name = (self.source or "").replace("\\", "/").rsplit("/", 1)[-1] or self.title or self.document_id
            return f"{name} p.{self.pages}"
        return self.title or self.document_id


class Citation(BaseModel):
    kind: Literal["chunk", "document", "entity", "relation", "community"]
    id: str
    label: str | None = None


class EntityRef(BaseModel):
    """An entity as a search result shows it; `score` is how strongly the question selected it."""

    id: str
    name: str
    type: str = "CONCEPT"
    description: str = ""
    score: float = 0.0
    how: str = ""  # why it was selected: exact, fulltext, vector, walk (reached by local's walk), path


class RelationRef(BaseModel):
    """A typed relation between two entities, with the chunks that support it. The id is
    `source_id:TYPE:target_id`, enough to find the edge again in Neo4j."""

    source_id: str
    source: str
    type: str
    target_id: str
    target: str
    description: str = ""
    weight: float = 0.0
    chunk_ids: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.source_id}:{self.type}:{self.target_id}"

    def render(self) -> str:
        return f"{self.source} -[{self.type}]-> {self.target}"


class CommunityRef(BaseModel):
    id: str
    level: int
    title: str
    summary: str = ""
    findings: list[str] = Field(default_factory=list)
    rating: float = 0.0
    score: float = 0.0
    cited_chunks: list[str] = Field(default_factory=list)
    stale: bool = False  # the community changed since its report was written


class ContextSection(BaseModel):
    """One part of the context an answer was built from, within its share of the token budget."""

    name: str  # entities, relations, text_units, communities, paths, points
    text: str
    ids: list[str] = Field(default_factory=list)
    tokens: int = 0


class TraceStep(BaseModel):
    """One step of an agentic mode: a tool call, a sub-question, a graded attempt or a routing decision;
    also the question's standalone rewrite (`rewrite`) or what a follow-up carried from its conversation
    (`followup`)."""

    step: int
    kind: Literal["tool", "hop", "attempt", "route", "cypher", "hyde", "rewrite", "followup"]
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    summary: str = ""
    ok: bool = True


class Evidence(BaseModel):
    """What a search found: passages, graph elements, the context built from them, and how it read the
    question (linked names, chosen level...)."""

    chunks: list[RetrievedChunk] = Field(default_factory=list)
    entities: list[EntityRef] = Field(default_factory=list)
    relations: list[RelationRef] = Field(default_factory=list)
    communities: list[CommunityRef] = Field(default_factory=list)
    context: list[ContextSection] = Field(default_factory=list)
    graph_paths: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    trace: list[TraceStep] = Field(default_factory=list)
    # The best passage's relevance, and whether it is below the calibrated floor (GRAPHWRIGHT_NO_ANSWER_BELOW):
    # then no passage found is taken to answer the question, and the answer says so first.
    relevance: float | None = None
    no_answer: bool = False


class SearchResult(Evidence):
    question: str
    mode: str
    conversation_id: str | None = None  # the stored conversation this turn was added to
    answer: str
    answer_kind: Literal["retrieval", "generated"]
    citations: list[Citation] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    token_usage: dict[str, int] = Field(default_factory=dict)


# Bounds of a conversation history as a search takes it: longer ones are refused, not cut silently.
MAX_HISTORY_TURNS = 200
MAX_TURN_CHARS = 20_000


def check_history_size(turns: int) -> None:
    """InvalidRequestError for a history longer than a search takes."""
    if turns > MAX_HISTORY_TURNS:
        from graphwright.errors import InvalidRequestError

        raise InvalidRequestError(
            f"`history` has {turns} turns, above the limit of {MAX_HISTORY_TURNS}; send the recent ones"
        )


class ChatTurn(BaseModel):
    """One earlier turn of a conversation, as chat clients send it; a question read back from a stored
    conversation also names the entities it linked, so a follow-up carries them even if names change."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str = Field(max_length=MAX_TURN_CHARS)
    entity_ids: list[str] = Field(default_factory=list, max_length=200)


@dataclass(frozen=True)
class ConversationOwner:
    """Whose conversations: `name` is stored with them (a fingerprint of an API key, "" without keys);
    `key`, derived from the same API key and never stored, seals their text, so only a request with that
    key reads it (read-only Cypher, the Browser and a database dump see ciphertext). `tenant`: the key is
    bound to named workspaces (a tenant of the database, not its owner), so it runs no user Cypher unless
    GRAPHWRIGHT_TENANT_CYPHER allows it, and reaches only the knowledge bases granted to its workspace;
    `reach`: the workspaces the key may read (None: every one), so a knowledge base that is another workspace
    of this database is read only if the key could read it itself. The server builds one per request from its
    key (server/callers.py); the library's default is the owner of everything."""

    name: str = ""
    key: bytes | None = field(default=None, repr=False)
    tenant: bool = False
    reach: frozenset[str] | None = None


class ConversationTurn(BaseModel):
    """A stored exchange: the question, the answer and what it cited (chunks) and was about (entities)."""

    index: int
    question: str
    answer: str
    mode: str
    created_at: str
    standalone: str = ""  # the question as retrieval read it (rewritten, or with what it carried)
    chunk_ids: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    # Cited passages no longer in the workspace: their document was deleted or changed since the answer
    stale: list[str] = Field(default_factory=list)


class ConversationInfo(BaseModel):
    """A stored conversation as a listing shows it."""

    id: str
    title: str
    created_at: str
    updated_at: str
    turns: int = 0


class Conversation(ConversationInfo):
    """A stored conversation with its turns, oldest first."""

    history: list[ConversationTurn] = Field(default_factory=list)

    def chat_turns(self) -> list[ChatTurn]:
        """The turns as the history of the next search."""
        turns: list[ChatTurn] = []
        for turn in self.history:
            turns.append(ChatTurn(role="user", content=turn.question, entity_ids=turn.entity_ids))
            turns.append(ChatTurn(role="assistant", content=turn.answer))
        return turns


class AnswerDelta(BaseModel):
    """A piece of an answer as it is generated (streamed searches)."""

    text: str


# A streamed search: its Evidence, then AnswerDelta pieces, then the SearchResult.
SearchEvent = Evidence | AnswerDelta | SearchResult


DocumentStatus = Literal["processed", "incomplete", "interrupted", "failed"]


class KnowledgeBaseCheck(BaseModel):
    """One configured knowledge base asked a short question (`graphwright knowledge check`)."""

    name: str
    kind: str
    ok: bool
    seconds: float
    passages: int = 0
    documents: bool = False  # offers whole documents (the agent gets a document tool)
    error: str | None = None


class DocumentPassage(BaseModel):
    chunk_id: str
    text: str
    pages: str | None = None
    section: str | None = None


class DocumentText(BaseModel):
    """A stored document's passages in order: what a knowledge base's get-document call returns."""

    document_id: str
    title: str | None = None
    source: str | None = None
    chunks: list[DocumentPassage]


class DocumentInfo(BaseModel):
    """A row of the documents table: a stored document (`processed`; `incomplete` when some of its chunks
    failed extraction or waited for the time budget: the next ingest redoes them), one an interrupted ingest
    left staged (`interrupted`: the same command resumes it) or a file the last ingest of it could not read or
    write (`failed`, with its `error`)."""

    id: str
    title: str | None = None
    source: str | None = None
    chunks: int | None = None
    content_hash: str | None = None
    ingested_at: str | None = None
    languages: list[str] | None = None
    status: DocumentStatus = "processed"
    error: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def type(self) -> str:
        """The file type, from the source's name (a JSON record's is its file's)."""
        name = (self.source or self.id).rsplit("/", 1)[-1].split("#", 1)[0]
        return name.rsplit(".", 1)[-1].lower() if "." in name else ""


class DocumentQuery(BaseModel):
    """Which rows of the documents table, in which order, a page at a time."""

    search: str | None = Field(None, max_length=200, description="id or title contains this (any case)")
    status: DocumentStatus | None = None
    language: str | None = Field(None, description="a language code its passages are in, e.g. en, zh")
    sort: Literal["id", "title", "date", "chunks", "status"] = "id"
    descending: bool = False
    stored: bool = Field(False, description="only documents in the graph: no interrupted ingest, no failed file")
    offset: int = Field(0, ge=0)
    limit: int = Field(100, ge=1, le=1000)


class DocumentPage(BaseModel):
    """A page of the documents table, with how many rows match the search in each status."""

    documents: list[DocumentInfo]
    counts: dict[str, int]
    total: int


class EntityInfo(BaseModel):
    """A row of the entities table."""

    id: str
    name: str
    type: str
    degree: int = 0
    chunks: int = 0
    description: str | None = None


class EntityPage(BaseModel):
    entities: list[EntityInfo]
    total: int


class CypherRows(BaseModel):
    """Rows of a read-only Cypher query; `truncated` when a limit cut it, `limit` saying which."""

    rows: list[dict[str, Any]]
    truncated: bool = False
    limit: str = ""


class Health(BaseModel):
    """Whether the graph can serve: Neo4j reachable and every index online."""

    ok: bool
    neo4j: bool
    indexes_online: bool
    detail: str = ""
    embedding_model: str | None = None


class ExtractedEntity(BaseModel):
    name: str
    type: str = "CONCEPT"
    description: str = ""
    count: int = 1  # mentions in the chunk


class ExtractedRelation(BaseModel):
    source: str
    target: str
    type: str = "RELATED_TO"
    description: str = ""
    weight: float = 1.0
    evidence: str = ""


class LabelledTriple(BaseModel):
    """A fact as people label it: subject, relation and object as written (Text2KGBench's shape)."""

    sub: str
    rel: str
    obj: str


class ExtractionExample(BaseModel):
    """A worked example an extractor may learn from: a sentence and the triples it states."""

    # the benchmark's own files say "sent"; an example stating none of the relations teaches what is not one
    text: str = Field(min_length=1, validation_alias=AliasChoices("text", "sent"))
    triples: list[LabelledTriple]


class ChunkExtraction(BaseModel):
    """What one chunk yielded; `error` is set when extraction failed for it (the run goes on)."""

    chunk_id: str
    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    error: str | None = None
    # Set when the LLM's reply stayed unusable and the offline extractor's graph stands in: the reason
    fallback: str | None = None


class Entity(BaseModel):
    """A resolved entity: one node, however many names and chunks it came from."""

    id: str
    name: str
    type: str
    label: str
    description: str = ""
    # The description already merges the stored one (the LLM summarized both): it replaces it, not joins it
    replace_description: bool = False
    aliases: list[str] = Field(default_factory=list)
    mentions: dict[str, int] = Field(default_factory=dict)  # chunk id -> count
    # What each chunk said of it and called it (kept on its MENTIONS): a deleted document's share of the
    # description and aliases goes with it.
    described_in: dict[str, str] = Field(default_factory=dict)
    named_in: dict[str, list[str]] = Field(default_factory=dict)
    embedding: list[float] | None = None


class Relation(BaseModel):
    source_id: str
    target_id: str
    type: str
    description: str = ""
    chunk_ids: list[str] = Field(default_factory=list)
    chunk_weights: list[float] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    descriptions: list[str] = Field(default_factory=list)  # what each chunk said of it, beside chunk_ids

    @property
    def weight(self) -> float:
        return float(sum(self.chunk_weights))


class GraphStats(BaseModel):
    """What `graphwright stats` shows: counts, entities and relations by type, communities by level,
    index states, and the store's size on disk when the server is the local one."""

    counts: dict[str, int]
    entity_types: dict[str, int] = Field(default_factory=dict)
    relation_types: dict[str, int] = Field(default_factory=dict)
    community_levels: dict[int, int] = Field(default_factory=dict)
    indexes: list[dict[str, Any]] = Field(default_factory=list)
    store_bytes: int | None = None


class WorkspaceInfo(BaseModel):
    """A workspace: its name, when it was made (None for `default`, which always exists), the settings it was
    created with, and what it holds."""

    name: str
    created_at: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    entities: int = 0


class EntityProfile(BaseModel):
    """An entity, its typed relations with evidence, the documents that mention it, its communities."""

    entity: EntityRef
    labels: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    degree: int = 0
    relations: list[RelationRef] = Field(default_factory=list)
    sources: list[dict[str, Any]] = Field(default_factory=list)  # document_id, chunks, mentions, chunk_ids
    communities: list[dict[str, Any]] = Field(default_factory=list)  # id, level, title


class CurationChange(BaseModel):
    """One hand change of the graph, as the audit trail keeps it (`graphwright history`)."""

    id: str
    seq: int
    op: str  # merge, rename, retype, describe, delete, relation-retype, relation-delete, undo
    summary: str
    who: str = ""  # a key's fingerprint on the server, `cli:<user>` from the command line
    at: str | None = None
    status: str = "applied"  # or "undone"
    affected: list[str] = Field(default_factory=list)  # entity ids
    undoes: str | None = None
    undone_by: str | None = None


class StageCost(BaseModel):
    """What one stage of a run would ask of the LLM: calls (those answered from the cache apart) and tokens.
    `basis` says where the completion figure comes from (this endpoint's past replies, or a typical size)."""

    stage: str
    task: str
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    basis: str = ""
    seconds: float | None = None  # at this endpoint's measured speed (None: not measured yet)


class CostEstimate(BaseModel):
    """A dry run's forecast: per stage, then in total, with a price when GRAPHWRIGHT_LLM_PRICE_* are set."""

    stages: list[StageCost] = Field(default_factory=list)
    documents: int = 0
    chunks: int = 0
    cost: float | None = None
    notes: list[str] = Field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.stages)

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.stages)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.stages)

    @property
    def seconds(self) -> float | None:
        """The stages' time, when every stage that calls has one."""
        timed = [s.seconds for s in self.stages if s.calls]
        return sum(t for t in timed if t is not None) if timed and None not in timed else None
