"""Commands that list what the graph holds without Cypher: documents (with their status), entities, and an
export of the entity graph for Gephi, NetworkX or a spreadsheet."""

from __future__ import annotations

from pathlib import Path

import click

from graphwright.cli.common import make_console, open_graph

_STATUS_STYLE = {"processed": "green", "incomplete": "yellow", "interrupted": "yellow", "failed": "red"}


@click.command()
@click.option("--search", "-s", help="Only documents whose id or title contains this (any case).")
@click.option(
    "--status",
    type=click.Choice(["processed", "incomplete", "interrupted", "failed"]),
    help="processed; incomplete (some chunks to redo); interrupted (resumable); failed (could not be read).",
)
@click.option("--language", help="Only documents with passages in this language (en, zh, ...).")
@click.option(
    "--sort",
    type=click.Choice(["id", "title", "date", "chunks", "status"]),
    default="id",
    show_default=True,
)
@click.option("--desc", is_flag=True, help="Sort descending.")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True, help="Rows to skip (paging).")
@click.option("--json", "as_json", is_flag=True, help="Print the page as JSON (rows, counts per status, total).")
def documents(
    search: str | None,
    status: str | None,
    language: str | None,
    sort: str,
    desc: bool,
    limit: int,
    offset: int,
    as_json: bool,
) -> None:
    """The documents of the workspace with their status, chunks, languages, type, date and source; files the
    last ingest could not read are listed as failed, with the reason, until an ingest of them succeeds.

    \b
    Example:
      graphwright documents
      graphwright documents --status failed
      graphwright documents --search apollo --sort chunks --desc --json
    """
    from graphwright.cli.tables import Column, print_fitted
    from graphwright.models import DocumentQuery

    query = DocumentQuery(
        search=search,
        status=status,
        language=language,
        sort=sort,
        descending=desc,
        offset=offset,
        limit=limit,
    )
    with open_graph() as rag:
        page = rag.inspect.document_table(query)
    if as_json:
        click.echo(page.model_dump_json(indent=2))
        return
    console = make_console()
    counts = ", ".join(f"{n} {status}" for status, n in sorted(page.counts.items())) or "none"
    shown = f"{offset + 1}-{offset + len(page.documents)} of {page.total}" if page.documents else f"0 of {page.total}"
    console.print(f"Documents {shown} ({counts})")
    if not page.documents:
        return
    columns = [
        Column("document", keep=24),
        Column("status", keep=9),
        Column("title / reason", keep=16, drop=1),
        Column("chunks", keep=6, drop=3, justify="right"),
        Column("ingested", keep=16, drop=4),
        Column("lang", keep=4, drop=5),
        Column("type", keep=5, drop=6),
    ]
    rows = []
    for doc in page.documents:
        style = _STATUS_STYLE.get(doc.status, "")
        rows.append(
            [
                doc.id,
                f"[{style}]{doc.status}[/]",
                (doc.error or doc.title or "")[:120],
                str(doc.chunks or 0),
                (doc.ingested_at or "")[:16].replace("T", " "),
                ",".join(doc.languages or []),
                doc.type,
            ]
        )
    print_fitted(console, columns, rows)
    if page.total > offset + len(page.documents):
        console.print(f"[dim]next page: --offset {offset + len(page.documents)}[/]")


@click.command()
@click.argument("search", required=False)
@click.option("--type", "entity_type", help="Only entities of this type (PERSON, ORGANIZATION, ...; any case).")
@click.option("--limit", type=click.IntRange(1, 1000), default=30, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True, help="Rows to skip (paging).")
@click.option("--json", "as_json", is_flag=True, help="Print the page as JSON.")
def entities(search: str | None, entity_type: str | None, limit: int, offset: int, as_json: bool) -> None:
    """Entities whose name contains SEARCH (all when none), most connected first: type, degree (relations),
    the passages that mention them, and the start of their description. `graphwright show entity NAME` shows
    one in full.

    \b
    Example:
      graphwright entities
      graphwright entities braun
      graphwright entities --type person --limit 100 --json
    """
    from graphwright.cli.tables import Column, print_fitted

    with open_graph() as rag:
        page = rag.inspect.entity_table(search, entity_type, offset, limit)
    if as_json:
        click.echo(page.model_dump_json(indent=2))
        return
    console = make_console()
    if not page.entities:
        console.print(f"No entity matches (of {page.total})")
        return
    console.print(f"Entities {offset + 1}-{offset + len(page.entities)} of {page.total}, most connected first")
    columns = [
        Column("name", keep=22),
        Column("type", keep=12, drop=3),
        Column("degree", keep=6, drop=4, justify="right"),
        Column("passages", keep=8, drop=5, justify="right"),
        Column("description", keep=12, drop=2, clip=True, max_width=60),
    ]
    rows = [[e.name, e.type, str(e.degree), str(e.chunks), (e.description or "")[:80]] for e in page.entities]
    print_fitted(console, columns, rows)
    if page.total > offset + len(page.entities):
        console.print(f"[dim]next page: --offset {offset + len(page.entities)}[/]")


@click.command()
@click.argument("target", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["graphml", "csv", "jsonl"]),
    default=None,
    help="Default: from TARGET's suffix (.graphml, .csv, .jsonl).",
)
@click.option("--query", "question", help="Only the subgraph of the entities this question's search finds.")
@click.option("--mode", default="local", show_default=True, help="The search mode of --query.")
@click.option("--k", type=click.IntRange(1, 200), default=10, show_default=True, help="Passages --query retrieves.")
def export(target: Path, fmt: str | None, question: str | None, mode: str, k: int) -> None:
    """Write the entity graph (entities, typed relations with their weight and evidence chunk ids) to
    TARGET: GraphML for Gephi, yEd or NetworkX; CSV as TARGET.nodes.csv and TARGET.edges.csv (Gephi's
    spreadsheet import); JSON lines. With --query, only the entities that question's search finds and the
    relations among them.

    \b
    Example:
      graphwright export graph.graphml
      graphwright export space.csv
      graphwright export apollo.jsonl --query "Who flew on Apollo 11?"
    """
    from graphwright.api.export import export_graph

    fmt = fmt or {".graphml": "graphml", ".xml": "graphml", ".csv": "csv", ".jsonl": "jsonl"}.get(target.suffix)
    if fmt is None:
        raise click.BadParameter(
            "say --format graphml, csv or jsonl (TARGET's suffix says none)", param_hint="--format"
        )
    with open_graph() as rag:
        ids = None
        if question:
            result = rag.search(question, mode=mode, k=k, generate=False)
            ids = [e.id for e in result.entities]
        report = export_graph(rag.store, target, fmt, ids=ids)
    subset = f" (the subgraph of {question!r})" if question else ""
    make_console().print(
        f"Exported {report.entities} entities and {report.relations} relations{subset} as {fmt}: "
        + ", ".join(report.files)
    )
