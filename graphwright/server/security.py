"""Who may call the server, and how much they may send: bearer keys (full or read-only), the loopback rule,
and the request-size limit. A pure ASGI middleware, so streamed answers and the MCP endpoint pass through
it untouched and every route is covered by one check."""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

from graphwright.errors import InvalidRequestError
from graphwright.server.errors import error_body

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Role = Literal["write", "read"]

# Paths anyone may open: the page and its files, the API docs and the health check (it says only whether
# the database is up). Everything else (the /v1 API and /mcp) needs a key once keys are set.
_OPEN_PREFIXES = ("/static/", "/docs", "/redoc", "/openapi.json")
_OPEN_PATHS = {"/", "/healthz", "/favicon.ico"}
# Bodies of every route but uploads stay small: a question, a filter list, a search result to draw.
SMALL_BODY = 2 * 1024 * 1024
# Routes that change the graph: a read-only key gets 403 there.
_WRITES = {("POST", "/v1/documents"), ("POST", "/v1/communities/build"), ("DELETE", "/v1/documents/")}


class ServerConfigError(InvalidRequestError):
    """The server cannot start as configured (e.g. no API key on a public address)."""


def split_keys(raw: str | None) -> list[str]:
    return [k.strip() for k in (raw or "").split(",") if k.strip()]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class KeyRing:
    """The keys the server accepts; no keys at all means open (allowed on loopback only)."""

    write_keys: tuple[str, ...] = ()
    read_keys: tuple[str, ...] = ()

    @classmethod
    def from_strings(cls, write: str | None, read: str | None) -> KeyRing:
        return cls(tuple(split_keys(write)), tuple(split_keys(read)))

    @property
    def enabled(self) -> bool:
        return bool(self.write_keys or self.read_keys)

    def role(self, token: str) -> Role | None:
        """The role of a presented key; compared in constant time so timing tells nothing of a key."""
        found: Role | None = None
        for key in self.write_keys:
            if hmac.compare_digest(key.encode(), token.encode()):
                found = "write"
        for key in self.read_keys:
            if found is None and hmac.compare_digest(key.encode(), token.encode()):
                found = "read"
        return found

    def check_bind(self, host: str) -> None:
        """Refuse to serve a non-loopback address without keys: the graph would be open to the network."""
        if not is_loopback(host) and not self.enabled:
            raise ServerConfigError(f"refusing to listen on {host} without API keys: set GRAPHWRIGHT_API_KEYS "
                                    "(and optionally GRAPHWRIGHT_READ_API_KEYS), or bind to 127.0.0.1")


def is_write(method: str, path: str) -> bool:
    return any(method == m and (path == p or (p.endswith("/") and path.startswith(p))) for m, p in _WRITES)


def needs_key(path: str) -> bool:
    return path not in _OPEN_PATHS and not path.startswith(_OPEN_PREFIXES)


class RequestTooLarge(Exception):  # noqa: N818 - an HTTP condition, named as HTTP names it
    """A request body that grew past the limit while it was read (no Content-Length was announced)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body above the limit of {limit} bytes (GRAPHWRIGHT_MAX_UPLOAD_BYTES)")


class GuardMiddleware:
    """Bearer keys and the body-size limit, before any route runs."""

    def __init__(self, app: ASGIApp, keys: KeyRing, max_body: int) -> None:
        self.app = app
        self.keys = keys
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.keys.enabled and needs_key(path):
            scheme, _, token = headers.get("authorization", "").partition(" ")
            role = self.keys.role(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
            if role is None:
                why = "missing API key" if "authorization" not in headers else "invalid API key"
                await _reply(send, 401, f"{why}: send `Authorization: Bearer <key>`",
                             [(b"www-authenticate", b"Bearer")])
                return
            if role == "read" and is_write(method, path):
                await _reply(send, 403, "this API key is read-only: it cannot ingest, delete or rebuild")
                return
        limit = self.max_body if (method, path) == ("POST", "/v1/documents") else min(self.max_body, SMALL_BODY)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _reply(send, 413, f"request body above the limit of {limit} bytes"
                                    + (" (GRAPHWRIGHT_MAX_UPLOAD_BYTES)" if limit == self.max_body else ""))
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:  # a chunked body with no length announced
                    raise RequestTooLarge(limit)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except RequestTooLarge as exc:  # the app's own handler answers first when a route was reading
            if not started:
                await _reply(send, 413, str(exc))


async def _reply(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(error_body(status, message)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
