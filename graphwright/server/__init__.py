"""`graphwright serve` and `graphwright mcp`: the HTTP API (FastAPI), its web page, the MCP server, and the
client `graphwright query` uses to ask a running server instead of loading the model itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.server.connections import ConnectionLimits


def run_server(
    app: Any, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info", settings: Settings | None = None
) -> None:
    """Serve `app` (from `graphwright.server.app.create_app`, which refuses a public host without keys) until
    interrupted."""
    _serve(app, host=host, port=port, log_level=log_level, workers=1, limits=_limits(settings))


def run_workers(
    workers: int,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    workspace: str | None = None,
    settings: Settings | None = None,
) -> None:
    """Serve with `workers` processes on one socket, each its own app (`app_from_environment`) with its own
    embedder and driver: searches use every core, and the job store and the graph write lock, shared
    through the graphwright home, keep jobs visible to all and one writer at a time."""
    import os

    from graphwright.server.app import SERVE_HOST_ENV

    # The workers are started by uvicorn from an import string, so what they must know travels the one way
    # it can, the environment they inherit: the host, and the workspace the command line chose.
    os.environ[SERVE_HOST_ENV] = host
    if workspace is not None:
        os.environ["GRAPHWRIGHT_WORKSPACE"] = workspace
    _serve(
        "graphwright.server.app:app_from_environment",
        host=host,
        port=port,
        log_level=log_level,
        workers=workers,
        limits=_limits(settings),
    )


# Requests still running at SIGTERM get this long; jobs are stopped after it (server/jobs.py), all in 10 s.
GRACEFUL_SECONDS = 5


def _limits(settings: Settings | None) -> ConnectionLimits:
    from graphwright.server.connections import ConnectionLimits

    if settings is None:
        return ConnectionLimits()
    return ConnectionLimits(settings.http_head_seconds, settings.http_body_seconds, settings.http_max_connections)


def _serve(app: Any, *, host: str, port: int, log_level: str, workers: int, limits: ConnectionLimits) -> None:
    """uvicorn as `uvicorn.run` would start it, with the slow-client limits of server/connections.py on its
    Config (the worker processes receive the Config) and a bounded graceful shutdown."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from graphwright.server.connections import PROTOCOL

    # No access log: request lines would be noise at load, and URLs never carry keys anyway.
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
        http=PROTOCOL,
        workers=workers,
        factory=workers > 1,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    config.graphwright_limits = limits  # type: ignore[attr-defined]
    server = uvicorn.Server(config)
    try:
        if workers > 1:
            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            server.run()
    except KeyboardInterrupt:
        pass


def run_mcp_stdio(settings: Settings) -> None:
    """The MCP server on stdin/stdout, for agents that start it as a process."""
    from graphwright.api import GraphRAG
    from graphwright.server.mcp_tools import build_mcp

    with GraphRAG(settings) as rag:
        rag.store.verify()
        build_mcp(rag).run("stdio")
