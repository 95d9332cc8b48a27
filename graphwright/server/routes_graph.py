"""The graph routes: an entity's profile, the graph's counts, building communities as a job."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse

from graphwright.models import EntityPage, EntityProfile, GraphStats
from graphwright.server.jobs import Job, Progress
from graphwright.server.requests import error_response, graph_of, owner, workspace_of
from graphwright.server.state import Server


def add_graph_routes(app: FastAPI, server: Server) -> None:
    @app.get("/v1/entities", response_model=EntityPage, tags=["graph"])
    def entity_table(
        request: Request,
        search: str | None = Query(None, max_length=200, description="the name contains this (any case)"),
        type: str | None = Query(None, max_length=100, description="PERSON, ORGANIZATION, ... (any case)"),
        offset: int = Query(0, ge=0),
        limit: int = Query(100, ge=1, le=1000),
    ) -> EntityPage:
        """Entities by name and type, most connected first, a page at a time, with how many match."""
        return graph_of(server, request).inspect.entity_table(search, type, offset, limit)

    @app.get("/v1/entities/{name:path}", response_model=EntityProfile, tags=["graph"])
    def entity(name: str, request: Request) -> EntityProfile | JSONResponse:
        """An entity by name (misspellings forgiven) with its relations, sources and communities."""
        profile = graph_of(server, request).inspect.entity(name)
        return profile if profile is not None else error_response(404, f"no entity is named like {name!r}")

    @app.get("/v1/stats", response_model=GraphStats, tags=["graph"])
    def stats(request: Request) -> GraphStats:
        """Counts, types, communities by level and index states."""
        return graph_of(server, request).inspect.graph()

    @app.post("/v1/communities/build", status_code=202, response_model=Job, tags=["graph"])
    def build_communities(request: Request, full: bool = False) -> Job:
        """Detect communities and write their reports, as a job."""
        rag, workspace = graph_of(server, request), workspace_of(request)

        def work(progress: Progress) -> dict[str, Any]:
            with server.jobs.write_lock(workspace):
                run = rag.build_communities(progress=progress, full=full, budget=server.settings.report_budget)
            return {k: v for k, v in vars(run).items() if isinstance(v, (int, float, str, bool, dict, list))}

        return server.jobs.submit("communities", work, workspace=workspace, owner=owner(request).name)
