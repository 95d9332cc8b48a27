"""Neo4jStore: one driver, and the store's roles over it. Each role is a small object with one job:

- `writes`: documents, chunks and their entity graph, atomically (DocumentWrites)
- `retrieval`: chunk search and chunk reads (RetrievalReads)
- `graph`: entity linking, neighbourhoods, paths, profiles, read-only Cypher (GraphReads)
- `communities`: the Leiden input and community reports (CommunityStore)
- `summaries`: the RAPTOR summary tree: passages' vectors in, summaries out (SummaryStore)
- `admin`: schema, counts, integrity rules, reset (StoreAdmin)
- `conversations`: stored conversations and their turns (ConversationStore)
- `curation`: hand changes of the entity graph, their audit trail and undo (CurationStore)
- `sources`: the folders, sites and buckets the workspace keeps in step with (SourceStore)
- `gds`: Leiden and PageRank in Neo4j Graph Data Science, when the server has it (GdsAlgorithms)
- `workspaces`: which workspaces the database holds (WorkspaceRegistry, the one role of no workspace)

A store belongs to one workspace, given once at construction: every role runs its queries there
(graph_store/workspace_names.py). `in_workspace(name)` is the same driver in another one.

Callers take the role they need (`store.retrieval.vector_search(...)`), so what a module does with the
database is visible in its calls. All Cypher is in `queries/`, one module per role."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import neo4j

from graphwright.graph_store.admin import StoreAdmin
from graphwright.graph_store.communities import CommunityStore
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.conversations import ConversationStore
from graphwright.graph_store.curation import CurationStore
from graphwright.graph_store.gds import GdsAlgorithms
from graphwright.graph_store.graph_reads import GraphReads
from graphwright.graph_store.retrieval import RetrievalReads
from graphwright.graph_store.sources import SourceStore
from graphwright.graph_store.summaries import SummaryStore
from graphwright.graph_store.workspace_names import Workspace
from graphwright.graph_store.workspace_registry import WorkspaceRegistry
from graphwright.graph_store.writes import DocumentWrites

if TYPE_CHECKING:
    from graphwright.config import Settings


class Neo4jStore:
    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        retry_seconds: float = 30.0,
        *,
        workspace: str | None = None,
        connect_seconds: float = 2.0,
    ) -> None:
        connection = Neo4jConnection(uri, user, password, database, retry_seconds, connect_seconds)
        self._attach(connection.scoped(Workspace(workspace)) if workspace else connection, connection)
        self._made_driver = True

    @classmethod
    def _over(cls, connection: Neo4jConnection, root: Neo4jConnection) -> Neo4jStore:
        store = object.__new__(cls)
        store._attach(connection, root)
        store._made_driver = False
        return store

    def _attach(self, connection: Neo4jConnection, root: Neo4jConnection) -> None:
        self._root = root  # owns the driver
        self.connection = connection
        self.workspace = connection.workspace
        self.workspaces = WorkspaceRegistry(root)
        self.writes = DocumentWrites(self.connection)
        self.retrieval = RetrievalReads(self.connection)
        self.graph = GraphReads(self.connection)
        self.communities = CommunityStore(self.connection)
        self.summaries = SummaryStore(self.connection)
        self.admin = StoreAdmin(self.connection)
        self.conversations = ConversationStore(self.connection)
        self.curation = CurationStore(self.connection)
        self.gds = GdsAlgorithms(self.connection)
        self.sources = SourceStore(self.connection)

    def in_workspace(self, name: str) -> Neo4jStore:
        """This store's driver in workspace `name` (closing it leaves the driver open)."""
        return Neo4jStore._over(self._root.scoped(Workspace(name)), self._root)

    @property
    def uri(self) -> str:
        return self.connection.uri

    @property
    def database(self) -> str:
        return self.connection.database

    @property
    def driver(self) -> neo4j.Driver:
        """The driver, for libraries that take one (the neo4j-graphrag peers of `graphwright eval`)."""
        return self.connection.driver

    def verify(self) -> None:
        """GraphStoreError unless Neo4j answers with these credentials."""
        self.connection.verify()

    def close(self) -> None:
        """Close the driver, when this store made it (a store of `in_workspace` leaves it to its maker)."""
        if self._made_driver:
            self._root.close()

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, cypher: str, /, **params: Any) -> list[dict[str, Any]]:
        """An ad-hoc read in this workspace's names (tests and benchmarks inspect the graph with it); the
        package uses the roles."""
        return self.connection.read(cypher, **params)


def open_neo4j(settings: Settings, *, workspace: str) -> Neo4jStore:
    """The `neo4j` store backend: the server the settings name (graph_store/backends.py: STORE_BACKENDS)."""
    return Neo4jStore(
        settings.neo4j_uri,
        settings.neo4j_user,
        settings.neo4j_password.get_secret_value(),
        settings.neo4j_database,
        settings.neo4j_retry_seconds,
        workspace=workspace,
        connect_seconds=settings.neo4j_connect_seconds,
    )
