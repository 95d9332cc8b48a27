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
