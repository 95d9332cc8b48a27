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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
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
_STOPPED = "the server stopped before this job finished"


class StageProgress(BaseModel):
    done: int = 0
    total: int = 0
    detail: str = ""


class Job(BaseModel):
    id: str
    kind: Literal["ingest", "communities", "sync"]
    workspace: str = "default"
    status: JobStatus = "queued"
    progress: dict[str, StageProgress] = Field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str | None = None
    created_at: float = Field(default_factory=time.time)
    owner: str = ""  # the fingerprint of the key that asked (server/fingerprints.py), for the per-key cap
    resumed_from: str | None = None  # the interrupted job this one runs again
    resumable: bool = False  # interrupted with its upload kept: POST /v1/jobs/<id>/resume
    started_at: float | None = None
    finished_at: float | None = None


_SAVE_EVERY = 0.5  # seconds between progress writes to the store; a stage's end is always written


class JobInterrupted(Exception):  # noqa: N818 - a stop, not an error of the job's
    """Raised in a job's thread at its next progress report once the server is stopping."""


class Progress:
    """The ProgressCallback a job's work reports through: kept in memory, saved to the store now and then; it
    stops the work (JobInterrupted) once the server is stopping."""

    def __init__(
        self, job: Job, lock: threading.Lock, save: Callable[[Job], None], stopping: threading.Event | None = None
    ) -> None:
        self.job, self.lock, self.save = job, lock, save
        self.stopping = stopping
        self._saved = 0.0

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None:
        if self.stopping is not None and self.stopping.is_set():
            raise JobInterrupted
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


@dataclass
class _Task:
    job: Job
    work: Work
    cleanup: Callable[[], None] | None
    keep: Callable[[Job], None] | None  # what an interrupted job keeps to be resumed (its upload)
    abandoned: bool = False  # still running when the server stopped waiting: recorded as interrupted then


class JobRunner:
    """Runs this process's jobs fairly: up to `lanes` at once, never two of one workspace, the next chosen from
    the workspace that started one least recently (one workspace's long job never holds another's back). At
    most `max_waiting` jobs queued or running across every process sharing the store, `per_workspace` of one
    workspace and `per_owner` of one key (more are refused with a BusyError, not queued without end). Keeps the
    last `keep` finished jobs to be asked about. `close` stops the running jobs at their next progress report
    (interrupted, resumable) and returns within `stop_seconds`."""

    def __init__(
        self,
        home: Path,
        keep: int = 200,
        max_waiting: int = 8,
        niceness: int = 0,
        *,
        lanes: int = 2,
        per_workspace: int | None = None,
        per_owner: int | None = None,
        stop_seconds: float = 3.0,
    ) -> None:
        self._max_waiting = max_waiting
        self._per_workspace = per_workspace or max_waiting
        self._per_owner = per_owner or max_waiting
        self._lanes = max(1, lanes)
        self._niceness = niceness
        self._stop_seconds = stop_seconds
        self._store = JobStore(home / "server" / "jobs.sqlite3")
        self._running: dict[str, Job] = {}  # this process's unfinished jobs, fresher than their stored copy
        self._lock = threading.Lock()
        self._keep = keep
        self._pending: dict[str, deque[_Task]] = {}  # queued here, by workspace
        self._busy: set[str] = set()  # workspaces with a job running here
        self._turn = 0
        self._last_turn: dict[str, int] = {}  # when each workspace last started a job (fair turns)
        self._threads: list[threading.Thread] = []
        self._active: dict[str, _Task] = {}  # running here, by job id
        self.stopping = threading.Event()
        self._lock_dir = home / "server"
        self._locks: dict[str, GraphWriteLock] = {}

    def write_lock(self, workspace: str) -> GraphWriteLock:
        """Held while a workspace's graph is written (jobs, deletes, curation), so two writers of one workspace
        never interleave, whichever worker process they run in; writers of different workspaces do not wait
        for each other (their nodes, labels and indexes are disjoint)."""
        with self._lock:
            found = self._locks.get(workspace)
            if found is None:
                name = "graph-write.lock" if workspace == "default" else f"graph-write-{workspace}.lock"
                found = self._locks[workspace] = GraphWriteLock(self._lock_dir / name)
            return found

    def _save(self, job: Job) -> None:
        self._store.put(job.id, job.status, job.created_at, job.model_dump_json())

    def submit(
        self,
        kind: Literal["ingest", "communities", "sync"],
        work: Work,
        cleanup: Callable[[], None] | None = None,
        workspace: str = "default",
        *,
        owner: str = "",
        keep: Callable[[Job], None] | None = None,
        resumed_from: str | None = None,
        job_id: str | None = None,
    ) -> Job:
        """Queue `work` as a job (`job_id`: one the caller chose, to name it before it is queued)."""
        if self.stopping.is_set():
            raise BusyError("the server is shutting down; try again when it is back", retry_after=10)
        job = Job(id=job_id or uuid.uuid4().hex, kind=kind, workspace=workspace, owner=owner, resumed_from=resumed_from)
        with self._lock:  # one submit at a time here; other workers may race past the counts by one each
            self._check_room(workspace, owner)
            self._running[job.id] = job
            self._save(job)
            queued = job.model_copy(deep=True)  # as submitted: a free lane may start it before we return
            self._pending.setdefault(workspace, deque()).append(_Task(job, work, cleanup, keep))
            self._dispatch()
        self._store.trim(self._keep)
        return queued

    def _check_room(self, workspace: str, owner: str) -> None:
        waiting = [Job.model_validate_json(body) for body in self._store.waiting_bodies()]
        if len(waiting) >= self._max_waiting:
            raise BusyError(
                f"{len(waiting)} jobs are queued or running, the most this server takes "
                "(GRAPHWRIGHT_MAX_QUEUED_JOBS); try again when one has finished",
                retry_after=10,
            )
        if sum(1 for j in waiting if j.workspace == workspace) >= self._per_workspace:
            raise BusyError(
                f"this workspace has {self._per_workspace} jobs queued or running, the most one workspace may "
                "(GRAPHWRIGHT_MAX_QUEUED_JOBS_PER_WORKSPACE); try again when one has finished",
                retry_after=10,
            )
        if owner and sum(1 for j in waiting if j.owner == owner) >= self._per_owner:
            raise BusyError(
                f"this API key has {self._per_owner} jobs queued or running, the most one key may "
                "(GRAPHWRIGHT_MAX_QUEUED_JOBS_PER_KEY); try again when one has finished",
                retry_after=10,
            )

    def _dispatch(self) -> None:
        """Start queued jobs while lanes are free (called with the lock held)."""
        while len(self._busy) < self._lanes and not self.stopping.is_set():
            ready = [w for w, tasks in self._pending.items() if tasks and w not in self._busy]
            if not ready:
                return
            workspace = min(ready, key=lambda w: (self._last_turn.get(w, -1), self._pending[w][0].job.created_at))
            task = self._pending[workspace].popleft()
            self._busy.add(workspace)
            self._turn += 1
            self._last_turn[workspace] = self._turn
            thread = threading.Thread(
                target=self._lane, args=(workspace, task), name="graphwright-job", daemon=True
            )  # daemon: a job stuck in a call never keeps a stopping server alive (it is interrupted, resumable)
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    def _lane(self, workspace: str, task: _Task) -> None:
        lower_priority(self._niceness)
        try:
            self._run(task)
        finally:
            with self._lock:
                self._busy.discard(workspace)
                self._dispatch()

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

    def mark_interrupted(self, keep: Callable[[Job], None] | None = None) -> int:
        """Record the jobs whose process has gone as interrupted (at a server's start), each offered to `keep`
        (which saves what resuming it needs); how many."""
        orphans = self._store.orphans()
        for row in orphans:
            job = _stored(*row)
            job.finished_at = job.finished_at or time.time()
            if keep is not None:
                keep(job)
            self._save(job)
        if orphans:
            log.info("%d job(s) were interrupted by the exit of their server process", len(orphans))
        return len(orphans)

    def _run(self, task: _Task) -> None:
        job, work = task.job, task.work
        with self._lock:
            self._active[job.id] = task
            job.status, job.started_at = "running", time.time()
            snapshot = job.model_copy(deep=True)
        self._save(snapshot)
        interrupted = False
        try:
            result = work(Progress(job, self._lock, self._save, self.stopping))
            with self._lock:
                job.result, job.status = result, "failed" if job.error else "succeeded"
        except JobInterrupted:
            interrupted = True
            log.warning("%s job %s interrupted: the server is stopping", job.kind, job.id)
            with self._lock:
                job.status, job.error = "interrupted", _STOPPED
        except GraphwrightError as exc:
            log.warning("%s job %s failed: %s", job.kind, job.id, exc)
            with self._lock:
                job.error, job.status = str(exc), "failed"
        except Exception:
            log.exception("%s job %s failed unexpectedly", job.kind, job.id)
            with self._lock:
                job.error, job.status = "internal error (see the server log)", "failed"
        finally:
            self._finish(task, interrupted)

    def _finish(self, task: _Task, interrupted: bool) -> None:
        job = task.job
        with self._lock:
            self._active.pop(job.id, None)
            abandoned = task.abandoned
        if abandoned:  # close() recorded it as interrupted and kept its upload
            return
        if interrupted and task.keep is not None:
            task.keep(job)  # the upload moves where resuming finds it; cleanup then has nothing to remove
        with self._lock:
            job.finished_at = time.time()
            snapshot = job.model_copy(deep=True)
        self._save(snapshot)
        with self._lock:
            self._running.pop(job.id, None)
        if task.cleanup is not None:
            task.cleanup()

    def _interrupt(self, task: _Task) -> None:
        """Record a job the server stops before it ends (queued, or stuck in a call) as interrupted, its upload
        kept for resuming."""
        task.job.status, task.job.error, task.job.finished_at = "interrupted", _STOPPED, time.time()
        if task.keep is not None:
            task.keep(task.job)
        self._save(task.job)

    def close(self) -> None:
        """Stop: queued jobs are interrupted (resumable) without running, running ones at their next progress
        report; waits at most `stop_seconds` for them to say so."""
        self.stopping.set()
        with self._lock:
            queued = [task for tasks in self._pending.values() for task in tasks]
            self._pending.clear()
            threads = list(self._threads)
        for task in queued:
            self._interrupt(task)
            with self._lock:
                self._running.pop(task.job.id, None)
            if task.cleanup is not None:
                task.cleanup()
        deadline = time.monotonic() + self._stop_seconds
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            stuck = list(self._active.values())
            for task in stuck:
                task.abandoned = True
        for task in stuck:  # in a call that reports no progress (a file being read): recorded as interrupted
            self._interrupt(task)
        still = [t for t in threads if t.is_alive()]
        if still:
            log.warning(
                "%d job(s) did not stop within %g s; they are recorded as interrupted", len(still), self._stop_seconds
            )
