"""Commands that change the entity graph by hand: entity merge|rename|retype|describe|delete, relation retype|delete,
and the audit trail: history, undo. Each change is one transaction, recorded with who and when."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from graphwright.cli.common import make_console, open_graph

if TYPE_CHECKING:
    from graphwright.curation import Curation
    from graphwright.models import CurationChange

_NO_COMMUNITIES = click.option(
    "--no-communities",
    is_flag=True,
    help="Leave the communities as they are (run `graphwright communities build` after a batch of edits).",
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the change as JSON.")


def _run(action: Callable[[Curation], CurationChange], no_communities: bool, as_json: bool) -> None:
    with open_graph() as rag:
        change = action(rag.curation(communities=not no_communities))
    if as_json:
        click.echo(change.model_dump_json(indent=2))
        return
    make_console().print(f"{change.id}: {change.summary}  [dim](undo: graphwright undo {change.id})[/]")


@click.group()
def entity() -> None:
    """Fix entities by hand: merge duplicates, rename, retype, delete. Every change is recorded
    (`graphwright history`), can be undone (`graphwright undo`), and lasts: later ingests apply it.

    \b
    Example:
      graphwright entity merge "DeepMind" "Google DeepMind"
      graphwright entity retype "Blue Origin" ORGANIZATION
    """


@entity.command("merge")
@click.argument("source")
@click.argument("target")
@_NO_COMMUNITIES
@_JSON
def entity_merge(source: str, target: str, no_communities: bool, as_json: bool) -> None:
    """Merge SOURCE into TARGET (names or ids): relations, mentions, aliases and provenance move onto TARGET,
    SOURCE's names become TARGET's aliases, and later ingests link them to TARGET.

    \b
    Example:
      graphwright entity merge "DeepMind" "Google DeepMind"
    """
    _run(lambda c: c.merge(source, target), no_communities, as_json)


@entity.command("rename")
@click.argument("old")
@click.argument("new")
@_NO_COMMUNITIES
@_JSON
def entity_rename(old: str, new: str, no_communities: bool, as_json: bool) -> None:
    """Rename entity OLD to NEW; OLD stays an alias, and later ingests of OLD land here.

    \b
    Example:
      graphwright entity rename "Hubble" "Hubble Space Telescope"
    """
    _run(lambda c: c.rename(old, new), no_communities, as_json)


@entity.command("retype")
@click.argument("name")
@click.argument("type_", metavar="TYPE")
@_NO_COMMUNITIES
@_JSON
def entity_retype(name: str, type_: str, no_communities: bool, as_json: bool) -> None:
    """Give entity NAME the type TYPE (and its Neo4j label); later ingests keep it.

    \b
    Example:
      graphwright entity retype "Blue Origin" ORGANIZATION
    """
    _run(lambda c: c.retype(name, type_), no_communities, as_json)


@entity.command("describe")
@click.argument("name")
@click.argument("description")
@_NO_COMMUNITIES
@_JSON
def entity_describe(name: str, description: str, no_communities: bool, as_json: bool) -> None:
    """Replace entity NAME's description with DESCRIPTION; later ingests add nothing to it.

    \b
    Example:
      graphwright entity describe "Blue Origin" "American space company founded by Jeff Bezos in 2000."
    """
    _run(lambda c: c.describe(name, description), no_communities, as_json)


@entity.command("delete")
@click.argument("name")
@_NO_COMMUNITIES
@_JSON
def entity_delete(name: str, no_communities: bool, as_json: bool) -> None:
    """Delete entity NAME with its relations and mentions (the passages stay); later ingests do not
    create it again. `graphwright undo` brings it back exactly.

    \b
    Example:
      graphwright entity delete "Thanks"
    """
    _run(lambda c: c.delete(name), no_communities, as_json)


@click.group()
def relation() -> None:
    """Fix relations by hand: retype or delete one. Recorded, undoable, and kept by later ingests.

    \b
    Example:
      graphwright relation retype "Jeff Bezos" IN "Blue Origin" FOUNDED
      graphwright relation delete "Hubble" RELATED_TO "Edwin Hubble"
    """


@relation.command("retype")
@click.argument("source")
@click.argument("type_", metavar="TYPE")
@click.argument("target")
@click.argument("new_type", metavar="NEW_TYPE")
@_NO_COMMUNITIES
@_JSON
def relation_retype(source: str, type_: str, target: str, new_type: str, no_communities: bool, as_json: bool) -> None:
    """SOURCE -[TYPE]-> TARGET becomes SOURCE -[NEW_TYPE]-> TARGET, its evidence kept.

    \b
    Example:
      graphwright relation retype "Jeff Bezos" IN "Blue Origin" FOUNDED
    """
    _run(lambda c: c.retype_relation(source, type_, target, new_type), no_communities, as_json)


@relation.command("delete")
@click.argument("source")
@click.argument("type_", metavar="TYPE")
@click.argument("target")
@_NO_COMMUNITIES
@_JSON
def relation_delete(source: str, type_: str, target: str, no_communities: bool, as_json: bool) -> None:
    """Delete SOURCE -[TYPE]-> TARGET; later ingests do not create it again.

    \b
    Example:
      graphwright relation delete "Hubble" RELATED_TO "Edwin Hubble"
    """
    _run(lambda c: c.delete_relation(source, type_, target), no_communities, as_json)


@click.command()
@click.option("--limit", type=click.IntRange(1, 10_000), default=30, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def history(limit: int, as_json: bool) -> None:
    """The workspace's hand changes, newest first: id, when, who, what, and whether it was undone.

    \b
    Example:
      graphwright history
      graphwright --workspace legal history --json
    """
    import json

    from rich.text import Text

    with open_graph() as rag:
        changes = rag.curation().history(0, limit)
    if as_json:
        click.echo(json.dumps([c.model_dump(mode="json") for c in changes], indent=2))
        return
    console = make_console()
    if not changes:
        console.print("No hand changes yet (see `graphwright entity --help`).")
    for change in changes:
        undone = f"  [undone by {change.undone_by}]" if change.status == "undone" else ""
        at = (change.at or "")[:19].replace("T", " ")
        # one change a line, however long, so the history greps
        console.print(Text(f"{change.id:>5}  {at}  {change.who}  {change.summary}{undone}"), soft_wrap=True)


@click.command()
@click.argument("change", required=False)
@_NO_COMMUNITIES
@_JSON
def undo(change: str | None, no_communities: bool, as_json: bool) -> None:
    """Undo CHANGE (an id from `graphwright history`; default: the latest not undone) exactly. Refused,
    saying why, when a later change touches the same entities or they changed since.

    \b
    Example:
      graphwright undo
      graphwright undo c12
    """
    _run(lambda c: c.undo(change), no_communities, as_json)
