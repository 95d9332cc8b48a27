"""The `graphwright` command: thin click wrappers that parse, call the API and print with rich."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from graphwright.config import EXTRACTOR_NAMES
from graphwright.search.registry import MODE_NAMES  # names only: the mode classes load when a search runs

if TYPE_CHECKING:
    from rich.console import Console

    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.graph_store.local_server import LocalServer

# Exit codes: 0 ok, 1 some inputs failed (the rest went through), 2 cannot run (config, Neo4j, usage).
EXIT_PARTIAL = 1
EXIT_FATAL = 2


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _settings() -> Settings:
    from pydantic import ValidationError

    from graphwright.config import Settings

    try:
        return Settings()
    except ValidationError as exc:
        raise click.ClickException(f"invalid configuration:\n{exc}") from exc


def _fail(message: str) -> NoReturn:
    _console(stderr=True).print(f"[bold red]error:[/] {message}")
    sys.exit(EXIT_FATAL)


@contextmanager
def _graph() -> Iterator[GraphRAG]:
    """A GraphRAG whose known failures (Neo4j down, schema mismatch, LLM) end in one clear line."""
    from graphwright.api import GraphRAG
    from graphwright.errors import GraphwrightError, InvalidRequestError

    rag = GraphRAG(_settings())
    try:
        rag.store.verify()
        yield rag
    except InvalidRequestError:
        raise  # a usage error: the command says which option
    except GraphwrightError as exc:  # Neo4j down, schema mismatch, LLM failure...: one clear line
        _fail(str(exc))
    finally:
        rag.close()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="graphwright")
@click.option(
    "-v",
    "--verbose",
    "verbosity",
    count=True,
    help="Log what graphwright does to stderr: -v for steps, -vv for details.",
)
def main(verbosity: int) -> None:
    """graphwright: GraphRAG on a real Neo4j, offline by default.

    \b
    Quick start:
      graphwright db start
      graphwright ingest examples/space
      graphwright query "Who founded SpaceX?" --mode hybrid

    Settings come from the environment or .env (NEO4J_URI, NEO4J_PASSWORD, OPENAI_API_KEY,
    OPENAI_BASE_URL, GRAPHWRIGHT_*); see docs/configuration.md.
    """
    import logging

    # The library only logs; the command decides what a person sees. Warnings always, more with -v.
    level = logging.WARNING if not verbosity else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("neo4j", "httpx", "openai", "urllib3", "sentence_transformers", "filelock"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


# --- db ----------------------------------------------------------------------------------------------
def _local_server(settings: Settings) -> LocalServer:
    from graphwright.graph_store.local_server import LocalServer, LocalServerError, default_project_dir

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
        )
    except LocalServerError as exc:
        _fail(str(exc))


@main.group()
def db() -> None:
    """Run the local Neo4j server (no Docker needed: Java 17 and Maven).

    \b
    Example:
      graphwright db start && graphwright db status
    """


@db.command("start")
@click.option("--timeout", default=180.0, show_default=True, help="Seconds to wait for Bolt to answer.")
def db_start(timeout: float) -> None:
    """Build (first time) and start Neo4j on 127.0.0.1; returns once Bolt answers.

    \b
    Example:
      NEO4J_PASSWORD=my-secret-pw graphwright db start
    """
    from graphwright.graph_store.local_server import LocalServerError, write_password_file

    settings = _settings()
    server = _local_server(settings)
    console = _console()
    generated = False
    if settings.password_source == "default" and server.pid() is None and server.bolt_state() == "down":
        # A new local server gets a password of its own, not a well-known one.
        write_password_file(settings.password_file)
        settings, generated = _settings(), True
        server = _local_server(settings)
    try:
        already = server.pid()
        with console.status("Starting Neo4j (the first start fetches it with Maven)..."):
            pid = server.start(timeout)
    except LocalServerError as exc:
        _fail(str(exc))
    word = "already running" if already else "started"
    where = {
        "given": "NEO4J_PASSWORD",
        "generated": f"in {settings.password_file} (user neo4j; readable by you only)",
        "default": "the old local default; set NEO4J_PASSWORD, or stop and start the server for a generated one",
    }[settings.password_source]
    console.print(
        f"Neo4j {word} (pid {pid})\n  Bolt:     {server.bolt_url}\n  Browser:  {server.browser_url}"
        f"\n  Data:     {server.home}\n  Password: {where}"
    )
    if generated:
        console.print(
            f"Generated a password for this server once, in {settings.password_file}; graphwright reads "
            "it from there. Set NEO4J_PASSWORD to choose your own."
        )


@db.command("build")
@click.option("--force", is_flag=True, help="Rebuild even if up to date.")
def db_build(force: bool) -> None:
    """Fetch Neo4j with Maven and compile the launcher (`start` does this when needed).

    \b
    Example:
      graphwright db build
    """
    from graphwright.graph_store.local_server import LocalServerError

    server = _local_server(_settings())
    if server.is_built() and not force:
        _console().print(f"neo4j-local is up to date ({server.project_dir})")
        return
    try:
        with _console().status("Building neo4j-local with Maven..."):
            server.build()
    except LocalServerError as exc:
        _fail(str(exc))
    _console().print(f"neo4j-local built ({server.project_dir})")


@db.command("stop")
def db_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM, then wait).

    \b
    Example:
      graphwright db stop
    """
    server = _local_server(_settings())
    with _console().status("Stopping Neo4j..."):
        stopped = server.stop()
    _console().print("Neo4j stopped" if stopped else "Neo4j was not running")


@db.command("status")
def db_status() -> None:
    """Print whether the local Neo4j runs, and its URLs.

    \b
    Example:
      graphwright db status
    """
    server = _local_server(_settings())
    pid = server.pid()
    state = server.bolt_state()
    console = _console()
    label = {
        "ok": "[green]answering[/]",
        "auth": "[yellow]answering, refuses NEO4J_PASSWORD[/]",
        "down": "[red]not answering[/]",
    }[state]
    console.print(f"Local server: {'running (pid ' + str(pid) + ')' if pid else 'not running'}")
    console.print(f"Bolt {server.bolt_url}: {label}")
    console.print(f"Browser: {server.browser_url}\nData: {server.home}\nLog: {server.log_file}")
    if state != "ok":
        sys.exit(EXIT_PARTIAL)


@main.command()
def doctor() -> None:
    """Check how locked down the Neo4j server is: LOAD CSV from files and the network, HTTP origins,
    unrestricted procedures, listen addresses. Exits 1 when a check fails (Aura, a cluster or your own
    server: what to set is printed beside each failure; docs/security.md explains).

    \b
    Example:
      graphwright doctor
    """
    from rich.table import Table

    from graphwright.graph_store.posture import read_posture

    with _graph() as rag:
        checks, note = read_posture(rag.store.connection)
    table = Table(title=f"Neo4j at {rag.settings.neo4j_uri}")
    for column in ("check", "value", "verdict", "what to set"):
        table.add_column(column)
    for check in checks:
        table.add_row(check.name, check.value, "[green]ok[/]" if check.ok else "[yellow]warn[/]", check.advice)
    console = _console()
    console.print(table)
    if note:
        console.print(note)
    if not all(check.ok for check in checks):
        sys.exit(EXIT_PARTIAL)


# --- schema and data ---------------------------------------------------------------------------------
@main.command()
def init() -> None:
    """Create constraints, vector and fulltext indexes (idempotent).

    \b
    Example:
      graphwright init
    """
    with _graph() as rag:
        statements = rag.init()
        _console().print(
            f"Schema ready: {len(statements)} constraints and indexes "
            f"(embedding dimension {rag.embedder.dimension}, {rag.embedder.name})"
        )


@main.command()
@click.option("--yes", is_flag=True, help="Really delete everything.")
def reset(yes: bool) -> None:
    """Delete every node, index and constraint in the database.

    \b
    Example:
      graphwright reset --yes
    """
    if not yes:
        _fail("this deletes the whole graph; add --yes to confirm")
    with _graph() as rag:
        rag.store.admin.reset()
        _console().print("Database emptied")


@main.command()
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def reembed(quiet: bool = False) -> None:
    """Re-embed chunks, entities and community reports with the configured embedder.

    Use it after changing GRAPHWRIGHT_EMBEDDING_BACKEND or GRAPHWRIGHT_EMBEDDING_MODEL: the vector indexes
    are rebuilt at the new model's dimension and the graph (documents, entities, relations, communities) is
    kept. Searches keep using the old vectors until the run's last step; an interrupted run resumes.

    \b
    Example:
      GRAPHWRIGHT_EMBEDDING_BACKEND=openai GRAPHWRIGHT_EMBEDDING_MODEL=nomic-embed-text \\
        GRAPHWRIGHT_EMBEDDING_BASE_URL=http://127.0.0.1:11434/v1 graphwright reembed
    """
    with _graph() as rag, _progress(not quiet) as tell:
        counts = rag.stats()
        totals = {
            "Chunk": counts.get("chunks", 0),
            "Entity": counts.get("entities", 0),
            "Community": counts.get("communities", 0),
        }
        report = rag.reembed(
            progress=(lambda label, done: tell(f"embed {label}", done, totals[label])) if tell else None
        )
    before = f"{report.previous_model} ({report.previous_dimension}d)" if report.previous_model else "nothing"
    nouns = {"Chunk": "chunks", "Entity": "entities", "Community": "community reports"}
    done = ", ".join(f"{n} {nouns[label]}" for label, n in report.embedded.items())
    _console().print(
        f"Re-embedded {done} in {report.seconds:.1f}s: {before} -> {report.model} "
        f"({report.dimension}d)" + (f"; {report.resumed} kept from an interrupted run" if report.resumed else "")
    )


def _parse_meta(values: tuple[str, ...]) -> dict[str, Any]:
    from graphwright.search.filters import parse_value

    meta: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: use key=value", param_hint="--meta")
        meta[key.strip()] = parse_value(value.strip())
    return meta


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[..., None] | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[detail]}"),
        console=_console(stderr=True),
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int, detail: str = "") -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, detail=detail)
            bar.update(tasks[stage], completed=done, total=total, detail=detail)

        yield update


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--glob", "glob_pattern", help="Only files whose name matches, e.g. '*.md'.")
@click.option("--meta", multiple=True, metavar="KEY=VALUE", help="Metadata for every document (repeatable).")
@click.option("--text-field", help="Field holding the text in JSON/JSONL records (default: text, content, body).")
@click.option(
    "--base",
    type=click.Path(path_type=Path, file_okay=False),
    help="Document ids are paths relative to this folder (default: the current folder).",
)
@click.option(
    "--extractor",
    type=click.Choice(EXTRACTOR_NAMES),
    default=None,
    help="Entity graph from: llm, nlp (offline), none; auto (default) = llm when configured, else nlp.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def ingest(
    paths: tuple[Path, ...],
    glob_pattern: str | None,
    meta: tuple[str, ...],
    text_field: str | None,
    base: Path | None,
    extractor: str | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest .txt, .md, .json, .jsonl, .pdf, .docx and .html files or folders (idempotent by content hash).

    \b
    Example:
      graphwright ingest examples/space --meta collection=space
      graphwright ingest notes/ --glob '*.md' --extractor nlp
    """
    from graphwright.errors import ExtractorNotAvailableError

    metadata = _parse_meta(meta)
    with _graph() as rag, _progress(not quiet and not as_json) as progress:
        try:
            report = rag.ingest(
                list(paths),
                base=base,
                metadata=metadata,
                glob=glob_pattern,
                text_field=text_field,
                extractor=extractor,
                progress=progress,
            )
        except ExtractorNotAvailableError as exc:
            _fail(str(exc))
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        console = _console()
        rate = report.documents_written / report.seconds if report.seconds else 0.0
        console.print(
            f"Ingested {report.documents_written} documents ({report.chunks_written} chunks), "
            f"{report.documents_unchanged} unchanged, {len(report.failures)} failed "
            f"in {report.seconds:.1f}s ({rate:.1f} docs/s)"
        )
        if report.extractor != "none" and report.documents_written:
            console.print(
                f"Entity graph ({report.extractor}): {report.entities_written} entities and "
                f"{report.relations_written} relations written"
            )
        if report.llm_usage:
            usage = report.llm_usage
            cost = f", cost {usage['cost']:.4f}" if "cost" in usage else ""
            console.print(
                f"LLM: {usage.get('calls', 0):.0f} calls ({usage.get('cached', 0):.0f} cached), "
                f"{usage.get('prompt_tokens', 0):.0f} prompt + {usage.get('completion_tokens', 0):.0f} "
                f"completion tokens{cost}"
            )
        if report.embedding_usage:
            usage = report.embedding_usage
            console.print(
                f"Embeddings: {usage.get('calls', 0):.0f} calls for {usage.get('texts', 0):.0f} texts "
                f"({usage.get('cached', 0):.0f} cached), {usage.get('tokens', 0):.0f} tokens"
            )
        if report.communities:
            c = report.communities
            console.print(
                f"Communities updated: {c['kept']} kept, {c['rewritten']} rewritten, {c['created']} "
                f"created, {c['removed']} removed; {c.get('reused', 0)} reports kept by overlap, "
                f"{c.get('llm_calls', 0)} LLM report calls, {c.get('stale', 0)} reports stale"
            )
        for failure in report.extraction_failures:
            console.print(f"[yellow]extraction failed:[/] {failure.source}: {failure.error}")
        for warning in report.warnings:
            console.print(f"[yellow]warning:[/] {warning}")
        for failure in report.failures:
            console.print(f"[red]failed:[/] {failure.source}: {failure.error}")
        if report.skipped:
            console.print(f"[yellow]skipped:[/] {_skipped_line(report.skipped)}")
    if report.found_nothing:
        # a folder of PDFs "ingested" as 0 documents with exit 0 reads like success; it is not
        _fail(
            f"nothing to ingest in {', '.join(map(str, paths))}: no file of a supported type"
            + (f" ({len(report.skipped)} of other types skipped)" if report.skipped else "")
        )
    if report.failures or report.extraction_failures:
        sys.exit(EXIT_PARTIAL)


def _skipped_line(skipped: list[str], shown: int = 10) -> str:
    from graphwright.extraction.loaders import SUPPORTED_SUFFIXES

    types = sorted({Path(s).suffix.lower() or "(no extension)" for s in skipped})
    names = ", ".join(skipped[:shown]) + (f" and {len(skipped) - shown} more" if len(skipped) > shown else "")
    return (
        f"{len(skipped)} file(s) of a type graphwright does not read ({', '.join(types)}): {names}. "
        f"Supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}"
    )


def _print_community_run(run: Any) -> None:
    levels = ", ".join(f"level {lvl}: {n}" for lvl, n in sorted(run.levels.items())) or "none"
    _console().print(
        f"Communities: {run.kept} kept, {run.rewritten} rewritten, {run.created} created, {run.removed} removed "
        f"({levels}); {run.isolated_entities} entities without relations are in no community. "
        f"Detection {run.detect_seconds:.1f}s, reports {run.report_seconds:.1f}s, embeddings "
        f"{run.embed_seconds:.1f}s, write {run.write_seconds:.1f}s. Modularity (level 0) {run.modularity:.4f}. "
        f"Reports: {run.reused} kept by overlap, {run.llm_calls} LLM calls, {run.stale} stale"
        + (f"; {run.llm_failures} LLM reports fell back to extractive" if run.llm_failures else "")
        + (" (run `graphwright communities refresh` to rewrite stale reports)" if run.stale else "")
    )


@main.group()
def communities() -> None:
    """Hierarchical Leiden communities of the entity graph, with reports.

    \b
    Example:
      graphwright communities build && graphwright communities show --level 0 --top 5
    """


@communities.command("build")
@click.option(
    "--max-cluster-size",
    default=10,
    show_default=True,
    type=click.IntRange(2, 100_000),
    help="Communities larger than this are split into a deeper level.",
)
@click.option("--seed", default=42, show_default=True, help="Same graph and seed give the same communities.")
@click.option(
    "--full",
    is_flag=True,
    help="Detect every community anew; by default communities whose relations did not change are kept.",
)
@click.option(
    "--budget",
    type=click.IntRange(0),
    default=None,
    help="At most this many LLM report calls; the rest are extractive and marked stale. Default: no cap.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's figures as JSON.")
def communities_build(
    max_cluster_size: int,
    seed: int,
    full: bool = False,
    budget: int | None = None,
    quiet: bool = False,
    as_json: bool = False,
) -> None:
    """Detect communities and write a report for each new or changed one.

    \b
    Example:
      graphwright communities build --max-cluster-size 10 --seed 42
      graphwright communities build --full --budget 200 -q --json
    """
    import dataclasses

    with _graph() as rag, _progress(not quiet and not as_json) as progress:
        run = rag.build_communities(max_cluster_size, seed, progress, full=full, budget=budget)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(run), indent=2))
        return
    _print_community_run(run)


@communities.command("refresh")
@click.option(
    "--budget",
    type=click.IntRange(0),
    default=None,
    help="At most this many LLM calls. Default: GRAPHWRIGHT_REPORT_BUDGET.",
)
@click.option("--level", type=int, default=None, help="Only reports of this level (0 = the coarsest).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def communities_refresh(budget: int | None, level: int | None, quiet: bool = False) -> None:
    """Rewrite stale community reports with the LLM, the most important first (rating, size, change).

    A report is stale when its community changed since the LLM wrote it, or when an ingest's report budget
    ran out. Needs an LLM (GRAPHWRIGHT_OPENAI_BASE_URL / OPENAI_API_KEY).

    \b
    Example:
      graphwright communities refresh --budget 50 --level 0
    """
    from graphwright.errors import LLMRequiredError

    try:
        with _graph() as rag, _progress(not quiet) as progress:
            run = rag.refresh_communities(budget, level, progress)
    except LLMRequiredError as exc:
        _fail(str(exc))
    _console().print(
        f"Reports rewritten: {run.rewritten}"
        + (f", {run.llm_failures} failed (kept extractive, still stale)" if run.llm_failures else "")
        + f"; {run.stale_left} still stale; {run.seconds:.1f}s"
    )


@communities.command("show")
@click.option("--level", type=int, default=None, help="Only this level (0 = the coarsest).")
@click.option("--top", default=10, show_default=True, help="How many communities.")
def communities_show(level: int | None, top: int) -> None:
    """Print the largest communities with their report titles and summaries.

    \b
    Example:
      graphwright communities show --level 0 --top 5
    """
    from rich.table import Table

    with _graph() as rag:
        rows = rag.store.communities.communities(level, top)
        levels = rag.store.communities.community_levels()
    console = _console()
    console.print(", ".join(f"level {r['level']}: {r['communities']} communities" for r in levels) or "no communities")
    table = Table("level", "size", "rating", "title", "summary")
    for r in rows:
        table.add_row(str(r["level"]), str(r["size"]), f"{r['rating']:.1f}", r["title"], r["summary"])
    console.print(table)


@main.command("import-graph")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--report",
    "report_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write every skipped record (JSON lines: source, cause, error) to this file.",
)
def import_graph(file: Path, report_file: Path | None) -> None:
    """Import entities and relations extracted elsewhere (JSONL), tied to ingested chunks.

    \b
    Records (one per line):
      {"name": "Ada Lovelace", "type": "person", "description": "...", "document_id": "notes/ada.md"}
      {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "WROTE_FOR", "chunk_id": "c_..."}
    Without chunk_id/document_id, the chunks that mention the name(s) support the record. With a
    document_id and no chunk quoting the names (paraphrased triples), the document's best-supporting chunk.

    Skipped records are summarized by cause; --report writes every one. Exits 1 only when the input has
    malformed records or nothing could be imported.

    \b
    Example:
      graphwright import-graph my_graph.jsonl --report skipped.jsonl
    """
    with _graph() as rag:
        report = rag.import_graph(file)
    console = _console()
    attached = f" ({report.attached} records tied to their document's best chunk)" if report.attached else ""
    console.print(
        f"Imported {report.entities} entities and {report.relations} relations{attached}; "
        f"{len(report.skipped)} records skipped"
    )
    for cause, count in report.by_cause().items():
        console.print(f"  {count:>7,}  {cause}")
    for skipped in report.skipped[:5]:
        console.print(f"[yellow]skipped:[/] {skipped.source}: {skipped.error}", markup=True, highlight=False)
    if len(report.skipped) > 5:
        console.print(
            f"... and {len(report.skipped) - 5:,} more" + ("" if report_file else " (--report FILE lists them all)")
        )
    if report_file is not None:
        report_file.write_text("".join(s.model_dump_json() + "\n" for s in report.skipped), encoding="utf-8")
        console.print(f"skipped records written to {report_file}")
    if report.malformed or not (report.entities or report.relations):
        sys.exit(EXIT_PARTIAL)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--extractor",
    type=click.Choice(EXTRACTOR_NAMES),
    default=None,
    help="Entity graph from: llm, nlp (offline); auto (default) = llm when configured, else nlp.",
)
@click.option("--max-cluster-size", default=10, show_default=True, type=click.IntRange(2, 100_000))
@click.option("--seed", default=42, show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.pass_context
def index(
    ctx: click.Context, paths: tuple[Path, ...], extractor: str | None, max_cluster_size: int, seed: int, quiet: bool
) -> None:
    """Ingest and then build communities, in one go.

    \b
    Example:
      graphwright index examples/space
    """
    try:
        ctx.invoke(
            ingest,
            paths=paths,
            glob_pattern=None,
            meta=(),
            text_field=None,
            base=None,
            extractor=extractor,
            quiet=quiet,
            as_json=False,
        )
    except SystemExit as exc:
        if exc.code not in (0, None, EXIT_PARTIAL):
            raise
    ctx.invoke(communities_build, max_cluster_size=max_cluster_size, seed=seed, quiet=quiet)


@main.command()
@click.argument("document_id")
def delete(document_id: str) -> None:
    """Delete a document and its chunks.

    \b
    Example:
      graphwright delete examples/space/apollo-11.md
    """
    with _graph() as rag:
        removed = rag.delete_document(document_id)
    if removed is None:
        _fail(f"no document with id {document_id!r}")
    _console().print(f"Deleted {document_id} ({removed} chunks)")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
def check(as_json: bool) -> None:
    """Check the graph's consistency (after a crash, a kill or writes made outside graphwright); exit 1
    when a rule is broken.

    \b
    Example:
      graphwright check
    """
    from rich.text import Text

    with _graph() as rag:
        problems = rag.check()
    if as_json:
        click.echo(json.dumps(problems, indent=2))
    elif not problems:
        _console().print(
            "Graph is consistent: every document has all its chunks, every chunk its document "
            "and embedding, every entity a mention, every relation its evidence."
        )
    else:
        for rule, row in problems.items():
            _console().print(Text(f"{row['n']} {rule}: {', '.join(map(str, row['examples']))}"))
    if problems:
        raise SystemExit(1)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats(as_json: bool) -> None:
    """Documents, chunks, entities by type, relations by type, communities by level, index states and the
    database size on disk (local server).

    \b
    Example:
      graphwright stats
      graphwright stats --json
    """
    from rich.table import Table

    with _graph() as rag:
        info = rag.inspect()
    if as_json:
        click.echo(info.model_dump_json(indent=2))
        return
    console = _console()
    counts = Table("what", "count", title="Graph", title_justify="left")
    for key, value in info.counts.items():
        counts.add_row(key, f"{value:,}")
    if info.store_bytes is not None:
        counts.add_row("store on disk", f"{info.store_bytes / 2**20:,.1f} MiB")
    console.print(counts)
    for title, values in (
        ("Entities by type", info.entity_types),
        ("Relations by type", info.relation_types),
        ("Communities by level", info.community_levels),
    ):
        if values:
            table = Table("", "count", title=title, title_justify="left")
            for name, value in list(values.items())[:25]:
                table.add_row(str(name), f"{value:,}")
            if len(values) > 25:
                table.add_row(f"... {len(values) - 25} more", "")
            console.print(table)
    indexes = Table("index", "type", "on", "state", "populated", title="Indexes", title_justify="left")
    for row in info.indexes:
        on = f"{','.join(row['labelsOrTypes'] or [])}({','.join(row['properties'] or [])})"
        indexes.add_row(row["name"], row["type"], on, row["state"], f"{row['populationPercent']:.0f}%")
    console.print(indexes)


@main.group()
def show() -> None:
    """Look at one thing in the graph.

    \b
    Example:
      graphwright show entity "Wernher von Braun"
    """


@show.command("entity")
@click.argument("name")
@click.option("--relations", type=click.IntRange(1, 500), default=25, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
def show_entity(name: str, relations: int, as_json: bool) -> None:
    """An entity: type, description, aliases, its typed relations with evidence, the documents that
    mention it and its communities. NAME is matched by name first (case and punctuation do not matter),
    then by the closest name and meaning.

    \b
    Example:
      graphwright show entity "Wernher von Braun"
      graphwright show entity nasa --relations 50 --json
    """
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    with _graph() as rag:
        profile = rag.entity(name, relations)
    if profile is None:
        _console(stderr=True).print(f"no entity matches {name!r}")
        sys.exit(EXIT_PARTIAL)
    if as_json:
        click.echo(profile.model_dump_json(indent=2))
        return
    console = _console()
    e = profile.entity
    header = [
        f"{e.name}  ({e.type}; labels {', '.join(profile.labels) or '-'}; degree {profile.degree})",
        f"id {e.id}" + ("" if e.how == "exact" else f"  (closest match to {name!r}, by {e.how})"),
    ]
    if profile.aliases:
        header.append("aliases: " + ", ".join(profile.aliases))
    if e.description:
        header.append(e.description)
    console.print(Panel(Text("\n".join(header)), title="entity", title_align="left"))
    table = Table("relation", "weight", "evidence", "chunks", title="Relations", title_justify="left")
    for r in profile.relations:
        table.add_row(
            Text(r.render()),
            f"{r.weight:g}",
            Text((r.evidence or [r.description])[0][:120]),
            Text(", ".join(r.chunk_ids[:2])),
        )
    console.print(table)
    sources = Table("document", "chunks", "mentions", "chunk ids", title="Sources", title_justify="left")
    for row in profile.sources:
        sources.add_row(
            Text(row["document_id"]), str(row["chunks"]), str(row["mentions"]), Text(", ".join(row["chunk_ids"]))
        )
    console.print(sources)
    for c in profile.communities:
        console.print(Text(f"community level {c['level']}: {c['title']} ({c['id']})"))


def _browser_base(settings: Settings) -> str:
    from graphwright.answer_graph import browser_base

    return browser_base(settings.neo4j_uri, settings.http_port)


@main.command()
def browser() -> None:
    """Print the Neo4j Browser URL and ready Cypher queries to inspect the graph there.

    The queries take parameters; set them in the Browser first, e.g. `:param name => 'NASA'`.

    \b
    Example:
      graphwright browser
    """
    settings = _settings()
    console = _console()
    console.print(
        f"Neo4j Browser: {_browser_base(settings)}  "
        f"(connect to {settings.neo4j_uri} as {settings.neo4j_user}; password from NEO4J_PASSWORD)"
    )
    names = []
    try:
        with _graph() as rag:
            names = [t["name"] for t in rag.store.graph.top_entities(2)]
    except SystemExit:
        console.print("(the database is not reachable now; the queries below still apply)")
    first, second = (names + ["NASA", "SpaceX"])[:2]
    from graphwright.graph_store.queries import BROWSER_QUERIES

    # Plain echo, not rich: a wrapped line would break copy and paste.
    click.echo(f"\nSet the parameters first:\n  :param name => {first!r}\n  :param other => {second!r}\n")
    for title, cypher in BROWSER_QUERIES:
        click.echo(f"// {title}\n{cypher}\n")


# --- eval --------------------------------------------------------------------------------------------
def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> list[int]:
    try:
        values = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter(f"expected numbers like 2,5,10, got {value!r}") from exc
    if not values or min(values) < 1:
        raise click.BadParameter("give at least one k >= 1")
    return values


@main.command("eval")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option(
    "--modes", default="vector,hybrid,local", show_default=True, help="Comma-separated search modes to score."
)
@click.option("--k", "ks", default="2,5,10", show_default=True, callback=_int_list, help="Recall cut-offs.")
@click.option(
    "--peers",
    is_flag=True,
    help="Also run BM25 and dense retrieval in plain Python and neo4j-graphrag's Vector/HybridRetriever "
    "on the same chunks (needs `pip install graphwright[eval]`).",
)
@click.option(
    "--load-corpus",
    is_flag=True,
    help="Ingest the dataset's own corpus first (HotpotQA-style folders ship one); idempotent.",
)
@click.option(
    "--extractor",
    type=click.Choice(EXTRACTOR_NAMES),
    default=None,
    help="Extractor for --load-corpus (default: GRAPHWRIGHT_EXTRACTOR).",
)
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N questions.")
@click.option("--no-llm", is_flag=True, help="Score retrieval only, even when an LLM is configured.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Write the report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def eval_command(
    dataset: Path,
    modes: str,
    ks: list[int],
    peers: bool,
    load_corpus: bool,
    extractor: str | None,
    limit: int | None,
    no_llm: bool,
    json_out: Path | None,
    quiet: bool,
) -> None:
    """Score search modes on a question set: passage Recall@k, MRR, keyword recall, and answer EM/F1
    when an LLM answers. DATASET is a JSONL file ({question, gold_doc_ids | gold_titles,
    expected_keywords?, answer?, type?} per line) or a HotpotQA-style folder (questions.json, corpus.json).

    \b
    Examples:
      graphwright eval questions.jsonl --modes vector,hybrid --k 1,3
      graphwright eval ../shared/eval/hotpotqa-dev --load-corpus --peers --json eval.json
    """
    from rich.console import Console

    from graphwright.evaluation.datasets import DatasetError, load_dataset
    from graphwright.evaluation.runner import evaluate
    from graphwright.evaluation.runner import load_corpus as ingest_corpus
    from graphwright.evaluation.tables import print_report
    from graphwright.search.registry import modes_where

    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in MODE_NAMES]
    if unknown or not chosen:
        raise click.BadParameter(
            f"unknown mode(s) {unknown}; choose from {', '.join(MODE_NAMES)}", param_hint="--modes"
        )
    try:
        data = load_dataset(dataset)
    except DatasetError as exc:
        _fail(str(exc))
    if limit:
        data.questions = data.questions[:limit]
    console = Console(width=max(_console().width, 150), highlight=False)  # tables wider than a pipe's 80
    with _graph() as rag:
        notes = []
        if load_corpus:
            notes += ingest_corpus(rag, data, extractor, bool(set(chosen) & set(modes_where("uses_graph"))))
        with _progress(not quiet) as progress:
            report = evaluate(rag, data, chosen, ks, peers=peers, generate=not no_llm, progress=progress)
        report.notes = notes + report.notes
    print_report(console, report)
    if json_out:
        json_out.write_text(report.model_dump_json(indent=2), encoding="utf-8")
        console.print(f"report written to {json_out}")


# --- query -------------------------------------------------------------------------------------------
class _ModeOption(click.Option):
    """--mode, whose help is each registered mode's own summary: written once, in the mode's class, and
    imported only when the help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from graphwright.search.registry import mode_class

        self.help = "; ".join(f"{name}: {mode_class(name).summary}" for name in MODE_NAMES) + "."
        return super().get_help_record(ctx)


@main.command()
@click.argument("question")
@click.option("--mode", cls=_ModeOption, type=click.Choice(MODE_NAMES), default="hybrid", show_default=True)
@click.option("--k", type=click.IntRange(1, 100), default=None, help="Passages to retrieve (default 5).")
@click.option(
    "--where",
    multiple=True,
    metavar="FILTER",
    help="Metadata filter on documents (vector, hybrid): key=value, key!=value, year>=2020, title~Apollo (repeatable).",
)
@click.option(
    "--level",
    type=click.IntRange(0, None),
    default=None,
    help="global: community level to read (0 = coarsest); default: chosen by relevance.",
)
@click.option("--source", default=None, help="path: first entity (instead of reading it from the question).")
@click.option("--target", default=None, help="path: second entity.")
@click.option("--hyde", is_flag=True, help="vector/hybrid: also search with a hypothetical answer (needs an LLM).")
@click.option("--no-llm", is_flag=True, help="Return the retrieval even when an LLM is configured.")
@click.option("--show-context", is_flag=True, help="Also print the context sections the answer was built from.")
@click.option("-v", "--verbose", is_flag=True, help="Print the trace: routing, tool calls, hops, attempts.")
@click.option(
    "--graph",
    "graph_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a self-contained HTML view (opens offline) of the entities, relations and paths used.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the SearchResult as JSON.")
@click.option(
    "--server",
    default=None,
    metavar="URL",
    help="Ask this running `graphwright serve` (no model load here); default GRAPHWRIGHT_SERVER_URL, "
    "which falls back to searching locally when nothing answers there.",
)
@click.option("--local", is_flag=True, help="Search in this process even when GRAPHWRIGHT_SERVER_URL is set.")
def query(
    question: str,
    mode: str,
    k: int | None,
    where: tuple[str, ...],
    level: int | None,
    source: str | None,
    target: str | None,
    hyde: bool,
    no_llm: bool,
    show_context: bool,
    verbose: bool,
    graph_file: Path | None,
    as_json: bool,
    server: str | None,
    local: bool,
) -> None:
    """Answer a question from the graph, citing the chunks, entities, relations and communities used.

    \b
    Examples:
      graphwright query "Which rocket launched Apollo 11?" --mode hybrid --k 3
      graphwright query "reusable boosters" --where category=rockets --where year>=2015 --json
      graphwright query "What did Wernher von Braun work on?" --mode local --show-context
      graphwright query "What are the main themes of these documents?" --mode global
      graphwright query "How is Jeff Bezos connected to NASA?" --mode path --graph answer.html
      graphwright query "Who designed the rocket that launched Apollo 11?" --mode auto --verbose
      graphwright query "Which agency built the rocket that flew Apollo 11?" --mode agent --verbose
      graphwright query "Who flew Apollo 11?" --server http://127.0.0.1:8000   # a running `graphwright serve`
    """
    if (source is None) != (target is None):
        raise click.BadParameter("give both --source and --target, or neither", param_hint="--source/--target")
    settings = _settings()
    url = server or settings.server_url
    result = None
    if url and not local:  # the server checks the filters; this process never imports the store
        result = _ask_server(
            url,
            settings,
            {
                "question": question,
                "mode": mode,
                "k": k,
                "where": list(where),
                "generate": not no_llm,
                "level": level,
                "source": source,
                "target": target,
                "hyde": hyde,
            },
            required=server is not None,
        )
    if result is None:
        result = _search_here(question, mode, k, where, no_llm, level, source, target, hyde)
    if graph_file is not None:
        from graphwright.answer_graph import answer_graph_html

        graph_file.write_text(answer_graph_html(result), encoding="utf-8")
        _console(stderr=True).print(f"answer graph written to {graph_file}")
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    _print_result(result, show_context, verbose)
    cypher, link = getattr(result, "browser_cypher", ""), getattr(result, "browser_url", "")
    if not cypher:  # searched here; a server sends its own (it knows where its Neo4j is)
        from graphwright.answer_graph import browser_url, evidence_browser_query

        cypher = evidence_browser_query(result)
        link = browser_url(_browser_base(settings), cypher)
    # Plain echo, not rich: a wrapped line would break the link and copy and paste.
    click.echo(f"\nThis answer's evidence in Neo4j Browser (connect, then press Run):\n  {link}\n\n{cypher}")


def _search_here(
    question: str,
    mode: str,
    k: int | None,
    where: tuple[str, ...],
    no_llm: bool,
    level: int | None,
    source: str | None,
    target: str | None,
    hyde: bool,
) -> Any:
    from graphwright.errors import InvalidRequestError
    from graphwright.search.filters import parse_filters

    try:
        filters = parse_filters(list(where))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--where") from exc
    with _graph() as rag:
        try:
            return rag.search(
                question,
                mode=mode,  # type: ignore[arg-type]
                k=k,
                where=filters,
                generate=not no_llm,
                level=level,
                source=source,
                target=target,
                hyde=hyde,
            )
        except InvalidRequestError as exc:
            raise click.UsageError(_as_flags(str(exc))) from exc


def _ask_server(url: str, settings: Settings, body: dict[str, Any], required: bool) -> Any:
    """The result from a running server; None (search locally) when none answers at a URL from the settings."""
    from graphwright.errors import GraphwrightError, InvalidRequestError
    from graphwright.server.client import ServerUnavailableError, search_remote

    key = settings.server_key.get_secret_value() if settings.server_key else None
    try:
        return search_remote(url, body, key)
    except InvalidRequestError as exc:
        raise click.UsageError(_as_flags(str(exc))) from exc
    except ServerUnavailableError as exc:
        if required:
            _fail(str(exc))
        _console(stderr=True).print(f"[dim]{exc}; searching locally[/]")
        return None
    except GraphwrightError as exc:
        _fail(str(exc))
    return None


# --- serve -------------------------------------------------------------------------------------------
@main.command()
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
def serve(host: str, port: int, log_level: str) -> None:
    """Serve the graph over HTTP: the API (/v1, docs at /docs), a web page at /, and MCP at /mcp.

    One process holds the embedder, the LLM client and the Neo4j driver warm, so questions skip the cold
    start. Keys: GRAPHWRIGHT_API_KEYS (full) and GRAPHWRIGHT_READ_API_KEYS (search only), comma-separated,
    sent as `Authorization: Bearer <key>`; required to listen beyond loopback. A keyless server answers
    only loopback host names (GRAPHWRIGHT_ALLOWED_HOSTS adds more) and, from a browser, only its own page;
    docs/security.md has the whole threat model.

    \b
    Examples:
      graphwright serve                      # http://127.0.0.1:8000
      GRAPHWRIGHT_API_KEYS=s3cret graphwright serve --host 0.0.0.0 --port 8080
      curl -s localhost:8000/v1/search -H 'content-type: application/json' -d '{"question": "Who flew Apollo 11?"}'
    """
    from graphwright.server import run_server
    from graphwright.server.app import create_app
    from graphwright.server.security import ServerConfigError

    settings = _settings()
    with _graph():  # Neo4j reachable, or one clear line now rather than 503s later
        pass
    try:
        app = create_app(settings, host=host)
    except ServerConfigError as exc:
        _fail(str(exc))
    _console(stderr=True).print(f"graphwright serving on http://{host}:{port}  (page /, API docs /docs, MCP /mcp)")
    run_server(app, host, port, log_level)


@main.command("mcp")
def mcp_command() -> None:
    """Run the MCP server on stdin/stdout, for agents (Claude Desktop, Cursor...) that start it themselves.

    Tools: search, show_entity, find_paths, cypher (read-only), stats. Under `graphwright serve` the same
    server answers over streamable HTTP at /mcp.

    \b
    Example (an MCP client's configuration):
      {"mcpServers": {"graphwright": {"command": "graphwright", "args": ["mcp"]}}}
    """
    from graphwright.server import run_mcp_stdio

    settings = _settings()
    with _graph():
        pass
    run_mcp_stdio(settings)


def _as_flags(message: str) -> str:
    """An API error names parameters (`where`); on the command line they are options (--where)."""
    import re

    return re.sub(r"`([a-z_]+)`", lambda m: "--" + m.group(1).replace("_", "-"), message)


def _print_result(result: Any, show_context: bool = False, verbose: bool = False) -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = _console()
    title = f"{result.mode} · {'LLM answer' if result.answer_kind == 'generated' else 'retrieval (offline)'}"
    if verbose and result.trace:
        trace = Table("#", "kind", "name", "arguments", "result", title="Trace", title_justify="left")
        for step in result.trace:
            arguments = ", ".join(f"{k}={v!r}" for k, v in step.arguments.items())
            trace.add_row(
                str(step.step),
                step.kind,
                step.name,
                Text(arguments[:120]),
                Text(("" if step.ok else "FAILED: ") + step.summary[:160]),
            )
        console.print(trace)
    console.print(Panel(Text(result.answer), title=title, title_align="left"))  # Text: brackets are not markup
    if show_context:
        for section in result.context:
            console.print(
                Panel(
                    Text(section.text), title=f"context: {section.name} ({section.tokens} tokens)", title_align="left"
                )
            )
    table = Table("#", "score", "chunk", "document", title="Evidence passages", title_justify="left")
    for c in result.chunks[: max(len(result.citations), 5)]:
        table.add_row(
            str(c.rank), f"{c.score:.3f}", c.chunk_id, Text(c.document_id + (f" p.{c.pages}" if c.pages else ""))
        )
    console.print(table)
    cited = [c for c in result.citations if c.kind in ("entity", "relation", "community")]
    if cited:
        graph = Table("kind", "id", "label", title="Cited graph elements", title_justify="left")
        for c in cited[:30]:
            graph.add_row(c.kind, Text(c.id), Text(c.label or ""))
        console.print(graph)
    timings = ", ".join(f"{k.removesuffix('_ms')} {v:.0f} ms" for k, v in result.timings_ms.items())
    console.print(f"[dim]{timings}[/]")


if __name__ == "__main__":
    main()
