"""Ingest throughput of a corpus (default: the bundled sample) into an emptied database.

    .venv/bin/python -m bench.ingest_sample --path examples/space --repeat 3 --yes-reset

WARNING: empties the database NEO4J_URI points at (use the local or test server). Prints a table and,
with --record, appends it to docs/benchmarks-history.md with the machine and date.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from rich.console import Console
from rich.table import Table

from bench.record import record
from graphwright.api import GraphRAG
from graphwright.config import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--path", default="examples/space")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--yes-reset", action="store_true", help="confirm that the database may be emptied")
    parser.add_argument("--record", action="store_true", help="append the table to docs/benchmarks-history.md")
    args = parser.parse_args()
    if not args.yes_reset:
        parser.error("this empties the database; pass --yes-reset")

    rag = GraphRAG(Settings())
    started = time.perf_counter()
    _ = rag.embedder.dimension
    load_s = time.perf_counter() - started
    runs = []
    for _ in range(args.repeat):
        rag.store.admin.reset()
        report = rag.ingest([args.path])
        runs.append(report)
    cold = runs[0]
    warm = runs[1:] or runs
    again_started = time.perf_counter()
    unchanged = rag.ingest([args.path])
    reingest_s = time.perf_counter() - again_started
    rag.close()

    docs_s = statistics.median(r.documents_written / r.seconds for r in warm)
    chunks_s = statistics.median(r.chunks_written / r.seconds for r in warm)
    table = Table(
        title=f"ingest {args.path} (offline embedder, {cold.documents_written} docs, {cold.chunks_written} chunks)"
    )
    for column in ("model load s", "ingest s (median)", "docs/s", "chunks/s", "re-ingest unchanged s", "peak RSS MiB"):
        table.add_column(column, justify="right")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table.add_row(
        f"{load_s:.1f}",
        f"{statistics.median(r.seconds for r in warm):.2f}",
        f"{docs_s:.1f}",
        f"{chunks_s:.1f}",
        f"{reingest_s:.2f} ({unchanged.documents_unchanged} skipped)",
        f"{peak:.0f}",
    )
    console = Console(record=True, width=120)
    console.print(table)
    if args.record:
        record(f"Ingest of `{args.path}`", "bench.ingest_sample", console)


if __name__ == "__main__":
    main()
