"""`graphwright knowledge ...`: the knowledge bases beyond this workspace (GRAPHWRIGHT_KNOWLEDGE_BASES)."""

from __future__ import annotations

import json
from typing import NoReturn

import click

from graphwright.cli.common import EXIT_FATAL, make_console, open_graph


@click.group()
def knowledge() -> None:
    """Knowledge bases beyond this workspace: other workspaces, graphwright servers, Dify datasets, named in the
    TOML file GRAPHWRIGHT_KNOWLEDGE_BASES points to (`graphwright docs knowledge-bases`). `--mode federated`
    searches them all; the agent gets a search and a document tool for each.

    \b
    Example:
      GRAPHWRIGHT_KNOWLEDGE_BASES=kb.toml graphwright knowledge check
      GRAPHWRIGHT_KNOWLEDGE_BASES=kb.toml graphwright query "Who signed the lease?" --mode federated
    """


@knowledge.command("check")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def check(as_json: bool = False) -> None:
    """Ask each knowledge base one short question: whether it answers, in what time, and whether it offers whole
    documents. Exit 1 when one does not answer. Keys are never shown.

    \b
    Example:
      graphwright knowledge check
      graphwright knowledge check --json
    """
    with open_graph() as rag:
        if rag.settings.search.knowledge_bases is None:
            _no_file(rag.workspaces.names(), rag.settings.workspace)
        checks = rag.check_knowledge_bases()
    if as_json:
        click.echo(json.dumps([c.model_dump() for c in checks], indent=2))
    else:
        from rich.table import Table

        table = Table(title=f"{len(checks)} knowledge bases")
        for column in ("name", "kind", "answers", "seconds", "documents", "error"):
            table.add_column(column)
        for c in checks:
            table.add_row(
                c.name,
                c.kind,
                "yes" if c.ok else "no",
                f"{c.seconds:.2f}",
                "yes" if c.documents else "no",
                c.error or "",
            )
        make_console().print(table)
    if not all(c.ok for c in checks):
        raise SystemExit(1)


def _no_file(workspaces: list[str], current: str) -> NoReturn:
    """No file: say so, and print one that works with this database as it is (a workspace of it, the
    kind that needs no server or key), ready to save and check."""
    import re

    others = [name for name in workspaces if name != current]
    target = others[0] if others else current
    name = (re.sub(r"[^a-z0-9_]", "_", target.lower()).strip("_") or "kb")[:31]
    example = (
        "# kb.toml: another workspace of this database, searched in hybrid mode\n"
        "[[knowledge_base]]\n"
        f'name = "{name}"\n'
        'kind = "workspace"\n'
        f'workspace = "{target}"\n'
        'mode = "hybrid"\n'
    )
    console = make_console(stderr=True)
    console.print("[bold red]error:[/] no knowledge bases configured: GRAPHWRIGHT_KNOWLEDGE_BASES names none.")
    console.print("A file that works with this database, to save as kb.toml:\n")
    click.echo(example)
    console.print(
        "Then: GRAPHWRIGHT_KNOWLEDGE_BASES=kb.toml graphwright knowledge check\n"
        "Other graphwright servers and Dify datasets: `graphwright docs knowledge-bases`."
    )
    raise SystemExit(EXIT_FATAL)
