"""`graphwright knowledge ...`: the knowledge bases beyond this workspace (GRAPHWRIGHT_KNOWLEDGE_BASES)."""

from __future__ import annotations

import json

import click

from graphwright.cli.common import fail, make_console, open_graph


@click.group()
def knowledge() -> None:
    """Knowledge bases beyond this workspace: other workspaces, graphwright servers, Dify datasets, named in the
    TOML file GRAPHWRIGHT_KNOWLEDGE_BASES points to (docs/knowledge-bases.md). `--mode federated` searches them
    all; the agent gets a search and a document tool for each.

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
        if rag.settings.knowledge_bases is None:
            fail(
                "no knowledge bases configured: set GRAPHWRIGHT_KNOWLEDGE_BASES to a TOML file "
                "(docs/knowledge-bases.md)"
            )
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
