"""Follow-up questions: Recall@5 of the follow-up turns three ways in one run (the follow-up alone, with its
conversation, and the oracle rewrite with the referent written in), by kind, plus what reading the
conversation costs. Offline; on the eval graph already loaded in the database (`graphwright eval DATASET
--load-corpus` once per set, each in its own GRAPHWRIGHT_HOME); turn 1 is asked first and its offline
answer is the assistant turn of the conversation, as a chat client would send it back.

    GRAPHWRIGHT_HOME=/tmp/conv/db-hotpotqa-dev .venv/bin/python -m bench.conversations --set hotpotqa-dev
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.conversation_set import OUT
from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.evaluation.metrics import percentile, recall_at_k
from graphwright.evaluation.runner import ranked_keys
from graphwright.models import SearchResult

K = 5
WAYS = ("alone", "with conversation", "oracle")


def recall(result: SearchResult, gold: list[str]) -> float:
    return recall_at_k(ranked_keys(result.chunks, by_title=True), set(gold), K)


def retrieval_ms(result: SearchResult) -> float:
    return sum(result.timings_ms.get(k, 0.0) for k in ("followup_ms", "embed_ms", "retrieve_ms"))


def run(rag: GraphRAG, items: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    scores: dict[str, dict[str, list[float]]] = {}
    extra: list[float] = []
    followup_ms: list[float] = []
    for item in items:
        first = rag.search(item["first"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        history = [{"role": "user", "content": item["first"]}, {"role": "assistant", "content": first.answer}]
        alone = rag.search(item["followup"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        carried = rag.search(item["followup"], mode=mode, k=K, generate=False, history=history)  # type: ignore[arg-type]
        oracle = rag.search(item["oracle"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        kind = scores.setdefault(item["kind"], {way: [] for way in WAYS})
        for way, result in zip(WAYS, (alone, carried, oracle)):
            kind[way].append(recall(result, item["gold"]))
        extra.append(retrieval_ms(carried) - retrieval_ms(alone))
        followup_ms.append(carried.timings_ms.get("followup_ms", 0.0))
    return {"scores": scores, "extra_ms": extra, "followup_ms": followup_ms}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--set", required=True, help="hotpotqa-dev or 2wiki-101 (the graph in the database)")
    parser.add_argument("--modes", default="local,hybrid")
    parser.add_argument("--items", type=Path, default=OUT, help="the dev set (bench/conversation_set.py)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N items of each kind")
    args = parse(parser)
    items = [json.loads(line) for line in args.items.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [i for i in items if i["set"] == args.set]
    if args.limit:
        seen: dict[str, int] = {}
        for item in items:
            seen[item["kind"]] = seen.get(item["kind"], 0) + 1
            item["keep"] = seen[item["kind"]] <= args.limit
        items = [i for i in items if i.pop("keep")]
    console = Console(record=True, width=140)
    table = Table(title=f"{args.set}: follow-up turns, Recall@{K} (offline, no LLM)")
    for column in ("mode", "kind", "n", *WAYS, "share of oracle", "gain over alone"):
        table.add_column(column, justify="left" if column in ("mode", "kind") else "right")
    costs = Table(title=f"{args.set}: what the conversation costs, ms")
    for column in ("mode", "follow-up step p50", "p95", "retrieval with minus alone, p50", "p95"):
        costs.add_column(column, justify="left" if column == "mode" else "right")
    with GraphRAG(Settings()) as rag:
        rag.search("warm up", mode="local", generate=False)
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            found = run(rag, items, mode)
            dependent: dict[str, list[float]] = {way: [] for way in WAYS}
            for kind, ways in sorted(found["scores"].items()):
                means = {way: 100 * statistics.fmean(values) for way, values in ways.items()}
                if kind != "shift":
                    for way in WAYS:
                        dependent[way] += ways[way]
                table.add_row(mode, kind, str(len(ways["alone"])), *_cells(means))
            means = {way: 100 * statistics.fmean(values) for way, values in dependent.items() if values}
            if means:
                table.add_row(mode, "all follow-ups", str(len(dependent["alone"])), *_cells(means))
            costs.add_row(
                mode,
                f"{percentile(found['followup_ms'], 0.5):.1f}",
                f"{percentile(found['followup_ms'], 0.95):.1f}",
                f"{percentile(found['extra_ms'], 0.5):.1f}",
                f"{percentile(found['extra_ms'], 0.95):.1f}",
            )
    console.print(table)
    console.print(costs)
    if args.record:
        record(f"Follow-up questions ({args.set})", "bench.conversations", console)


def _cells(means: dict[str, float]) -> list[str]:
    share = 100 * means["with conversation"] / means["oracle"] if means["oracle"] else 0.0
    return [
        *(f"{means[way]:.1f}" for way in WAYS),
        f"{share:.0f}%",
        f"{means['with conversation'] - means['alone']:+.1f}",
    ]


if __name__ == "__main__":
    main()
