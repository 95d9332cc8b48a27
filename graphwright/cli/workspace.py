"""`graphwright workspace`: isolated knowledge bases on one Neo4j (create, list, show, delete)."""

from __future__ import annotations

import click

from graphwright.cli.common import fail, make_console, open_graph


@click.group()
def workspace() -> None:
    """Workspaces: knowledge bases that share one Neo4j and nothing else (documents, graph, communities,
    conversations, schema, extractor). Every command takes `--workspace NAME` (or GRAPHWRIGHT_WORKSPACE);
    without it, commands use `default`, the graph as it was before workspaces.

    \b
    Example:
      graphwright workspace create legal --extractor ner
      graphwright ingest contracts/ --workspace legal
      graphwright query "Who signed the lease?" --workspace legal
    """


def _echo_json(value: object) -> None:
    import json

    click.echo(json.dumps(value, indent=2, default=str))


@workspace.command("create")
@click.argument("name")
@click.option("--extractor", default=None, help="This workspace's extractor (else GRAPHWRIGHT_EXTRACTOR).")
@click.option("--entity-types", default=None, help="Its entity types, comma-separated (else GRAPHWRIGHT_ENTITY_TYPES).")
def create(name: str, extractor: str | None, entity_types: str | None) -> None:
    """Create an empty workspace with its indexes.

    \b
    Example:
      graphwright workspace create support --entity-types product,feature,error
    """
    from graphwright.errors import InvalidRequestError, WorkspaceExistsError

    with open_graph() as rag:
        try:
            info = rag.workspaces.create(name, extractor=extractor, entity_types=entity_types)
        except (InvalidRequestError, WorkspaceExistsError) as exc:
            fail(str(exc))
    make_console().print(f"created workspace [bold]{info.name}[/]; use it with `--workspace {info.name}`")


@workspace.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the workspaces as JSON.")
def list_workspaces(as_json: bool) -> None:
    """Every workspace with its documents, chunks and entities.

    \b
    Example:
      graphwright workspace list
    """
    from graphwright.cli.tables import Column, print_fitted

    with open_graph() as rag:
        found = rag.workspaces.list()
    if as_json:
        _echo_json([w.model_dump() for w in found])
        return
    columns = [
        Column("workspace", keep=20),
        Column("documents", keep=9, justify="right"),
        Column("chunks", keep=6, drop=2, justify="right"),
        Column("entities", keep=8, drop=3, justify="right"),
        Column("created", keep=16, drop=4),
        Column("settings", keep=16, drop=1),
    ]
    rows = [
        [
            w.name,
            str(w.documents),
            str(w.chunks),
            str(w.entities),
            (w.created_at or "")[:16].replace("T", " "),
            ", ".join(f"{k}={v}" for k, v in w.settings.items()),
        ]
        for w in found
    ]
    print_fitted(make_console(), columns, rows)


@workspace.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON.")
def show(name: str, as_json: bool) -> None:
    """One workspace: what it holds and the settings it was created with.

    \b
    Example:
      graphwright workspace show legal
    """
    from graphwright.errors import InvalidRequestError, NotFoundError

    with open_graph() as rag:
        try:
            info = rag.workspaces.info(name)
        except (InvalidRequestError, NotFoundError) as exc:
            fail(str(exc))
    if as_json:
        _echo_json(info.model_dump())
        return
    console = make_console()
    console.print(f"[bold]{info.name}[/]  created {info.created_at or '(always there)'}")
    console.print(f"{info.documents} documents, {info.chunks} chunks, {info.entities} entities")
    for key, value in info.settings.items():
        console.print(f"{key}: {value}")


@workspace.command("delete")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Delete it even though it holds documents.")
def delete(name: str, yes: bool) -> None:
    """Delete a workspace's documents, graph, communities, conversations and indexes; no other workspace is
    touched. `default` stays, empty.

    \b
    Example:
      graphwright workspace delete legal --yes
    """
    from graphwright.errors import InvalidRequestError, NotFoundError

    with open_graph() as rag:
        try:
            held = rag.workspaces.delete(name, yes=yes)
        except (InvalidRequestError, NotFoundError) as exc:
            fail(str(exc))
    make_console().print(
        f"deleted workspace [bold]{held.name}[/] ({held.documents} documents, {held.entities} entities)"
    )
