"""What a workspace costs: the same searches in one workspace, first alone in the database, then as one of N
workspaces each holding a copy of the same corpus (the most overlap of names and passages there can be),
then alone again after the others are deleted (the drift of the machine between the runs). Retrieval only
(offline, no answer written); p50 and p95 per mode, and whether the top-5 passages stayed the same.
Empties the database first.

    .venv/bin/python -m bench.workspaces --yes-reset
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings
from graphwright.evaluation.metrics import percentile

QUESTIONS = (
    "Which rocket launched Apollo 11?",
    "Who made the primary mirror of the Hubble Space Telescope?",
    "What did the James Webb Space Telescope observe first?",
    "Which company builds the Falcon 9?",
    "Who founded Blue Origin?",
    "Which agency runs the Chang'e missions?",
    "What is the Artemis program?",
    "Who designed the Saturn V?",
    "Which countries built the International Space Station?",
    "Who walked on the Moon during Apollo 11?",
)
PREFIX = "bench-ws-"
SETTLE_SECONDS = 10.0


def measure(rag: GraphRAG, modes: list[str], repeats: int) -> dict[str, tuple[list[float], list[list[str]]]]:
    # What the writes before left running (index population, a checkpoint) settles first, so it is not
    # counted against whichever run follows them.
    rag.store.admin.await_indexes()
    time.sleep(SETTLE_SECONDS)
    out: dict[str, tuple[list[float], list[list[str]]]] = {}
    for mode in modes:
        for question in QUESTIONS[:2]:  # warm the caches and the planner
            rag.search(question, mode=mode, k=5, generate=False)  # type: ignore[arg-type]
        times: list[float] = []
        tops: list[list[str]] = []
        for _ in range(repeats):
            for question in QUESTIONS:
                started = time.perf_counter()
                result = rag.search(question, mode=mode, k=5, generate=False)  # type: ignore[arg-type]
                times.append((time.perf_counter() - started) * 1000)
                tops.append([c.chunk_id for c in result.chunks[:5]])
        out[mode] = (times, tops)
    return out


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--corpus", type=Path, default=Path("examples/space"))
    parser.add_argument("--workspaces", type=int, default=10, help="workspaces in the crowded run (with ours)")
    parser.add_argument("--repeats", type=int, default=5, help="passes over the questions per mode")
    parser.add_argument("--modes", default="vector,hybrid,local,global")
    args = parse(parser)
    modes = [m for m in args.modes.split(",") if m]
    console = Console(record=True, width=110)
    root = GraphRAG(Settings())
    root.store.admin.reset()
    for name in root.store.workspaces.names()[1:]:
        if name.startswith(PREFIX):
            root.workspaces.delete(name, yes=True)

    def fill(name: str) -> float:
        root.workspaces.create(name)
        started = time.perf_counter()
        with root.in_workspace(name) as rag:
            rag.ingest([args.corpus], base=args.corpus, extractor="nlp")
            rag.build_communities()
        return time.perf_counter() - started

    ours = PREFIX + "0"
    seconds = [fill(ours)]
    with root.in_workspace(ours) as rag:
        alone = measure(rag, modes, args.repeats)
        for i in range(1, args.workspaces):
            seconds.append(fill(f"{PREFIX}{i}"))
        crowded = measure(rag, modes, args.repeats)
        crowded_again = measure(rag, modes, args.repeats)
        stats = rag.inspect.stats()
        for i in range(1, args.workspaces):
            root.workspaces.delete(f"{PREFIX}{i}", yes=True)
        again = measure(rag, modes, args.repeats)
    root.workspaces.delete(ours, yes=True)
    root.close()

    table = Table(
        title=f"one workspace ({stats['chunks']} chunks, {stats['entities']} entities) alone, then one of "
        f"{args.workspaces} (each a copy of {args.corpus}), twice, then alone again; ms per search, "
        f"{len(QUESTIONS) * args.repeats} searches per cell; the ratio pools the two runs of each kind"
    )
    columns = ["alone", f"of {args.workspaces}", f"of {args.workspaces} again", "alone again"]
    table.add_column("mode")
    for column in columns:
        table.add_column(f"{column} p50", justify="right")
        table.add_column("p95", justify="right")
    table.add_column("crowded/alone p50", justify="right")
    table.add_column("same top-5", justify="right")
    for mode in modes:
        runs = [alone[mode][0], crowded[mode][0], crowded_again[mode][0], again[mode][0]]
        cells = [f"{percentile(t, share):.1f}" for t in runs for share in (0.5, 0.95)]
        ratio = statistics.median(crowded[mode][0] + crowded_again[mode][0]) / statistics.median(
            alone[mode][0] + again[mode][0]
        )
        same = sum(a == b for a, b in zip(alone[mode][1], crowded[mode][1])) / len(alone[mode][1])
        table.add_row(mode, *cells, f"{ratio:.2f}x", f"{same:.0%}")
    console.print(table)
    console.print(
        f"filling a workspace (ingest with the offline extractor and communities): "
        f"{statistics.median(seconds):.1f} s median over {len(seconds)}"
    )
    if args.record:
        record("Workspaces: one of many costs what one alone costs", "bench.workspaces", console)


if __name__ == "__main__":
    main()
