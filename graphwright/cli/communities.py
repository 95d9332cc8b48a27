"""`graphwright communities ...`: hierarchical Leiden communities of the entity graph and their reports."""

from __future__ import annotations

import json

import click

from graphwright.cli.common import cost_options, fail, make_console, open_graph, print_estimate, progress_bar
from graphwright.cli.render import print_community_run


@click.group()
def communities() -> None:
    """Hierarchical Leiden communities of the entity graph, with reports.

    \b
    Example:
      graphwright communities build && graphwright communities show --level 0 --top 5
    """


@communities.command("build")
@click.option(
    "--max-cluster-size",
    default=10,
    show_default=True,
    type=click.IntRange(2, 100_000),
    help="Communities larger than this are split into a deeper level.",
)
@click.option("--seed", default=42, show_default=True, help="Same graph and seed give the same communities.")
@click.option(
    "--full",
    is_flag=True,
    help="Detect every community anew; by default communities whose relations did not change are kept.",
)
@click.option(
    "--budget",
    type=click.IntRange(0),
    default=None,
    help="At most this many LLM report calls; the rest are extractive and marked stale. Default: no cap.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's figures as JSON.")
@cost_options
def communities_build(
    max_cluster_size: int,
    seed: int,
    full: bool = False,
    budget: int | None = None,
    quiet: bool = False,
    as_json: bool = False,
    dry_run: bool = False,
    max_cost: float | None = None,
) -> None:
    """Detect communities and write a report for each new or changed one.

    \b
    Example:
      graphwright communities build --max-cluster-size 10 --seed 42
      graphwright communities build --full --budget 200 -q --json
      graphwright communities build --dry-run     # the LLM report calls and tokens it would take
    """
    import dataclasses

    if dry_run:
        with open_graph() as rag:
            estimate = rag.estimate_communities(max_cluster_size, seed, full=full, budget=budget)
        click.echo(estimate.model_dump_json(indent=2)) if as_json else print_estimate(estimate)
        return
    with open_graph(max_cost) as rag, progress_bar(not quiet and not as_json) as progress:
        run = rag.build_communities(max_cluster_size, seed, progress, full=full, budget=budget)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(run), indent=2))
        return
    print_community_run(run)


@communities.command("refresh")
@click.option(
    "--budget",
    type=click.IntRange(0),
    default=None,
    help="At most this many LLM calls. Default: GRAPHWRIGHT_REPORT_BUDGET.",
)
@click.option("--level", type=int, default=None, help="Only reports of this level (0 = the coarsest).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def communities_refresh(budget: int | None, level: int | None, quiet: bool = False) -> None:
    """Rewrite stale community reports with the LLM, the most important first (rating, size, change).

    A report is stale when its community changed since the LLM wrote it, or when an ingest's report budget
    ran out. Needs an LLM (GRAPHWRIGHT_OPENAI_BASE_URL / OPENAI_API_KEY).

    \b
    Example:
      graphwright communities refresh --budget 50 --level 0
    """
    from graphwright.errors import LLMRequiredError

    try:
        with open_graph() as rag, progress_bar(not quiet) as progress:
            run = rag.refresh_communities(budget, level, progress)
    except LLMRequiredError as exc:
        fail(str(exc))
    make_console().print(
        f"Reports rewritten: {run.rewritten}"
        + (f", {run.llm_failures} failed (kept extractive, still stale)" if run.llm_failures else "")
        + f"; {run.stale_left} still stale; {run.seconds:.1f}s"
    )


@communities.command("show")
@click.option("--level", type=int, default=None, help="Only this level (0 = the coarsest).")
@click.option("--top", default=10, show_default=True, help="How many communities.")
def communities_show(level: int | None, top: int) -> None:
    """Print the largest communities with their report titles and summaries.

    \b
    Example:
      graphwright communities show --level 0 --top 5
    """
    from rich.table import Table

    with open_graph() as rag:
        rows = rag.store.communities.communities(level, top)
        levels = rag.store.communities.community_levels()
    console = make_console()
    console.print(", ".join(f"level {r['level']}: {r['communities']} communities" for r in levels) or "no communities")
    table = Table("level", "size", "rating", "title", "summary")
    for r in rows:
        table.add_row(str(r["level"]), str(r["size"]), f"{r['rating']:.1f}", r["title"], r["summary"])
    console.print(table)
