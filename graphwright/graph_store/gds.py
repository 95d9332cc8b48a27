"""Neo4j Graph Data Science, when the server has it (`graphwright db start --gds`, or a server of your own
with the plugin): what version answers, and Leiden and PageRank run in the server's JVM.

Graphs are projected from the rows the caller sends (integer node ids, no labels), not from the database:
the caller has already read them from its own workspace, so a projection can hold nothing of another one,
and the same rows give the same graph in the client and in GDS. Each call projects under a name of its own
and drops it when done, whatever happened. Everything here is optional: without GDS the client computes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from neo4j import GraphDatabase
from neo4j.exceptions import ClientError, Neo4jError, ServiceUnavailable

from graphwright.errors import QueryRejectedError
from graphwright.graph_store.connection import Neo4jConnection, Role
from graphwright.graph_store.queries import gds as q


def read_gds_version(connection: Neo4jConnection) -> str | None:
    """`gds.version()`, or None when the server has no GDS (the function is unknown there)."""
    try:
        rows = connection.read(q.GDS_VERSION)
    except QueryRejectedError:  # Neo4j: "Unknown function 'gds.version'"
        return None
    return str(rows[0]["version"]) if rows else None


def gds_version(uri: str, user: str, password: str) -> str | None:
    """The same, asked of a server by its address (the launcher, before any graph is opened)."""
    driver = GraphDatabase.driver(uri, auth=(user, password), connection_timeout=5)
    try:
        records, _, _ = driver.execute_query(q.GDS_VERSION)
        return str(records[0]["version"]) if records else None
    except (ClientError, Neo4jError, ServiceUnavailable, OSError):
        return None
    finally:
        driver.close()


class GdsAlgorithms(Role):
    """The store's GDS role: Leiden and PageRank over graphs given as integer-id edge rows."""

    def __init__(self, connection: Neo4jConnection) -> None:
        super().__init__(connection)
        self._version: tuple[str | None] | None = None  # asked once per store

    def version(self) -> str | None:
        if self._version is None:
            self._version = (read_gds_version(self.connection),)
        return self._version[0]

    def leiden(
        self, edges: Sequence[tuple[int, int, float]], start: Mapping[int, int], *, resolution: float, seed: int
    ) -> dict[int, int]:
        """Leiden on the undirected weighted graph `edges`, every node starting in `start[node]` (its seed
        community), at `resolution` (gamma), single-threaded so a seed gives one answer."""
        rows = [[a, b, w, start[a], start[b]] for a, b, w in edges]
        seeded = len(set(start.values())) < len(start)  # every node alone is no seed at all
        with self._projected(q.GDS_PROJECT_UNDIRECTED, rows) as name:
            found = self.connection.read(
                q.GDS_LEIDEN_SEEDED if seeded else q.GDS_LEIDEN, name=name, gamma=resolution, seed=seed
            )
        return {int(r["node"]): int(r["community"]) for r in found}

    def pagerank(
        self,
        edges: Sequence[tuple[int, int, float]],
        sources: Sequence[int],
        *,
        damping: float,
        iterations: int,
        tolerance: float,
    ) -> dict[int, float]:
        """PageRank on the directed weighted graph `edges`, restarting at `sources` (each an equal share)."""
        with self._projected(q.GDS_PROJECT_DIRECTED, [list(e) for e in edges]) as name:
            found = self.connection.read(
                q.GDS_PAGERANK,
                name=name,
                damping=damping,
                iterations=iterations,
                tolerance=tolerance,
                sources=list(sources),
            )
        return {int(r["node"]): float(r["score"]) for r in found}

    @contextmanager
    def _projected(self, project: str, rows: list[list[float | int]]) -> Iterator[str]:
        name = f"graphwright-{uuid.uuid4().hex}"
        try:
            self.connection.read(project, name=name, edges=rows)  # one aggregation builds one graph
            yield name
        finally:
            self.connection.read(q.GDS_DROP, name=name)
