"""Neo4j Graph Data Science, when the server has it (`graphwright db start --gds`, or a server of your own
with the plugin): what version answers. Everything here is optional: without GDS the client computes."""

from __future__ import annotations

from neo4j import GraphDatabase
from neo4j.exceptions import ClientError, Neo4jError, ServiceUnavailable

from graphwright.errors import QueryRejectedError
from graphwright.graph_store.connection import Neo4jConnection

GDS_VERSION = "RETURN gds.version() AS version"


def read_gds_version(connection: Neo4jConnection) -> str | None:
    """`gds.version()`, or None when the server has no GDS (the function is unknown there)."""
    try:
        rows = connection.read(GDS_VERSION)
    except QueryRejectedError:  # Neo4j: "Unknown function 'gds.version'"
        return None
    return str(rows[0]["version"]) if rows else None


def gds_version(uri: str, user: str, password: str) -> str | None:
    """The same, asked of a server by its address (the launcher, before any graph is opened)."""
    driver = GraphDatabase.driver(uri, auth=(user, password), connection_timeout=5)
    try:
        records, _, _ = driver.execute_query(GDS_VERSION)
        return str(records[0]["version"]) if records else None
    except (ClientError, Neo4jError, ServiceUnavailable, OSError):
        return None
    finally:
        driver.close()
