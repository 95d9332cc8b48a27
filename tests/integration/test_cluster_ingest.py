"""`ingest --cluster` on a real Dask scheduler and two `graphwright worker` processes writes the graph a
single-process ingest writes, also when a worker is killed mid-run and a write meets a transient error; a
re-run changes nothing; workers that would embed otherwise are refused."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphwright.samples import SAMPLES as SAMPLE
from tests.integration.test_sharded_ingest import _graph

pytest.importorskip("distributed")

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    env.update({"GRAPHWRIGHT_HOME": str(home), **extra})
    return env


class LocalCluster:
    """A scheduler and workers as processes of their own, as a user starts them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.processes: list[subprocess.Popen] = []
        port = self.address.rsplit(":", 1)[1]
        self._start(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                port,
                "--no-dashboard",
            ],
            "scheduler",
        )

    def _start(self, args: list[str], name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        log = (self.folder / f"{name}-{len(self.processes)}.log").open("w")
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env or _worker_env(self.folder))
        self.processes.append(process)
        return process

    def add_worker(self, **env: str) -> subprocess.Popen:
        args = [sys.executable, "-m", "graphwright.cli", "worker", self.address]
        return self._start(args, "worker", _worker_env(self.folder / "home", **env))

    def wait_for(self, n: int, timeout: float = 120.0) -> None:
        from distributed import Client

        with Client(self.address, timeout=timeout, set_as_default=False) as client:
            client.wait_for_workers(n, timeout=timeout)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted(self.folder.glob("*.log")))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[LocalCluster]:
    local = LocalCluster(tmp_path_factory.mktemp("cluster"))
    try:
        local.add_worker()
        local.add_worker()
        local.wait_for(2)
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="module")
def one_run(neo4j_uri, test_password, embedder, tmp_path_factory) -> dict[str, dict]:
    """The graph of the sample ingested by this process alone."""
    from graphwright.api import GraphRAG
    from tests.integration.helpers import offline_settings

    settings = offline_settings(neo4j_uri, test_password, tmp_path_factory.mktemp("single"))
    with GraphRAG(settings, embedder=embedder) as graph:
        graph.store.admin.reset()
        graph.init()
        report = graph.ingest([SAMPLE / "space"], base=SAMPLE, extractor="nlp", update_communities=False)
        assert report.ok and report.documents_written == 20
        return {**_graph(graph), "vectors": _vectors(graph)}


def _vectors(rag) -> dict[str, list[float]]:
    rows = rag.store.read("MATCH (n) WHERE n:Chunk OR n:Entity RETURN n.id AS id, n.embedding AS v")
    return {r["id"]: r["v"] for r in rows if r["v"] is not None}


def _same_vectors(a: dict[str, list[float]], b: dict[str, list[float]]) -> bool:
    """Vectors made on a worker equal this process's, up to float rounding (texts of one length share a run)."""
    import numpy as np

    return a.keys() == b.keys() and all(float(np.dot(a[k], b[k])) > 0.99999 for k in a)


def _cluster_ingest(rag, cluster: LocalCluster, progress=None):
    return rag.ingest(
        [SAMPLE / "space"],
        base=SAMPLE,
        extractor="nlp",
        update_communities=False,
        cluster=cluster.address,
        progress=progress,
    )


def _same_graph(rag, one_run: dict) -> None:
    assert {**_graph(rag), "vectors": None} == {**one_run, "vectors": None}
    assert _same_vectors(_vectors(rag), one_run["vectors"])


def test_a_cluster_ingest_writes_the_graph_of_one_run_and_a_rerun_changes_nothing(rag, cluster, one_run) -> None:
    assert one_run["entities"] and one_run["relations"] and one_run["mentions"] and one_run["vectors"]
    seen: list[str] = []
    report = _cluster_ingest(rag, cluster, lambda stage, done, total, detail="": seen.append(stage))
    assert report.ok and report.documents_written == 20, report
    _same_graph(rag, one_run)
    assert {"load", "embed", "extract", "write"} <= set(seen)  # progress per stage, across the cluster

    again = _cluster_ingest(rag, cluster)
    assert again.documents_unchanged == 20 and again.documents_written == 0
    _same_graph(rag, one_run)


def test_the_cli_ingests_on_the_cluster(rag, cluster, cli_env, tmp_path: Path) -> None:
    import json

    from tests.integration.helpers import run

    out = run(["ingest", "--sample", "--cluster", cluster.address, "--extractor", "nlp", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["documents_written"] == 20 and report["entities_written"] > 100
    assert report["communities"]["created"] > 0  # built once, at the end, by the client


def test_workers_that_would_embed_with_another_model_are_refused(rag, tmp_path: Path) -> None:
    from graphwright.errors import ClusterError

    other = LocalCluster(tmp_path)
    try:
        other.add_worker(GRAPHWRIGHT_EMBEDDING_RUNTIME="onnx-int8")  # another model to the graph
        other.wait_for(1)
        with pytest.raises(ClusterError, match="would not write this graph.*embedder"):
            rag.ingest([SAMPLE / "space"], base=SAMPLE, extractor="nlp", cluster=other.address)
    finally:
        other.stop()
    assert rag.store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 0  # nothing written


def test_no_scheduler_is_a_clear_error(rag) -> None:
    from graphwright.errors import ClusterError

    with pytest.raises(ClusterError, match="no Dask scheduler answered"):
        rag.ingest([SAMPLE / "space"], base=SAMPLE, cluster=f"tcp://127.0.0.1:{_free_port()}")


def test_a_killed_worker_and_a_transient_write_error_still_end_in_the_graph_of_one_run(
    rag, cluster, one_run, monkeypatch
) -> None:
    """Runs last in this module: it leaves the cluster one worker short."""
    from neo4j.exceptions import TransientError

    import graphwright.dask_ingest.client as cluster_client
    from graphwright.graph_store.connection import ScopedTransaction

    # small tasks, so both workers hold queued work when one dies
    monkeypatch.setattr(cluster_client, "EMBED_PIECE", 2)
    monkeypatch.setattr(cluster_client, "EXTRACT_PIECE", 2)
    run = ScopedTransaction.run
    injected: list[str] = []

    def flaky(self, query, parameters=None, **kwargs):
        result = run(self, query, parameters, **kwargs)
        if not injected and "MENTIONS" in query and "MERGE" in query:
            injected.append(query)  # after the query ran: the driver rolls the transaction back and retries it
            raise TransientError("deadlock detected (injected by the test)")
        return result

    monkeypatch.setattr(ScopedTransaction, "run", flaky)
    victim = cluster.processes[1]  # the first worker (0 is the scheduler)
    killed: list[int] = []

    def progress(stage: str, done: int, total: int, detail: str = "") -> None:
        if stage in ("embed", "extract") and not killed:
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    report = _cluster_ingest(rag, cluster, progress)
    assert killed and victim.wait(timeout=30) == -signal.SIGKILL
    assert injected, "the write error was never injected"
    assert report.ok and report.documents_written == 20 and not report.extraction_failures, (report, cluster.logs())
    _same_graph(rag, one_run)


def test_an_llm_extraction_runs_on_the_workers_and_writes_the_graph_of_one_run(
    rag, llm_rag_factory, stub, tmp_path: Path
) -> None:
    """Workers read the LLM endpoint from their own environment (no key crosses the wire) and call it; the
    client's report counts their calls."""
    from tests.integration.helpers import GOOD, extractor_reply, write_files

    stub.default = extractor_reply(json.dumps(GOOD))
    line = "Ada Lovelace wrote programs for the Analytical Engine, which Charles Babbage designed."
    corpus = write_files(tmp_path / "docs", {f"d{i}.md": f"# Note {i}\n\n{line} Note {i}." for i in range(4)})
    graph = llm_rag_factory(llm_gleanings=0)
    single = graph.ingest([corpus], base=tmp_path, extractor="llm", update_communities=False)
    assert single.ok and single.extractor == "llm"
    one_run = _graph(graph)
    graph.store.admin.reset()
    graph.init()

    llm_cluster = LocalCluster(tmp_path / "cluster")
    try:
        env = {
            "OPENAI_BASE_URL": stub.base_url,
            "GRAPHWRIGHT_LLM_MODEL": "stub-model",
            "GRAPHWRIGHT_LLM_PROBE": "false",
            "GRAPHWRIGHT_LLM_MAX_RETRIES": "2",
            "GRAPHWRIGHT_LLM_GLEANINGS": "0",
        }
        llm_cluster.add_worker(**env)
        llm_cluster.add_worker(**env)
        llm_cluster.wait_for(2)
        before = len(stub.requests)
        report = graph.ingest(
            [corpus], base=tmp_path, extractor="llm", update_communities=False, cluster=llm_cluster.address
        )
    finally:
        llm_cluster.stop()
    assert report.ok and report.documents_written == 4, (report, llm_cluster.logs())
    assert len(stub.requests) - before >= 4  # the workers asked the endpoint (their caches were empty)
    assert report.llm_usage["calls"] >= 4
    assert _graph(graph) == one_run
