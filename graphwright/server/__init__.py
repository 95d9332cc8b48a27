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


def run_mcp_stdio(settings: Settings) -> None:
    """The MCP server on stdin/stdout, for agents that start it as a process."""
    from graphwright.api import GraphRAG
    from graphwright.server.mcp_tools import build_mcp

    with GraphRAG(settings) as rag:
        rag.store.verify()
        build_mcp(rag).run("stdio")
