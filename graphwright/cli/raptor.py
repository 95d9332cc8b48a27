"""`graphwright raptor ...`: the RAPTOR summary tree the `raptor` search mode reads."""

from __future__ import annotations

import dataclasses
import json

import click

from graphwright.cli.common import open_graph, progress_bar
from graphwright.cli.render import print_raptor_run


@click.group()
def raptor() -> None:
    """A RAPTOR tree of summaries over the passages, for `--mode raptor`.

    \b
    Example:
      graphwright raptor build && graphwright query "What are the main themes?" --mode raptor
    """


@raptor.command("build")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's figures as JSON.")
def raptor_build(quiet: bool = False, as_json: bool = False) -> None:
    """Cluster the passages by meaning, summarize each cluster (extractively: the most central passages'
    opening sentences), and cluster and summarize the summaries, up to the top. A long document gets a tree
    of its own, the short ones share one. Summaries over unchanged passages are kept: run it again after an
    ingest and only what changed is redone.

    \b
    Example:
      graphwright raptor build
      graphwright raptor build -q --json
    """
    with open_graph() as rag, progress_bar(not quiet and not as_json) as progress:
        run = rag.build_raptor(progress)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(run), indent=2))
        return
    print_raptor_run(run)
