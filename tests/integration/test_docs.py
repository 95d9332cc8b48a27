"""The Python examples of docs/python-api.md run, in order, against the test Neo4j."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_python_api_page_runs(rag, neo4j_uri: str, test_password: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", test_password)
    monkeypatch.chdir(ROOT)
    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    assert len(blocks) >= 5
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/python-api.md", "exec"), namespace)  # our own documentation, run as written
