"""Where the server's jobs live, so every worker process of `graphwright serve --workers N` sees every job:
one SQLite file under the graphwright home (stdlib; each call opens its own short connection, so threads and
processes share it safely), and the lock that lets one process at a time write the graph."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  pid INTEGER NOT NULL,
  created REAL NOT NULL,
  body TEXT NOT NULL
)
"""
_WAITING = ("queued", "running")


def orphaned(status: str, pid: int) -> bool:
    """Whether a stored job is queued or running in a process that no longer exists."""
    return status in _WAITING and not process_alive(pid)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        # PermissionError: the pid is another user's process now, so not the one that was recorded
        return False
    return True


class JobStore:
    """Jobs as JSON rows keyed by id, with the pid of the process that runs each: a job whose process has
    gone (killed, crashed, restarted) reads as failed instead of running for ever."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the job writing its progress
            db.execute(_SCHEMA)
        path.chmod(0o600)  # jobs name uploaded files and their errors: owner-only, whatever the umask

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    def put(self, job_id: str, status: str, created: float, body: str, pid: int | None = None) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO jobs (id, status, pid, created, body) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET status = excluded.status, body = excluded.body",
                (job_id, status, pid or os.getpid(), created, body),
            )

    def get(self, job_id: str) -> tuple[str, int, str] | None:
        """(status, pid, body) of a job, or None."""
        with self._connect() as db:
            row = db.execute("SELECT status, pid, body FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return (str(row[0]), int(row[1]), str(row[2])) if row else None

    def recent(self, limit: int) -> list[tuple[str, int, str]]:
        """(status, pid, body) of the newest `limit` jobs, newest first."""
        with self._connect() as db:
            rows = db.execute("SELECT status, pid, body FROM jobs ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    def orphans(self) -> list[tuple[str, int, str]]:
        """(status, pid, body) of jobs queued or running in processes that no longer exist."""
        with self._connect() as db:
            rows = db.execute("SELECT status, pid, body FROM jobs WHERE status IN (?, ?)", _WAITING).fetchall()
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows if not process_alive(int(r[1]))]

    def waiting(self) -> int:
        """Jobs queued or running in live processes, across every worker."""
        return len(self.waiting_bodies())

    def waiting_bodies(self) -> list[str]:
        """The bodies of the jobs queued or running in live processes, across every worker."""
        with self._connect() as db:
            rows = db.execute("SELECT pid, body FROM jobs WHERE status IN (?, ?)", _WAITING).fetchall()
        return [str(body) for pid, body in rows if process_alive(int(pid))]

    def trim(self, keep: int) -> None:
        """Forget all but the newest `keep` finished jobs."""
        with self._connect() as db:
            db.execute(
                "DELETE FROM jobs WHERE status NOT IN (?, ?) AND id NOT IN "
                "(SELECT id FROM jobs ORDER BY created DESC LIMIT ?)",
                (*_WAITING, keep),
            )


class GraphWriteLock:
    """Held while the graph is written (jobs, deletes), by one thread of one process at a time: a thread lock
    for this process's threads and an exclusive `flock` on a file for the other worker processes (the kernel
    drops it if the holder dies, so a crash never leaves the graph locked)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._threads = threading.Lock()
        self._file: int | None = None

    def __enter__(self) -> GraphWriteLock:
        self._threads.acquire()
        handle = -1
        try:
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(handle, fcntl.LOCK_EX)
        except BaseException:
            if handle >= 0:
                os.close(handle)
            self._threads.release()
            raise
        self._file = handle
        return self

    def __exit__(self, *exc: object) -> None:
        handle, self._file = self._file, None
        if handle is not None:
            fcntl.flock(handle, fcntl.LOCK_UN)
            os.close(handle)
        self._threads.release()
