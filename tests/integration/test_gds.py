"""`graphwright db start --gds` runs the local Neo4j with Graph Data Science (OpenGDS, fetched with Maven):
`gds.version()` answers, `doctor` reports it, and user Cypher still cannot reach a gds procedure."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.integration.helpers import run

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_db_start_with_gds(cli_env, tmp_path: Path) -> None:
    bolt = f"bolt://127.0.0.1:{_free_port()}"
    env = {
        **cli_env,
        "NEO4J_URI": bolt,
        "NEO4J_PASSWORD": "gds-test-password",
        "GRAPHWRIGHT_HTTP_PORT": str(_free_port()),
        "GRAPHWRIGHT_HOME": str(tmp_path / "home"),
    }
    try:
        started = run(["db", "start", "--gds", "--timeout", "300"], env, tmp_path)
        assert started.returncode == 0, started.stdout + started.stderr
        assert "GDS:      2.13.9" in started.stdout

        from neo4j import GraphDatabase

        with GraphDatabase.driver(bolt, auth=("neo4j", "gds-test-password")) as driver:
            records, _, _ = driver.execute_query("RETURN gds.version() AS v")
            assert records[0]["v"] == "2.13.9"
            records, _, _ = driver.execute_query("CALL gds.list() YIELD name RETURN count(name) AS n")
            assert records[0]["n"] > 100  # the algorithms are registered, not only the version function

        doctor = run(["doctor"], env, tmp_path)
        assert "Graph Data Science" in doctor.stdout and "2.13.9" in doctor.stdout, doctor.stdout
        assert "gds.*" in doctor.stdout  # unrestricted for GDS alone, and judged ok
        assert doctor.returncode == 0, doctor.stdout

        from graphwright.api import GraphRAG
        from graphwright.errors import CypherRejectedError
        from tests.integration.helpers import offline_settings

        with GraphRAG(offline_settings(bolt, "gds-test-password", tmp_path)) as rag:
            for hostile in ("CALL gds.graph.list() YIELD graphName RETURN graphName", "RETURN gds.version() AS v"):
                with pytest.raises(CypherRejectedError, match="not allowed"):
                    rag.inspect.read_cypher(hostile)
    finally:
        run(["db", "stop"], env, tmp_path)
