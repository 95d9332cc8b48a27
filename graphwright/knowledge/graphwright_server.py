"""Another `graphwright serve` as a knowledge base: its `POST /w/<workspace>/v1/search` with `generate: false`
(the passages, not its LLM's answer) and `GET /w/<workspace>/v1/document?id=` for a whole document."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import quote

from pydantic import Field, ValidationError

from graphwright.knowledge.base import KnowledgeSource, Reply, SourceDocument, SourcePassage
from graphwright.knowledge.config import RemoteSpec
from graphwright.knowledge.http import call_json, shape_error


class GraphwrightSpec(RemoteSpec):
    kind: Literal["graphwright"]
    workspace: str = Field("default", pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    mode: str = Field("hybrid", pattern=r"^[a-z_]{1,30}$", description="the remote's search mode")

    def named_workspace(self) -> str | None:
        return self.workspace


class _Chunk(Reply):
    chunk_id: str
    document_id: str
    text: str
    title: str | None = None
    score: float | None = None


class _Answer(Reply):
    chunks: list[_Chunk]


class _Passage(Reply):
    chunk_id: str
    text: str


class _Document(Reply):
    document_id: str
    title: str | None = None
    chunks: list[_Passage]


class GraphwrightServerSource(KnowledgeSource):
    kind = "graphwright"
    Spec = GraphwrightSpec

    def _url(self, path: str) -> str:
        spec = self.spec
        assert isinstance(spec, GraphwrightSpec)
        return f"{spec.url.rstrip('/')}/w/{spec.workspace}{path}"

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        spec = self.spec
        assert isinstance(spec, GraphwrightSpec)
        return call_json(self.name, self.env, method, self._url(path), key=spec.key(), **kw)

    def search(self, question: str, k: int) -> list[SourcePassage]:
        spec = self.spec
        assert isinstance(spec, GraphwrightSpec)
        body = {"question": question, "mode": spec.mode, "k": k, "generate": False}
        try:
            answer = _Answer.model_validate(self._call("POST", "/v1/search", body=body))
        except ValidationError as exc:
            raise shape_error(self.name, "a search result without passages") from exc
        return [self._passage(c) for c in answer.chunks[:k]]

    def document(self, document_id: str) -> SourceDocument:
        try:
            found = _Document.model_validate(self._call("GET", "/v1/document", params={"id": document_id}))
        except ValidationError as exc:
            raise shape_error(self.name, f"a document {quote(document_id)!r} without passages") from exc
        return SourceDocument(
            source=self.name,
            document_id=found.document_id,
            title=found.title,
            passages=[
                SourcePassage(
                    source=self.name, id=c.chunk_id, document_id=found.document_id, text=c.text, title=found.title
                )
                for c in found.chunks
            ],
        )

    def _passage(self, chunk: _Chunk) -> SourcePassage:
        return SourcePassage(
            source=self.name,
            id=chunk.chunk_id,
            document_id=chunk.document_id,
            text=chunk.text,
            title=chunk.title,
            score=chunk.score,
        )
