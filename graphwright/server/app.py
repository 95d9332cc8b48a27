"""The HTTP API of `graphwright serve`: one warm GraphRAG (driver pool, embedder, LLM client) behind FastAPI.
Here the app is put together (guards, errors, the page and the health check); the routes live by concern in
`routes_search`, `routes_documents`, `routes_graph`, `routes_conversations`, `routes_workspaces`,
`routes_compat` (Dify, Ollama, OpenAI) and `explorer`. Routes are thin: each calls one GraphRAG method; errors
become JSON with the status of their tier (graphwright/errors.py), never a traceback."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from graphwright.errors import BusyError, GraphwrightError, NotFoundError, ServerConfigError
from graphwright.models import Health
from graphwright.server.errors import status_of
from graphwright.server.explorer import curation_routes, explorer_routes
from graphwright.server.fingerprints import move_legacy_conversations, server_secret
from graphwright.server.requests import error_response, graph_of, owner, workspace_of
from graphwright.server.routes_compat import add_compat_routes
from graphwright.server.routes_conversations import add_conversation_routes
from graphwright.server.routes_documents import add_document_routes, add_job_routes
from graphwright.server.routes_graph import add_graph_routes
from graphwright.server.routes_search import add_search_routes
from graphwright.server.routes_sources import add_source_routes
from graphwright.server.routes_workspaces import add_workspace_routes
from graphwright.server.schemas import ErrorBody
from graphwright.server.security import ROLE_STATE, GuardMiddleware, HostPolicy, KeyRing, RequestTooLarge
from graphwright.server.sources import start_watchers
from graphwright.server.state import Server
from graphwright.server.tracing import TraceMiddleware

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings

log = logging.getLogger(__name__)

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": what}
    for status, what in [
        (400, "bad input"),
        (401, "missing or wrong API key"),
        (403, "read-only key"),
        (404, "not found"),
        (413, "request too large"),
        (503, "Neo4j unreachable"),
    ]
}


SERVE_HOST_ENV = "GRAPHWRIGHT_SERVE_HOST"  # the address a worker process of `serve --workers N` listens on


def app_from_environment() -> FastAPI:
    """The app each worker process of `graphwright serve --workers N` builds (uvicorn imports it by name in
    every worker): settings from the environment, as the parent read them, and the address it listens on."""
    from graphwright.config import Settings

    return create_app(Settings(), host=os.environ.get(SERVE_HOST_ENV, "127.0.0.1"))


def create_app(settings: Settings, rag: GraphRAG | None = None, host: str = "127.0.0.1") -> FastAPI:
    """The app for `settings` (a GraphRAG is made from them unless given). Refuses a public `host` without
    API keys."""
    from graphwright.api import GraphRAG
    from graphwright.server.mcp_tools import build_mcp

    keys = KeyRing.from_settings(settings)
    keys.check_bind(host)
    check_dify_mode(settings.dify_mode)
    hosts = HostPolicy.build(host, settings.allowed_hosts, settings.cors_origins, keys.enabled)
    graph = rag or GraphRAG(settings)
    check_key_workspaces(keys, graph)
    server = Server(graph, settings)
    secret = server_secret(settings.home)
    _move_legacy_conversations(keys, server, graph, secret)
    mcp = build_mcp(graph, server)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        server.jobs.mark_interrupted(server.keep_orphan_upload)  # jobs of a process that exited while they ran
        server.sweep_uploads()  # what a crash left behind
        try:
            graph.embedder.embed(["warm up"])  # load the model now, not on the first question
        except GraphwrightError as exc:
            log.warning("embedder not ready: %s", exc)
        stop_watching = threading.Event()
        watcher = start_watchers(graph, server.jobs, stop_watching)  # GRAPHWRIGHT_WATCH's folders
        async with mcp.session_manager.run():
            yield
        stop_watching.set()
        if watcher is not None:
            watcher.join(5)
        server.jobs.close()
        server.sweep_uploads()  # jobs cancelled at shutdown leave their folders
        if rag is None:
            graph.close()

    app = FastAPI(
        title="graphwright",
        version="0.1.0",
        lifespan=lifespan,
        responses=_ERRORS,
        description="GraphRAG on Neo4j: cited search over an entity graph, documents, jobs, MCP at /mcp.",
        docs_url=None,  # served below from the package's own copies: nothing loaded from a CDN
        redoc_url=None,
        **_no_native_telemetry(),
    )
    app.state.server = server  # what the routes share, for an operator's (or a test's) inspection
    app.router.routes.extend(mcp_app.routes)
    app.add_middleware(
        GuardMiddleware,
        keys=keys,
        max_body=settings.max_upload_bytes,
        hosts=hosts,
        workspace=graph.workspace,
        secret=secret,
    )
    if settings.cors_origins.strip():
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=[o.strip() for o in settings.cors_origins.split(",")],
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(TraceMiddleware)  # added last: outermost, so refused requests are traced too
    _errors(app)
    _server_routes(app, server)
    for add_routes in (
        add_search_routes,
        add_document_routes,
        add_job_routes,
        add_source_routes,
        add_graph_routes,
        add_conversation_routes,
        add_workspace_routes,
        add_compat_routes,
    ):
        add_routes(app, server)
    explorer_routes(app, lambda request: server.graph(workspace_of(request)))
    curation_routes(
        app,
        lambda request: server.graph(workspace_of(request)),
        lambda request: owner(request).name or "anonymous",  # a key's fingerprint; no keys: loopback only
        lambda request: server.jobs.write_lock(workspace_of(request)),
    )
    _api_docs(app)
    static = resources.files("graphwright.server") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app


def _api_docs(app: FastAPI) -> None:
    """Swagger UI at /docs with the scripts the fastapi-offline package ships (MIT), so the page works on a
    machine with no internet; FastAPI's own page loads them from a CDN. (The ReDoc build it ships stops at our
    schema's `$defs` with "Invalid reference token", so /redoc is not served.)"""
    from fastapi.openapi.docs import get_swagger_ui_html

    assets = resources.files("fastapi_offline") / "static"
    app.mount("/static/api-docs", StaticFiles(directory=str(assets)), name="api-docs")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="graphwright API",
            swagger_js_url="/static/api-docs/swagger-ui-bundle.js",
            swagger_css_url="/static/api-docs/swagger-ui.css",
            swagger_favicon_url="/static/api-docs/favicon.png",
        )


def _errors(app: FastAPI) -> None:
    @app.exception_handler(GraphwrightError)
    async def ours(_: Request, exc: GraphwrightError) -> JSONResponse:
        status = status_of(exc)
        if status >= 500:
            log.warning("%s: %s", exc.__class__.__name__, exc)
        return error_response(status, str(exc) if status != 500 else f"{exc.__class__.__name__}: {exc}")

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'body'}: {e['msg']}" for e in exc.errors()[:5]
        )
        return error_response(400, f"invalid request: {problems}")

    @app.exception_handler(BusyError)
    async def busy(_: Request, exc: BusyError) -> JSONResponse:
        response = error_response(429, str(exc))
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(RequestTooLarge)
    async def too_large(_: Request, exc: RequestTooLarge) -> JSONResponse:
        return error_response(413, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")  # the traceback goes to the log, never to the client
        return error_response(500, "internal error (see the server log)")


def _move_legacy_conversations(keys: KeyRing, server: Server, graph: GraphRAG, secret: bytes) -> None:
    """Conversations stored under the fingerprints of releases before the server secret move to the new ones
    (skipped, with a warning, while Neo4j is down: the next start moves them)."""
    from graphwright.errors import GraphStoreError

    tokens = [k for k, _ in (*keys.write_keys, *keys.read_keys)] + list(keys.admin_keys)
    if not tokens:
        return
    try:
        graphs = []
        for name in sorted({graph.workspace, "default", *graph.store.workspaces.names()}):
            try:
                graphs.append(server.graph(name))
            except NotFoundError:
                continue
        move_legacy_conversations(graphs, tokens, secret)
    except GraphStoreError as exc:
        log.warning("conversations under old key fingerprints not moved (Neo4j: %s); the next start moves them", exc)


def check_key_workspaces(keys: KeyRing, graph: GraphRAG) -> None:
    """A key bound to a workspace that does not exist is a typo: refuse to start, naming it. Skipped, with a
    warning, while Neo4j is down (the server starts anyway and says so at /healthz)."""
    from graphwright.errors import GraphStoreError

    named = {w for _, bound in (*keys.write_keys, *keys.read_keys) if bound for w in bound}
    if not named - {graph.workspace, "default"}:
        return
    try:
        known = set(graph.store.workspaces.names())
    except GraphStoreError as exc:
        log.warning("could not check the workspaces the API keys name: %s", exc)
        return
    unknown = sorted(named - known)
    if unknown:
        raise ServerConfigError(
            f"API keys name workspaces that do not exist: {', '.join(unknown)} (create them with "
            "`graphwright workspace create NAME`, or fix the key's `@` part)"
        )


def _no_native_telemetry() -> dict[str, Any]:
    """FastAPI's own request spans (newer releases) record the path and query a client sent; the server's
    TraceMiddleware traces each request by its route template instead, so FastAPI's are off."""
    import inspect

    if "telemetry" not in inspect.signature(FastAPI).parameters:
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}}


def check_dify_mode(mode: str) -> None:
    from graphwright.search.registry import mode_class, mode_names

    if mode not in mode_names() or mode_class(mode).needs_llm:
        offline = ", ".join(m for m in mode_names() if not mode_class(m).needs_llm)
        raise ServerConfigError(f"GRAPHWRIGHT_DIFY_MODE is {mode!r}: use a mode that runs without an LLM ({offline})")


def _server_routes(app: FastAPI, server: Server) -> None:
    """The page and the health check."""

    @app.get("/", include_in_schema=False)
    def page(request: Request) -> HTMLResponse:
        from graphwright.answer_graph import palette
        from graphwright.documents.file_types import supported_suffixes

        html = (resources.files("graphwright.server") / "static" / "index.html").read_text(encoding="utf-8")
        # The file picker offers what ingest reads: the loaders' table, not a copy of it; the explorer colours
        # types as the answer graph does: its palette, not a copy.
        html = html.replace("__ACCEPT__", ",".join(supported_suffixes()))
        # the workspace names are checked ([a-z0-9_-]) before they get here: nothing to escape
        html = html.replace("__WORKSPACE__", workspace_of(request)).replace("__ROOT_WORKSPACE__", server.rag.workspace)
        return HTMLResponse(html.replace("__PALETTE__", json.dumps(palette())))

    @app.get("/healthz", response_model=Health, tags=["server"])
    def healthz(request: Request) -> JSONResponse:
        """Neo4j reachable and every index online (503 otherwise). Without a valid key only `{"ok": ...}`:
        the details name the database and its errors (the server log has them too)."""
        health = graph_of(server, request).inspect.health()
        status = 200 if health.ok else 503
        if not health.ok:
            log.warning("health check failed: %s", health.detail)
        if getattr(request.state, ROLE_STATE, None) is None:
            return JSONResponse({"ok": health.ok}, status_code=status)
        return JSONResponse(health.model_dump(mode="json"), status_code=status)
