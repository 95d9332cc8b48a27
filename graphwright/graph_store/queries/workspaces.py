"""The registry of workspaces (WorkspacesRole); the default workspace is not listed: it always exists."""

from __future__ import annotations

from graphwright.graph_store.workspace_names import REGISTRY_CONSTRAINT

WORKSPACE_CONSTRAINT = (
    f"CREATE CONSTRAINT {REGISTRY_CONSTRAINT} IF NOT EXISTS FOR (n:GraphwrightWorkspace) REQUIRE n.name IS UNIQUE"
)

_WORKSPACE_FIELDS = "w.name AS name, toString(w.created_at) AS created_at, coalesce(w.settings, '{}') AS settings"

# MERGE, so two creations of one name cannot both succeed; `created` says whether this one did.
CREATE_WORKSPACE = f"""
MERGE (w:GraphwrightWorkspace {{name: $name}})
ON CREATE SET w.created_at = datetime(), w.settings = $settings, w.fresh = true
WITH w, coalesce(w.fresh, false) AS created
REMOVE w.fresh
RETURN {_WORKSPACE_FIELDS}, created
"""

WORKSPACES = f"MATCH (w:GraphwrightWorkspace) RETURN {_WORKSPACE_FIELDS} ORDER BY name"

WORKSPACE = f"MATCH (w:GraphwrightWorkspace {{name: $name}}) RETURN {_WORKSPACE_FIELDS}"

FORGET_WORKSPACE = "MATCH (w:GraphwrightWorkspace {name: $name}) DELETE w RETURN count(*) AS n"
