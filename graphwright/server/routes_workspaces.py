"""The workspaces: those a key may use, and an admin key's creating and deleting them."""

from __future__ import annotations

from fastapi import FastAPI, Request

from graphwright.errors import NotFoundError
from graphwright.models import WorkspaceInfo
from graphwright.server.requests import grant_of
from graphwright.server.schemas import NewWorkspace
from graphwright.server.state import Server


def add_workspace_routes(app: FastAPI, server: Server) -> None:
    @app.get("/v1/workspaces", response_model=list[WorkspaceInfo], tags=["workspaces"])
    def workspaces(request: Request) -> list[WorkspaceInfo]:
        """The workspaces this key may use, with what each holds (`/w/<name>/v1/...` works in one)."""
        grant = grant_of(request)
        return [server.rag.workspaces.info(n) for n in server.rag.store.workspaces.names() if grant.sees(n)]

    @app.post("/v1/workspaces", status_code=201, response_model=WorkspaceInfo, tags=["workspaces"])
    def create_workspace(body: NewWorkspace) -> WorkspaceInfo:
        """A new, empty workspace (an admin key's); 409 if the name is taken."""
        with server.jobs.write_lock(body.name):
            return server.rag.workspaces.create(body.name, extractor=body.extractor, entity_types=body.entity_types)

    @app.get("/v1/workspaces/{name}", response_model=WorkspaceInfo, tags=["workspaces"])
    def workspace(name: str, request: Request) -> WorkspaceInfo:
        """One workspace (404 for one that does not exist or that this key may not use)."""
        if not grant_of(request).sees(name):
            raise NotFoundError(f"no workspace {name!r}")
        return server.rag.workspaces.info(name)

    @app.delete("/v1/workspaces/{name}", response_model=WorkspaceInfo, tags=["workspaces"])
    def delete_workspace(name: str, yes: bool = False) -> WorkspaceInfo:
        """Delete a workspace's data and indexes, nothing of another (an admin key's); one that holds documents
        needs `?yes=true`. Returns what it held."""
        with server.jobs.write_lock(name):
            held = server.rag.workspaces.delete(name, yes=yes)
        server.forget(name)
        return held
