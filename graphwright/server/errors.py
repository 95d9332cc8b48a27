"""How the server reports errors: our exceptions mapped to HTTP statuses, in one JSON shape (OpenAI's)."""

from __future__ import annotations

from typing import Any

from graphwright.errors import (
    BusyError,
    CurationConflictError,
    CypherRejectedError,
    EmbeddingError,
    ForbiddenError,
    GraphStoreError,
    InvalidRequestError,
    LLMError,
    NotFoundError,
    QueryRejectedError,
    SchemaMismatchError,
    WorkspaceExistsError,
)

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    502: "upstream_error",
    503: "service_unavailable",
}


def error_body(status: int, message: str) -> dict[str, Any]:
    """Every error the server sends, in OpenAI's shape so OpenAI clients show the message too."""
    return {"error": {"message": message, "type": _TYPES.get(status, "server_error"), "status": status}}


def status_of(exc: Exception) -> int:
    """The HTTP status of one of our errors: the caller's fault, the database's, or an upstream model's."""
    if isinstance(exc, (InvalidRequestError, CypherRejectedError, QueryRejectedError)):
        return 400
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ForbiddenError):
        return 403
    if isinstance(exc, (WorkspaceExistsError, CurationConflictError)):
        return 409
    if isinstance(exc, GraphStoreError):
        return 503
    if isinstance(exc, BusyError):
        return 429
    if isinstance(exc, SchemaMismatchError):
        return 409
    if isinstance(exc, (LLMError, EmbeddingError)):
        return 502
    return 500
