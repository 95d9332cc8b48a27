"""Commands that write the graph: schema, ingest, import, index, delete, re-embed and reset."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from graphwright.cli.common import (
    cost_options,
    depth_options,
    examples_option,
    exit_partial,
    extractor_option,
    fail,
    ingest_progress,
    make_console,
    open_graph,
    parse_meta,
    print_estimate,
    progress_bar,
    read_examples_file,
    read_schema,
    schema_option,
    time_option,
)
from graphwright.cli.render import print_community_run, print_ingest_report, print_raptor_run, print_sync_report

if TYPE_CHECKING:
    from graphwright.models import IngestReport


@click.command()
def init() -> None:
    """Create constraints, vector and fulltext indexes (idempotent).

    \b
    Example:
      graphwright init
    """
    with open_graph() as rag:
        statements = rag.init()
        make_console().print(
            f"Schema ready: {len(statements)} constraints and indexes "
            f"(embedding dimension {rag.embedder.dimension}, {rag.embedder.name})"
        )


@click.command()
@click.option("--yes", is_flag=True, help="Really delete everything.")
def reset(yes: bool) -> None:
    """Delete every node, index and constraint of the workspace (`default`: the database, except the other
    workspaces).

    \b
    Example:
      graphwright reset --yes
      graphwright reset --yes --workspace legal    # empties legal; it stays, with no indexes until used
    """
    if not yes:
        fail("this deletes the whole graph; add --yes to confirm")
    with open_graph() as rag:
        rag.store.admin.reset()
        make_console().print("Database emptied" if rag.workspace == "default" else f"Workspace {rag.workspace} emptied")


@click.command()
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
    with open_graph() as rag, progress_bar(not quiet) as tell:
        counts = rag.inspect.stats()
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
    make_console().print(
        f"Re-embedded {done} in {report.seconds:.1f}s: {before} -> {report.model} "
        f"({report.dimension}d)" + (f"; {report.resumed} kept from an interrupted run" if report.resumed else "")
    )


class _IngestCommand(click.Command):
    """`ingest --help` lists the file types from the loaders' table, read only when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from graphwright.documents.file_types import supported_suffixes

        with formatter.indentation():
            formatter.write_paragraph()
            formatter.write_text("File types: " + ", ".join(supported_suffixes()) + ".")


def _check_paths(paths: tuple[Path, ...]) -> None:
    """A path that is not there is bad input (exit 2), said before the database is opened."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"no such file or folder: {', '.join(missing)}")


def _settle_ingest(report: IngestReport, paths: tuple[Path, ...]) -> None:
    """The exit code of an ingest: 2 when there was nothing to read, 1 when some files failed."""
    if report.found_nothing:
        # a folder of PDFs "ingested" as 0 documents with exit 0 reads like success; it is not
        fail(
            f"nothing to ingest in {', '.join(map(str, paths))}: no file of a supported type"
            + (f" ({len(report.skipped)} of other types skipped)" if report.skipped else "")
        )
    if report.failures or report.extraction_failures:
        exit_partial()


@click.command(cls=_IngestCommand)
@click.argument("paths", nargs=-1)
@click.option(
    "--sample",
    is_flag=True,
    help="Ingest the sample the package carries: 20 pages about spaceflight (ids space/...).",
)
@click.option("--glob", "glob_pattern", help="Only files whose name matches, e.g. '*.md'.")
@click.option("--meta", multiple=True, metavar="KEY=VALUE", help="Metadata for every document (repeatable).")
@click.option("--text-field", help="Field holding the text in JSON/JSONL records (default: text, content, body).")
@click.option(
    "--base",
    type=click.Path(path_type=Path, file_okay=False),
    help="Document ids are paths relative to this folder (default: the current folder).",
)
@extractor_option()
@schema_option()
@examples_option()
@click.option(
    "--no-communities",
    is_flag=True,
    help="Leave communities as they are (by default they are built the first time, then kept current).",
)
@click.option(
    "--reextract",
    is_flag=True,
    help="Process unchanged documents again too (e.g. after changing the extractor); curation is kept.",
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Embed and extract on a Dask cluster's workers (`graphwright worker`): tcp://127.0.0.1:8786 on one "
    "machine, tls://HOST:8786 with `graphwright cluster certs` across machines.",
)
@click.option(
    "--cluster-insecure", is_flag=True, help="Allow --cluster over plain TCP off loopback (trusted networks only)."
)
@depth_options
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@cost_options
@time_option
def ingest(
    paths: tuple[str, ...],
    sample: bool,
    glob_pattern: str | None,
    meta: tuple[str, ...],
    text_field: str | None,
    base: Path | None,
    extractor: str | None,
    schema_file: Path | None,
    examples_file: Path | None,
    no_communities: bool,
    reextract: bool,
    cluster: str | None,
    cluster_insecure: bool,
    depth: int | None,
    max_pages: int | None,
    quiet: bool,
    as_json: bool,
    dry_run: bool,
    max_cost: float | None,
    max_time: float | None,
) -> None:
    """Ingest files or folders (idempotent by content hash): the types below, each by its loader. Then the
    communities: built the first time the graph has entities, kept current after (`--no-communities`: not).

    \b
    Example:
      graphwright ingest --sample --meta collection=space   # the bundled sample
      graphwright ingest notes/ --glob '*.md' --extractor nlp
      graphwright ingest reports/ --schema company.yaml
      graphwright ingest docs/ --extractor llm --dry-run     # the LLM calls, tokens and time it would take
      graphwright ingest docs/ --extractor llm --max-time 10m  # then the offline graph; run again to go on
      graphwright ingest big/ --no-communities               # build them later: graphwright communities build
      graphwright ingest notes/ --extractor llm --reextract  # extract unchanged files again
      graphwright ingest big/ --cluster tcp://127.0.0.1:8786 # workers embed and extract (graphwright worker)
      graphwright ingest https://example.org/guide/ --depth 1  # a page and the pages it links to on its site
      graphwright ingest s3://reports/2026/                  # a bucket's objects (the `s3` extra)

    A URL or s3:// location is read as `graphwright sync` reads it, and remembered as a source.
    """
    from graphwright.sources.registry import is_remote

    remote = [p for p in paths if is_remote(p)]
    if remote:
        _ingest_remote(paths, remote, extractor, depth, max_pages, quiet or as_json, as_json, dry_run or sample)
        return
    if depth is not None or max_pages is not None:
        raise click.UsageError("--depth and --max-pages are for a URL")
    files = tuple(Path(p) for p in paths)
    if sample:
        from graphwright.samples import SAMPLES, SPACE

        if files or base:
            raise click.UsageError("--sample ingests the bundled sample alone: give no paths or --base with it")
        files, base = (SPACE,), SAMPLES
    if not files:
        raise click.UsageError("give files or folders to ingest, or --sample for the bundled one")
    _check_paths(files)
    metadata = parse_meta(meta)
    given: dict[str, Any] = {  # what the dry run and the run share
        "base": base,
        "glob": glob_pattern,
        "text_field": text_field,
        "extractor": extractor,
        "schema": read_schema(schema_file),
        "examples": read_examples_file(examples_file),
    }
    if dry_run:
        with open_graph() as rag:
            estimate = rag.estimate_ingest(list(files), communities=not no_communities, **given)
        click.echo(estimate.model_dump_json(indent=2)) if as_json else print_estimate(estimate)
        return
    shown = not quiet and not as_json
    with open_graph(max_cost, max_time) as rag:
        with ingest_progress(shown) as tally:
            report = rag.ingest(
                list(files),
                metadata=metadata,
                progress=tally,
                update_communities=not no_communities,
                reextract=reextract,
                cluster=cluster,
                cluster_insecure=cluster_insecure,
                **given,
            )
        # The first ingest has no communities to keep current: build them, so `global` and the page have some.
        if not no_communities and report.entities_written and not rag.store.communities.community_levels():
            with progress_bar(shown) as progress:
                report.communities = rag.build_communities(
                    progress=progress, budget=rag.settings.report_budget
                ).counts()
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        print_ingest_report(report)
    _settle_ingest(report, files)


def _ingest_remote(
    paths: tuple[str, ...],
    remote: list[str],
    extractor: str | None,
    depth: int | None,
    max_pages: int | None,
    quiet: bool,
    as_json: bool,
    refused: bool,
) -> None:
    """`ingest URL` / `ingest s3://...`: each a sync of that source (remembered, so `sources sync` keeps it
    current)."""
    from graphwright.errors import SourceError

    if refused or len(remote) != len(paths):
        raise click.UsageError("give URLs or s3:// locations alone (no files, --sample or --dry-run with them)")
    reports = []
    try:
        with open_graph() as rag, ingest_progress(not quiet) as tally:
            for location in remote:
                reports.append(
                    rag.sync(location, depth=depth, max_pages=max_pages, extractor=extractor, progress=tally)
                )
    except SourceError as exc:  # after the progress bars are gone: the error is the last line
        fail(str(exc))
    if as_json:
        click.echo("[" + ",".join(r.model_dump_json(indent=2) for r in reports) + "]")
    else:
        for report in reports:
            print_sync_report(report)
    if any(r.failures for r in reports):
        exit_partial()


@click.command("import-graph")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--report",
    "report_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write every skipped record (JSON lines: source, cause, error) to this file.",
)
@schema_option()
def import_graph(file: Path, report_file: Path | None, schema_file: Path | None) -> None:
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
    with open_graph() as rag:
        report = rag.import_graph(file, schema=read_schema(schema_file))
    console = make_console()
    attached = f" ({report.attached} records tied to their document's best chunk)" if report.attached else ""
    console.print(
        f"Imported {report.entities} entities and {report.relations} relations{attached}; "
        f"{len(report.skipped)} records skipped"
    )
    for cause, count in report.by_cause().items():
        console.print(f"  {count:>7,}  {cause}")
    for reason, count in sorted(report.schema_checks.items()):
        console.print(f"  {count:>7,}  graph schema: {reason}")
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
        exit_partial()


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@extractor_option()
@click.option("--max-cluster-size", default=10, show_default=True, type=click.IntRange(2, 100_000))
@click.option("--seed", default=42, show_default=True)
@click.option("--raptor", "with_raptor", is_flag=True, help="Also build the RAPTOR tree (for --mode raptor).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@cost_options
@time_option
def index(
    paths: tuple[Path, ...],
    extractor: str | None,
    max_cluster_size: int,
    seed: int,
    with_raptor: bool,
    quiet: bool,
    dry_run: bool,
    max_cost: float | None,
    max_time: float | None,
) -> None:
    """Ingest and then build communities (and with `--raptor` the RAPTOR tree), in one go. They are built over
    what went in even when some files failed; the exit code then is 1. A tree built once is kept current by
    every later ingest (GRAPHWRIGHT_RAPTOR_ON_INGEST).

    \b
    Example:
      graphwright index notes/
      graphwright index notes/ --raptor
      graphwright index notes/ --extractor llm --dry-run
    """
    _check_paths(paths)
    if dry_run:
        with open_graph() as rag:
            print_estimate(rag.estimate_ingest(list(paths), extractor=extractor, communities=True))
        return
    with open_graph(max_cost, max_time) as rag:
        with ingest_progress(not quiet) as tally:
            report = rag.ingest(list(paths), extractor=extractor, progress=tally)
        print_ingest_report(report)
        if report.found_nothing:
            _settle_ingest(report, paths)
        with progress_bar(not quiet) as progress:
            run = rag.build_communities(max_cluster_size, seed, progress)
        tree = None
        if with_raptor and not report.raptor:  # the ingest did not already bring a tree up to date
            with progress_bar(not quiet) as progress:
                tree = rag.build_raptor(progress)
    print_community_run(run)
    if tree is not None:
        print_raptor_run(tree)
    _settle_ingest(report, paths)


@click.command()
@click.argument("document_id")
def delete(document_id: str) -> None:
    """Delete a document and its chunks.

    \b
    Example:
      graphwright delete space/apollo-11.md
    """
    with open_graph() as rag:
        removed = rag.delete_document(document_id)
    if removed is None:
        fail(f"no document with id {document_id!r} (`graphwright documents` lists them, failed ones too)")
    make_console().print(f"Deleted {document_id} ({removed} chunks)")


@click.command()
@click.argument("record_ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every failed and interrupted record of the workspace.")
@click.option(
    "--base",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The folder the ingest named its files below (its --base); default: here.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def retry(record_ids: tuple[str, ...], every: bool, base: Path | None, quiet: bool) -> None:
    """Ingest failed or interrupted documents again from their files, where the ingest read them: a failed
    record is named by its file, an interrupted one by its document id (`graphwright documents --status
    failed` lists them). Run it where the ingest ran, or give that ingest's --base.

    \b
    Example:
      graphwright retry reports/q3.pdf
      graphwright retry --all
    """
    from graphwright.models import DocumentQuery

    if not record_ids and not every:
        raise click.UsageError("name the records to retry, or give --all")
    root = base or Path.cwd()
    with open_graph() as rag:
        wanted = list(record_ids)
        if every:
            for status in ("failed", "interrupted"):
                page = rag.inspect.document_table(DocumentQuery(status=status, limit=1000))
                wanted += [row.id for row in page.documents if row.id not in wanted]
        found: list[str | Path] = []
        missing: list[Path] = []
        for record in wanted:
            # a failed file is recorded as the ingest was given it (here, or absolute); a document id is
            # named below the ingest's base
            path = next((p for p in (Path(record), root / record) if p.is_file()), None)
            found.append(path) if path is not None else missing.append(root / record)
        console = make_console()
        for path in missing:
            console.print(f"[yellow]not found:[/] {path} (run where the ingest ran, or give its --base)")
        if not found:
            fail("nothing to retry" if not wanted else "none of those records' files is where it was read")
        with ingest_progress(not quiet) as tally:
            report = rag.ingest(found, base=root, progress=tally)
    print_ingest_report(report)
    if missing:
        exit_partial()
    _settle_ingest(report, tuple(Path(p) for p in found))
