"""Everything that talks to Neo4j. Nothing outside this package imports `neo4j`."""

from graphwright.graph_store.store import GraphStoreError, Neo4jStore

__all__ = ["GraphStoreError", "Neo4jStore"]
