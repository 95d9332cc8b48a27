"""The HTTP API of `graphwright serve`: one warm GraphRAG (driver pool, embedder, LLM client) behind FastAPI.
Routes are thin: each calls one GraphRAG method; errors become JSON with the right status, never a traceback."""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles

from graphwright.errors import BusyError, GraphwrightError, InvalidRequestError, NotFoundError, ServerConfigError
from graphwright.models import (
    AnswerDelta,
    Conversation,
    ConversationInfo,
    ConversationOwner,
    DocumentInfo,
    EntityProfile,
    Evidence,
    GraphStats,
    Health,
    SearchResult,
    WorkspaceInfo,
)
from graphwright.server.errors import error_body, status_of
from graphwright.server.explorer import explorer_routes
from graphwright.server.fingerprints import move_legacy_conversations, server_secret
from graphwright.server.jobs import Job, Progress
from graphwright.server.ollama import OllamaChatRequest
from graphwright.server.schemas import (
    ChatRequest,
    DeletedConversation,
    DeleteResult,
    DocumentsRequest,
    ErrorBody,
    JsonDocument,
    NewConversation,
    NewWorkspace,
    SearchRequest,
    ServedResult,
    check_drawable,
)
from graphwright.server.security import (
    GRANT_STATE,
    OWNER_STATE,
    ROLE_STATE,
    WORKSPACE_STATE,
    Grant,
    GuardMiddleware,
    HostPolicy,
    KeyRing,
    RequestTooLarge,
)
from graphwright.server.state import Server
from graphwright.server.streaming import in_thread, sse

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings

log = logging.getLogger(__name__)

# Characters a saved name may not hold as they are: path separators, the escape character itself, controls,
# and what shells and URLs treat specially. Each becomes %XX of its UTF-8 bytes, so two different client
# names never become one saved name (the old rule made `a?.md` and `a!.md` both `a_.md`).
_UNSAFE_CHAR = re.compile(r"[\x00-\x1f\x7f/\\%:*?\"<>|\u2028\u2029]")
_MAX_NAME_BYTES = 200
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


def safe_upload_name(name: str | None, index: int) -> str:
    """A file name of our own making, never a path: the client's base name with unsafe characters as %XX
    (letters of any script kept, so `名前.md` stays `名前.md`), one-to-one so names never collide, and the
    extension kept when a long name is shortened."""
    import unicodedata

    base = unicodedata.normalize("NFC", (name or "").replace("\\", "/").rsplit("/", 1)[-1])
    base = _UNSAFE_CHAR.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8")), base)
    if base.startswith("."):  # no hidden files, no `..`
        base = "%2E" + base[1:]
    if not base.strip(" ."):
        return f"upload-{index}"
    stem, dot, suffix = base.rpartition(".")
    if not dot or len(suffix.encode()) > 16:
        stem, dot, suffix = base, "", ""
    while len((stem + dot + suffix).encode()) > _MAX_NAME_BYTES:
        stem = stem[:-1]
    return f"{stem}{dot}{suffix}"


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
    mcp = build_mcp(graph, server.graph)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        server.jobs.mark_interrupted()  # jobs of a server process that exited while they ran
        server.sweep_uploads()  # what a crash left behind
        try:
            graph.embedder.embed(["warm up"])  # load the model now, not on the first question
        except GraphwrightError as exc:
            log.warning("embedder not ready: %s", exc)
        async with mcp.session_manager.run():
            yield
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
    _errors(app)
    _routes(app, server)
    explorer_routes(
        app,
        lambda request: server.graph(workspace_of(request)),
        lambda request: owner(request).name or "anonymous",  # a key's fingerprint; no keys: loopback only
        server.jobs.write_lock,
    )
    static = resources.files("graphwright.server") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(error_body(status, message), status_code=status)


def _errors(app: FastAPI) -> None:
    @app.exception_handler(GraphwrightError)
    async def ours(_: Request, exc: GraphwrightError) -> JSONResponse:
        status = status_of(exc)
        if status >= 500:
            log.warning("%s: %s", exc.__class__.__name__, exc)
        return _error(status, str(exc) if status != 500 else f"{exc.__class__.__name__}: {exc}")

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'body'}: {e['msg']}" for e in exc.errors()[:5]
        )
        return _error(400, f"invalid request: {problems}")

    @app.exception_handler(BusyError)
    async def busy(_: Request, exc: BusyError) -> JSONResponse:
        response = _error(429, str(exc))
        response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.exception_handler(RequestTooLarge)
    async def too_large(_: Request, exc: RequestTooLarge) -> JSONResponse:
        return _error(413, str(exc))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")  # the traceback goes to the log, never to the client
        return _error(500, "internal error (see the server log)")


def workspace_of(request: Request) -> str:
    """The request's workspace: its `/w/<name>` prefix (the guard read it), else `default`."""
    found = getattr(request.state, WORKSPACE_STATE, None)
    return found if isinstance(found, str) else "default"


def grant_of(request: Request) -> Grant:
    found = getattr(request.state, GRANT_STATE, None)
    return found if isinstance(found, Grant) else Grant()


def owner(request: Request) -> ConversationOwner:
    """Whose conversations this request sees: its key's (the guard set it), or nobody's without keys."""
    found = getattr(request.state, OWNER_STATE, None)
    return found if isinstance(found, ConversationOwner) else ConversationOwner()


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


def check_dify_mode(mode: str) -> None:
    from graphwright.search.registry import mode_class, mode_names

    if mode not in mode_names() or mode_class(mode).needs_llm:
        offline = ", ".join(m for m in mode_names() if not mode_class(m).needs_llm)
        raise ServerConfigError(f"GRAPHWRIGHT_DIFY_MODE is {mode!r}: use a mode that runs without an LLM ({offline})")


def _search_events(server: Server, body: SearchRequest, owner: ConversationOwner, workspace: str) -> Iterator[bytes]:
    """The SSE frames of one search; an error after the first frame is an `error` event."""
    events = server.graph(workspace).search_stream(body.question, body.options(), owner=owner)
    started = False
    try:
        for event in events:
            if isinstance(event, SearchResult):
                yield sse("result", server.served(event, workspace).model_dump(mode="json"))
            elif isinstance(event, AnswerDelta):
                yield sse("token", {"text": event.text})
            elif isinstance(event, Evidence):
                yield sse("retrieval", event.model_dump(mode="json"))
            started = True
    except GraphwrightError as exc:
        if not started:  # nothing sent yet: a plain JSON error with its status
            raise
        yield sse("error", error_body(status_of(exc), str(exc)))
    finally:
        events.close()  # type: ignore[attr-defined]


def _routes(app: FastAPI, server: Server) -> None:
    def graph(request: Request) -> GraphRAG:
        """The request's workspace's GraphRAG (404 for a workspace that does not exist)."""
        return server.graph(workspace_of(request))

    @app.get("/", include_in_schema=False)
    def page() -> HTMLResponse:
        from graphwright.extraction.file_types import supported_suffixes

        html = (resources.files("graphwright.server") / "static" / "index.html").read_text(encoding="utf-8")
        # The file picker offers what ingest reads: the loaders' table, not a copy of it.
        return HTMLResponse(html.replace("__ACCEPT__", ",".join(supported_suffixes())))

    @app.get("/healthz", response_model=Health, tags=["server"])
    def healthz(request: Request) -> JSONResponse:
        """Neo4j reachable and every index online (503 otherwise). Without a valid key only `{"ok": ...}`:
        the details name the database and its errors (the server log has them too)."""
        health = graph(request).health()
        status = 200 if health.ok else 503
        if not health.ok:
            log.warning("health check failed: %s", health.detail)
        if getattr(request.state, ROLE_STATE, None) is None:
            return JSONResponse({"ok": health.ok}, status_code=status)
        return JSONResponse(health.model_dump(mode="json"), status_code=status)

    @app.post("/v1/search", response_model=ServedResult, tags=["search"])
    def search(body: SearchRequest, request: Request) -> ServedResult:
        """Search with any mode; the answer cites chunk, entity, relation and community ids. With `history`
        (or a stored `conversation_id`) a follow-up question is searched with what it refers to."""
        result = graph(request).search(body.question, body.options(), owner=owner(request))
        return server.served(result, workspace_of(request))

    @app.post(
        "/v1/search/stream",
        tags=["search"],
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    def search_stream(body: SearchRequest, request: Request) -> StreamingResponse:
        """Server-sent events: `retrieval` (the evidence), `token` (answer text as it is written), then
        `result` (the SearchResult with its Browser link); `error` if the search fails midway."""
        frames = _search_events(server, body, owner(request), workspace_of(request))
        first = next(frames)  # bad parameters fail here, as a plain 400, before the stream starts
        return _event_stream(first, frames)

    @app.post("/v1/answer-graph", response_class=HTMLResponse, tags=["search"])
    def answer_graph(result: SearchResult) -> HTMLResponse:
        """The self-contained SVG view of a SearchResult's entities, relations and passages."""
        from graphwright.answer_graph import answer_graph_html

        check_drawable(result)
        return HTMLResponse(answer_graph_html(result))

    @app.post(
        "/v1/documents",
        status_code=202,
        response_model=Job,
        tags=["documents"],
        openapi_extra={
            "requestBody": {
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                                "extractor": {"type": "string"},
                            },
                        }
                    },
                    "application/json": {"schema": DocumentsRequest.model_json_schema()},
                }
            }
        },
    )
    async def add_documents(request: Request) -> Job:
        """Upload files (multipart `files`) or JSON records (`{"documents": [{"id", "title", "text", ...}]}`);
        ingestion runs as a job: follow it at /v1/jobs/{id}."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        folder = server.new_upload_folder()
        try:
            if kind == "multipart/form-data":
                extractor = await _save_files(request, folder, server.settings.max_upload_bytes)
            elif kind == "application/json":
                extractor = await _save_records(request, folder, server.settings.max_json_bytes)
            elif kind in _NDJSON:
                extractor = await _stream_records(request, folder)
            else:
                raise InvalidRequestError(
                    "send files as multipart/form-data (field `files`), JSON records "
                    "(application/json) or one record a line (application/x-ndjson)"
                )
            return server.ingest_job(folder, extractor, workspace_of(request))
        except BaseException:  # a bad body, or a full queue: nothing of the upload stays behind
            shutil.rmtree(folder, ignore_errors=True)
            raise

    @app.get("/v1/jobs", response_model=list[Job], tags=["documents"])
    def jobs(request: Request, limit: int = Query(100, ge=1, le=1000)) -> list[Job]:
        """The newest jobs, newest first: queued, running, succeeded, failed, or interrupted (their server
        process exited before they finished; a restarted server removes their uploads)."""
        return server.jobs.recent(limit, workspace_of(request))

    @app.get("/v1/jobs/{job_id}", response_model=Job, tags=["documents"])
    def job(job_id: str, request: Request) -> Job | JSONResponse:
        """A job's status, progress by stage and, when done, its report or error."""
        found = server.jobs.get(job_id, workspace_of(request))
        return found if found is not None else _error(404, f"no job {job_id!r}")

    @app.get("/v1/documents", response_model=list[DocumentInfo], tags=["documents"])
    def documents(
        request: Request, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=1000)
    ) -> list[DocumentInfo]:
        """Stored documents by id, a page at a time."""
        return graph(request).documents(offset, limit)

    @app.delete("/v1/documents/{document_id:path}", response_model=DeleteResult, tags=["documents"])
    def delete_document(document_id: str, request: Request) -> DeleteResult | JSONResponse:
        """Remove a document, its chunks and the graph only it supported; communities follow."""
        rag = graph(request)
        with server.jobs.write_lock:
            removed = rag.delete_document(document_id)
        if removed is None:
            return _error(404, f"no document {document_id!r}")
        return DeleteResult(deleted=document_id, chunks=removed)

    @app.get("/v1/entities/{name:path}", response_model=EntityProfile, tags=["graph"])
    def entity(name: str, request: Request) -> EntityProfile | JSONResponse:
        """An entity by name (misspellings forgiven) with its relations, sources and communities."""
        profile = graph(request).entity(name)
        return profile if profile is not None else _error(404, f"no entity is named like {name!r}")

    @app.get("/v1/stats", response_model=GraphStats, tags=["graph"])
    def stats(request: Request) -> GraphStats:
        """Counts, types, communities by level and index states."""
        return graph(request).inspect()

    @app.post("/v1/communities/build", status_code=202, response_model=Job, tags=["graph"])
    def build_communities(request: Request, full: bool = False) -> Job:
        """Detect communities and write their reports, as a job."""
        rag, workspace = graph(request), workspace_of(request)

        def work(progress: Progress) -> dict[str, Any]:
            with server.jobs.write_lock:
                run = rag.build_communities(progress=progress, full=full, budget=server.settings.report_budget)
            return {k: v for k, v in vars(run).items() if isinstance(v, (int, float, str, bool, dict, list))}

        return server.jobs.submit("communities", work, workspace=workspace)

    @app.post("/v1/conversations", status_code=201, response_model=ConversationInfo, tags=["conversations"])
    def new_conversation(request: Request, body: NewConversation | None = None) -> ConversationInfo:
        """A stored conversation: search with its `conversation_id` and each answer becomes its next turn."""
        return graph(request).conversations(owner(request)).create((body or NewConversation()).title)

    @app.get("/v1/conversations", response_model=list[ConversationInfo], tags=["conversations"])
    def conversations(
        request: Request, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=1000)
    ) -> list[ConversationInfo]:
        """This key's conversations, most recently used first."""
        return graph(request).conversations(owner(request)).list(offset, limit)

    @app.get("/v1/conversations/{conversation_id}", response_model=Conversation, tags=["conversations"])
    def conversation(conversation_id: str, request: Request) -> Conversation:
        """A conversation with its turns: question, answer, mode, and the chunks and entities each cited."""
        return graph(request).conversations(owner(request)).get(conversation_id)

    @app.delete("/v1/conversations/{conversation_id}", response_model=DeletedConversation, tags=["conversations"])
    def delete_conversation(conversation_id: str, request: Request) -> DeletedConversation:
        """Remove a conversation and its turns (the graph it cited stays)."""
        graph(request).conversations(owner(request)).delete(conversation_id)
        return DeletedConversation(deleted=conversation_id)

    @app.get("/v1/workspaces", response_model=list[WorkspaceInfo], tags=["workspaces"])
    def workspaces(request: Request) -> list[WorkspaceInfo]:
        """The workspaces this key may use, with what each holds (`/w/<name>/v1/...` works in one)."""
        grant = grant_of(request)
        return [server.rag.workspace_info(n) for n in server.rag.store.workspaces.names() if grant.sees(n)]

    @app.get("/v1/workspaces/{name}", response_model=WorkspaceInfo, tags=["workspaces"])
    def workspace(name: str, request: Request) -> WorkspaceInfo:
        """One workspace (404 for one that does not exist or that this key may not use)."""
        if not grant_of(request).sees(name):
            raise NotFoundError(f"no workspace {name!r}")
        return server.rag.workspace_info(name)

    @app.post("/v1/workspaces", status_code=201, response_model=WorkspaceInfo, tags=["workspaces"])
    def create_workspace(body: NewWorkspace) -> WorkspaceInfo:
        """A new, empty workspace (an admin key's); 409 if the name is taken."""
        with server.jobs.write_lock:
            return server.rag.create_workspace(body.name, extractor=body.extractor, entity_types=body.entity_types)

    @app.delete("/v1/workspaces/{name}", response_model=WorkspaceInfo, tags=["workspaces"])
    def delete_workspace(name: str, yes: bool = False) -> WorkspaceInfo:
        """Delete a workspace's data and indexes, nothing of another (an admin key's); one that holds documents
        needs `?yes=true`. Returns what it held."""
        with server.jobs.write_lock:
            held = server.rag.delete_workspace(name, yes=yes)
        server.forget(name)
        return held

    @app.post("/dify/retrieval", tags=["dify"])
    async def dify_retrieval(request: Request) -> JSONResponse:
        """Dify's External Knowledge API: register `<this server>/dify` as the endpoint and `default` as the
        knowledge ID; records are passages of the `GRAPHWRIGHT_DIFY_MODE` search (local by default)."""
        from fastapi.concurrency import run_in_threadpool

        from graphwright.server.dify import retrieve

        raw = await request.body()
        return await run_in_threadpool(retrieve, server, raw, grant_of(request))

    @app.get("/api/version", tags=["ollama"])
    def ollama_version() -> dict[str, str]:
        """Ollama's version call: the API version we answer as."""
        from graphwright.server.ollama import OLLAMA_VERSION

        return {"version": OLLAMA_VERSION}

    @app.get("/api/tags", tags=["ollama"])
    def ollama_tags() -> dict[str, Any]:
        """Ollama's model list: graphwright (hybrid) and graphwright-<mode> for each search mode."""
        from graphwright.server.ollama import tags

        return tags()

    @app.post("/api/chat", tags=["ollama"])
    def ollama_chat(body: OllamaChatRequest, request: Request) -> Any:
        """Ollama's chat: the whole `messages` list (a follow-up is searched with its conversation); NDJSON
        lines when `stream` (Ollama's default), else one object."""
        from graphwright.server.ollama import chat, chat_lines

        if body.stream:
            lines = chat_lines(server, body, workspace_of(request), owner(request))
            first = next(lines)
            return _event_stream(first, lines, media_type="application/x-ndjson")
        return chat(server, body, workspace_of(request), owner(request))

    @app.get("/v1/models", tags=["openai"])
    def models() -> dict[str, Any]:
        """The chat models /v1/chat/completions accepts: one per search mode."""
        from graphwright.search.registry import mode_names

        names = ["graphwright", *(f"graphwright-{m}" for m in mode_names())]
        return {
            "object": "list",
            "data": [{"id": n, "object": "model", "created": 0, "owned_by": "graphwright"} for n in names],
        }

    @app.post("/v1/chat/completions", tags=["openai"])
    def chat(body: ChatRequest, request: Request) -> Any:
        """OpenAI-compatible: the last user message is the question, answered from the graph with its
        sources listed; `model` "graphwright-<mode>" picks the mode. Streams when `stream` is true."""
        from graphwright.server.chat import chat_completion, chat_stream

        if body.stream:
            frames = chat_stream(server, body, workspace_of(request), owner(request))
            first = next(frames)
            return _event_stream(first, frames)
        return chat_completion(server, body, workspace_of(request), owner(request))


def _event_stream(first: bytes, rest: Iterator[bytes], media_type: str = "text/event-stream") -> StreamingResponse:
    def frames() -> Iterator[bytes]:
        yield first
        yield from rest

    return StreamingResponse(
        in_thread(frames()),
        media_type=media_type,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _save_files(request: Request, folder: Path, limit: int) -> str | None:
    form = await request.form(max_files=1000, max_fields=20, max_part_size=limit)
    try:
        uploads = [f for f in form.getlist("files") if not isinstance(f, str)]
        if not uploads:
            raise InvalidRequestError("no files: send them in the multipart field `files`")
        names: dict[str, str] = {}
        for index, upload in enumerate(uploads):
            name = safe_upload_name(upload.filename, index)
            if name in names:  # the same document twice in one request: which one should it be?
                raise InvalidRequestError(
                    f"two files of one upload are named {names[name]!r}; a name is a "
                    "document's id, so send each name once"
                )
            names[name] = upload.filename or name
        for (name, _), upload in zip(names.items(), uploads):
            with (folder / name).open("wb") as out:
                shutil.copyfileobj(upload.file, out)
        extractor = form.get("extractor")
        return _extractor(extractor if isinstance(extractor, str) else None)
    finally:
        await form.close()


# One NDJSON record may be this long: a line is held whole while it is checked.
SMALL_LINE = 64 * 1024 * 1024
_NDJSON = ("application/x-ndjson", "application/jsonl", "application/jsonlines", "application/json-seq")


def _record_line(document: JsonDocument) -> str:
    """One record as the .jsonl line the loader reads; a record without an id is named by its text, so
    posting it again updates it instead of adding a copy."""
    import hashlib
    import json

    ident = document.id or "doc-" + hashlib.sha256(document.text.encode()).hexdigest()[:16]
    return json.dumps({**document.model_dump(exclude_none=True), "id": ident}, ensure_ascii=False)


async def _save_records(request: Request, folder: Path, limit: int) -> str | None:
    from pydantic import ValidationError

    body = bytearray()
    async for piece in request.stream():
        body += piece
        if len(body) > limit:
            raise RequestTooLarge(
                limit,
                "GRAPHWRIGHT_MAX_JSON_BYTES; send larger sets as application/x-ndjson, one record a line, or as files",
            )
    try:
        parsed = DocumentsRequest.model_validate_json(bytes(body))
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from exc
    del body
    with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
        for document in parsed.documents:
            out.write(_record_line(document) + "\n")
    return parsed.extractor


async def _stream_records(request: Request, folder: Path) -> str | None:
    """NDJSON: one record a line, checked and written as it arrives, so the body is never held whole. The
    extractor comes from the `extractor` query parameter."""
    count, pending = 0, b""
    with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
        async for piece in request.stream():
            lines = (pending + piece).split(b"\n")
            pending = lines.pop()
            if len(pending) > SMALL_LINE:
                raise InvalidRequestError(f"record {count + 1} is longer than {SMALL_LINE} bytes")
            for line in lines:
                count += _write_record(out, line, count)
        count += _write_record(out, pending, count)
    if not count:
        raise InvalidRequestError("no records: send one JSON object a line")
    return _extractor(request.query_params.get("extractor"))


def _write_record(out: Any, line: bytes, count: int) -> int:
    from pydantic import ValidationError

    if not line.strip():
        return 0
    try:
        document = JsonDocument.model_validate_json(line)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "record"
        raise InvalidRequestError(f"record {count + 1}: {where}: {problem['msg']}") from exc
    out.write(_record_line(document) + "\n")
    return 1


def _extractor(value: str | None) -> str | None:
    if value in (None, ""):
        return None
    from graphwright.config import check_extractor

    try:
        return check_extractor(value)
    except ValueError as exc:  # the settings' own check, as a 400
        raise InvalidRequestError(str(exc)) from exc
