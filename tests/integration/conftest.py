"""Fixtures shared by the integration tests (the session-wide ones are in tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import offline_settings, write_files, write_space_corpus
from tests.integration.world import DOCS, ENTITIES, RELATIONS
from tests.live_server import LiveServer

WRITE, READ = "write-key-0123456789", "read-key-0123456789"


@pytest.fixture
def world(rag, tmp_path: Path):
    """The known small graph (tests/integration/world.py) imported onto the documents, with communities."""
    folder = write_files(tmp_path / "world", DOCS)
    rag.ingest([folder], base=folder, extractor="none")
    records = [{"name": n, "type": t, **({"document_id": d} if d else {})} for n, (t, d) in ENTITIES.items()]
    records += [{"source": a, "target": b, "type": t, "document_id": d} for a, t, b, d in RELATIONS]
    graph = tmp_path / "graph.jsonl"
    graph.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    report = rag.import_graph(graph)
    assert (report.entities, report.relations, report.skipped) == (len(ENTITIES), len(RELATIONS), [])
    rag.build_communities(max_cluster_size=10, seed=42)
    return rag


@pytest.fixture(scope="module")
def live(neo4j_uri, test_password, embedder, tmp_path_factory):
    """One server over the space articles (offline NLP graph), with a full and a read-only key."""
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    home = tmp_path_factory.mktemp("serve")
    settings = offline_settings(
        neo4j_uri,
        test_password,
        home,
        api_keys=WRITE,
        read_api_keys=READ,
        max_upload_bytes=300_000,
    )
    rag = GraphRAG(settings, embedder=embedder)
    rag.store.admin.reset()
    rag.ingest([write_space_corpus(home / "space", False)], base=home / "space", extractor="nlp")
    with LiveServer(create_app(settings, rag)) as server:
        server.rag = rag
        server.server_home = settings.home  # its uploads, kept failed files and jobs are under it
        yield server
    rag.close()
