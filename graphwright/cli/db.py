"""`graphwright db ...` runs the local Neo4j; `graphwright doctor` checks how locked down any Neo4j is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from graphwright.cli.common import exit_partial, fail, load_settings, make_console, open_graph, tighten_home

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store.launcher.local_server import LocalServer
    from graphwright.graph_store.launcher.posture import PostureCheck


def _local_server(settings: Settings, gds: bool = False) -> LocalServer:
    from graphwright.graph_store.launcher.local_server import LocalServer, LocalServerError, default_project_dir

    try:
        return LocalServer(
            project_dir=settings.neo4j_local_dir or default_project_dir(),
            home=settings.home / "neo4j",
            bolt_uri=settings.neo4j_uri,
            http_port=settings.http_port,
            user=settings.neo4j_user,
            password=settings.neo4j_password.get_secret_value(),
            heap=settings.neo4j_heap,
            pagecache=settings.neo4j_pagecache,
            gds=gds or settings.neo4j_gds,
        )
    except LocalServerError as exc:
        fail(str(exc))


def _maven_progress(status: Any) -> Callable[[int, int], None]:
    """The first build fetches Neo4j from Maven Central: a minute or more, so say how far it got."""

    def told(artifacts: int, fetched: int) -> None:
        status.update(f"Fetching Neo4j with Maven: {artifacts} jars, {fetched / 1e6:.1f} MB so far...")

    return told


@click.group()
def db() -> None:
    """Run the local Neo4j server (no Docker needed: Java 17 and Maven).

    \b
    Example:
      graphwright db start && graphwright db status
    """


@db.command("start")
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for Bolt to answer.")
@click.option(
    "--gds",
    is_flag=True,
    help="With Neo4j Graph Data Science (OpenGDS 2.13.9, fetched once with Maven, ~15 MB; "
    "or set GRAPHWRIGHT_NEO4J_GDS=true).",
)
def db_start(timeout: float, gds: bool) -> None:
    """Build (first time) and start Neo4j on 127.0.0.1; returns once Bolt answers.

    \b
    Example:
      NEO4J_PASSWORD=my-secret-pw graphwright db start
      graphwright db start --gds      # with Graph Data Science
    """
    from graphwright.graph_store.launcher.local_server import LocalServerError, write_password_file

    settings = load_settings()
    server = _local_server(settings, gds)
    console = make_console()
    generated = False
    if settings.password_source == "default" and server.pid() is None and server.bolt_state() == "down":
        # A new local server gets a password of its own, not a well-known one.
        write_password_file(settings.password_file)
        settings, generated = load_settings(), True
        server = _local_server(settings, gds)
    tighten_home(settings.home, console)
    try:
        already = server.pid()
        if already and server.gds and not _answers_gds(server):
            fail("Neo4j runs without Graph Data Science: `graphwright db stop`, then `graphwright db start --gds`")
        with console.status("Starting Neo4j (the first start fetches it with Maven)...") as status:
            pid = server.start(timeout, progress=_maven_progress(status))
    except LocalServerError as exc:
        fail(str(exc))
    word = "already running" if already else "started"
    where = {
        "given": "NEO4J_PASSWORD",
        "generated": f"in {settings.password_file} (user neo4j; readable by you only)",
        "default": "the old local default; set NEO4J_PASSWORD, or stop and start the server for a generated one",
    }[settings.password_source]
    console.print(
        f"Neo4j {word} (pid {pid})\n  Bolt:     {server.bolt_url}\n  Browser:  {server.browser_url}"
        f"\n  Data:     {server.home}\n  Password: {where}"
        + (
            f"\n  GDS:      {_answers_gds(server) or 'installed, but gds.version() did not answer'}"
            if server.gds
            else ""
        )
    )
    if generated:
        console.print(
            f"Generated a password for this server once, in {settings.password_file}; graphwright reads "
            "it from there. Set NEO4J_PASSWORD to choose your own."
        )


# Transaction logs past this are no longer a laptop's store: an older release's preallocated logs, or a
# retention policy set by hand (the launcher keeps two logs of at most 16 MB per database).
_LOG_WARNING_BYTES = 256 * 2**20


def _disk_check(settings: Settings) -> list[PostureCheck]:
    """The local server's disk use (store, transaction logs, logs) when this home has one; nothing for
    another server, whose disk doctor cannot see."""
    from graphwright.graph_store.launcher.local_server import disk_usage
    from graphwright.graph_store.launcher.posture import PostureCheck

    usage = disk_usage(settings.home)
    if usage is None:
        return []
    mib = 2**20
    value = (
        f"{(usage.stores + usage.transaction_logs + usage.logs) / mib:,.1f} MiB: store {usage.stores / mib:,.1f}, "
        f"transaction logs {usage.transaction_logs / mib:,.1f}, logs {usage.logs / mib:,.1f}"
    )
    heavy = usage.transaction_logs > _LOG_WARNING_BYTES
    advice = "`graphwright db stop && graphwright db start`: the next checkpoint prunes old logs" if heavy else ""
    return [PostureCheck("local disk", value, not heavy, advice)]


def _answers_gds(server: LocalServer) -> str:
    """The Graph Data Science version the running server answers with; "" without it."""
    from graphwright.graph_store.gds import gds_version

    return gds_version(server.bolt_url, server.user, server.password) or ""


@db.command("build")
@click.option("--force", is_flag=True, help="Rebuild even if up to date.")
def db_build(force: bool) -> None:
    """Fetch Neo4j with Maven and compile the launcher (`start` does this when needed).

    \b
    Example:
      graphwright db build
    """
    from graphwright.graph_store.launcher.local_server import LocalServerError

    server = _local_server(load_settings())
    if server.is_built() and not force:
        make_console().print(f"neo4j-local is up to date ({server.project_dir})")
        return
    try:
        with make_console().status("Building neo4j-local with Maven...") as status:
            server.build(_maven_progress(status))
    except LocalServerError as exc:
        fail(str(exc))
    make_console().print(f"neo4j-local built ({server.project_dir})")


@db.command("stop")
def db_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM, then wait).

    \b
    Example:
      graphwright db stop
    """
    server = _local_server(load_settings())
    with make_console().status("Stopping Neo4j..."):
        stopped = server.stop()
    make_console().print("Neo4j stopped" if stopped else "Neo4j was not running")


@db.command("status")
def db_status() -> None:
    """Print whether the local Neo4j runs, and its URLs.

    \b
    Example:
      graphwright db status
    """
    server = _local_server(load_settings())
    pid = server.pid()
    state = server.bolt_state()
    console = make_console()
    label = {
        "ok": "[green]answering[/]",
        "auth": "[yellow]answering, refuses NEO4J_PASSWORD[/]",
        "down": "[red]not answering[/]",
    }[state]
    console.print(f"Local server: {'running (pid ' + str(pid) + ')' if pid else 'not running'}")
    console.print(f"Bolt {server.bolt_url}: {label}")
    console.print(f"Browser: {server.browser_url}\nData: {server.home}\nLog: {server.log_file}")
    if state != "ok":
        exit_partial()


@click.command()
def doctor() -> None:
    """Check how locked down the Neo4j server is: LOAD CSV from files and the network, HTTP origins,
    unrestricted procedures, listen addresses. Exits 1 when a check fails (Aura, a cluster or your own
    server: what to set is printed beside each failure; `graphwright docs security` explains).

    \b
    Example:
      graphwright doctor
    """
    from graphwright.cli.tables import Column, print_fitted
    from graphwright.graph_store import Neo4jStore
    from graphwright.graph_store.gds import read_gds_version
    from graphwright.graph_store.launcher.posture import PostureCheck, read_posture

    with open_graph() as rag:
        if not isinstance(rag.store, Neo4jStore):
            kind = type(rag.store).__name__
            raise click.ClickException(f"doctor reads a Neo4j server's settings; this store is {kind}")
        checks, note = read_posture(rag.store.connection)
        several = rag.store.workspaces.others_exist()
        unreadable = rag.store.workspaces.unreadable()
        gds = read_gds_version(rag.store.connection)
    tenant_cypher = rag.settings.search.tenant_cypher
    checks = [
        *checks,
        PostureCheck(
            "tenant Cypher",
            ("on" if tenant_cypher else "off") + (" (several workspaces)" if several else ""),
            not (tenant_cypher and several),
            "GRAPHWRIGHT_TENANT_CYPHER=off unless tenants may share the gate (`graphwright docs security`)"
            if tenant_cypher and several
            else "",
        ),
        PostureCheck(
            "workspace registry",
            f"{len(unreadable)} node(s) that are no workspace: {', '.join(unreadable)}" if unreadable else "clean",
            not unreadable,
            "skipped by every listing; delete them in Neo4j Browser (MATCH (w:GraphwrightWorkspace {name: ...}))"
            if unreadable
            else "",
        ),
        # optional, so never a warning; short, so the table's names keep their line (`db start --gds` adds it)
        PostureCheck("Graph Data Science", gds or "not installed", True, ""),
        *_disk_check(rag.settings),
    ]
    console = make_console()
    columns = [
        Column("check", keep=26),
        Column("value", keep=16),
        Column("verdict", keep=7),
        Column("what to set", keep=16, drop=1 if all(check.ok for check in checks) else 0),
    ]
    rows = [
        [check.name, check.value, "[green]ok[/]" if check.ok else "[yellow]warn[/]", check.advice] for check in checks
    ]
    print_fitted(console, columns, rows, title=f"Neo4j at {rag.settings.neo4j_uri}")
    if note:
        console.print(note)
    if not all(check.ok for check in checks):
        exit_partial()
