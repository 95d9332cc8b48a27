"""Sources through the server and as they change: the list and a "sync now" job over HTTP (a read key sees,
only a write key syncs, only a recorded source), the page's sources table and its button in Chromium, a
folder watched by `graphwright watch` (a new file searchable, a changed file's old text gone, a removed file
gone from every node: each timed, within 60 s) and the watcher `serve` runs for GRAPHWRIGHT_WATCH."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import READ, WRITE
from tests.integration.helpers import workspace_texts, write_files
from tests.serve_process import wait_job

pytestmark = pytest.mark.integration
AUTH, READER = {"Authorization": f"Bearer {WRITE}"}, {"Authorization": f"Bearer {READ}"}
ALPHA = "Margaret Hamilton led the team that wrote the Apollo guidance software at the MIT Instrumentation Lab."
BETA = "The Saturn V rocket carried Apollo 11 from the Kennedy Space Center in July 1969."


def until(check: Callable[[], bool], seconds: float = 60) -> float:
    """Seconds until `check` holds; fails after `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return time.monotonic() - started
        time.sleep(0.25)
    raise AssertionError(f"not within {seconds:g} s")


def test_sources_are_listed_and_synced_now_over_http(live, tmp_path: Path) -> None:
    folder = write_files(tmp_path / "served-notes", {"alpha.md": ALPHA})
    live.rag.sync(folder)
    try:
        listed = httpx.get(f"{live.url}/v1/sources", headers=READER).json()
        [mine] = [s for s in listed if s["id"] == str(folder)]
        assert mine["kind"] == "folder" and mine["documents"] == 1 and mine["counts"]["added"] == 1
        refused = httpx.post(f"{live.url}/v1/sources/sync", json={"id": str(folder)}, headers=READER)
        assert refused.status_code == 403, "a read key does not sync"
        unknown = httpx.post(f"{live.url}/v1/sources/sync", json={"id": "/etc"}, headers=AUTH)
        assert unknown.status_code == 404, "a request cannot make the server read a place it was not given"
        (folder / "beta.md").write_text(BETA, encoding="utf-8")
        job = httpx.post(f"{live.url}/v1/sources/sync", json={"id": str(folder)}, headers=AUTH).json()
        done = wait_job(live.url, job["id"], AUTH)
        assert done["kind"] == "sync" and done["result"]["added"] == ["served-notes/beta.md"]
    finally:
        live.rag.forget_source(str(folder), documents=True)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_the_page_shows_the_sources_and_syncs_one_now(live, tmp_path: Path) -> None:
    from tests.integration.test_browser import SHOTS, served_page

    folder = write_files(tmp_path / "page-notes", {"alpha.md": ALPHA})
    live.rag.sync(folder)
    try:
        with served_page(live, WRITE, 1000) as (page, outside):
            page.click("#tab-documents")
            page.locator("#sources tr", has_text="page-notes").wait_for(timeout=15000)
            assert "+1 added" in page.inner_text("#sources")
            (folder / "beta.md").write_text(BETA, encoding="utf-8")
            page.locator("#sources tr", has_text="page-notes").locator("button.sync-now").click()
            page.locator("#job-status", has_text="1 added").wait_for(timeout=120000)
            page.locator("#sources tr", has_text="page-notes").filter(has_text="2").wait_for(timeout=15000)
            page.screenshot(path=str(SHOTS / "page-sources.png"))
        assert not outside, outside
        assert any(d.id == "page-notes/beta.md" for d in live.rag.inspect.documents(0, 1000))
    finally:
        live.rag.forget_source(str(folder), documents=True)


def test_a_watched_folder_follows_its_files(rag, cli_env: dict[str, str], tmp_path: Path) -> None:
    folder = write_files(tmp_path / "watched", {"alpha.md": ALPHA})
    watcher = subprocess.Popen(
        [sys.executable, "-m", "graphwright.cli", "watch", str(folder), "--quiet-ms", "300"],
        env=cli_env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        documents = lambda: {r["id"] for r in rag.store.read("MATCH (d:Document) RETURN d.id AS id")}  # noqa: E731
        until(lambda: documents() == {"watched/alpha.md"}, 120)  # the first sync (and the model's load)

        (folder / "beta.md").write_text(BETA, encoding="utf-8")
        added = until(lambda: "watched/beta.md" in documents())
        hits = rag.search("Which rocket carried Apollo 11?", mode="hybrid", k=1).chunks
        assert hits[0].document_id == "watched/beta.md"

        for n in range(5):  # an editor's save storm: one sync takes the last text
            (folder / "alpha.md").write_text(f"Margaret Hamilton coined the term software engineering ({n}).")
        changed = until(lambda: "Instrumentation Lab" not in workspace_texts(rag) and "(4)" in workspace_texts(rag))

        (folder / "beta.md").unlink()
        removed = until(lambda: "Kennedy Space Center" not in workspace_texts(rag))
        assert documents() == {"watched/alpha.md"}
    finally:
        watcher.terminate()
        out, _ = watcher.communicate(timeout=30)
    assert "Stopped watching" in out and "watched/beta.md" in out, out
    print(f"watch: added {added:.1f} s, changed {changed:.1f} s, removed {removed:.1f} s")


def test_serve_runs_a_watcher_for_its_folders(rag, embedder, tmp_path: Path) -> None:
    from graphwright.api import GraphRAG
    from graphwright.server.jobs import JobRunner
    from graphwright.server.sources import start_watchers

    folder = write_files(tmp_path / "served-watch", {"alpha.md": ALPHA})
    watching = GraphRAG(rag.settings.updated(**{"watch": str(folder), "watch_quiet_ms": 300}), embedder=embedder)
    jobs = JobRunner(tmp_path / "jobs")
    stop = threading.Event()
    thread = start_watchers(watching, jobs, stop)
    assert thread is not None
    try:
        until(lambda: rag.store.sources.get(str(folder)) is not None, 120)
        (folder / "beta.md").write_text(BETA, encoding="utf-8")
        until(lambda: rag.store.retrieval.get_document("served-watch/beta.md") is not None)
    finally:
        stop.set()
        thread.join(10)
        jobs.close()
        watching.close()
    assert not thread.is_alive(), "the watcher stops with the server"
