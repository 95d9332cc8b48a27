"""The registry of workspaces: which exist, with the settings each was created with. The default workspace is
not stored: it always exists (the graph as it was before workspaces)."""

from __future__ import annotations

import json
from typing import Any

from graphwright.config import DEFAULT_WORKSPACE, check_workspace_name
from graphwright.errors import NotFoundError, WorkspaceExistsError
from graphwright.graph_store import queries as q
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.workspace import REGISTRY_CONSTRAINT


class WorkspaceRegistry:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection  # the default workspace's: the registry belongs to the database

    def names(self) -> list[str]:
        """Every workspace, `default` first."""
        return [DEFAULT_WORKSPACE, *(row["name"] for row in self.connection.read(q.WORKSPACES))]

    def others_exist(self) -> bool:
        return bool(self.connection.read(q.WORKSPACES))

    def get(self, name: str) -> dict[str, Any]:
        """A workspace's record (name, created_at, settings); NotFoundError if there is none."""
        check_workspace_name(name)
        if name == DEFAULT_WORKSPACE:
            return {"name": name, "created_at": None, "settings": {}}
        rows = self.connection.read(q.WORKSPACE, name=name)
        if not rows:
            raise NotFoundError(f"no workspace {name!r}: create it with `graphwright workspace create {name}`")
        return _record(rows[0])

    def create(self, name: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
        check_workspace_name(name)
        if name == DEFAULT_WORKSPACE:
            raise WorkspaceExistsError("the default workspace always exists")
        self.connection.write(q.WORKSPACE_CONSTRAINT)
        row = self.connection.write(q.CREATE_WORKSPACE, name=name, settings=json.dumps(settings or {}, sort_keys=True))[
            0
        ]
        if not row["created"]:
            raise WorkspaceExistsError(f"workspace {name!r} already exists")
        return _record(row)

    def forget(self, name: str) -> None:
        """Remove a workspace from the registry (its data is deleted first, by its store's reset). With the
        last one gone the registry's constraint goes too: the database is as it was before workspaces."""
        self.connection.write(q.FORGET_WORKSPACE, name=name)
        if not self.others_exist():
            self.connection.write(q.DROP_CONSTRAINT, name=REGISTRY_CONSTRAINT)


def _record(row: dict[str, Any]) -> dict[str, Any]:
    return {"name": row["name"], "created_at": row["created_at"], "settings": json.loads(row["settings"] or "{}")}
