"""What the routes share: the graph, the job runner and the settings, in one object per app (no globals)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphwright.models import SearchResult
from graphwright.search.options import SearchOptions
from graphwright.server.job_store import process_alive
from graphwright.server.jobs import Job, JobRunner, Progress
from graphwright.server.kept_uploads import FAILED_DIR, NOTE_FILE, inside, keep_failed, kept, release
from graphwright.server.schemas import ServedResult
from graphwright.server.security import KeyRing

if TYPE_CHECKING:
    from collections.abc import Iterator

    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.models import SearchEvent
    from graphwright.server.callers import Caller

log = logging.getLogger(__name__)
_PROCESS_PREFIX = "server-"
_INTERRUPTED_DIR = "interrupted"  # uploads of interrupted ingests, by job id, until resumed


class Server:
    """What the routes share: the graph, the job runner and the settings. One per app, no globals."""

    def __init__(self, rag: GraphRAG, settings: Settings) -> None:
        self.rag = rag  # the server's own workspace (GRAPHWRIGHT_WORKSPACE): where unprefixed requests go
        self.settings = settings
        self.keyed = KeyRing.from_settings(settings).enabled  # keys set: every search needs a caller with one
        self._graphs: dict[str, GraphRAG] = {rag.workspace: rag}
        self._graphs_lock = threading.Lock()
        self.jobs = JobRunner(
            settings.home,
            max_waiting=settings.max_queued_jobs,
            niceness=settings.job_niceness,
            lanes=settings.max_parallel_jobs,
            per_workspace=settings.max_queued_jobs_per_workspace,
            per_owner=settings.max_queued_jobs_per_key,
        )
        # Each server process saves uploads under a folder of its own, so one process's sweep never takes
        # another's files.
        self.uploads_root = settings.home / "uploads"
        self.uploads = self.uploads_root / f"{_PROCESS_PREFIX}{os.getpid()}"

    def graph(self, workspace: str) -> GraphRAG:
        """The warm GraphRAG of a workspace (one driver and embedder for all); NotFoundError for one that does
        not exist, checked on every request so a workspace deleted through another worker is gone here too."""
        if workspace != self.rag.workspace:
            self.rag.store.workspaces.get(workspace)
        with self._graphs_lock:
            found = self._graphs.get(workspace)
            if found is None:
                found = self._graphs[workspace] = self.rag.in_workspace(workspace)
        return found

    def search(self, question: str, options: SearchOptions | None = None, *, caller: Caller) -> SearchResult:
        """The one way a route searches: in the caller's workspace, as the caller (tenant, key, limits)."""
        return self._graph_for(caller).search(question, options, owner=caller.owner)

    def search_stream(
        self, question: str, options: SearchOptions | None = None, *, caller: Caller
    ) -> Iterator[SearchEvent]:
        """`search` as it happens (GraphRAG.search_stream), as the caller."""
        return self._graph_for(caller).search_stream(question, options, owner=caller.owner)

    def _graph_for(self, caller: Caller) -> GraphRAG:
        """The caller's workspace, checked again here so a route that skipped the guard's check still cannot
        search a workspace its key does not read, nor search anonymously on a server with keys."""
        from graphwright.errors import NotFoundError

        if not caller.grant.sees(caller.workspace) or (self.keyed and not caller.owner.name):
            raise NotFoundError(f"no workspace named {caller.workspace!r}")
        return self.graph(caller.workspace)

    def forget(self, workspace: str) -> None:
        with self._graphs_lock:
            if workspace != self.rag.workspace:
                self._graphs.pop(workspace, None)

    def served(self, result: SearchResult, workspace: str = "default") -> ServedResult:
        from graphwright.answer_graph import browser_base, browser_url, evidence_browser_query

        cypher = evidence_browser_query(result, workspace)
        url = browser_url(browser_base(self.settings.neo4j_uri, self.settings.http_port), cypher)
        return ServedResult(**result.model_dump(), browser_url=url, browser_cypher=cypher)

    def ingest_job(
        self,
        folder: Path,
        extractor: str | None,
        workspace: str = "default",
        *,
        owner: str = "",
        resumed_from: str | None = None,
    ) -> Job:
        """An upload's ingest as a job. What resuming it needs is written beside its files (a hidden file the
        ingest skips), so a job stopped by a shutdown, or by a crash, can run again from its upload."""
        rag = self.graph(workspace)
        job_id = uuid.uuid4().hex  # named before it is queued: it may run and finish before submit returns
        (folder / NOTE_FILE).write_text(json.dumps({"extractor": extractor, "job": job_id}), encoding="utf-8")

        def work(progress: Progress) -> dict[str, Any]:
            with self.jobs.write_lock(workspace):
                # Named by their upload names: where the server saved them means nothing to a client.
                report = rag.ingest(
                    [folder], base=folder, extractor=extractor, progress=progress, relative_sources=True
                )
            # the files that failed are kept for the documents table's retry; those that went in need no copy
            failed = {failure.source for failure in report.failures}
            uploaded = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
            release(self.uploads_root, workspace, uploaded - failed)
            keep_failed(self.uploads_root, workspace, folder, failed, extractor)
            if report.found_nothing:
                progress.fail("nothing to ingest: no file of a supported type")
            elif report.failures and not (report.documents_written or report.documents_unchanged):
                progress.fail(f"every file failed ({len(report.failures)}): {report.failures[0].error}")
            return report.model_dump(mode="json")

        return self.jobs.submit(
            "ingest",
            work,
            cleanup=lambda: shutil.rmtree(folder, ignore_errors=True),
            workspace=workspace,
            owner=owner,
            keep=lambda job: self._keep_upload(job, folder),
            resumed_from=resumed_from,
            job_id=job_id,
        )

    def keep_orphan_upload(self, job: Job) -> None:
        """At a start: the upload of an ingest whose server process died (a crash, a kill), kept for resume."""
        for meta in self.uploads_root.glob(f"{_PROCESS_PREFIX}*/*/{NOTE_FILE}"):
            try:
                found = json.loads(meta.read_text(encoding="utf-8")).get("job")
            except (OSError, ValueError):
                continue
            if found == job.id:
                self._keep_upload(job, meta.parent)
                return

    @property
    def interrupted_root(self) -> Path:
        return self.uploads_root / _INTERRUPTED_DIR

    def _keep_upload(self, job: Job, folder: Path) -> None:
        """An interrupted ingest's upload, moved where `resume` finds it by the job's id."""
        if job.kind != "ingest" or not folder.is_dir():
            return
        self.interrupted_root.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            os.replace(folder, self.interrupted_root / job.id)
        except OSError as exc:
            log.warning("the upload of interrupted job %s could not be kept: %s", job.id, exc)
            return
        job.resumable = True
        job.error = f"{job.error or 'interrupted'}; POST /v1/jobs/{job.id}/resume runs it again"

    def resume_job(self, job_id: str, caller: Caller) -> Job:
        """Run an interrupted ingest again from its kept upload (what it wrote before stays; unchanged files
        are skipped by their hash). NotFoundError for another workspace's job or none."""
        from graphwright.errors import InvalidRequestError, NotFoundError

        job = self.jobs.get(job_id, caller.workspace)
        if job is None or not caller.grant.sees(caller.workspace):
            raise NotFoundError(f"no job {job_id!r}")
        kept = self.interrupted_root / job.id
        if job.status != "interrupted" or not job.resumable or not kept.is_dir():
            raise InvalidRequestError(f"job {job_id!r} is not an interrupted ingest with its upload kept")
        meta = json.loads((kept / NOTE_FILE).read_text(encoding="utf-8"))
        folder = self.new_upload_folder()
        os.replace(kept, folder / "files")
        try:
            return self.ingest_job(
                folder / "files", meta.get("extractor"), job.workspace, owner=caller.owner.name, resumed_from=job.id
            )
        except BaseException:
            os.replace(folder / "files", kept)  # a full queue: keep it for a later try
            raise

    def retry_document(self, record_id: str, caller: Caller) -> Job:
        """Ingest a row of the documents table again from what the server kept of it: a failed file's upload,
        or the upload of the interrupted job that staged a document. NotFoundError when nothing is kept."""
        from graphwright.errors import NotFoundError

        workspace = caller.workspace
        found = kept(self.uploads_root, workspace, record_id)
        if found is not None:
            source_folder, extractor = found
            folder = self.new_upload_folder()
            files = folder / "files"
            shutil.copytree(source_folder, files)  # the kept copy stays until the retry's ingest reads it
            return self.ingest_job(files, extractor, workspace, owner=caller.owner.name)
        for job_folder in sorted(self.interrupted_root.glob("*")) if self.interrupted_root.is_dir() else []:
            if (file := inside(job_folder, record_id)) is not None and file.is_file():
                return self.resume_job(job_folder.name, caller)
        raise NotFoundError(f"nothing of {record_id!r} is kept on the server to retry: upload it again")

    def forget_kept(self, workspace: str, record_id: str) -> None:
        """A deleted row's kept upload goes with it."""
        release(self.uploads_root, workspace, [record_id])

    def sweep_uploads(self) -> int:
        """Remove the upload folders a crash or a shutdown left behind: this process's own (at start and at
        shutdown nothing of it is in use), those of server processes no longer running and those of no
        process (older versions). Another running server's folder is left alone. Returns how many went."""
        if not self.uploads_root.is_dir():
            return 0
        removed = 0
        for folder in self.uploads_root.iterdir():
            if folder.name in (_INTERRUPTED_DIR, FAILED_DIR):
                continue
            pid_text = folder.name.removeprefix(_PROCESS_PREFIX)
            if (
                folder != self.uploads
                and folder.name.startswith(_PROCESS_PREFIX)
                and pid_text.isdigit()
                and process_alive(int(pid_text))
            ):
                continue
            shutil.rmtree(folder, ignore_errors=True) if folder.is_dir() else folder.unlink(missing_ok=True)
            removed += 1
        if removed:
            log.info("removed %d upload folder(s) left behind", removed)
        return removed

    def new_upload_folder(self) -> Path:
        self.uploads.mkdir(parents=True, exist_ok=True, mode=0o700)
        return Path(tempfile.mkdtemp(prefix=f"{uuid.uuid4().hex[:8]}-", dir=self.uploads))
