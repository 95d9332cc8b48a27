"""Fixtures shared by the integration tests (the session-wide ones are in tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.world import DOCS, ENTITIES, RELATIONS


@pytest.fixture
def world(rag, tmp_path: Path):
    """The known small graph (tests/integration/world.py) imported onto the documents, with communities."""
    folder = tmp_path / "world"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    rag.ingest([folder], base=folder, extractor="none")
    records = [{"name": n, "type": t, **({"document_id": d} if d else {})} for n, (t, d) in ENTITIES.items()]
    records += [{"source": a, "target": b, "type": t, "document_id": d} for a, t, b, d in RELATIONS]
    graph = tmp_path / "graph.jsonl"
    graph.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    report = rag.import_graph(graph)
    assert (report.entities, report.relations, report.skipped) == (len(ENTITIES), len(RELATIONS), [])
    rag.build_communities(max_cluster_size=10, seed=42)
    return rag
