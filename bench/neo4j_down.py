"""Neo4j stopped behind a running `graphwright serve`: how long a person waits for the answer that says so,
through the HTTP API, the health check and the CLI (handed to the server, and searching here), how long the
same server takes to answer again once Neo4j is back, and the disk the local Neo4j takes after the sample.

    .venv/bin/python -m bench.neo4j_down [--record] [--runs 3]

Everything runs in a new graphwright home with a local Neo4j of its own (ports 7696/7496) and a server on
a free port: nothing of yours is touched. `--checkout DIR` runs another checkout's code (an older commit's
worktree, for a before/after) with this script.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from bench.record import arguments, isolated_env, parse, record

QUESTION = {"question": "Who founded SpaceX?", "mode": "local"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--runs", type=int, default=3, help="requests of each kind while Neo4j is down")
    parser.add_argument("--checkout", type=Path, default=None, help="run this checkout's graphwright instead")
    args = parse(parser)
    code = (args.checkout or Path(__file__).resolve().parents[1]).resolve()
    work = Path(tempfile.mkdtemp(prefix="graphwright-down-"))
    port = _free_port()
    env = isolated_env(work / "home", 7696, 7496, PYTHONPATH=str(code))
    url = f"http://127.0.0.1:{port}"

    def cli(*words: str, check: bool = True) -> tuple[float, subprocess.CompletedProcess[str]]:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "graphwright.cli", *words], cwd=code, env=env, capture_output=True, text=True
        )
        if check and done.returncode != 0:
            raise SystemExit(f"graphwright {' '.join(words)} failed: {done.stdout}{done.stderr}")
        return time.perf_counter() - started, done

    rows: list[tuple[str, str, str]] = []
    serve = None
    try:
        cli("db", "start")
        cli("init")
        cli("ingest", "--sample", "-q")
        _, doctor = cli("doctor", check=False)
        disk = next((line for line in doctor.stdout.splitlines() if "local disk" in line), "")
        tx = work / "home" / "neo4j" / "data" / "transactions"
        tx_mib = sum(f.stat().st_size for f in tx.rglob("*") if f.is_file()) / 2**20
        rows.append(("transaction logs after the sample", f"{tx_mib:,.1f} MiB", " ".join(disk.split("│")[2:3]).strip()))
        serve = subprocess.Popen(
            [sys.executable, "-m", "graphwright.cli", "serve", "--port", str(port), "--workers", "1"],
            cwd=code,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        started = time.perf_counter()
        up = httpx.post(f"{url}/v1/search", json=QUESTION, timeout=300)
        rows.append(("search, Neo4j up", f"{time.perf_counter() - started:.2f} s", str(up.status_code)))

        cli("db", "stop")
        for i in range(args.runs):
            started = time.perf_counter()
            down = httpx.post(f"{url}/v1/search", json=QUESTION, timeout=300)
            rows.append(
                (
                    f"POST /v1/search #{i + 1}, Neo4j down",
                    f"{time.perf_counter() - started:.2f} s",
                    str(down.status_code),
                )
            )
        started = time.perf_counter()
        health = httpx.get(f"{url}/healthz", timeout=300)
        rows.append(("GET /healthz, Neo4j down", f"{time.perf_counter() - started:.2f} s", str(health.status_code)))
        for i in range(args.runs):
            seconds, done = cli("query", "Who founded SpaceX?", "--server", url, check=False)
            said = (done.stderr.strip().splitlines() or [""])[0][:60]
            rows.append((f"graphwright query --server #{i + 1}", f"{seconds:.2f} s", f"exit {done.returncode}: {said}"))
        seconds, done = cli("query", "Who founded SpaceX?", "--local", check=False)
        said = (done.stderr.strip().splitlines() or [""])[0][:60]
        rows.append(("graphwright query --local", f"{seconds:.2f} s", f"exit {done.returncode}: {said}"))

        cli("db", "start")
        started = time.perf_counter()
        while True:
            back = httpx.post(f"{url}/v1/search", json=QUESTION, timeout=300)
            if back.status_code == 200 or time.perf_counter() - started > 120:
                break
            time.sleep(0.2)
        rows.append(
            ("answers again after db start returned", f"{time.perf_counter() - started:.2f} s", str(back.status_code))
        )
    finally:
        if serve is not None:
            serve.terminate()
            serve.wait(timeout=30)
        cli("db", "stop", check=False)
        shutil.rmtree(work, ignore_errors=True)

    console = Console(record=True, width=140)
    table = Table(title=f"Neo4j stopped behind a running server ({code.name})")
    for column in ("step", "time", "answer"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if args.record:
        waits = [float(t.split()[0]) for step, t, _ in rows if "down" in step or "query" in step]
        record(
            "Neo4j stopped behind a running server",
            "bench.neo4j_down",
            console,
            headline=f"the longest wait for the answer that Neo4j is down: {max(waits):.1f} s; "
            f"transaction logs after the sample {rows[0][1]}",
        )


if __name__ == "__main__":
    main()
