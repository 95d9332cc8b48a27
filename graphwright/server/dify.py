"""Dify's External Knowledge API, so a Dify app can use graphwright as a knowledge base: register
`http://<host>:8000/dify` as the endpoint (Dify appends `/retrieval`), a graphwright key as its API key and
a workspace's name (`default`, or one of `graphwright workspace list`) as the knowledge ID. Passages come
back as Dify's records; Dify writes the answer itself.

Bodies and errors follow Dify's documentation: `error_code` 1001/1002 for a missing or wrong key (in the
server's guard), 2001 for an unknown knowledge id, and ours for a body Dify's contract does not allow
(4001) or a metadata condition we cannot express (4002), each with its HTTP status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.search.filters import parse_value
from graphwright.search.options import SearchOptions
from graphwright.search.registry import mode_class
from graphwright.server.schemas import MAX_QUESTION_CHARS

if TYPE_CHECKING:
    from graphwright.server.callers import Caller
    from graphwright.server.state import Server

# Dify's comparison operators we can express as metadata filters (search/filters.py), and as what.
OPERATORS = {
    "is": "=",
    "=": "=",
    "is not": "!=",
    "≠": "!=",
    "!=": "!=",
    ">": ">",
    "<": "<",
    "≥": ">=",
    ">=": ">=",
    "≤": "<=",
    "<=": "<=",
    "contains": "~",
    "before": "<",  # ISO dates compare as text in date order
    "after": ">",
}


class RetrievalSetting(BaseModel):
    top_k: int = Field(ge=1, le=100)
    score_threshold: float = Field(ge=0.0, le=1.0)


class Condition(BaseModel):
    name: str | list[str]
    comparison_operator: str
    value: str | int | float | list[str] | None = None


class MetadataCondition(BaseModel):
    logical_operator: Literal["and", "or"] = "and"
    conditions: list[Condition] = Field(max_length=20)


class DifyRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # Dify may add fields; the documented ones are checked

    knowledge_id: str = Field(min_length=1, max_length=200)
    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    retrieval_setting: RetrievalSetting
    metadata_condition: MetadataCondition | None = None


class DifyError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code

    def response(self) -> JSONResponse:
        return JSONResponse({"error_code": self.code, "error_msg": str(self)}, status_code=self.status)


def parse_request(raw: bytes) -> DifyRequest:
    try:
        return DifyRequest.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:5])
        raise DifyError(400, 4001, f"invalid request: {problems}") from exc


def metadata_filters(condition: MetadataCondition | None) -> list[MetadataFilter]:
    """Dify's conditions as our filters, all of which must hold; what they cannot say is refused."""
    if condition is None or not condition.conditions:
        return []
    if condition.logical_operator == "or" and len(condition.conditions) > 1:
        raise DifyError(400, 4002, "metadata_condition: `or` of several conditions is not supported; use `and`")
    filters = []
    for number, item in enumerate(condition.conditions):
        names = [item.name] if isinstance(item.name, str) else item.name
        op = OPERATORS.get(item.comparison_operator)
        if op is None:
            supported = ", ".join(OPERATORS)
            raise DifyError(
                400,
                4002,
                f"metadata_condition.conditions[{number}]: operator {item.comparison_operator!r} is not supported "
                f"(supported: {supported})",
            )
        if len(names) != 1 or not names[0] or item.value is None or isinstance(item.value, list):
            raise DifyError(
                400,
                4002,
                f"metadata_condition.conditions[{number}]: give one `name` and one `value` (a string or number)",
            )
        value = parse_value(item.value) if isinstance(item.value, str) else item.value
        filters.append(MetadataFilter(key=names[0], op=op, value=value))
    return filters


def records(chunks: list[RetrievedChunk], mode: str, top_k: int, threshold: float) -> list[dict[str, Any]]:
    """Dify's records: a passage's text, its score relative to the best passage (in (0, 1], what Dify's
    score threshold compares: each mode scores on its own scale), its title and metadata (an object)."""
    best = max((c.score for c in chunks), default=0.0)
    found = []
    for chunk in chunks[:top_k]:
        score = round(chunk.score / best, 4) if best > 0 else 0.0
        if score < threshold:
            continue
        metadata = {
            "chunk_id": chunk.chunk_id,
            "document_id": chunk.document_id,
            "source": chunk.source,
            "pages": chunk.pages,
            "section": chunk.section,
            "rank": chunk.rank,
            "mode": mode,
            "relevance": chunk.relevance,
        }
        found.append(
            {
                "content": chunk.text,
                "score": score,
                "title": chunk.title or chunk.document_id,
                "metadata": {k: v for k, v in metadata.items() if v not in (None, "")},
            }
        )
    return found


def retrieve(server: Server, raw: bytes, caller: Caller) -> JSONResponse:
    """The route's work: Dify's body in, Dify's records (or error) out. The knowledge id names a workspace; one
    the key may not read is answered as one that does not exist (2001), so a key learns nothing of others."""
    from graphwright.config import check_workspace_name
    from graphwright.errors import NotFoundError

    try:
        body = parse_request(raw)
        missing = DifyError(404, 2001, f"The knowledge does not exist: {body.knowledge_id[:100]!r}")
        try:
            caller = caller.in_workspace(check_workspace_name(body.knowledge_id))
        except ValueError:
            raise missing from None
        if not caller.grant.sees(caller.workspace):
            raise missing
        try:
            server.graph(caller.workspace)
        except NotFoundError:
            raise missing from None
        filters = metadata_filters(body.metadata_condition)
    except DifyError as exc:
        return exc.response()
    mode = server.settings.dify_mode
    if filters and not mode_class(mode).filterable:
        mode = "hybrid"  # metadata filters narrow the passage modes and local; global and path take none
    options = SearchOptions(mode=mode, k=body.retrieval_setting.top_k, where=filters, generate=False)
    result = server.search(body.query, options, caller=caller)  # as the key's tenant, in every dify mode
    found = records(result.chunks, result.mode, body.retrieval_setting.top_k, body.retrieval_setting.score_threshold)
    # Beside Dify's records (which it reads alone): whether no passage answers, and the best one's relevance.
    return JSONResponse({"records": found, "no_answer": result.no_answer, "relevance": result.relevance})
