"""The sources routes: the folders, web sites and buckets a workspace keeps in step with, and a sync of one
now, as a job (server/sources.py)."""

from __future__ import annotations

from fastapi import FastAPI, Request

from graphwright.server.jobs import Job
from graphwright.server.requests import caller_of, graph_of
from graphwright.server.schemas import SourceInfo, SyncRequest
from graphwright.server.sources import sync_job
from graphwright.server.state import Server


def add_source_routes(app: FastAPI, server: Server) -> None:
    @app.get("/v1/sources", response_model=list[SourceInfo], tags=["documents"])
    def sources(request: Request) -> list[SourceInfo]:
        """The folders, web sites and buckets the workspace keeps in step with (added by `graphwright sync`
        or `watch`), each with its last sync: when, what it added, changed and removed, or why it failed."""
        return [SourceInfo.model_validate(r.summary()) for r in graph_of(server, request).sources()]

    @app.post("/v1/sources/sync", status_code=202, response_model=Job, tags=["documents"])
    def sync_source(body: SyncRequest, request: Request) -> Job:
        """Sync a recorded source now, as a job (follow it at /v1/jobs/{id}): new and changed files ingested,
        removed ones deleted with what derives from them. Only a source the workspace already has: 404 else."""
        return sync_job(graph_of(server, request), server.jobs, body.id, caller_of(request))
