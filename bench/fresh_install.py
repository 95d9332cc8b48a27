"""`pip install` alone, then the README's commands, as a newcomer runs them: a wheel of this checkout into a new
virtualenv in an empty folder outside the checkout, with a new home and cache (so the launcher's build copy,
the model package and its ONNX export are all first-time work; Maven's own repository, ~/.m2, is whatever this
machine has), its own Neo4j on other ports; each step timed, the install's size measured.

    .venv/bin/python -m bench.fresh_install [--record]

Nothing of the user's database or home is touched; the folder is deleted at the end (--keep keeps it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record

ROOT = Path(__file__).resolve().parents[1]
STEPS = [
    ["db", "start"],
    ["init"],
    ["ingest", "--sample"],
    ["query", "Who founded SpaceX?", "--k", "2"],
    ["documents", "--limit", "3"],
    ["entities", "--limit", "3"],
    ["export", "graph.graphml"],
    ["db", "stop"],
]


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--keep", action="store_true", help="keep the folder (venv, home, cache) afterwards")
    args = parse(parser)
    console = Console(record=True, width=120)
    work = Path(tempfile.mkdtemp(prefix="graphwright-fresh-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHWRIGHT_", "NEO4J_", "OPENAI_"))}
    env.update(
        {
            "GRAPHWRIGHT_HOME": str(work / "home"),
            "XDG_CACHE_HOME": str(work / "cache"),
            "NEO4J_URI": "bolt://127.0.0.1:7697",
            "GRAPHWRIGHT_HTTP_PORT": "7497",
            "COLUMNS": "120",
        }
    )
    rows: list[tuple[str, float, str]] = []

    def step(label: str, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
        seconds = time.perf_counter() - started
        last = (done.stdout.strip().splitlines() or [""])[0][:70]
        rows.append((label, seconds, "ok: " + last if done.returncode == 0 else f"exit {done.returncode}"))
        if done.returncode != 0:
            console.print(done.stdout[-2000:], done.stderr[-2000:])
        return done

    try:
        folder = work / "somewhere"
        folder.mkdir()
        step(
            "pip wheel (this checkout)",
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "w"), str(ROOT)],
            work,
        )
        step("python -m venv", [sys.executable, "-m", "venv", str(work / "venv")], work)
        wheel = next((work / "w").glob("graphwright-*.whl"))
        step("pip install <wheel>", [str(work / "venv/bin/pip"), "install", "-q", str(wheel)], folder)
        installed = _size(work / "venv")
        gw = str(work / "venv/bin/graphwright")
        for args_ in STEPS:
            step("graphwright " + " ".join(args_), [gw, *args_], folder)
    finally:
        subprocess.run([str(work / "venv/bin/graphwright"), "db", "stop"], cwd=work, env=env, capture_output=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    table = Table(title=f"pip install alone, then the README's commands (venv {installed / 2**20:,.0f} MiB)")
    for column in ("step", "seconds", "result"):
        table.add_column(column)
    for label, seconds, result in rows:
        table.add_row(label, f"{seconds:.1f}", result)
    console.print(table)
    if args.record:
        total = sum(seconds for label, seconds, _ in rows if label.startswith(("pip install", "graphwright")))
        failed = [label for label, _, result in rows if not result.startswith("ok")]
        headline = (
            f"a new virtualenv outside the checkout: pip install {rows[2][1]:.0f} s ({installed / 2**20:,.0f} MiB), "
            f"then db start, init, ingest --sample, query, documents, entities, export, db stop: "
            f"{'all exit 0' if not failed else 'FAILED: ' + ', '.join(failed)}; {total:.0f} s in all"
        )
        record(
            "A fresh virtualenv outside the checkout: pip install, then the README's commands",
            "bench.fresh_install",
            console,
            headline=headline,
        )


if __name__ == "__main__":
    main()
