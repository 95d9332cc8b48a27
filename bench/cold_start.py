"""Cold start of a CLI question: wall time of `graphwright query` in a fresh process (imports, model load,
embedding the question, search, printing), per embedding runtime, on the bundled space corpus.

    .venv/bin/python -m bench.cold_start --runs 5 --yes-reset [--record]

WARNING: empties the database NEO4J_URI points at; for each runtime it ingests examples/space (text only)
with that runtime, so the graph is embedded by the model that is then asked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record, torch_installed
from graphwright.evaluation.metrics import percentile

SPACE = Path(__file__).resolve().parents[1] / "examples" / "space"
QUESTIONS = ["Who founded SpaceX?", "Which telescope orbits the Sun at L2?", "When did Apollo 11 land?"]


def cli(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "graphwright.cli", *args], env=env, capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        raise SystemExit(f"graphwright {' '.join(args)} failed: {done.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parse(parser)
    console = Console(record=True, width=140)
    table = Table(title="cold start: `graphwright query` in a new process, hybrid mode, no LLM")
    for column in ("runtime", "questions", "p50 s", "p95 s", "min s"):
        table.add_column(column, justify="left" if column == "runtime" else "right")
    if not torch_installed():
        table.add_row("torch (before): the torch extra is not installed", "-", "-", "-", "-")
    for runtime in ("torch", "onnx", "onnx-int8") if torch_installed() else ("onnx", "onnx-int8"):
        env = {**os.environ, "GRAPHWRIGHT_EMBEDDING_RUNTIME": runtime}
        cli(["reset", "--yes"], env)
        cli(["ingest", str(SPACE), "--extractor", "none", "-q"], env)
        times = [cli(["query", QUESTIONS[i % len(QUESTIONS)], "--mode", "hybrid"], env) for i in range(args.runs)]
        label = {"torch": "torch (before)", "onnx": "onnx (default)"}.get(runtime, runtime)
        table.add_row(
            label,
            str(len(times)),
            f"{percentile(times, 0.5):.2f}",
            f"{percentile(times, 0.95):.2f}",
            f"{min(times):.2f}",
        )
    cli(["reset", "--yes"], {**os.environ})
    console.print(table)
    if args.record:
        record("Query cold start per embedding runtime", "bench.cold_start", console)


if __name__ == "__main__":
    main()
