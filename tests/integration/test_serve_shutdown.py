"""`graphwright serve` stops within 10 s of SIGTERM while a job is mid-file (issue 76, finding 4: it waited for
the job), and the interrupted job is resumable: its upload is kept, and `POST /v1/jobs/<id>/resume` finishes it
after a restart. A real server process on the test Neo4j, a real upload."""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest

from tests.serve_process import free_port, start_serve, wait_job

pytestmark = pytest.mark.integration


def _slow_html() -> bytes:
    """About 9 MB of HTML: its main-text extraction takes many seconds, so the job is mid-file at SIGTERM."""
    rows = "".join(f"<p>Paragraph {i} has some words, and <b>bold</b> ones.</p>" for i in range(120_000))
    return f"<html><body>{rows}</body></html>".encode()


def test_sigterm_stops_serve_mid_job_the_job_resumes_and_other_workspaces_go_on(
    neo4j_uri, test_password, tmp_path
) -> None:
    from graphwright.api import GraphRAG
    from tests.integration.helpers import offline_settings

    home = tmp_path / "home"
    workspace = "shutdown-ws"
    root = GraphRAG(offline_settings(neo4j_uri, test_password, home))
    if workspace in root.store.workspaces.names():
        root.workspaces.delete(workspace, yes=True)
    root.workspaces.create(workspace)
    other = "shutdown-other"
    if other in root.store.workspaces.names():
        root.workspaces.delete(other, yes=True)
    root.workspaces.create(other)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    env |= {"NEO4J_URI": neo4j_uri, "NEO4J_PASSWORD": test_password, "GRAPHWRIGHT_HOME": str(home)}
    # The slow file fails by its time limit when resumed, so the test does not embed 9 MB of text.
    env |= {"GRAPHWRIGHT_EXTRACTOR": "none", "GRAPHWRIGHT_MAX_PARSE_SECONDS": "6"}
    port = free_port()
    url = f"http://127.0.0.1:{port}/w/{workspace}"
    server = start_serve(env, port, tmp_path)
    try:
        files = [("files", ("slow.html", _slow_html())), ("files", ("notes.md", b"# Notes\nThe Orca-3 rover.\n"))]
        job = httpx.post(f"{url}/v1/documents", files=files, timeout=60).json()
        for _ in range(300):
            state = httpx.get(f"{url}/v1/jobs/{job['id']}", timeout=10).json()
            if state["status"] == "running":
                break
            time.sleep(0.1)
        assert state["status"] == "running", state
        # Another workspace's small upload is not held behind it (jobs were one queue for every workspace).
        small = httpx.post(
            f"http://127.0.0.1:{port}/w/{other}/v1/documents",
            files=[("files", ("small.md", b"# Small\nThe Kestrel-2 drone.\n"))],
            timeout=60,
        ).json()
        beside = wait_job(f"http://127.0.0.1:{port}/w/{other}", small["id"], seconds=30)
        assert beside["status"] == "succeeded", beside
        assert httpx.get(f"{url}/v1/jobs/{job['id']}", timeout=10).json()["status"] == "running"
        asked = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        took = time.monotonic() - asked
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert took < 10, f"serve took {took:.1f} s to stop after SIGTERM"
    print(f"\nserve stopped {took:.2f} s after SIGTERM, mid-file")  # recorded in the closing note
    server = start_serve(env, port, tmp_path)
    try:
        stopped = httpx.get(f"{url}/v1/jobs/{job['id']}", timeout=10).json()
        assert stopped["status"] == "interrupted" and stopped["resumable"] is True, stopped
        assert f"/v1/jobs/{job['id']}/resume" in stopped["error"]
        # Another workspace cannot see, let alone resume, this workspace's job.
        elsewhere = httpx.post(f"http://127.0.0.1:{port}/w/{other}/v1/jobs/{job['id']}/resume", timeout=10)
        assert elsewhere.status_code == 404, elsewhere.text
        # the documents table's retry of a file of that upload resumes that job (the page's retry button)
        again = httpx.post(f"{url}/v1/documents/retry", json={"id": "notes.md"}, timeout=60)
        assert again.status_code == 202, again.text
        resumed = again.json()
        assert resumed["resumed_from"] == job["id"]
        state = wait_job(url, resumed["id"])
        assert state["status"] == "succeeded", state
        docs = {d["id"] for d in httpx.get(f"{url}/v1/documents", timeout=10).json()}
        assert docs == {"notes.md"}
        (failure,) = state["result"]["failures"]
        assert failure["source"] == "slow.html" and "GRAPHWRIGHT_MAX_PARSE_SECONDS" in failure["error"]
        twice = httpx.post(f"{url}/v1/jobs/{job['id']}/resume", timeout=10)
        assert twice.status_code == 400 and "not an interrupted ingest" in twice.text
    finally:
        server.terminate()
        server.wait(30)
        root.workspaces.delete(workspace, yes=True)
        root.workspaces.delete(other, yes=True)
        root.close()
