"""Calibrate and measure the "no passage answers this" floor (GRAPHWRIGHT_NO_ANSWER_BELOW) on the shared sets.

For every question of each set (each in its own workspace, loaded with `graphwright eval --load-corpus` or by
this script): the best relevance among the top-k passages as the corpus is (an answerable question), and the
best among the top-k of the same search with the question's gold documents filtered out (the same question
where no document answers it). The floor
is the highest that keeps false "no answer" on answerable questions at most 5% (each set weighing the same);
fitted leaving each set out in turn, then on all of them: the figure a corpus we never saw should see.

    .venv/bin/python -m bench.no_answer --set ../shared/eval/2wiki-101=w2 --set ../shared/eval/hotpotqa-dev=hp \\
        --set financebench=fb [--mode hybrid] [--k 5] [--load] [--record]
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.evaluation.datasets import load_dataset
from graphwright.evaluation.runner import load_corpus
from graphwright.models import MetadataFilter

FALSE_NO_ANSWER = 0.05  # the share of answerable questions a floor may call unanswered


@dataclass
class SetScores:
    name: str
    answerable: list[float]  # best relevance in the top k, per question
    removed: list[float]  # the same once the gold documents are out


def best_relevances(rag: GraphRAG, path: Path, mode: str, k: int, load: bool) -> SetScores:
    dataset = load_dataset(path)
    if load:
        load_corpus(rag, dataset, "nlp", need_communities=False)
    answerable, removed = [], []
    for item in dataset.questions:
        result = rag.search(item.question, mode=mode, k=k, generate=False)
        # the corpus without the gold documents: every one filtered out by its id or title
        without = [MetadataFilter("id", "!=", g) for g in item.gold_doc_ids]
        without += [MetadataFilter("title", "!=", t) for t in item.gold_titles]
        out = rag.search(item.question, mode=mode, k=k, where=without, generate=False)
        if result.relevance is not None and out.relevance is not None:
            answerable.append(result.relevance)
            removed.append(out.relevance)
    return SetScores(dataset.name, answerable, removed)


def rates(scores: SetScores, floor: float) -> tuple[float, float]:
    """(false "no answer" on answerable questions, true "no answer" once their gold is out)."""
    false = sum(1 for v in scores.answerable if v < floor) / len(scores.answerable)
    true = sum(1 for v in scores.removed if v < floor) / len(scores.removed)
    return false, true


def fit(sets: list[SetScores]) -> float:
    """The highest floor whose false "no answer" rate, averaged over `sets`, stays within FALSE_NO_ANSWER."""
    candidates = sorted({round(v, 3) for s in sets for v in s.answerable})
    best = 0.0
    for floor in candidates:
        if statistics.fmean(rates(s, floor)[0] for s in sets) <= FALSE_NO_ANSWER:
            best = floor
    return best


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--set", dest="sets", action="append", required=True, help="DATASET=WORKSPACE")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--load", action="store_true", help="ingest each set's corpus into its workspace first")
    args = parser.parse_args()
    console = Console(record=True, width=140)
    scored: list[SetScores] = []
    for spec in args.sets:
        path, _, workspace = spec.partition("=")
        with GraphRAG(Settings(workspace=workspace, no_answer_below=0.0)) as rag:
            scored.append(best_relevances(rag, Path(path), args.mode, args.k, args.load))
    table = Table(title=f"'no answer' floor, {args.mode} top {args.k}: fitted on the other sets, measured on this one")
    for column in (
        "set",
        "questions",
        "floor",
        "false no-answer",
        "true no-answer",
        "median best (ans.)",
        "median best (gold out)",
    ):
        table.add_column(column, justify="left" if column == "set" else "right")
    for held in scored:
        floor = fit([s for s in scored if s is not held]) if len(scored) > 1 else fit([held])
        false, true = rates(held, floor)
        table.add_row(
            held.name,
            str(len(held.answerable)),
            f"{floor:.3f}",
            f"{100 * false:.1f}%",
            f"{100 * true:.1f}%",
            f"{statistics.median(held.answerable):.3f}",
            f"{statistics.median(held.removed):.3f}",
        )
    pooled = fit(scored)
    console.print(table)
    console.print(f"floor fitted on all {len(scored)} sets: {pooled:.3f} (GRAPHWRIGHT_NO_ANSWER_BELOW's default)")
    for s in scored:
        false, true = rates(s, pooled)
        console.print(f"  {s.name}: false no-answer {100 * false:.1f}%, true no-answer {100 * true:.1f}%")
    if args.record:
        record("'No answer' floor (issue 62)", "bench.no_answer", console)


if __name__ == "__main__":
    main()
