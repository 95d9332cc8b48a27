"""Background jobs of the server (ingest, community builds): one at a time, in a worker thread, so
searches keep being answered while the graph is written. Each job reports its progress by stage."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphwright.errors import BusyError, GraphwrightError

log = logging.getLogger(__name__)

JobStatus = Literal["queued", "running", "succeeded", "failed"]


class StageProgress(BaseModel):
    done: int = 0
    total: int = 0
    detail: str = ""


class Job(BaseModel):
    id: str
    kind: Literal["ingest", "communities"]
    status: JobStatus = "queued"
    progress: dict[str, StageProgress] = Field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str | None = None
    created_at: float = Field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None


class Progress:
    """The ProgressCallback a job's work reports through."""

    def __init__(self, job: Job, lock: threading.Lock) -> None:
        self.job, self.lock = job, lock

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None:
        with self.lock:
            self.job.progress[stage] = StageProgress(done=done, total=total, detail=detail)


Work = Callable[[Progress], dict[str, Any]]


class JobRunner:
    """Runs jobs one after another, at most `max_waiting` queued or running at once (more are refused with a
    BusyError, not queued without end); keeps the last `keep` jobs to be asked about."""

    def __init__(self, keep: int = 200, max_waiting: int = 8) -> None:
        self._max_waiting = max_waiting
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphwright-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._keep = keep
        # Held while the graph is written (jobs, deletes), so two writers never interleave their updates.
        self.write_lock = threading.Lock()

    def submit(
        self, kind: Literal["ingest", "communities"], work: Work, cleanup: Callable[[], None] | None = None
    ) -> Job:
        job = Job(id=uuid.uuid4().hex, kind=kind)
        with self._lock:
            waiting = sum(1 for j in self._jobs.values() if j.status in ("queued", "running"))
            if waiting >= self._max_waiting:
                raise BusyError(
                    f"{waiting} jobs are queued or running, the most this server takes "
                    "(GRAPHWRIGHT_MAX_QUEUED_JOBS); try again when one has finished",
                    retry_after=10,
                )
            self._jobs[job.id] = job
            while len(self._jobs) > self._keep:
                self._jobs.popitem(last=False)
        self._pool.submit(self._run, job, work, cleanup)
        return job.model_copy(deep=True)

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return job.model_copy(deep=True) if job else None

    def _run(self, job: Job, work: Work, cleanup: Callable[[], None] | None) -> None:
        with self._lock:
            job.status, job.started_at = "running", time.time()
        try:
            result = work(Progress(job, self._lock))
            with self._lock:
                job.result, job.status = result, "succeeded"
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
            if cleanup is not None:
                cleanup()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
