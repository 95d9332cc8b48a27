"""Sources a workspace keeps in step with: `sync` (once), `watch` (a folder, as it changes), `sources`
(what is kept in step, and forgetting one)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import click

from graphwright.cli.common import (
    depth_options,
    exit_partial,
    extractor_option,
    fail,
    ingest_progress,
    make_console,
    open_graph,
)
from graphwright.cli.render import print_sync_report

if TYPE_CHECKING:
    from graphwright.models import SyncReport


@click.command()
@click.argument("location")
@click.option("--glob", "glob_pattern", help="Folder or bucket: only files whose name matches, e.g. '*.md'.")
@depth_options
@extractor_option()
@click.option("--details", is_flag=True, help="List every file added, changed, removed or failed.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def sync(
    location: str,
    glob_pattern: str | None,
    depth: int | None,
    max_pages: int | None,
    extractor: str | None,
    details: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Bring the workspace in step with a folder, a web page or site, or an S3 bucket, once: new and changed
    files are ingested, removed ones deleted with everything derived from them (passages, entities only they
    supported, community reports, summaries). The source is remembered: `graphwright sources` lists it, and
    the next sync compares with this one. Exit 1 when some files failed, 2 when the source cannot be read
    (then nothing is deleted).

    \b
    Example:
      graphwright sync notes/                        # a folder (ids notes/...)
      graphwright sync https://example.org/docs/ --depth 2
      graphwright sync https://example.org/sitemap.xml
      AWS_ENDPOINT_URL=http://127.0.0.1:9000 graphwright sync s3://reports/2026/
      graphwright sync notes/ --details              # every file it touched
    """
    from graphwright.errors import SourceError

    try:
        with open_graph() as rag, ingest_progress(not quiet and not as_json) as tally:
            report = rag.sync(
                location, glob=glob_pattern, depth=depth, max_pages=max_pages, extractor=extractor, progress=tally
            )
    except SourceError as exc:  # after the progress bars are gone: the error is the last line
        fail(str(exc))
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        print_sync_report(report, details=details)
    if report.failures:
        exit_partial()


@click.command()
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True))
@click.option("--glob", "glob_pattern", help="Only files whose name matches, e.g. '*.md'.")
@extractor_option()
@click.option(
    "--quiet-ms",
    type=click.IntRange(min=50),
    default=None,
    help="How long a folder must be still before its changes are synced (default GRAPHWRIGHT_WATCH_QUIET_MS, "
    "1000): an editor's save storm is one sync.",
)
def watch(folders: tuple[str, ...], glob_pattern: str | None, extractor: str | None, quiet_ms: int | None) -> None:
    """Keep the workspace in step with folders as they change, until Ctrl-C: first a sync of each (what
    changed while nobody watched), then one whenever files are added, saved, renamed or removed.

    \b
    Example:
      graphwright watch notes/
      graphwright watch notes/ papers/ --glob '*.md' --workspace research
    """
    from graphwright.api.watch import watch_folders

    console = make_console()

    def said(report: SyncReport) -> None:
        if report.touched or report.failures:
            print_sync_report(report)

    def failed(folder: str, error: Exception) -> None:
        console.print(f"[red]{folder}:[/] {error}", highlight=False)

    import signal
    import threading

    stop = threading.Event()  # SIGTERM (a service manager's stop) ends it as Ctrl-C does: between syncs
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with open_graph() as rag:
        console.print(f"Watching {', '.join(folders)} (Ctrl-C stops)", highlight=False)
        with contextlib.suppress(KeyboardInterrupt):
            watch_folders(
                rag,
                list(folders),
                glob=glob_pattern,
                extractor=extractor,
                quiet_ms=quiet_ms,
                on_sync=said,
                on_error=failed,
                stop=stop,
            )
    console.print("Stopped watching")


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the sources as JSON.")
@click.pass_context
def sources(ctx: click.Context, as_json: bool) -> None:
    """The folders, web sites and buckets this workspace keeps in step with (`graphwright sync`, `watch`):
    when each was last synced and what it holds.

    \b
    Example:
      graphwright sources
      graphwright sources sync                       # every one of them, now
      graphwright sources forget notes --documents   # stop, and delete what it gave
    """
    if ctx.invoked_subcommand is not None:
        return
    import json

    with open_graph() as rag:
        records = rag.sources()
    if as_json:
        click.echo(json.dumps([r.summary() for r in records], indent=2))
        return
    if not records:
        make_console().print("No sources yet: `graphwright sync PATH|URL|s3://bucket/prefix` adds one")
        return
    from graphwright.cli.tables import Column, print_fitted

    rows = []
    for record in records:
        row = record.summary()
        last = row["counts"]
        rows.append(
            [
                record.id,
                record.kind,
                str(row["documents"]),
                str(row["failed"]),
                record.last_sync.replace("T", " ")[:19] or "never",
                record.error or f"+{last.get('added', 0)} ~{last.get('changed', 0)} -{last.get('removed', 0)}",
            ]
        )
    print_fitted(
        make_console(),
        [
            Column("source", keep=24),
            Column("kind", keep=6, drop=3),
            Column("documents", keep=9, justify="right"),
            Column("failed", keep=6, drop=2, justify="right"),
            Column("last sync (UTC)", keep=19, drop=4),
            Column("last change or error", keep=12, drop=1, clip=True),
        ],
        rows,
    )


@sources.command("sync")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def sync_all(quiet: bool) -> None:
    """Sync every source of the workspace now, each as it was added.

    \b
    Example:
      graphwright sources sync
    """
    from graphwright.errors import SourceError

    partial = False
    with open_graph() as rag, ingest_progress(not quiet) as tally:
        for record in rag.sources():
            try:
                report = rag.sync(record.id, progress=tally)
            except SourceError as exc:
                make_console(stderr=True).print(f"[red]{record.id}:[/] {exc}", highlight=False)
                partial = True
                continue
            print_sync_report(report)
            partial = partial or bool(report.failures)
    if partial:
        exit_partial()


@sources.command("forget")
@click.argument("source")
@click.option("--documents", is_flag=True, help="Also delete every document it gave, with what derives from them.")
def forget(source: str, documents: bool) -> None:
    """Stop keeping a source in step: its documents stay unless --documents. SOURCE is its id as
    `graphwright sources` shows it, or a unique part of it.

    \b
    Example:
      graphwright sources forget https://example.org/docs/
      graphwright sources forget notes --documents
    """
    with open_graph() as rag:
        ids = [r.id for r in rag.sources()]
        matching = [i for i in ids if i == source] or [i for i in ids if source in i]
        if len(matching) != 1:
            fail(
                f"no source {source!r} (graphwright sources lists them)"
                if not matching
                else f"{source!r} names {len(matching)} sources: {', '.join(matching)}"
            )
        record = rag.forget_source(matching[0], documents=documents)
    gone = sum(len(i.documents) for i in record.items.values())
    done = f"deleted its {gone} documents" if documents else f"its {gone} documents kept"
    make_console().print(f"Forgot the source ({done}): {record.id}", highlight=False, soft_wrap=True)
