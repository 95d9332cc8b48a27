"""Ctrl-C halfway through a large ingest, then the same command: how much the second run does again.

One document of several novels (far bigger than a write group, so it is staged part by part), ingested with
the offline extractor: once uninterrupted (the reference), once stopped by SIGINT at half the reference's time
and run again. Each in a workspace of its own, made and deleted here.

    .venv/bin/python -m bench.resume [--novels 3] [--record]
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record

NOVELS = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "novels" / "novels.jsonl"


GW = [sys.executable, "-m", "graphwright.cli"]


def _cli(args: list[str], workspace: str) -> list[str]:
    return [*GW, *args, "--workspace", workspace]


def _run(args: list[str], workspace: str, cwd: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run(_cli(args, workspace), cwd=cwd, capture_output=True, text=True, timeout=7200)
    if done.returncode != 0:
        raise SystemExit(f"graphwright {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return time.perf_counter() - started, json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--novels", type=int, default=3, help="novels joined into the one document")
    parser.add_argument("--chars", type=int, default=0, help="keep only this many characters (a smoke run)")
    parser.add_argument("--data", type=Path, default=NOVELS, help="a JSONL of records with a `text` field")
    args = parse(parser)
    console = Console(record=True, width=120)
    work = Path(tempfile.mkdtemp(prefix="graphwright-resume-"))
    records = args.data.resolve().read_text(encoding="utf-8").splitlines()[: args.novels]
    texts = [json.loads(line)["text"] for line in records]
    text = "\n\n".join(texts)
    (work / "omnibus.txt").write_text(text[: args.chars] if args.chars else text, encoding="utf-8")
    ingest = ["ingest", "omnibus.txt", "--json", "--no-communities"]
    spaces = ("bench-resume-ref", "bench-resume-cut")
    for name in spaces:
        subprocess.run([*GW, "workspace", "delete", name, "--yes"], capture_output=True)
        subprocess.run([*GW, "workspace", "create", name], check=True, capture_output=True)
    try:
        reference, whole = _run(ingest, spaces[0], work)
        cut_at = reference / 2
        process = subprocess.Popen(
            _cli(ingest, spaces[1]), cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        time.sleep(cut_at)
        process.send_signal(signal.SIGINT)
        _, said = process.communicate(timeout=120)
        _, check = _run(["check", "--json"], spaces[1], work)
        staged = check.get("resumable", {}).get("n", 0)
        again, resumed = _run(ingest, spaces[1], work)
        _, stats_ref = _run(["stats", "--json"], spaces[0], work)
        _, stats_cut = _run(["stats", "--json"], spaces[1], work)
    finally:
        for name in spaces:
            subprocess.run([*GW, "workspace", "delete", name, "--yes"], capture_output=True)
    same = stats_ref["counts"] == stats_cut["counts"]
    table = Table(title=f"{args.novels} novels as one document ({whole['chunks_written']} chunks), offline extractor")
    for column in ("run", "seconds", "chunks embedded and extracted", "chunks taken from the stopped run"):
        table.add_column(column)
    table.add_row("uninterrupted", f"{reference:.1f}", str(whole["chunks_written"]), "-")
    table.add_row(f"Ctrl-C at {cut_at:.0f} s", f"{cut_at:.1f}", f"{staged} staged", "-")
    left = resumed["chunks_written"] - resumed["chunks_resumed"]
    table.add_row("the same command again", f"{again:.1f}", str(left), str(resumed["chunks_resumed"]))
    console.print(table)
    console.print(f"exit 130 and said: {' '.join(said.split())[:200]}")
    console.print(f"the graph after the two runs is the uninterrupted run's: {same} ({stats_cut['counts']})")
    if args.record:
        headline = (
            f"Ctrl-C at half of a {whole['chunks_written']}-chunk ingest: the same command embeds and extracts "
            f"{left} chunks, takes {resumed['chunks_resumed']} from the stopped run, {again:.0f} s vs "
            f"{reference:.0f} s uninterrupted; the same graph: {same}"
        )
        record("Interrupted ingest resumed", "bench.resume", console, headline=headline)


if __name__ == "__main__":
    main()
