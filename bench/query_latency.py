"""Query latency per search mode on the graph already in the database (nothing is written or reset), over
questions about the graph's own most-connected entities, as `bench.ingest_novels` asks them; no LLM, the
question's embedding included. For a before/after on one graph in one run, run it from each checkout in turn.

    .venv/bin/python -m bench.query_latency [--modes vector,hybrid,local] [--rounds 3] [--label after] [--record]
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import latency_questions
from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.evaluation.metrics import percentile


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--modes", default="vector,hybrid,local")
    parser.add_argument("--rounds", type=int, default=3, help="times each question is asked (after one warm-up)")
    parser.add_argument("--label", default="", help="names the row, e.g. the checkout measured")
    args = parse(parser)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    console = Console(record=True, width=140)
    with GraphRAG(Settings()) as rag:
        stats = rag.inspect.stats()
        questions = latency_questions(rag.store.graph.top_entities(12))
        table = Table(
            title=f"query latency, ms (p50/p95/max), {len(questions)} questions x {args.rounds}, "
            f"{stats.get('chunks', 0):,} chunks, {stats.get('entities', 0):,} entities, no LLM"
        )
        table.add_column("run")
        for mode in modes:
            table.add_column(mode, justify="right")
        cells = []
        for mode in modes:
            for question in questions:  # warm-up: caches, the planner's plans, the model
                rag.search(question, mode=mode, generate=False)  # type: ignore[arg-type]
            times = []
            for _ in range(args.rounds):
                for question in questions:
                    started = time.perf_counter()
                    rag.search(question, mode=mode, generate=False)  # type: ignore[arg-type]
                    times.append((time.perf_counter() - started) * 1000)
            cells.append(f"{percentile(times, 0.5):.0f}/{percentile(times, 0.95):.0f}/{max(times):.0f}")
        table.add_row(args.label or "this checkout", *cells)
    console.print(table)
    if args.record:
        record("Query latency on the current graph", "bench.query_latency", console)


if __name__ == "__main__":
    main()
