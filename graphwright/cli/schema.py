"""`graphwright schema ...`: the graph schema stored with the graph, and what the graph holds of each type."""

from __future__ import annotations

from pathlib import Path

import click

from graphwright.cli.common import make_console, open_graph
from graphwright.cli.render import print_schema


@click.group()
def schema() -> None:
    """The graph schema: node types, relationship types and patterns the graph may hold (neo4j-graphrag's
    GraphSchema shape, JSON or YAML). Give one with `ingest --schema FILE` or `schema set FILE`; it is
    stored in the graph, and every later ingest, import, Text2Cypher and the agent use it.

    \b
    Example:
      graphwright schema set company.yaml && graphwright schema show
    """


@schema.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print the stored schema as JSON.")
def schema_show(as_json: bool) -> None:
    """Print the stored schema beside the counts the graph holds of each type (and the types it holds that
    the schema does not name).

    \b
    Example:
      graphwright schema show
    """
    with open_graph() as rag:
        stored = rag.graph_schema()
        counts = rag.store.admin.type_counts()
    if as_json:
        click.echo(stored.model_dump_json(indent=2) if stored else "null")
        return
    print_schema(stored, counts)


@schema.command("set")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Replace a different schema already stored.")
def schema_set(file: Path, replace: bool) -> None:
    """Store a graph schema for the graph (checked: every pattern names declared types).

    \b
    Example:
      graphwright schema set company.json --replace
    """
    from graphwright.graph_schema import GraphSchema

    with open_graph() as rag:
        given = GraphSchema.from_file(file)
        rag.set_graph_schema(given, replace=replace)
    make_console().print(
        f"Schema stored: {len(given.node_types)} node types, {len(given.relationship_types)} relationship types, "
        f"{len(given.patterns)} patterns"
    )
