"""The registry of workspaces: which exist, with the settings each was created with. The default workspace is
not stored: it always exists (the graph as it was before workspaces)."""

from __future__ import annotations

import json
import logging
from typing import Any

from graphwright.config import DEFAULT_WORKSPACE, check_workspace_name
from graphwright.errors import NotFoundError, WorkspaceExistsError
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.queries import workspaces as q
from graphwright.graph_store.queries.schema import DROP_CONSTRAINT
from graphwright.graph_store.workspace_names import REGISTRY_CONSTRAINT

logger = logging.getLogger(__name__)


class WorkspaceRegistry:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection  # the default workspace's: the registry belongs to the database

    def names(self) -> list[str]:
        """Every workspace, `default` first. A registry node that is no workspace's record (a name that is not
        a workspace name: put there by hand, or by a release that let a type become the registry's label)
        is skipped and reported (`unreadable`), so one bad node stops neither the listing nor the server."""
        readable, _ = self._records()
        return [DEFAULT_WORKSPACE, *readable]

    def unreadable(self) -> list[str]:
        """The registry's nodes that are no workspace's record, as text (what `doctor` reports)."""
        return self._records()[1]

    def _records(self) -> tuple[list[str], list[str]]:
        readable, unreadable = [], []
        for row in self.connection.read(q.WORKSPACES):
            try:
                json.loads(row["settings"] or "{}")
                readable.append(check_workspace_name(str(row["name"])))
            except (ValueError, TypeError):
                unreadable.append(repr(row["name"])[:80])
        if unreadable:
            logger.warning("the workspace registry holds node(s) that are no workspace, skipped: %s", unreadable)
        return readable, unreadable

    def others_exist(self) -> bool:
        return bool(self.connection.read(q.WORKSPACES))

    def get(self, name: str) -> dict[str, Any]:
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
        self.connection.write(q.FORGET_WORKSPACE, name=name)
        if not self.others_exist():
            self.connection.write(DROP_CONSTRAINT, name=REGISTRY_CONSTRAINT)


def _record(row: dict[str, Any]) -> dict[str, Any]:
    return {"name": row["name"], "created_at": row["created_at"], "settings": json.loads(row["settings"] or "{}")}
