"""Ask a running `graphwright serve` instead of loading the embedder in this process: what makes repeated
`graphwright query` calls fast. The standard library's HTTP client, because its import costs nothing next
to an HTTP library's, and a CLI process pays every import on every question."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from graphwright.errors import (  # re-exported: they used to live here
    GraphStoreError,
    InvalidRequestError,
    ServerRefusedError,
    ServerUnavailableError,
)
from graphwright.server.schemas import ServedResult


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return (
        parts.scheme.lower(),
        (parts.hostname or "").lower(),
        parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower()),
    )


class _KeyStaysHome(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but send the key only to the origin it was given for: a redirect to another host,
    port or scheme (a proxy's mistake, or an attacker's) gets the request without it."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


def search_remote(url: str, body: dict[str, Any], key: str | None = None, timeout: float = 300.0) -> ServedResult:
    if not url.startswith(("http://", "https://")):
        raise InvalidRequestError(f"the server URL must start with http:// or https:// (`server`), got {url!r}")
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    request = urllib.request.Request(
        url.rstrip("/") + "/v1/search", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.build_opener(_KeyStaysHome).open(request, timeout=timeout) as response:
            return ServedResult.model_validate_json(response.read())
    except urllib.error.HTTPError as exc:
        message = _message(exc.read())
        if exc.code == 400:
            raise InvalidRequestError(message) from exc
        if exc.code == 503:  # the server runs, its Neo4j does not: the same hint a local search would give
            raise GraphStoreError(message) from exc
        raise ServerRefusedError(f"the server at {url} answered {exc.code}: {message}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServerUnavailableError(f"no graphwright server at {url} ({reason})") from exc


def _message(raw: bytes) -> str:
    try:
        return str(json.loads(raw)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return raw[:300].decode("utf-8", "replace")
