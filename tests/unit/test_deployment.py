"""What the production path (Docker) ships: loopback-only ports and no default password."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_compose_binds_loopback_and_demands_a_password() -> None:
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    ports = re.findall(r'-\s*"([^"]+)"', compose)
    assert ports and all(p.startswith("127.0.0.1:") for p in ports), ports
    auth = re.search(r"NEO4J_AUTH:\s*\"([^\"]+)\"", compose).group(1)
    assert "${NEO4J_PASSWORD:?" in auth and ":-" not in auth  # unset password = compose refuses to start
    for doc in ("README.md", "docs/neo4j.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert "NEO4J_PASSWORD=graphwright-local docker" not in text


def test_neo4j_reads_no_files_and_reaches_no_network_from_cypher() -> None:
    """LOAD CSV locked down in both ways we run Neo4j: the local launcher and docker compose."""
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert 'NEO4J_dbms_security_allow__csv__import__from__file__urls: "false"' in compose
    assert 'NEO4J_internal_dbms_cypher__ip__blocklist: "0.0.0.0/0,::/0"' in compose
    assert "http__access__control__allow__origin" in compose
    launcher = (
        ROOT / "graphwright/graph_store/launcher/neo4j_local/src/main/java/io/graphwright/neo4jlocal/Launcher.java"
    ).read_text(encoding="utf-8")
    for setting in (
        '"dbms.security.allow_csv_import_from_file_urls", "false"',
        '"internal.dbms.cypher_ip_blocklist", "0.0.0.0/0,::/0"',
        '"server.directories.import", imports',
    ):
        assert setting in launcher
