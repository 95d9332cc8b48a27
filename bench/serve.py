"""`graphwright serve` measured: cold CLI questions against warm ones, then a bounded load test.

    .venv/bin/python -m bench.serve --yes-reset [--runs 10] [--requests 500] [--clients 16] [--workers 1,2] [--record]

WARNING: empties the database NEO4J_URI points at, then ingests examples/space with the offline entity
graph. Part 1, latency, same questions in the same run: `graphwright query` in a new process (the cold
start every CLI question pays), `graphwright query --server` (a new process that asks the server), and a
plain HTTP POST to the warm server. Part 2, load: `--requests` searches from `--clients` concurrent clients,
mixed over vector, hybrid and local, while an upload job ingests `--novels` novels from the shared eval
data (falling back to copies of the space articles); it counts errors, checks that every cited chunk id
exists in Neo4j, and samples the server's resident memory (RSS, summed over its worker processes)
throughout. `--workers 1,2` runs the load once per worker count, each on a freshly ingested graph.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.evaluation.metrics import percentile

ROOT = Path(__file__).resolve().parents[1]
SPACE = ROOT / "examples" / "space"
NOVELS = ROOT.parent / "shared" / "eval" / "novels" / "novels.jsonl"
QUESTIONS = [json.loads(line)["question"] for line in (ROOT / "tests" / "data" / "space_eval.jsonl").open()]
MODES = ["vector", "hybrid", "local"]


def cli(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "graphwright.cli", *args], env=env, capture_output=True, text=True, timeout=900
    )
    if done.returncode != 0:
        raise SystemExit(f"graphwright {' '.join(args)} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    """The resident memory of the server and its worker processes together."""
    total = 0.0
    for process in [pid, *children(pid)]:
        try:
            for line in Path(f"/proc/{process}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def start_server(env: dict[str, str], workers: int = 1) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = ["serve", "--port", str(port), "--log-level", "warning", "--workers", str(workers)]
    process = subprocess.Popen(
        [sys.executable, "-m", "graphwright.cli", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not start: {process.stderr.read() if process.stderr else ''}")


def row(table: Table, label: str, times: list[float], unit: float = 1000.0) -> None:
    table.add_row(
        label,
        str(len(times)),
        f"{percentile(times, 0.5) * unit:.0f}",
        f"{percentile(times, 0.95) * unit:.0f}",
        f"{min(times) * unit:.0f}",
    )


def latency(env: dict[str, str], url: str, runs: int, console: Console) -> None:
    table = Table(title="one question: cold CLI vs warm server (hybrid, no LLM, same questions)")
    for column in ("path", "questions", "p50 ms", "p95 ms", "min ms"):
        table.add_column(column, justify="left" if column == "path" else "right")
    asked = [QUESTIONS[i % len(QUESTIONS)] for i in range(runs)]
    row(table, "`graphwright query` (new process, loads the model)", [cli(["query", q], env) for q in asked])
    row(
        table,
        "`graphwright query --server` (new process, asks serve)",
        [cli(["query", q, "--server", url], env) for q in asked],
    )
    with httpx.Client(timeout=60) as client:
        warm = []
        for q in asked:
            started = time.perf_counter()
            client.post(f"{url}/v1/search", json={"question": q, "mode": "hybrid"}).raise_for_status()
            warm.append(time.perf_counter() - started)
    row(table, "HTTP POST /v1/search to the warm server", warm)
    console.print(table)


def ingest_files(folder: Path, novels: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    if NOVELS.exists() and novels:
        with NOVELS.open(encoding="utf-8") as handle:
            for i, line in zip(range(novels), handle):
                record_ = json.loads(line)
                (folder / f"novel-{i}.txt").write_text(record_["text"], encoding="utf-8")
    else:
        for i in range(1):  # one renamed copy of the space articles
            for article in sorted(SPACE.glob("*.md")):
                (folder / f"copy{i}-{article.name}").write_text(article.read_text(encoding="utf-8") + f"\n\nCopy {i}.")
    return sorted(folder.iterdir())


def load(
    env: dict[str, str], url: str, pid: int, requests: int, clients: int, novels: int, console: Console, workers: int
) -> None:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings

    rng = random.Random(7)
    work: list[tuple[str, str]] = []
    lock = threading.Lock()
    latencies: dict[str, list[float]] = {m: [] for m in MODES}
    errors: list[str] = []
    cited: set[str] = set()
    memory: list[tuple[float, float]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            memory.append((time.monotonic(), rss_mib(pid)))
            time.sleep(0.25)

    def client() -> None:
        with httpx.Client(timeout=120) as http:
            while True:
                with lock:
                    if not work:
                        return
                    question, mode = work.pop()
                started = time.perf_counter()
                try:
                    response = http.post(f"{url}/v1/search", json={"question": question, "mode": mode})
                    elapsed = time.perf_counter() - started
                    if response.status_code != 200:
                        with lock:
                            errors.append(f"{response.status_code} {response.text[:200]}")
                        continue
                    ids = {c["id"] for c in response.json()["citations"] if c["kind"] == "chunk"}
                    with lock:
                        latencies[mode].append(elapsed)
                        cited.update(ids)
                except httpx.HTTPError as exc:
                    with lock:
                        errors.append(repr(exc))

    with tempfile.TemporaryDirectory() as tmp:
        files = ingest_files(Path(tmp) / "upload", novels)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        time.sleep(1.0)
        rss_before = rss_mib(pid)
        handles = [(f.name, f.open("rb")) for f in files]
        try:
            job = httpx.post(f"{url}/v1/documents", files=[("files", h) for h in handles], timeout=300).json()
        finally:
            for _, h in handles:
                h.close()

        def fire() -> float:
            work.extend((rng.choice(QUESTIONS), MODES[i % len(MODES)]) for i in range(requests))
            began = time.monotonic()
            threads = [threading.Thread(target=client) for _ in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return time.monotonic() - began

        started = time.monotonic()
        wall = fire()
        during = httpx.get(f"{url}/v1/jobs/{job['id']}").json()
        rss_after_load = rss_mib(pid)
        while during["status"] in ("queued", "running"):
            time.sleep(1)
            during = httpx.get(f"{url}/v1/jobs/{job['id']}").json()
        job_seconds = (during["finished_at"] or 0) - (during["started_at"] or 0)
        rss_end = rss_mib(pid)
        # The same searches again with no ingest running: what the searches themselves leave behind.
        first = {m: list(v) for m, v in latencies.items()}
        again = fire()
        rss_again = rss_mib(pid)
        stop.set()
    second = {m: v[len(first[m]) :] for m, v in latencies.items()}
    for m in MODES:
        latencies[m] = first[m]
    with GraphRAG(Settings()) as rag:
        existing = set(rag.store.retrieval.chunks_by_id(sorted(cited)))
    missing = cited - existing
    done = sum(len(v) for v in latencies.values())
    answered_again = sum(map(len, second.values()))
    everything = [t for v in latencies.values() for t in v]
    table = Table(
        title=f"load, {workers} worker(s): {requests} searches from {clients} concurrent clients, an ingest job running"
    )
    for column in ("mode", "searches", "p50 ms", "p95 ms", "min ms"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode in MODES:
        row(table, mode, latencies[mode])
    row(table, "all", everything)
    console.print(table)
    overlapped = sum(1 for t, _ in memory if started <= t <= started + wall)
    summary = Table(title=f"load, {workers} worker(s): errors, citations, throughput, server memory")
    summary.add_column("measure")
    summary.add_column("value", justify="right")
    chunks = during["result"]["chunks_written"] if during["result"] else 0
    overlap = "ran through the whole load" if job_seconds >= wall else "ended before the load did"
    rss = [m for _, m in memory]
    for label, value in [
        ("errors", f"{len(errors)}" + (f" (first: {errors[0]})" if errors else "")),
        ("searches answered", f"{done} / {requests}"),
        ("distinct cited chunk ids / missing in Neo4j", f"{len(cited)} / {len(missing)}"),
        ("throughput", f"{done / wall:.1f} searches/s over {wall:.1f} s"),
        ("ingest job", f"{during['status']}: {len(files)} files, {chunks} chunks in {job_seconds:.0f} s ({overlap})"),
        (
            "server RSS before / after the load / after the job / after as many searches again",
            f"{rss_before:.0f} / {rss_after_load:.0f} / {rss_end:.0f} / {rss_again:.0f} MiB",
        ),
        (
            "the searches again, no ingest: answered, p50 / p95, throughput",
            f"{sum(map(len, second.values()))}, "
            f"{percentile([t for v in second.values() for t in v], 0.5) * 1000:.0f} / "
            f"{percentile([t for v in second.values() for t in v], 0.95) * 1000:.0f} ms, "
            f"{sum(map(len, second.values())) / again:.1f} searches/s",
        ),
        (
            "server RSS sampled every 0.25 s over the whole run: min / median / max",
            f"{min(rss):.0f} / {statistics.median(rss):.0f} / {max(rss):.0f} MiB ({overlapped} samples in the load)",
        ),
    ]:
        summary.add_row(label, value)
    console.print(summary)
    if errors or missing or answered_again != requests:
        raise SystemExit(f"load test failed: {len(errors)} errors, {len(missing)} cited ids missing")


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--runs", type=int, default=10, help="questions per path in the latency part")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--novels",
        type=int,
        default=2,
        help="novels the ingest job uploads during the load (0: a copy of the space articles)",
    )
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--workers", default="1", help="worker counts to load-test in turn, e.g. 1,2")
    args = parse(parser)
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHWRIGHT_SERVER_URL",)}
    console = Console(record=True, width=160)
    for i, workers in enumerate(int(w) for w in args.workers.split(",")):
        cli(["reset", "--yes"], env)
        cli(["ingest", str(SPACE), "--extractor", "nlp", "-q"], env)
        process, url = start_server(env, workers)
        try:
            if not args.skip_latency and i == 0:
                latency(env, url, args.runs, console)
            load(env, url, process.pid, args.requests, args.clients, args.novels, console, workers)
        finally:
            process.terminate()
            process.wait(timeout=60)
    if args.record:
        record("graphwright serve: cold vs warm questions, and load", "bench.serve", console)


if __name__ == "__main__":
    main()
