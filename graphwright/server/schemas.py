"""The request and response bodies of the HTTP API (pydantic, so /docs shows them and bad input is a 400)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphwright.errors import InvalidRequestError
from graphwright.extraction.registry import check_extractor
from graphwright.models import MAX_HISTORY_TURNS, ChatTurn, Citation, SearchResult
from graphwright.search.options import SearchOptions
from graphwright.search.registry import ModeName

# One cap for a question on every way in: /v1/search, the chat API, MCP tools and the page.
MAX_QUESTION_CHARS = 4000
MAX_NAME_CHARS = 400
# What /v1/answer-graph draws at most; a client-made result above it is a 400, not minutes of CPU.
DRAWABLE = {"entities": 500, "relations": 2000, "graph_paths": 200, "chunks": 200, "communities": 200}
_MAX_PATH_CHARS = 4000


def check_question(question: str, what: str = "question") -> str:
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidRequestError(f"{what} is {len(question)} characters, above the limit of {MAX_QUESTION_CHARS}")
    return question


def check_drawable(result: SearchResult) -> None:
    for field, limit in DRAWABLE.items():
        if len(getattr(result, field)) > limit:
            raise InvalidRequestError(
                f"{field}: {len(getattr(result, field))} items, above the {limit} an answer graph draws"
            )
    if any(len(p) > _MAX_PATH_CHARS for p in result.graph_paths):
        raise InvalidRequestError(f"graph_paths: a path above {_MAX_PATH_CHARS} characters")


class SearchRequest(SearchOptions):
    """Every option of `GraphRAG.search` (`SearchOptions`), with the question and the limits a public server
    puts on each; `mode` is checked against the registry when the request is read."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"question": "Which rocket launched Apollo 11?", "mode": "hybrid", "k": 3}]},
    )

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    mode: ModeName = "hybrid"
    k: int | None = Field(None, ge=1, le=100, description="passages to retrieve (default: the settings' top_k, 5)")
    where: list[str] = Field(  # type: ignore[assignment]
        default_factory=list,
        max_length=20,
        description="metadata filters on documents (vector, hybrid): key=value, key!=value, year>=2020, title~Apollo",
    )
    generate: bool = Field(True, description="let a configured LLM write the answer; false: the retrieval itself")
    level: int | None = Field(
        None, ge=0, description="global: community level to read (0 = coarsest); default: chosen by relevance"
    )
    source: str | None = Field(
        None, max_length=MAX_NAME_CHARS, description="path: first entity (instead of reading it from the question)"
    )
    target: str | None = Field(None, max_length=MAX_NAME_CHARS, description="path: second entity")
    hyde: bool = Field(False, description="vector/hybrid: also search with a hypothetical answer (needs an LLM)")
    history: list[ChatTurn] = Field(  # type: ignore[assignment]
        default_factory=list,
        max_length=MAX_HISTORY_TURNS,
        description='the conversation before the question, oldest first: [{"role": "user"|"assistant", "content"}]',
    )
    conversation_id: str | None = Field(
        None,
        max_length=100,
        description="a stored conversation (POST /v1/conversations): its history, and this turn added",
    )

    def options(self) -> SearchOptions:
        """Everything but the question, as `GraphRAG.search` takes it."""
        return SearchOptions.of(**self.model_dump(exclude={"question"}))


class NewConversation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field("", max_length=200, description="named after its first question when empty")


class NewWorkspace(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=100, description="1 to 40 of a-z, 0-9, `_` and `-`")
    extractor: str | None = Field(None, description="its own extractor (else the server's)")
    entity_types: str | None = Field(None, max_length=2000, description="its own entity types, comma-separated")


class DeletedConversation(BaseModel):
    deleted: str


class ServedResult(SearchResult):
    """A SearchResult with the link that opens its evidence in Neo4j Browser."""

    browser_url: str = ""
    browser_cypher: str = ""


class JsonDocument(BaseModel):
    model_config = ConfigDict(extra="allow")  # other fields become metadata, as in a .jsonl file

    id: str | None = Field(None, max_length=500)
    title: str | None = Field(None, max_length=2000)
    text: str = Field(min_length=1)


class DocumentsRequest(BaseModel):
    """Documents as JSON records (the other way is a multipart upload of files)."""

    model_config = ConfigDict(extra="forbid")

    documents: list[JsonDocument] = Field(min_length=1, max_length=10_000)
    extractor: str | None = Field(None, description="an extractor's name (extraction/registry.py: EXTRACTORS)")

    @field_validator("extractor")
    @classmethod
    def _known_extractor(cls, value: str | None) -> str | None:
        return None if value is None else check_extractor(value)


class DeleteResult(BaseModel):
    deleted: str
    chunks: int


class RetryRequest(BaseModel):
    """A row of the documents table to ingest again: a failed file by its name, an interrupted one by its id."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=1000)


class SyncRequest(BaseModel):
    """A source of the workspace to sync now, by its id as GET /v1/sources lists it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=2000)


class SourceInfo(BaseModel):
    """A source the workspace keeps in step with (`graphwright sync`, `watch`) and its last sync."""

    id: str
    kind: str
    location: str
    options: dict[str, Any] = Field(default_factory=dict)
    last_sync: str = ""
    counts: dict[str, int] = Field(default_factory=dict)  # the last sync's added/changed/removed/unchanged/failed
    error: str = ""  # why the last sync stopped, when the source could not be read
    items: int = 0
    documents: int = 0
    failed: int = 0


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):  # OpenAI's content parts: keep the text ones
            return " ".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class ChatRequest(BaseModel):
    """OpenAI's chat completion request; `model` "graphwright" (hybrid) or "graphwright-<mode>"."""

    model_config = ConfigDict(extra="allow")  # temperature, top_p...: accepted and ignored

    model: str = "graphwright"
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False


class ChatCitations(BaseModel):
    mode: str
    citations: list[Citation]
    browser_url: str = ""


class ErrorDetail(BaseModel):
    message: str
    type: str
    status: int


class ErrorBody(BaseModel):
    error: ErrorDetail
