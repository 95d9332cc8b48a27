"""Issue 61, reproduction 6: a type is never a label graphwright keeps for its own nodes, whichever way it
arrives (curation, import, a schema), and a registry node that is no workspace stops nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.errors import InvalidRequestError

pytestmark = pytest.mark.integration


def _labels(rag) -> set[str]:
    return {label for row in rag.store.read("MATCH (e:Entity) RETURN labels(e) AS l") for label in row["l"]}


def test_a_retype_to_an_internal_label_is_refused_and_changes_nothing(world) -> None:
    name = world.store.read("MATCH (e:Entity) RETURN e.name AS name ORDER BY name LIMIT 1")[0]["name"]
    before = _labels(world)
    for type_ in (
        "GRAPHWRIGHT_WORKSPACE",
        "graphwright meta",
        "CURATION_CHANGE",
        "CurationChange",
        "chunk",
        "Turn",
        "STAGED_CHUNK",
    ):
        with pytest.raises(InvalidRequestError, match="keeps for its own nodes"):
            world.curation().retype(name, type_)
    assert _labels(world) == before
    assert world.store.workspaces.names() == ["default"]


def test_imported_and_extracted_types_never_become_internal_labels(rag, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nAcme Corp builds rockets with Falcon Ventures.", encoding="utf-8")
    rag.ingest([folder], base=folder, extractor="none")
    chunk = rag.store.read("MATCH (c:Chunk) RETURN c.id AS id")[0]["id"]
    records = [
        {"name": "Acme Corp", "type": "GRAPHWRIGHT_WORKSPACE", "chunk_id": chunk},
        {"name": "Falcon Ventures", "type": "Conversation", "chunk_id": chunk},
        {"name": "Rockets", "type": "document", "chunk_id": chunk},
    ]
    graph = tmp_path / "graph.jsonl"
    graph.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    rag.import_graph(graph)
    assert _labels(rag) == {"Entity", "Concept"}
    assert rag.store.read("MATCH (n:GraphwrightWorkspace) RETURN count(n) AS n") == [{"n": 0}]
    assert rag.store.read("MATCH (n:Conversation) RETURN count(n) AS n") == [{"n": 0}]
    assert rag.store.workspaces.names() == ["default"]


def test_a_registry_node_that_is_no_workspace_is_skipped_and_reported(rag, settings, embedder) -> None:
    from graphwright.server.app import create_app

    rag.workspaces.create("real-one")
    rag.store.connection.write("CREATE (:GraphwrightWorkspace {name: 'Not A Name!', settings: '{}'})")
    rag.store.connection.write("CREATE (:GraphwrightWorkspace {name: 'broken-settings', settings: '{'})")
    try:
        assert rag.store.workspaces.names() == ["default", "real-one"]
        assert sorted(rag.store.workspaces.unreadable()) == ["'Not A Name!'", "'broken-settings'"]
        assert [w.name for w in rag.workspaces.list()] == ["default", "real-one"]
        create_app(settings, rag)  # the server starts
    finally:
        rag.store.connection.write("MATCH (w:GraphwrightWorkspace) WHERE w.name <> 'real-one' DELETE w")
        rag.workspaces.delete("real-one", yes=True)
