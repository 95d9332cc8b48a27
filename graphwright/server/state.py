"""What the routes share: the graph, the job runner and the settings, in one object per app (no globals)."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphwright.models import SearchResult
from graphwright.server.jobs import Job, JobRunner, Progress
from graphwright.server.schemas import ServedResult

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings


class Server:
    """What the routes share: the graph, the job runner and the settings. One per app, no globals."""

    def __init__(self, rag: GraphRAG, settings: Settings) -> None:
        self.rag = rag
        self.settings = settings
        self.jobs = JobRunner()
        self.uploads = settings.home / "uploads"

    def served(self, result: SearchResult) -> ServedResult:
        from graphwright.answer_graph import browser_base, browser_url, evidence_browser_query

        cypher = evidence_browser_query(result)
        url = browser_url(browser_base(self.settings.neo4j_uri, self.settings.http_port), cypher)
        return ServedResult(**result.model_dump(), browser_url=url, browser_cypher=cypher)

    def ingest_job(self, folder: Path, extractor: str | None) -> Job:
        def work(progress: Progress) -> dict[str, Any]:
            with self.jobs.write_lock:
                # Named by their upload names: where the server saved them means nothing to a client.
                report = self.rag.ingest([folder], base=folder, extractor=extractor, progress=progress,
                                         relative_sources=True)
            return report.model_dump(mode="json")

        return self.jobs.submit("ingest", work, cleanup=lambda: shutil.rmtree(folder, ignore_errors=True))

    def new_upload_folder(self) -> Path:
        self.uploads.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{uuid.uuid4().hex[:8]}-", dir=self.uploads))
