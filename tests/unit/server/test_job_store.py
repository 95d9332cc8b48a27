"""The job store and the graph write lock that `serve --workers N` shares between processes: real SQLite
files and real `flock`s, with other processes standing in for the other workers."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from graphwright.errors import BusyError
from graphwright.server.job_store import GraphWriteLock, JobStore
from graphwright.server.jobs import Job, JobRunner, Progress


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _wait(runner: JobRunner, job_id: str, seconds: float = 30) -> Job:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = runner.get(job_id)
        if job is not None and job.status in ("succeeded", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_a_job_run_by_one_worker_is_seen_by_another(tmp_path: Path) -> None:
    mine, other = JobRunner(tmp_path), JobRunner(tmp_path)  # two workers sharing one home
    release = threading.Event()

    def work(progress: Progress) -> dict:
        progress("write", 1, 3, "first")
        release.wait(10)
        progress("write", 3, 3)
        return {"documents": 3}

    job = mine.submit("ingest", work)
    deadline = time.monotonic() + 10
    # "running" is saved before the work's first report, so wait for the report itself
    while (seen := other.get(job.id)) is None or "write" not in seen.progress:
        assert time.monotonic() < deadline, seen
        time.sleep(0.05)
    assert seen.status == "running"
    assert seen.progress["write"].done == 1 and seen.progress["write"].detail == "first"
    release.set()
    finished = _wait(other, job.id)
    assert finished.status == "succeeded" and finished.result == {"documents": 3}
    assert finished.progress["write"].done == 3, "a stage's end is always saved"
    assert JobRunner(tmp_path).get(job.id) == finished, "a restarted server still knows it"
    assert other.get("no-such-job") is None
    mine.close()
    other.close()


def test_the_queue_limit_counts_every_worker(tmp_path: Path) -> None:
    release = threading.Event()
    first, second = JobRunner(tmp_path, max_waiting=2), JobRunner(tmp_path, max_waiting=2)
    jobs = [
        first.submit("ingest", lambda _p: release.wait(10) and {}),
        second.submit("ingest", lambda _p: release.wait(10) and {}),
    ]
    with pytest.raises(BusyError, match="2 jobs are queued or running"):
        second.submit("communities", lambda _p: {})
    release.set()
    for runner, job in zip((first, second), jobs):
        assert _wait(runner, job.id).status == "succeeded"
    assert second.submit("communities", lambda _p: {}).status == "queued", "room again once they finished"
    first.close()
    second.close()


def test_a_job_whose_process_died_reads_as_interrupted(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "server" / "jobs.sqlite3")
    stuck = Job(id="stuck", kind="ingest", status="running")
    store.put(stuck.id, stuck.status, stuck.created_at, stuck.model_dump_json(), pid=_dead_pid())
    assert store.waiting() == 0, "a dead worker's job holds no place in the queue"
    runner = JobRunner(tmp_path)
    found = runner.get("stuck")
    assert found is not None and found.status == "interrupted" and "exited" in (found.error or "")
    assert runner.mark_interrupted() == 1 and runner.mark_interrupted() == 0, "recorded once, at a start"
    assert store.get("stuck")[0] == "interrupted"  # type: ignore[index]
    assert [j.id for j in runner.recent()] == ["stuck"]


def test_recent_lists_every_workers_jobs_newest_first(tmp_path: Path) -> None:
    first, second = JobRunner(tmp_path), JobRunner(tmp_path)
    a = first.submit("ingest", lambda _p: {"n": 1})
    _wait(first, a.id)
    b = second.submit("communities", lambda _p: {"n": 2})
    _wait(second, b.id)
    listed = first.recent()
    assert [j.id for j in listed] == [b.id, a.id]
    assert [j.status for j in listed] == ["succeeded", "succeeded"] and listed[0].result == {"n": 2}
    assert len(first.recent(limit=1)) == 1
    first.close()
    second.close()


def test_failures_are_stored_with_their_message(tmp_path: Path) -> None:
    from graphwright.errors import LoadError

    runner = JobRunner(tmp_path)

    def broken(_progress: Progress) -> dict:
        raise LoadError("notes.bin is not text")

    job = _wait(JobRunner(tmp_path), runner.submit("ingest", broken).id)
    assert job.status == "failed" and job.error == "notes.bin is not text"
    runner.close()


def test_the_graph_write_lock_excludes_another_process(tmp_path: Path) -> None:
    path = tmp_path / "graph-write.lock"
    marker = tmp_path / "held"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from graphwright.server.job_store import GraphWriteLock\n"
            f"with GraphWriteLock(Path({str(path)!r})):\n"
            f"    Path({str(marker)!r}).write_text('held')\n"
            "    sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline and holder.poll() is None, "the other process never took the lock"
            time.sleep(0.05)
        acquired = threading.Event()

        def take() -> None:
            with GraphWriteLock(path):
                acquired.set()

        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        assert not acquired.wait(0.5), "taken while another process held it"
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.flush()
        assert acquired.wait(10), "never taken after the other process let go"
        thread.join(5)
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_never_leaves_the_graph_locked(tmp_path: Path) -> None:
    path = tmp_path / "graph-write.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom pathlib import Path\nfrom graphwright.server.job_store import GraphWriteLock\n"
            f"with GraphWriteLock(Path({str(path)!r})):\n    print('held', flush=True)\n    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    acquired = threading.Event()
    threading.Thread(target=lambda: GraphWriteLock(path).__enter__() and acquired.set(), daemon=True).start()
    assert acquired.wait(10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads have their own nice value on Linux")
def test_jobs_run_below_the_server_s_priority_and_leave_it_alone(tmp_path: Path) -> None:
    import os

    runner = JobRunner(tmp_path, niceness=7)
    job = runner.submit("ingest", lambda _p: {"nice": os.getpriority(os.PRIO_PROCESS, threading.get_native_id())})
    finished = _wait(runner, job.id)
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert finished.result == {"nice": min(19, mine + 7)}, "the job's thread is niced"
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine, "the serving thread is not"
    runner.close()


def _until(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def test_one_workspaces_long_job_never_holds_another_back(tmp_path: Path) -> None:
    """Issue 76, finding 4: alpha's long job runs; beta's job runs beside it and finishes first; alpha's second
    job waits for alpha's first (never two of one workspace at once)."""
    runner = JobRunner(tmp_path, lanes=2)
    release = threading.Event()
    started: list[str] = []

    def long(_p: Progress) -> dict:
        started.append("alpha-1")
        release.wait(20)
        return {}

    def quick(name: str):
        def work(_p: Progress) -> dict:
            started.append(name)
            return {}

        return work

    first = runner.submit("ingest", long, workspace="alpha")
    _until(lambda: started == ["alpha-1"])
    second = runner.submit("ingest", quick("alpha-2"), workspace="alpha")
    beta = runner.submit("ingest", quick("beta"), workspace="beta")
    _until(lambda: (runner.get(beta.id, "beta") or first).status == "succeeded")
    assert runner.get(second.id, "alpha").status == "queued", "two of one workspace at once"  # type: ignore[union-attr]
    release.set()
    _until(lambda: (runner.get(second.id, "alpha") or first).status == "succeeded")
    assert started == ["alpha-1", "beta", "alpha-2"]
    runner.close()


def test_with_one_lane_workspaces_take_turns(tmp_path: Path) -> None:
    runner = JobRunner(tmp_path, lanes=1, max_waiting=10)
    release = threading.Event()
    order: list[str] = []

    def job(name: str, wait: bool = False):
        def work(_p: Progress) -> dict:
            order.append(name)
            if wait:
                release.wait(20)
            return {}

        return work

    runner.submit("ingest", job("a1", wait=True), workspace="a")
    _until(lambda: order == ["a1"])
    jobs = [
        runner.submit("ingest", job("a2"), workspace="a"),
        runner.submit("ingest", job("a3"), workspace="a"),
        runner.submit("ingest", job("b1"), workspace="b"),
    ]
    release.set()
    for queued in jobs:
        _until(lambda queued=queued: (runner.get(queued.id, queued.workspace) or queued).status == "succeeded")
    assert order == ["a1", "b1", "a2", "a3"], "b waited behind all of a's queue"
    runner.close()


def test_caps_per_workspace_and_per_key(tmp_path: Path) -> None:
    runner = JobRunner(tmp_path, lanes=1, max_waiting=10, per_workspace=2, per_owner=3)
    release = threading.Event()

    def held(_p: Progress) -> dict:
        release.wait(20)
        return {}

    runner.submit("ingest", held, workspace="a", owner="key-1")
    runner.submit("ingest", held, workspace="a", owner="key-1")
    with pytest.raises(BusyError, match="GRAPHWRIGHT_MAX_QUEUED_JOBS_PER_WORKSPACE"):
        runner.submit("ingest", held, workspace="a", owner="key-2")
    runner.submit("ingest", held, workspace="b", owner="key-1")
    with pytest.raises(BusyError, match="GRAPHWRIGHT_MAX_QUEUED_JOBS_PER_KEY"):
        runner.submit("ingest", held, workspace="c", owner="key-1")
    assert runner.submit("ingest", held, workspace="c", owner="key-2").status == "queued"
    release.set()
    runner.close()


def test_close_interrupts_running_and_queued_jobs_and_keeps_them_resumable(tmp_path: Path) -> None:
    runner = JobRunner(tmp_path, lanes=1, stop_seconds=5)
    kept: list[str] = []
    reported = threading.Event()

    def endless(progress: Progress) -> dict:
        done = 0
        while True:  # a long ingest: it reports progress as it goes
            progress("load", done, 10**9)
            reported.set()
            done += 1
            time.sleep(0.01)

    running = runner.submit("ingest", endless, workspace="a", keep=lambda job: kept.append(job.id))
    queued = runner.submit("ingest", lambda _p: {}, workspace="a", keep=lambda job: kept.append(job.id))
    assert reported.wait(10)
    started = time.monotonic()
    runner.close()
    assert time.monotonic() - started < 5, "close waited for the job to end by itself"
    store = JobRunner(tmp_path)
    for job in (running, queued):
        found = store.get(job.id, "a")
        assert found is not None and found.status == "interrupted" and "stopped" in (found.error or "")
    assert sorted(kept) == sorted([running.id, queued.id])
    with pytest.raises(BusyError, match="shutting down"):
        runner.submit("ingest", lambda _p: {}, workspace="a")
