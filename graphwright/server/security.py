"""Who may call the server, and how much they may send: bearer keys (full or read-only), the loopback rule,
the Host allowlist and the Origin check (so a web page the user visits cannot drive a keyless server, by a
cross-site form post or by DNS rebinding), and the request-size limit. A pure ASGI middleware, so streamed
answers and the MCP endpoint pass through it untouched and every route is covered by one check."""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit, urlunsplit

from graphwright.config import DEFAULT_WORKSPACE, check_workspace_name
from graphwright.errors import (
    ServerConfigError,  # re-exported: they used to live here
)
from graphwright.models import ConversationOwner
from graphwright.server.errors import error_body
from graphwright.server.fingerprints import owner_of
from graphwright.serving_proof import PROOF_PATH, serving_proof

if TYPE_CHECKING:
    from pydantic import SecretStr

    from graphwright.config import Settings

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
_OPEN_PATHS = {"/", "/healthz", "/favicon.ico", PROOF_PATH}
# Bodies of every route but uploads stay small: a question, a filter list, a search result to draw.
SMALL_BODY = 2 * 1024 * 1024
# Routes that change the graph: a read-only key gets 403 there.
_WRITES = {
    ("POST", "/v1/documents"),
    ("POST", "/v1/documents/"),  # a failed or interrupted row's retry
    ("POST", "/v1/communities/build"),
    ("DELETE", "/v1/documents/"),
    ("POST", "/v1/curation/"),  # every hand change of the graph, undo included
    ("POST", "/v1/jobs/"),  # resuming an interrupted ingest
    ("POST", "/v1/sources/"),  # a source's sync now
}


_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The request's role, for routes that show more to a caller with a key (the health check).
ROLE_STATE = "graphwright_role"
# Whose conversations a request sees: a ConversationOwner made from its key (nobody's without one).
OWNER_STATE = "graphwright_owner"
# Dify's external knowledge API has error bodies of its own (`error_code`, `error_msg`).
DIFY_PREFIX = "/dify/"
# The workspace of a request: `/w/<name>/v1/...` (any route: the API, /mcp, Ollama's and Dify's, the page),
# else `default`. The guard strips the prefix, so routes are written once.
WORKSPACE_PREFIX = "/w/"
WORKSPACE_STATE = "graphwright_workspace"
# What the request's key may do (a Grant; everything on a keyless server).
GRANT_STATE = "graphwright_grant"
WORKSPACES_PATH = "/v1/workspaces"


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
class Grant:
    """What one request's key may do: write or read in which workspaces (None: every workspace), and whether
    it manages workspaces. A keyless server grants everything (it listens on loopback only)."""

    write: frozenset[str] | None = frozenset()
    read: frozenset[str] | None = frozenset()
    admin: bool = False

    def role_in(self, workspace: str) -> Role | None:
        if self.admin or _holds(self.write, workspace):
            return "write"
        return "read" if _holds(self.read, workspace) else None

    def sees(self, workspace: str) -> bool:
        return self.role_in(workspace) is not None

    @property
    def tenant(self) -> bool:
        """Bound to named workspaces: not an admin key, nor one that holds every workspace."""
        return not self.admin and self.write is not None and self.read is not None

    @property
    def reach(self) -> frozenset[str] | None:
        """The workspaces this key reads (None: every one)."""
        if self.admin or self.write is None or self.read is None:
            return None
        return self.write | self.read


def _holds(workspaces: frozenset[str] | None, workspace: str) -> bool:
    return workspaces is None or workspace in workspaces


OPEN_GRANT = Grant(write=None, admin=True)


def _entry(raw: str) -> tuple[str, frozenset[str] | None]:
    """`KEY` (every workspace) or `KEY@legal+support`; a bad workspace name stops the server at start."""
    key, at, names = raw.rpartition("@") if "@" in raw else (raw, "", "")
    if not at:
        return raw, None
    try:
        return key, frozenset(check_workspace_name(n.strip()) for n in names.split("+"))
    except ValueError as exc:
        raise ServerConfigError(f"an API key names a bad workspace after `@`: {exc}") from exc


@dataclass(frozen=True)
class KeyRing:
    """The keys the server accepts, each bound to workspaces or to all; no keys at all means open (allowed on
    loopback only)."""

    write_keys: tuple[tuple[str, frozenset[str] | None], ...] = ()
    read_keys: tuple[tuple[str, frozenset[str] | None], ...] = ()
    admin_keys: tuple[str, ...] = ()

    @classmethod
    def from_strings(cls, write: str | None, read: str | None, admin: str | None = None) -> KeyRing:
        return cls(
            tuple(_entry(k) for k in split_keys(write)),
            tuple(_entry(k) for k in split_keys(read)),
            tuple(split_keys(admin)),
        )

    @property
    def enabled(self) -> bool:
        return bool(self.write_keys or self.read_keys or self.admin_keys)

    def grant(self, token: str) -> Grant | None:
        """What a presented key may do (None: not a key of ours). Every key is compared, in constant time, so
        timing tells nothing of a key or of which list holds it."""
        found = False
        write: set[str] | None = set()
        read: set[str] | None = set()
        admin = False
        for key, workspaces, kind in [
            *((k, w, "write") for k, w in self.write_keys),
            *((k, w, "read") for k, w in self.read_keys),
            *((k, None, "admin") for k in self.admin_keys),
        ]:
            if not hmac.compare_digest(key.encode(), token.encode()):
                continue
            found = True
            if kind == "admin":
                admin = True
            elif kind == "write":
                write = None if workspaces is None or write is None else write | workspaces
            else:
                read = None if workspaces is None or read is None else read | workspaces
        if not found:
            return None
        return Grant(
            frozenset(write) if write is not None else None, frozenset(read) if read is not None else None, admin
        )

    def role(self, token: str, workspace: str = DEFAULT_WORKSPACE) -> Role | None:
        grant = self.grant(token)
        return grant.role_in(workspace) if grant is not None else None

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyRing:
        def secret(value: SecretStr | None) -> str | None:
            return value.get_secret_value() if value else None

        return cls.from_strings(
            secret(settings.api_keys), secret(settings.read_api_keys), secret(settings.admin_api_keys)
        )

    def check_bind(self, host: str) -> None:
        """Refuse to serve a non-loopback address without keys: the graph would be open to the network."""
        if not is_loopback(host) and not self.enabled:
            raise ServerConfigError(
                f"refusing to listen on {host} without API keys: set GRAPHWRIGHT_API_KEYS "
                "(and optionally GRAPHWRIGHT_READ_API_KEYS), or bind to 127.0.0.1"
            )


def host_name(authority: str) -> str:
    """ "127.0.0.1:8000" -> "127.0.0.1", "[::1]:8000" -> "::1", lower case."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


@dataclass(frozen=True)
class HostPolicy:
    """Which Host headers and browser Origins the server answers. A keyless server checks the Host always
    (loopback names, the bound address, GRAPHWRIGHT_ALLOWED_HOSTS); with keys the key is the lock and the
    Host is checked only when GRAPHWRIGHT_ALLOWED_HOSTS is set. A state-changing request (any method but
    GET, HEAD, OPTIONS) from a browser must come from the server's own origin or a configured CORS origin."""

    hosts: frozenset[str] = _LOOPBACK_NAMES
    check_host: bool = True
    cors_origins: frozenset[str] = frozenset()

    @classmethod
    def build(cls, bind_host: str, allowed: str, cors: str, keyed: bool) -> HostPolicy:
        listed = {h.strip().lower() for h in allowed.split(",") if h.strip()}
        hosts = set(_LOOPBACK_NAMES) | {host_name(h) for h in listed}
        if bind_host not in ("0.0.0.0", "::", ""):
            hosts.add(host_name(bind_host))
        check = "*" not in listed and (not keyed or bool(listed))
        origins = frozenset(o.strip().rstrip("/").lower() for o in cors.split(",") if o.strip())
        return cls(frozenset(hosts), check, origins)

    def host_refusal(self, host: str | None) -> str | None:
        if not self.check_host:
            return None
        if not host:
            return "the request has no Host header"
        if host_name(host) not in self.hosts:
            return (
                f"this server does not answer for the host {host_name(host)!r}; add it to "
                "GRAPHWRIGHT_ALLOWED_HOSTS if it is yours"
            )
        return None

    def origin_refusal(self, method: str, headers: dict[str, str]) -> str | None:
        if method in _SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is None:
            # No Origin: not a browser (curl, SDKs), or a browser's same-origin request; a cross-site one
            # still says so in Sec-Fetch-Site.
            if headers.get("sec-fetch-site", "") == "cross-site":
                return "cross-site request refused"
            return None
        origin = origin.strip().rstrip("/").lower()
        if origin in self.cors_origins:
            return None
        own = origin.split("://", 1)[-1]
        if origin.startswith(("http://", "https://")) and own == headers.get("host", "").strip().lower():
            return None
        return (
            f"cross-origin request from {origin[:100]!r} refused: only this server's own page (or an "
            "origin in GRAPHWRIGHT_CORS_ORIGINS) may change or query it from a browser"
        )


def is_write(method: str, path: str) -> bool:
    return any(method == m and (path == p or (p.endswith("/") and path.startswith(p))) for m, p in _WRITES)


def needs_key(path: str) -> bool:
    return path not in _OPEN_PATHS and not path.startswith(_OPEN_PREFIXES)


class RequestTooLarge(Exception):  # noqa: N818 - an HTTP condition, named as HTTP names it
    """A request body that grew past the limit while it was read (no Content-Length was announced)."""

    def __init__(self, limit: int, setting: str = "GRAPHWRIGHT_MAX_UPLOAD_BYTES") -> None:
        super().__init__(f"request body above the limit of {limit} bytes ({setting})")


class GuardMiddleware:
    """Bearer keys and the body-size limit, before any route runs."""

    def __init__(
        self,
        app: ASGIApp,
        keys: KeyRing,
        max_body: int,
        hosts: HostPolicy | None = None,
        workspace: str = DEFAULT_WORKSPACE,
        secret: bytes = b"",
    ) -> None:
        self.app = app
        self.secret = secret  # the server secret that key fingerprints are keyed by
        self.workspace = workspace  # of a request without the `/w/<name>` prefix
        self.keys = keys
        self.max_body = max_body
        self.hosts = hosts or HostPolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refused = self.hosts.host_refusal(headers.get("host"))
        if refused:
            await _reply(send, 400, refused)
            return
        refused = self.hosts.origin_refusal(method, headers)
        if refused:
            await _reply(send, 403, refused)
            return
        workspace = self.workspace
        prefix = ""
        if path.startswith(WORKSPACE_PREFIX):
            name, _, rest = path[len(WORKSPACE_PREFIX) :].partition("/")
            try:
                workspace = check_workspace_name(name)
            except ValueError as exc:
                await _reply(send, 400, str(exc))
                return
            # A trailing slash is dropped here, not redirected: the router's redirect would be built from the
            # path without the prefix and send a client that follows it to the default workspace.
            path = "/" + rest.rstrip("/")
            scope["path"], scope["raw_path"] = path, path.encode()
            prefix = WORKSPACE_PREFIX + workspace
        if path == PROOF_PATH and method == "GET":
            await _prove(self.secret, scope, send)
            return
        scheme, _, token = headers.get("authorization", "").partition(" ")
        token = token.strip() if scheme.lower() == "bearer" else ""
        grant = (self.keys.grant(token) if token else None) if self.keys.enabled else OPEN_GRANT
        role = grant.role_in(workspace) if grant is not None and self.keys.enabled else None
        state = scope.setdefault("state", {})
        state[WORKSPACE_STATE] = workspace
        state[GRANT_STATE] = grant
        state[ROLE_STATE] = role
        # The key's identity whatever the path's workspace: Dify names its workspace in the body, and a route
        # that searches must still know the tenant (a key with no role here is refused below anyway).
        state[OWNER_STATE] = (
            replace(owner_of(token, self.secret), tenant=grant.tenant, reach=grant.reach)
            if grant is not None and self.keys.enabled
            else ConversationOwner()
        )
        if self.keys.enabled and needs_key(path):
            if grant is None:
                why = "missing API key" if "authorization" not in headers else "invalid API key"
                if path.startswith(DIFY_PREFIX):
                    await _reply_dify(send, bool(token))
                    return
                await _reply(
                    send, 401, f"{why}: send `Authorization: Bearer <key>`", [(b"www-authenticate", b"Bearer")]
                )
                return
            refused = _refusal(grant, role, workspace, method, path)
            if refused:
                await _reply(send, 403, refused)
                return
        limit = self.max_body if (method, path) == ("POST", "/v1/documents") else min(self.max_body, SMALL_BODY)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _reply(
                send,
                413,
                f"request body above the limit of {limit} bytes"
                + (" (GRAPHWRIGHT_MAX_UPLOAD_BYTES)" if limit == self.max_body else ""),
            )
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
            if prefix and message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                message["headers"] = [
                    (name, _within(value, prefix) if name.lower() == b"location" else value)
                    for name, value in message.get("headers", [])
                ]
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except RequestTooLarge as exc:  # the app's own handler answers first when a route was reading
            if not started:
                await _reply(send, 413, str(exc))


async def _prove(secret: bytes, scope: Scope, send: Send) -> None:
    challenge = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("challenge", [""])[0]
    if not 16 <= len(challenge) <= 128:
        await _reply(send, 400, "send ?challenge= with 16 to 128 characters")
        return
    body = json.dumps({"proof": serving_proof(secret, challenge)}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def _within(location: bytes, prefix: str) -> bytes:
    """A redirect's Location kept inside the workspace prefix the request came in by (any redirect the app
    still makes, a mount's added slash say, is built from the path the guard stripped of its prefix)."""
    parts = urlsplit(location.decode("latin-1"))
    if parts.path.startswith(prefix + "/") or parts.path == prefix:
        return location
    return urlunsplit(parts._replace(path=prefix + (parts.path or "/"))).encode("latin-1")


def _refusal(grant: Grant, role: Role | None, workspace: str, method: str, path: str) -> str | None:
    """Why a valid key may not make this request (None: it may). Dify names its workspace in the body, so its
    route checks the grant itself."""
    if path == WORKSPACES_PATH or path.startswith(WORKSPACES_PATH + "/"):
        if method in _SAFE_METHODS or grant.admin:
            return None  # the list shows a key only its workspaces
        return "only an admin key (GRAPHWRIGHT_ADMIN_API_KEYS) creates or deletes workspaces"
    if path.startswith(DIFY_PREFIX):
        return None
    if role is None:
        return f"this API key has no access to workspace {workspace!r}"
    if role == "read" and is_write(method, path):
        return "this API key is read-only: it cannot ingest, delete or rebuild"
    return None


async def _reply_dify(send: Send, bearer: bool) -> None:
    """Dify's suggested codes: 1001 for a header that is not `Bearer <key>`, 1002 for a key we do not know."""
    if bearer:
        body = {"error_code": 1002, "error_msg": "Authorization failed. Please check your API key."}
    else:
        body = {"error_code": 1001, "error_msg": "Invalid Authorization header format. Expected 'Bearer <api-key>'."}
    await _reply(send, 403 if bearer else 401, "", body=body)


async def _reply(
    send: Send,
    status: int,
    message: str,
    extra: list[tuple[bytes, bytes]] | None = None,
    body: dict[str, Any] | None = None,
) -> None:
    payload = json.dumps(body if body is not None else error_body(status, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
