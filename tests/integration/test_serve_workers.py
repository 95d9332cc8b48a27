"""`graphwright serve --workers 2` as a user runs it: two processes on one port, where a job submitted to
one is answered for by both, the graph is written by one of them at a time, and searches work from either."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration


@pytest.fixture
def two_workers(rag, cli_env):
    from bench.serve import start_server  # the bench's launcher: `graphwright serve` until /healthz answers

    # What an older release left readable by others under the home: `serve` tightens it and says so.
    old = Path(cli_env["GRAPHWRIGHT_HOME"]) / "cache" / "llm" / "old.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    os.chmod(old, 0o644)
    process, url = start_server(cli_env, workers=2)
    try:
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=60)


def _worker_pids(process: subprocess.Popen) -> set[int]:
    done = subprocess.run(["ps", "-o", "pid=", "--ppid", str(process.pid)], capture_output=True, text=True)
    return {int(p) for p in done.stdout.split()}


def test_every_worker_answers_for_every_job(two_workers) -> None:
    url, process = two_workers
    assert len(_worker_pids(process)) >= 2, "two worker processes under the supervisor"
    jobs = []
    for i in range(4):  # several jobs, taken by whichever worker accepts each connection
        body = {"documents": [{"id": f"w{i}", "text": f"Ada Lovelace wrote note {i} on the Analytical Engine."}]}
        response = httpx.post(f"{url}/v1/documents", json=body, timeout=30)
        assert response.status_code == 202, response.text
        jobs.append(response.json()["id"])
    deadline = time.monotonic() + 180
    statuses: dict[str, str] = {}
    while time.monotonic() < deadline:
        for job_id in jobs:
            # a fresh connection each time, so the polls spread over both workers; with jobs kept per
            # process, about half of them would be 404
            response = httpx.get(f"{url}/v1/jobs/{job_id}", headers={"Connection": "close"}, timeout=30)
            assert response.status_code == 200, response.text
            statuses[job_id] = response.json()["status"]
        if all(s in ("succeeded", "failed") for s in statuses.values()):
            break
        time.sleep(0.3)
    assert set(statuses.values()) == {"succeeded"}, statuses
    documents = httpx.get(f"{url}/v1/documents", timeout=30).json()
    assert {d["id"] for d in documents} == {f"w{i}" for i in range(4)}, "one writer at a time lost nothing"
    for _ in range(6):
        found = httpx.post(
            f"{url}/v1/search", json={"question": "Who wrote about the Analytical Engine?", "mode": "local"}, timeout=60
        )
        assert found.status_code == 200 and found.json()["chunks"], found.text


def test_serve_keeps_its_home_private(two_workers, cli_env) -> None:
    """The home made private at start (said once), the server secret made before the workers, owner-only, and
    what the workers write (the job database) owner-only too."""
    url, process = two_workers
    home = Path(cli_env["GRAPHWRIGHT_HOME"])
    body = {"documents": [{"id": "p1", "text": "Grace Hopper wrote the first compiler."}]}
    assert httpx.post(f"{url}/v1/documents", json=body, timeout=30).status_code == 202
    assert stat.S_IMODE((home / "server-secret").stat().st_mode) == 0o600
    assert not _shared_files(home)
    process.terminate()
    _, errors = process.communicate(timeout=60)
    assert "privatetotheirowner" in "".join(errors.split()), errors[-500:]


def _shared_files(home: Path) -> list[str]:
    """Files under `home` others may read; SQLite's -shm/-wal files come and go while we look."""
    shared = []
    for path in home.rglob("*"):
        try:
            if not path.is_symlink() and stat.S_IMODE(path.stat().st_mode) & 0o077:
                shared.append(str(path))
        except FileNotFoundError:
            continue
    return shared
