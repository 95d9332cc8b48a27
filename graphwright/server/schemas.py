"""The request and response bodies of the HTTP API (pydantic, so /docs shows them and bad input is a 400)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphwright.models import Citation, SearchResult
from graphwright.search.registry import ModeName


class SearchRequest(BaseModel):
    """Every option of `GraphRAG.search`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"question": "Which rocket launched Apollo 11?", "mode": "hybrid", "k": 3}]})

    question: str = Field(min_length=1, max_length=4000)
    mode: ModeName = "hybrid"
    k: int | None = Field(None, ge=1, le=100)
    where: list[str] = Field(default_factory=list, max_length=20,
                             description='metadata filters, e.g. "year>=2020" (vector and hybrid)')
    generate: bool = Field(True, description="let a configured LLM write the answer; false: the retrieval itself")
    level: int | None = Field(None, ge=0, description="global: community level")
    source: str | None = Field(None, max_length=400, description="path: first entity")
    target: str | None = Field(None, max_length=400, description="path: second entity")
    hyde: bool = False


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
    extractor: Literal["auto", "llm", "nlp", "none"] | None = None


class DeleteResult(BaseModel):
    deleted: str
    chunks: int


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
