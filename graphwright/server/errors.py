"""How the server reports errors: our exceptions mapped to HTTP statuses, in one JSON shape (OpenAI's)."""

from __future__ import annotations

from typing import Any

from graphwright.errors import GraphwrightError

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
    """The HTTP status of one of our errors, as its tier says (graphwright/errors.py: bad input 400; refused
    404, 403 or 409; upstream 502; store unavailable 503 or 429); 500 for anything else."""
    return exc.http_status if isinstance(exc, GraphwrightError) else 500
