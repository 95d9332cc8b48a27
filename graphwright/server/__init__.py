"""`graphwright serve` and `graphwright mcp`: the HTTP API (FastAPI), its web page, the MCP server, and the
client `graphwright query` uses to ask a running server instead of loading the model itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphwright.config import Settings


def run_server(app: Any, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Serve `app` (from `graphwright.server.app.create_app`, which refuses a public host without keys) until
    interrupted."""
    import uvicorn

    # No access log: request lines would be noise at load, and URLs never carry keys anyway.
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, server_header=False)


def run_workers(
    workers: int, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info", workspace: str | None = None
) -> None:
    """Serve with `workers` processes on one socket, each its own app (`app_from_environment`) with its own
    embedder and driver: searches use every core, and the job store and the graph write lock, shared
    through the graphwright home, keep jobs visible to all and one writer at a time."""
    import os

    import uvicorn

    from graphwright.server.app import SERVE_HOST_ENV

    # The workers are started by uvicorn from an import string, so what they must know travels the one way
    # it can, the environment they inherit: the host, and the workspace the command line chose.
    os.environ[SERVE_HOST_ENV] = host
    if workspace is not None:
        os.environ["GRAPHWRIGHT_WORKSPACE"] = workspace
    uvicorn.run(
        "graphwright.server.app:app_from_environment",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
    )


def run_mcp_stdio(settings: Settings) -> None:
    """The MCP server on stdin/stdout, for agents that start it as a process."""
    from graphwright.api import GraphRAG
    from graphwright.server.mcp_tools import build_mcp

    with GraphRAG(settings) as rag:
        rag.store.verify()
        build_mcp(rag).run("stdio")
