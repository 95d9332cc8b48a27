"""A corpus ingested by one process, then by a Dask cluster of N `graphwright worker` processes on this machine
(a scheduler, N workers, the client): wall time, chunks/s, peak memory per process, the writer's retries, and
whether both wrote the same graph (counts of documents, chunks, entities, relations, mentions). On one
2-core machine no speed-up is expected: the cluster's overhead is what this shows; the projection for more
machines comes from the single run's stages (the client's own stages are a floor; the workers' stages divide
by the workers).

    .venv/bin/python -m bench.cluster_ingest --data ../shared/eval/novels/novels.jsonl [--data DIR] \\
        [--workers 2] [--record]

Each corpus goes into two workspaces made for the run (`bench_single`, `bench_cluster`, deleted after)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record

GRAPHWRIGHT = [sys.executable, "-m", "graphwright.cli"]
# What only the client does in a cluster run (the workers embed chunks and extract).
CLIENT_STAGES = ("resolve", "embed entities", "write", "synonyms")
WORKER_STAGES = ("embed chunks", "extract")
COUNTS = {
    "documents": "MATCH (d:Document) RETURN count(d) AS n",
    "chunks": "MATCH (c:Chunk) RETURN count(c) AS n",
    "entities": "MATCH (e:Entity) RETURN count(e) AS n",
    "relations": "MATCH (:Entity)-[r]->(:Entity) WHERE type(r) <> 'SIMILAR_TO' RETURN count(r) AS n",
    "mentions": "MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m) AS n",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _worker_peak_mib(pid: int) -> float:
    """The largest peak among a `graphwright worker` process and its children: Dask's nanny (this pid)
    runs the worker, which holds the models, in a child process."""
    peaks, todo = [], [pid]
    while todo:
        current = todo.pop()
        peaks.append(_peak_mib(current))
        for task in Path(f"/proc/{current}/task").iterdir():
            todo += [int(child) for child in (task / "children").read_text().split()]
    return max(peaks)


def _timed_ingest(data: Path, workspace: str, extra: list[str]) -> tuple[dict[str, Any], float, float, int]:
    """The ingest's report, wall seconds, the client's peak RSS (MiB) and the driver's transaction retries."""
    args = ["/usr/bin/time", "-v", *GRAPHWRIGHT, "ingest", str(data), "--base", str(data.parent)]
    args += ["--workspace", workspace, "--extractor", "nlp", "--no-communities", "-q", "--json", *extra]
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"ingest failed ({done.returncode}): {done.stderr[-2000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    retries = len(re.findall(r"will be retried", done.stderr))
    return json.loads(done.stdout), seconds, int(peak.group(1)) / 1024 if peak else 0.0, retries


def _counts(workspace: str) -> dict[str, int]:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings

    with GraphRAG(Settings(workspace=workspace)) as rag:
        return {name: int(rag.store.read(cypher)[0]["n"]) for name, cypher in COUNTS.items()}


def _workspace(action: str, name: str) -> None:
    extra = ["--yes"] if action == "delete" else []
    subprocess.run([*GRAPHWRIGHT, "workspace", action, name, *extra], capture_output=True, check=False)


class _Cluster:
    def __init__(self, workers: int, folder: Path) -> None:
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        port = self.address.rsplit(":", 1)[1]
        log = (folder / "scheduler.log").open("w")
        scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port]
        self.scheduler = subprocess.Popen([*scheduler, "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT)
        self.workers = [
            subprocess.Popen(
                [*GRAPHWRIGHT, "worker", self.address],
                stdout=(folder / f"worker{i}.log").open("w"),
                stderr=subprocess.STDOUT,
            )
            for i in range(workers)
        ]
        from distributed import Client

        with Client(self.address, timeout=120, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=300)

    def stop(self) -> list[float]:
        peaks = [_worker_peak_mib(w.pid) for w in self.workers]
        for process in [*self.workers, self.scheduler]:
            process.terminate()
            process.wait(timeout=60)
        return peaks


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--data", type=Path, action="append", required=True, help="a file or folder to ingest")
    parser.add_argument("--workers", type=int, default=2)
    args = parse(parser)
    console = Console(record=True, width=140)
    folder = Path(".graphwright") / "bench-cluster"
    folder.mkdir(parents=True, exist_ok=True)
    runs = Table(title=f"single process vs a cluster of {args.workers} workers on this machine")
    for column in ("corpus", "run", "wall s", "chunks/s", "client peak MiB", "worker peaks MiB", "writer retries"):
        runs.add_column(column, justify="left" if column in ("corpus", "run", "worker peaks MiB") else "right")
    checks = Table(title="the same graph?")
    for column in ("corpus", *COUNTS, "same"):
        checks.add_column(column)
    projection = Table(title="projection from the single run's stages (seconds): wall(W) ~ max(client, workers / W)")
    for column in ("corpus", "client stages", "worker stages", "W=1", "W=4", "W=16", "W=64"):
        projection.add_column(column, justify="right")
    headline: list[str] = []
    for data in args.data:
        data = data.resolve()
        name = data.name
        single_ws, cluster_ws = "bench_single", "bench_cluster"
        for workspace in (single_ws, cluster_ws):
            _workspace("delete", workspace)
            _workspace("create", workspace)
        try:
            single, single_s, single_peak, single_retries = _timed_ingest(data, single_ws, [])
            console.print(f"{name}: single process {single_s:.0f} s", highlight=False)
            cluster = _Cluster(args.workers, folder)
            try:
                clustered, cluster_s, client_peak, retries = _timed_ingest(
                    data, cluster_ws, ["--cluster", cluster.address]
                )
            finally:
                worker_peaks = cluster.stop()
            console.print(f"{name}: cluster {cluster_s:.0f} s", highlight=False)
            chunks = single["chunks_written"]
            runs.add_row(
                name,
                "single",
                f"{single_s:.0f}",
                f"{chunks / single_s:.1f}",
                f"{single_peak:.0f}",
                "-",
                str(single_retries),
            )
            runs.add_row(
                name,
                f"cluster ({args.workers} workers)",
                f"{cluster_s:.0f}",
                f"{chunks / cluster_s:.1f}",
                f"{client_peak:.0f}",
                ", ".join(f"{p:.0f}" for p in worker_peaks),
                str(retries),
            )
            headline.append(
                f"{name}: {single_s:.0f} s alone, {cluster_s:.0f} s on {args.workers} workers here (client peak "
                f"{single_peak:.0f} -> {client_peak:.0f} MiB)"
            )
            one, other = _counts(single_ws), _counts(cluster_ws)
            checks.add_row(name, *(f"{one[k]:,} / {other[k]:,}" for k in COUNTS), "yes" if one == other else "NO")
            stages = single["stage_seconds"]
            client = sum(stages.get(s, 0.0) for s in CLIENT_STAGES)
            workers = sum(stages.get(s, 0.0) for s in WORKER_STAGES)
            projection.add_row(
                name, f"{client:.0f}", f"{workers:.0f}", *(f"{max(client, workers / w):.0f}" for w in (1, 4, 16, 64))
            )
        finally:
            for workspace in (single_ws, cluster_ws):
                _workspace("delete", workspace)
    console.print(runs)
    console.print(checks)
    console.print(projection)
    if args.record:
        record(
            "Cluster ingest: one process against a Dask cluster on one machine",
            "bench.cluster_ingest",
            console,
            remark="Worker stages (embed chunks, extract) overlap in the single run, so their sum is an upper bound",
            headline="; ".join(headline) + "; the same graph",
        )


if __name__ == "__main__":
    main()
