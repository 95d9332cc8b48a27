"""`graphwright eval`: score search modes on a question set, beside peers run on the same chunks."""

from __future__ import annotations

from pathlib import Path

import click

from graphwright.cli.common import extractor_option, fail, make_console, open_graph, progress_bar
from graphwright.search.registry import MODE_NAMES  # names only: the mode classes load when a search runs


def int_list(ctx: click.Context, param: click.Parameter, value: str) -> list[int]:
    try:
        values = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter(f"expected numbers like 2,5,10, got {value!r}") from exc
    if not values or min(values) < 1:
        raise click.BadParameter("give at least one k >= 1")
    return values


@click.command("eval")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option(
    "--modes", default="vector,hybrid,local", show_default=True, help="Comma-separated search modes to score."
)
@click.option("--k", "ks", default="2,5,10", show_default=True, callback=int_list, help="Recall cut-offs.")
@click.option(
    "--peers",
    is_flag=True,
    help="Also run BM25 and dense retrieval in plain Python and neo4j-graphrag's Vector/HybridRetriever "
    "on the same chunks (needs `pip install graphwright[eval]`).",
)
@click.option(
    "--load-corpus",
    is_flag=True,
    help="Ingest the dataset's own corpus first (HotpotQA-style folders ship one); idempotent.",
)
@extractor_option("Extractor for --load-corpus")
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N questions.")
@click.option("--no-llm", is_flag=True, help="Score retrieval only, even when an LLM is configured.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Write the report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def eval_command(
    dataset: Path,
    modes: str,
    ks: list[int],
    peers: bool,
    load_corpus: bool,
    extractor: str | None,
    limit: int | None,
    no_llm: bool,
    json_out: Path | None,
    quiet: bool,
) -> None:
    """Score search modes on a question set: passage Recall@k, MRR, keyword recall, and answer EM/F1
    when an LLM answers. DATASET is a JSONL file ({question, gold_doc_ids | gold_titles,
    expected_keywords?, answer?, type?} per line) or a HotpotQA-style folder (questions.json, corpus.json).

    \b
    Examples:
      graphwright eval questions.jsonl --modes vector,hybrid --k 1,3
      graphwright eval ../shared/eval/hotpotqa-dev --load-corpus --peers --json eval.json
    """
    from rich.console import Console

    from graphwright.evaluation.datasets import DatasetError, load_dataset
    from graphwright.evaluation.runner import evaluate
    from graphwright.evaluation.runner import load_corpus as ingest_corpus
    from graphwright.evaluation.tables import print_report
    from graphwright.search.registry import modes_where

    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in MODE_NAMES]
    if unknown or not chosen:
        raise click.BadParameter(
            f"unknown mode(s) {unknown}; choose from {', '.join(MODE_NAMES)}", param_hint="--modes"
        )
    try:
        data = load_dataset(dataset)
    except DatasetError as exc:
        fail(str(exc))
    if limit:
        data.questions = data.questions[:limit]
    console = Console(width=max(make_console().width, 150), highlight=False)  # tables wider than a pipe's 80
    with open_graph() as rag:
        notes = []
        if load_corpus:
            notes += ingest_corpus(rag, data, extractor, bool(set(chosen) & set(modes_where("uses_graph"))))
        with progress_bar(not quiet) as progress:
            report = evaluate(rag, data, chosen, ks, peers=peers, generate=not no_llm, progress=progress)
        report.notes = notes + report.notes
    print_report(console, report)
    if json_out:
        json_out.write_text(report.model_dump_json(indent=2), encoding="utf-8")
        console.print(f"report written to {json_out}")
