"""Everything that talks to Neo4j. Nothing outside this package imports `neo4j`."""

from graphwright.config import STORE_BACKENDS, Settings
from graphwright.errors import GraphStoreError, QueryRejectedError, WriteRejectedError
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.store import Neo4jStore

__all__ = ["GraphStore", "GraphStoreError", "Neo4jStore", "QueryRejectedError", "WriteRejectedError", "open_store"]


def open_store(settings: Settings, *, workspace: str) -> GraphStore:
    """The store backend the settings choose (`GRAPHWRIGHT_STORE_BACKEND`, one of config.STORE_BACKENDS), in
    `workspace`."""
    store: GraphStore = STORE_BACKENDS.load(settings.store_backend)(settings, workspace=workspace)
    return store
