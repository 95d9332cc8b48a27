"""A Dify dataset (knowledge base) through Dify's Knowledge API: `POST {url}/datasets/{dataset}/retrieve` to
search, `GET {url}/datasets/{dataset}/documents/{document}/segments` for a whole document; `url` is the API's
base, `/v1` included (`https://api.dify.ai/v1`). Shapes as Dify documents them; tested against a stub that
follows them, not against Dify itself."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError

from graphwright.knowledge.base import KnowledgeSource, Reply, SourceDocument, SourcePassage
from graphwright.knowledge.config import RemoteSpec
from graphwright.knowledge.http import call_json, shape_error

_PAGE = 100
_MAX_PAGES = 20  # a whole document stops at 2,000 segments


class DifySpec(RemoteSpec):
    kind: Literal["dify"]
    dataset: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")
    search_method: Literal["hybrid_search", "semantic_search", "full_text_search", "keyword_search"] = "hybrid_search"


class _DocumentRef(Reply):
    id: str | None = None
    name: str | None = None


class _Segment(Reply):
    id: str
    document_id: str
    content: str
    position: int | None = None
    document: _DocumentRef | None = None


class _Record(Reply):
    segment: _Segment
    score: float | None = None


class _Retrieved(Reply):
    records: list[_Record]


class _Segments(Reply):
    data: list[_Segment]
    has_more: bool = False


class DifyDatasetSource(KnowledgeSource):
    kind = "dify"
    Spec = DifySpec

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        spec = self.spec
        assert isinstance(spec, DifySpec)
        url = f"{spec.url.rstrip('/')}/datasets/{spec.dataset}{path}"
        return call_json(self.name, self.env, method, url, key=spec.key(), **kw)

    def search(self, question: str, k: int) -> list[SourcePassage]:
        spec = self.spec
        assert isinstance(spec, DifySpec)
        body = {
            "query": question,
            "retrieval_model": {
                "search_method": spec.search_method,
                "reranking_enable": False,
                "top_k": k,
                "score_threshold_enabled": False,
            },
        }
        try:
            found = _Retrieved.model_validate(self._call("POST", "/retrieve", body=body))
        except ValidationError as exc:
            raise shape_error(self.name, "a retrieval without records of segments") from exc
        return [
            self._passage(r.segment, r.score, r.segment.document.name if r.segment.document else None)
            for r in found.records[:k]
        ]

    def document(self, document_id: str) -> SourceDocument:
        from urllib.parse import quote

        segments: list[_Segment] = []
        for page in range(1, _MAX_PAGES + 1):
            raw = self._call(
                "GET", f"/documents/{quote(document_id, safe='')}/segments", params={"page": page, "limit": _PAGE}
            )
            try:
                found = _Segments.model_validate(raw)
            except ValidationError as exc:
                raise shape_error(self.name, "a document's segments in another shape") from exc
            segments += found.data
            if not found.has_more or not found.data:
                break
        segments.sort(key=lambda s: s.position if s.position is not None else 0)
        title = next((s.document.name for s in segments if s.document and s.document.name), None)
        return SourceDocument(
            source=self.name,
            document_id=document_id,
            title=title,
            passages=[self._passage(s, None, title) for s in segments],
        )

    def _passage(self, segment: _Segment, score: float | None, title: str | None) -> SourcePassage:
        return SourcePassage(
            source=self.name,
            id=segment.id,
            document_id=segment.document_id,
            text=segment.content,
            title=title,
            score=score,
        )
