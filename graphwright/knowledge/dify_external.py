"""Any service speaking Dify's External Knowledge API (`POST {url}/retrieval`, the API graphwright serves at
`/dify` too): `url` is the endpoint as Dify would be given it, `knowledge_id` the knowledge base's id there.
That API has no call for a whole document, so this kind offers search only."""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import Field, ValidationError

from graphwright.knowledge.base import KnowledgeSource, Reply, SourcePassage
from graphwright.knowledge.config import RemoteSpec
from graphwright.knowledge.http import call_json, shape_error


class DifyExternalSpec(RemoteSpec):
    kind: Literal["dify-external"]
    knowledge_id: str = Field(min_length=1, max_length=200)

    def named_workspace(self) -> str | None:
        return self.knowledge_id


class _Record(Reply):
    content: str
    score: float | None = None
    title: str | None = None
    metadata: dict[str, Any] | None = None


class _Retrieved(Reply):
    records: list[_Record]


class DifyExternalSource(KnowledgeSource):
    kind = "dify-external"
    Spec = DifyExternalSpec
    has_documents = False

    def search(self, question: str, k: int) -> list[SourcePassage]:
        spec = self.spec
        assert isinstance(spec, DifyExternalSpec)
        body = {
            "knowledge_id": spec.knowledge_id,
            "query": question,
            "retrieval_setting": {"top_k": k, "score_threshold": 0.0},
        }
        url = f"{spec.url.rstrip('/')}/retrieval"
        try:
            found = _Retrieved.model_validate(call_json(self.name, self.env, "POST", url, key=spec.key(), body=body))
        except ValidationError as exc:
            raise shape_error(self.name, "a retrieval without records") from exc
        return [self._passage(r) for r in found.records[:k]]

    def _passage(self, record: _Record) -> SourcePassage:
        meta = record.metadata or {}
        # the API names no passage; the service's own ids travel in metadata where it has them (graphwright's do)
        ident = str(meta.get("chunk_id") or hashlib.sha256(record.content.encode()).hexdigest()[:16])
        document = str(meta.get("document_id") or record.title or ident)
        return SourcePassage(
            source=self.name,
            id=ident,
            document_id=document,
            text=record.content,
            title=record.title,
            score=record.score,
        )
