"""Everything that talks to Neo4j. Nothing outside this package imports `neo4j`."""

from graphwright.errors import GraphStoreError, QueryRejectedError, WriteRejectedError
from graphwright.graph_store.store import Neo4jStore

__all__ = ["GraphStoreError", "Neo4jStore", "QueryRejectedError", "WriteRejectedError"]
