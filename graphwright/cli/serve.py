"""`graphwright serve` (HTTP, the web page and MCP over HTTP) and `graphwright mcp` (MCP on stdio)."""

from __future__ import annotations

import click

from graphwright.cli.common import fail, load_settings, make_console, open_graph, tighten_home


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; anything but loopback needs GRAPHWRIGHT_API_KEYS.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Server processes sharing the port (default: the cores). Each loads the model; jobs and the "
    "one-writer lock are shared through the graphwright home.",
)
def serve(host: str, port: int, log_level: str, workers: int | None) -> None:
    """Serve the graph over HTTP: the API (/v1, docs at /docs), a web page at /, and MCP at /mcp.

    Each worker process holds the embedder, the LLM client and the Neo4j driver warm, so questions skip
    the cold start; one worker per core by default, so searches use every core. Upload and community jobs
    run in whichever worker took them, one graph writer at a time, and any worker answers for any job.
    Keys: GRAPHWRIGHT_API_KEYS (full) and GRAPHWRIGHT_READ_API_KEYS (search only), comma-separated,
    sent as `Authorization: Bearer <key>`; required to listen beyond loopback. A keyless server answers
    only loopback host names (GRAPHWRIGHT_ALLOWED_HOSTS adds more) and, from a browser, only its own page;
    `graphwright docs security` has the whole threat model.

    \b
    Examples:
      graphwright serve                      # http://127.0.0.1:8000, one worker per core
      graphwright serve --workers 1          # one process (least memory)
      GRAPHWRIGHT_API_KEYS=s3cret graphwright serve --host 0.0.0.0 --port 8080
      curl -s localhost:8000/v1/search -H 'content-type: application/json' -d '{"question": "Who flew Apollo 11?"}'
    """
    import os

    from graphwright.server import run_server, run_workers
    from graphwright.server.app import create_app
    from graphwright.server.fingerprints import server_secret
    from graphwright.server.running import announce, withdraw, withdraw_on_signals
    from graphwright.server.security import KeyRing, ServerConfigError

    settings = load_settings()
    workers = workers or os.cpu_count() or 1
    tighten_home(settings.home, make_console(stderr=True))
    server_secret(settings.home)  # made once, before the workers, which all key fingerprints by it
    with open_graph():  # Neo4j reachable, or one clear line now rather than 503s later
        pass
    try:
        if workers == 1:
            app = create_app(settings, host=host)
        else:  # the same refusal as create_app's, before any worker starts
            KeyRing.from_settings(settings).check_bind(host)
    except ServerConfigError as exc:
        fail(str(exc))
    make_console(stderr=True).print(
        f"graphwright serving on http://{host}:{port} with {workers} worker(s)  (page /, API docs /docs, MCP /mcp)"
    )
    announce(settings.home, port)  # `graphwright query` on this machine asks this server (--local: not)
    withdraw_on_signals(settings.home)
    try:
        if workers == 1:
            run_server(app, host, port, log_level, settings=settings)
        else:
            run_workers(workers, host, port, log_level, workspace=settings.workspace, settings=settings)
    finally:
        withdraw(settings.home)


@click.command("mcp")
def mcp_command() -> None:
    """Run the MCP server on stdin/stdout, for agents (Claude Desktop, Cursor...) that start it themselves.

    Tools: search, show_entity, find_paths, cypher (read-only), stats. Under `graphwright serve` the same
    server answers over streamable HTTP at /mcp.

    \b
    Example (an MCP client's configuration):
      {"mcpServers": {"graphwright": {"command": "graphwright", "args": ["mcp"]}}}
    """
    from graphwright.server import run_mcp_stdio

    settings = load_settings()
    with open_graph():
        pass
    run_mcp_stdio(settings)
