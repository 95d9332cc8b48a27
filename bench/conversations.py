"""Follow-up questions: Recall@5 of the follow-up turns three ways in one run (the follow-up alone, with its
conversation, and the oracle rewrite with the referent written in), by kind, plus what reading the
conversation costs. Offline; on the eval graph already loaded in the database (`graphwright eval DATASET
--load-corpus` once per set, each in its own GRAPHWRIGHT_HOME); turn 1 is asked first and its offline
answer is the assistant turn of the conversation, as a chat client would send it back.

    GRAPHWRIGHT_HOME=/tmp/conv/db-hotpotqa-dev .venv/bin/python -m bench.conversations --set hotpotqa-dev

With `--llm` (an endpoint configured: `OPENAI_BASE_URL`, ...) a fourth way is measured: the follow-up as the
LLM rewrites it to stand alone, which is what a search with an LLM does (the offline reading when the
rewrite is unusable); the rewrite's calls and time are shown apart.
"""

from __future__ import annotations

import json
import statistics
import time
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
from graphwright.llm import LLM
from graphwright.llm.registry import make_llm
from graphwright.models import ChatTurn, SearchResult
from graphwright.search import followup

K = 5
WAYS = ("alone", "with conversation", "oracle")
LLM_WAY = "LLM rewrite"


def recall(result: SearchResult, gold: list[str]) -> float:
    return recall_at_k(ranked_keys(result.chunks, by_title=True), set(gold), K)


def retrieval_ms(result: SearchResult) -> float:
    return sum(result.timings_ms.get(k, 0.0) for k in ("followup_ms", "embed_ms", "retrieve_ms"))


def run(
    rag: GraphRAG, items: list[dict[str, Any]], mode: str, llm: LLM | None, ways: tuple[str, ...]
) -> dict[str, Any]:
    scores: dict[str, dict[str, list[float]]] = {}
    extra: list[float] = []
    followup_ms: list[float] = []
    rewrite_ms: list[float] = []
    unusable = 0
    for item in items:
        first = rag.search(item["first"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        history = [{"role": "user", "content": item["first"]}, {"role": "assistant", "content": first.answer}]
        alone = rag.search(item["followup"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        carried = rag.search(item["followup"], mode=mode, k=K, generate=False, history=history)  # type: ignore[arg-type]
        oracle = rag.search(item["oracle"], mode=mode, k=K, generate=False)  # type: ignore[arg-type]
        results = [alone, carried, oracle]
        if llm is not None:
            started = time.perf_counter()
            turns = [ChatTurn.model_validate(t) for t in history]
            standalone = followup.rewrite(llm, item["followup"], turns)
            rewrite_ms.append(1000 * (time.perf_counter() - started))
            unusable += standalone is None
            # as the engine does: the rewrite replaces the offline reading, which stands when it is unusable
            rewritten = rag.search(standalone, mode=mode, k=K, generate=False) if standalone else carried  # type: ignore[arg-type]
            results.append(rewritten)
        kind = scores.setdefault(item["kind"], {way: [] for way in ways})
        for way, result in zip(ways, results):
            kind[way].append(recall(result, item["gold"]))
        extra.append(retrieval_ms(carried) - retrieval_ms(alone))
        followup_ms.append(carried.timings_ms.get("followup_ms", 0.0))
    return {
        "scores": scores,
        "extra_ms": extra,
        "followup_ms": followup_ms,
        "rewrite_ms": rewrite_ms,
        "unusable": unusable,
    }


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--set", required=True, help="hotpotqa-dev or 2wiki-101 (the graph in the database)")
    parser.add_argument("--modes", default="local,hybrid")
    parser.add_argument("--items", type=Path, default=OUT, help="the dev set (bench/conversation_set.py)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N items of each kind")
    parser.add_argument("--llm", action="store_true", help="also the LLM's rewrite (the configured endpoint)")
    args = parse(parser)
    settings = Settings()
    llm = make_llm(settings) if args.llm else None
    if args.llm and llm is None:
        parser.error("--llm needs an LLM endpoint: set OPENAI_BASE_URL (and OPENAI_API_KEY)")
    ways = (*WAYS, LLM_WAY) if llm is not None else WAYS
    items = [json.loads(line) for line in args.items.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [i for i in items if i["set"] == args.set]
    if args.limit:
        seen: dict[str, int] = {}
        for item in items:
            seen[item["kind"]] = seen.get(item["kind"], 0) + 1
            item["keep"] = seen[item["kind"]] <= args.limit
        items = [i for i in items if i.pop("keep")]
    console = Console(record=True, width=140)
    how = f"offline, and the rewrite of {settings.llm.model}" if llm is not None else "offline, no LLM"
    table = Table(title=f"{args.set}: follow-up turns, Recall@{K} ({how})")
    shares = ["share of oracle", "gain over alone"] + (["LLM share of oracle"] if llm is not None else [])
    for column in ("mode", "kind", "n", *ways, *shares):
        table.add_column(column, justify="left" if column in ("mode", "kind") else "right")
    costs = Table(title=f"{args.set}: what the conversation costs, ms")
    for column in ("mode", "follow-up step p50", "p95", "retrieval with minus alone, p50", "p95"):
        costs.add_column(column, justify="left" if column == "mode" else "right")
    rewrites = Table(title=f"{args.set}: the LLM's rewrite, ms per follow-up")
    for column in ("mode", "p50", "p95", "unusable (offline reading used)"):
        rewrites.add_column(column, justify="left" if column == "mode" else "right")
    with GraphRAG(settings) as rag:
        rag.search("warm up", mode="local", generate=False)
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            found = run(rag, items, mode, llm, ways)
            dependent: dict[str, list[float]] = {way: [] for way in ways}
            for kind, by_way in sorted(found["scores"].items()):
                means = {way: 100 * statistics.fmean(values) for way, values in by_way.items()}
                if kind != "shift":
                    for way in ways:
                        dependent[way] += by_way[way]
                table.add_row(mode, kind, str(len(by_way["alone"])), *_cells(means))
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
            if found["rewrite_ms"]:
                rewrites.add_row(
                    mode,
                    f"{percentile(found['rewrite_ms'], 0.5):.0f}",
                    f"{percentile(found['rewrite_ms'], 0.95):.0f}",
                    f"{found['unusable']} of {len(found['rewrite_ms'])}",
                )
    console.print(table)
    console.print(costs)
    if llm is not None:
        console.print(rewrites)
    if args.record:
        record(f"Follow-up questions ({args.set})", "bench.conversations", console)


def _cells(means: dict[str, float]) -> list[str]:
    def share(way: str) -> str:
        return f"{100 * means[way] / means['oracle']:.0f}%" if means["oracle"] else "-"

    return [
        *(f"{value:.1f}" for value in means.values()),
        share("with conversation"),
        f"{means['with conversation'] - means['alone']:+.1f}",
        *([share(LLM_WAY)] if LLM_WAY in means else []),
    ]


if __name__ == "__main__":
    main()
