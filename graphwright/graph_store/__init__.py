"""Everything that talks to Neo4j. Nothing outside this package imports `neo4j`.

The rest of the package sees the store through its contract (`contracts.GraphStore`, a Protocol per role) and
opens it with `open_store(settings, workspace=...)`, which builds the backend `GRAPHWRIGHT_STORE_BACKEND` names
(`backends.STORE_BACKENDS`; `neo4j` by default). `Neo4jStore` and the driver are imported only when a store
is opened or named, so a module typed against the contract loads no driver."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphwright.config import Settings
from graphwright.errors import GraphStoreError, QueryRejectedError, WriteRejectedError
from graphwright.graph_store.backends import STORE_BACKENDS
from graphwright.graph_store.contracts import GraphStore

if TYPE_CHECKING:
    from graphwright.graph_store.store import Neo4jStore

__all__ = ["GraphStore", "GraphStoreError", "Neo4jStore", "QueryRejectedError", "WriteRejectedError", "open_store"]


def open_store(settings: Settings, *, workspace: str) -> GraphStore:
    """The store backend the settings choose (`GRAPHWRIGHT_STORE_BACKEND`, one of `backends.STORE_BACKENDS`),
    in `workspace`."""
    store: GraphStore = STORE_BACKENDS.load(settings.store_backend)(settings, workspace=workspace)
    return store


def __getattr__(name: str) -> Any:
    if name == "Neo4jStore":  # lazily: the driver's import is most of what opening a store costs
        from graphwright.graph_store.store import Neo4jStore

        return Neo4jStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
