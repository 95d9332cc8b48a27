"""The sources a workspace keeps in step with, as the server serves them: their list, a sync of one now as a
job (only of a source already recorded: a request cannot make the server read a new path or URL), and the
folders `serve` watches (GRAPHWRIGHT_WATCH), each sync under the workspace's write lock like any ingest."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from graphwright.errors import NotFoundError

if TYPE_CHECKING:
    from pathlib import Path

    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.models import SyncReport
    from graphwright.server.callers import Caller
    from graphwright.server.jobs import Job, JobRunner, Progress

log = logging.getLogger(__name__)


def sync_job(rag: GraphRAG, jobs: JobRunner, source_id: str, caller: Caller) -> Job:
    """A recorded source synced now, as a job; NotFoundError for a source this workspace does not have."""
    if rag.store.sources.get(source_id) is None:
        raise NotFoundError(f"no source {source_id!r} in this workspace")
    workspace = caller.workspace

    def work(progress: Progress) -> dict[str, Any]:
        with jobs.write_lock(workspace):
            report = rag.sync(source_id, progress=progress)
        return report.model_dump(mode="json")

    return jobs.submit("sync", work, workspace=workspace, owner=caller.owner.name)


class _Locked:
    """A GraphRAG whose syncs take the workspace's write lock (what a watcher is handed)."""

    def __init__(self, rag: GraphRAG, jobs: JobRunner) -> None:
        self.rag = rag
        self.jobs = jobs
        self.settings: Settings = rag.settings

    def sync(self, location: str | Path, *, glob: str | None = None, extractor: str | None = None) -> SyncReport:
        with self.jobs.write_lock(self.rag.workspace):
            return self.rag.sync(location, glob=glob, extractor=extractor)


def start_watchers(rag: GraphRAG, jobs: JobRunner, stop: threading.Event) -> threading.Thread | None:
    """A thread keeping the served workspace in step with GRAPHWRIGHT_WATCH's folders until `stop` is set."""
    folders = [f for f in rag.settings.watch.split(os.pathsep) if f.strip()]
    if not folders:
        return None
    from graphwright.api.watch import watch_folders

    def said(report: SyncReport) -> None:
        if report.touched or report.failures:
            log.info(
                "synced %s: %d added, %d changed, %d removed, %d failed",
                report.source,
                len(report.added),
                len(report.changed),
                len(report.removed),
                len(report.failures),
            )

    def failed(folder: str, error: Exception) -> None:
        log.warning("watched folder %s: %s", folder, error)

    def run() -> None:
        try:
            watch_folders(_Locked(rag, jobs), folders, on_sync=said, on_error=failed, stop=stop)
        except Exception:  # a watcher must never take the server down; say why it stopped
            log.exception("watching %s stopped", ", ".join(folders))

    thread = threading.Thread(target=run, name="graphwright-watch", daemon=True)
    thread.start()
    log.info("watching %s", ", ".join(folders))
    return thread
