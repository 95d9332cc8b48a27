"""Commands that look at the graph: check, stats, show, and Neo4j Browser queries."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from graphwright.cli.common import browser_base_url, exit_partial, load_settings, make_console, open_graph
from graphwright.cli.render import print_entity_profile, print_stats

if TYPE_CHECKING:
    from graphwright.config import Settings


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
def check(as_json: bool) -> None:
    """Check the graph's consistency (after a crash, a kill or writes made outside graphwright); exit 1
    when a rule is broken.

    \b
    Example:
      graphwright check
    """
    from rich.text import Text

    with open_graph() as rag:
        problems = rag.inspect.check()
        resumable = rag.inspect.resumable()
    if as_json:
        click.echo(json.dumps({**problems, "resumable": resumable} if resumable["n"] else problems, indent=2))
    elif not problems:
        make_console().print(
            "Graph is consistent: every document has all its chunks, every chunk its document "
            "and embedding, every entity a mention, every relation its evidence."
        )
    else:
        for rule, row in problems.items():
            make_console().print(Text(f"{row['n']} {rule}: {', '.join(map(str, row['examples']))}"))
    if resumable["n"] and not as_json:
        make_console().print(
            Text(
                f"Resumable: {resumable['n']} chunks an interrupted ingest staged, of "
                f"{', '.join(map(str, resumable['examples']))}; the same ingest goes on from them"
            )
        )
    if problems:
        exit_partial()


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats(as_json: bool) -> None:
    """Documents, chunks, entities by type, relations by type, communities by level, index states and the
    database size on disk (local server).

    \b
    Example:
      graphwright stats
      graphwright stats --json
    """
    with open_graph() as rag:
        info = rag.inspect.graph()
    if as_json:
        click.echo(info.model_dump_json(indent=2))
        return
    print_stats(info)


@click.group()
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
    with open_graph() as rag:
        profile = rag.inspect.entity(name, relations)
    if profile is None:
        make_console(stderr=True).print(f"no entity matches {name!r}")
        exit_partial()
    if as_json:
        click.echo(profile.model_dump_json(indent=2))
        return
    print_entity_profile(profile, name)


@click.command()
def browser() -> None:
    """Print the Neo4j Browser URL and ready Cypher queries to inspect the graph there.

    The queries take parameters; set them in the Browser first, e.g. `:param name => 'NASA'`.

    \b
    Example:
      graphwright browser
    """
    settings = load_settings()
    console = make_console()
    # where the password really comes from: a generated one lives in a file, not in NEO4J_PASSWORD
    source = {
        "given": "NEO4J_PASSWORD",
        "generated": f"the file {settings.password_file}",
        "default": "the local default (set NEO4J_PASSWORD)",
    }[settings.password_source]
    console.print(
        f"Neo4j Browser: {browser_base_url(settings)}  "
        f"(connect to {settings.neo4j_uri} as {settings.neo4j_user}; password from {source})"
    )
    names = _top_entity_names(settings)
    if names is None:
        console.print("(the database is not reachable now; the queries below still apply)")
    first, second = ((names or []) + ["NASA", "SpaceX"])[:2]
    from graphwright.graph_store.queries.inspection import BROWSER_QUERIES
    from graphwright.graph_store.workspace_names import Workspace

    workspace = Workspace(settings.workspace)  # its labels: a workspace's nodes carry only its own
    # Plain echo, not rich: a wrapped line would break copy and paste.
    click.echo(f"\nSet the parameters first:\n  :param name => {first!r}\n  :param other => {second!r}\n")
    for title, cypher in BROWSER_QUERIES:
        click.echo(f"// {title}\n{workspace.render(cypher)}\n")


def _top_entity_names(settings: Settings) -> list[str] | None:
    """Two well-connected names to fill the example parameters; None when the database does not answer (the
    queries are printed anyway)."""
    from graphwright.api import GraphRAG
    from graphwright.errors import GraphwrightError

    try:
        rag = GraphRAG(settings)
        try:
            rag.store.verify()
            return [t["name"] for t in rag.store.graph.top_entities(2)]
        finally:
            rag.close()
    except GraphwrightError:
        return None
