"""Background jobs of the server (ingest, community builds): in a worker thread, so searches keep being
answered while the graph is written, and one writer at a time across every worker process (the graph write
lock). Jobs are kept in the server's job store, so any worker answers for any job, and a restarted server
still knows the jobs it finished. Each job reports its progress by stage."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphwright.errors import BusyError, GraphwrightError
from graphwright.server.job_store import GraphWriteLock, JobStore, orphaned

log = logging.getLogger(__name__)

# `interrupted`: the server process running it exited (a restart, a crash) before it finished; its upload
# folder is removed when a server starts.
JobStatus = Literal["queued", "running", "succeeded", "failed", "interrupted"]
_INTERRUPTED = "the server process running this job exited before it finished"


class StageProgress(BaseModel):
    done: int = 0
    total: int = 0
    detail: str = ""


class Job(BaseModel):
    id: str
    kind: Literal["ingest", "communities"]
    workspace: str = "default"
    status: JobStatus = "queued"
    progress: dict[str, StageProgress] = Field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str | None = None
    created_at: float = Field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None


_SAVE_EVERY = 0.5  # seconds between progress writes to the store; a stage's end is always written


class Progress:
    """The ProgressCallback a job's work reports through: kept in memory, saved to the store now and then."""

    def __init__(self, job: Job, lock: threading.Lock, save: Callable[[Job], None]) -> None:
        self.job, self.lock, self.save = job, lock, save
        self._saved = 0.0

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None:
        now = time.monotonic()
        with self.lock:
            self.job.progress[stage] = StageProgress(done=done, total=total, detail=detail)
            due = done >= total or now - self._saved >= _SAVE_EVERY
            if due:
                self._saved = now
                snapshot = self.job.model_copy(deep=True)
        if due:
            self.save(snapshot)

    def fail(self, error: str) -> None:
        """The work ran but did not do what was asked (every file failed): the job ends `failed`, its result
        kept beside the error."""
        with self.lock:
            self.job.error = error


Work = Callable[[Progress], dict[str, Any]]


def lower_priority(niceness: int) -> None:
    """Give the calling thread, and the threads it starts (the embedder's streams), `niceness` more than
    it has. Linux schedules threads, so the priority is this thread's, not the server's; elsewhere the
    call has no thread to name and the job runs at the server's priority."""
    if niceness <= 0 or not sys.platform.startswith("linux"):  # elsewhere a thread id is no process id
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + niceness))
    except OSError as exc:  # a sandbox that forbids it: the job runs at the server's priority
        log.info("background jobs run at the server's priority (%s)", exc)


def _stored(status: str, pid: int, body: str) -> Job:
    job = Job.model_validate_json(body)
    if orphaned(status, pid):  # its process has gone, and no server has started since to say so
        job.status, job.error = "interrupted", _INTERRUPTED
    return job


class JobRunner:
    """Runs this process's jobs one after another, at most `max_waiting` queued or running at once across
    every process sharing the store (more are refused with a BusyError, not queued without end); keeps the
    last `keep` finished jobs to be asked about."""

    def __init__(self, home: Path, keep: int = 200, max_waiting: int = 8, niceness: int = 0) -> None:
        self._max_waiting = max_waiting
        self._pool = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="graphwright-job", initializer=lower_priority, initargs=(niceness,)
        )
        self._store = JobStore(home / "server" / "jobs.sqlite3")
        self._running: dict[str, Job] = {}  # this process's unfinished jobs, fresher than their stored copy
        self._lock = threading.Lock()
        self._keep = keep
        # Held while the graph is written (jobs, deletes), so two writers never interleave their updates,
        # whichever worker process they run in.
        self.write_lock = GraphWriteLock(home / "server" / "graph-write.lock")

    def _save(self, job: Job) -> None:
        self._store.put(job.id, job.status, job.created_at, job.model_dump_json())

    def submit(
        self,
        kind: Literal["ingest", "communities"],
        work: Work,
        cleanup: Callable[[], None] | None = None,
        workspace: str = "default",
    ) -> Job:
        job = Job(id=uuid.uuid4().hex, kind=kind, workspace=workspace)
        with self._lock:  # one submit at a time here; other workers may race past the count by one each
            waiting = self._store.waiting()
            if waiting >= self._max_waiting:
                raise BusyError(
                    f"{waiting} jobs are queued or running, the most this server takes "
                    "(GRAPHWRIGHT_MAX_QUEUED_JOBS); try again when one has finished",
                    retry_after=10,
                )
            self._running[job.id] = job
            self._save(job)
        self._store.trim(self._keep)
        self._pool.submit(self._run, job, work, cleanup)
        return job.model_copy(deep=True)

    def get(self, job_id: str, workspace: str = "default") -> Job | None:
        """A job of `workspace` (another workspace's job is not found, the same as none)."""
        with self._lock:
            job = self._running.get(job_id)
            if job is not None:
                return job.model_copy(deep=True) if job.workspace == workspace else None
        found = self._store.get(job_id)
        stored = _stored(*found) if found is not None else None
        return stored if stored is not None and stored.workspace == workspace else None

    def recent(self, limit: int = 100, workspace: str = "default") -> list[Job]:
        """The newest jobs of `workspace` from every worker, newest first; this process's unfinished ones as
        they are now."""
        with self._lock:
            live = {i: j.model_copy(deep=True) for i, j in self._running.items()}
        jobs = [_stored(*row) for row in self._store.recent(self._keep)]
        return [live.get(job.id, job) for job in jobs if job.workspace == workspace][:limit]

    def mark_interrupted(self) -> int:
        """Record the jobs whose process has gone as interrupted (at a server's start); how many."""
        orphans = self._store.orphans()
        for row in orphans:
            job = _stored(*row)
            job.finished_at = job.finished_at or time.time()
            self._save(job)
        if orphans:
            log.info("%d job(s) were interrupted by the exit of their server process", len(orphans))
        return len(orphans)

    def _run(self, job: Job, work: Work, cleanup: Callable[[], None] | None) -> None:
        with self._lock:
            job.status, job.started_at = "running", time.time()
            snapshot = job.model_copy(deep=True)
        self._save(snapshot)
        try:
            result = work(Progress(job, self._lock, self._save))
            with self._lock:
                job.result, job.status = result, "failed" if job.error else "succeeded"
        except GraphwrightError as exc:
            log.warning("%s job %s failed: %s", job.kind, job.id, exc)
            with self._lock:
                job.error, job.status = str(exc), "failed"
        except Exception:
            log.exception("%s job %s failed unexpectedly", job.kind, job.id)
            with self._lock:
                job.error, job.status = "internal error (see the server log)", "failed"
        finally:
            with self._lock:
                job.finished_at = time.time()
                snapshot = job.model_copy(deep=True)
            self._save(snapshot)
            with self._lock:
                self._running.pop(job.id, None)
            if cleanup is not None:
                cleanup()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        with self._lock:  # cancelled before they ran: say so, rather than queued for ever
            cancelled = [j for j in self._running.values() if j.status == "queued"]
        for job in cancelled:
            job.status, job.error, job.finished_at = "failed", "cancelled: the server shut down", time.time()
            self._save(job)
