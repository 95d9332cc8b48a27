"""`import-graph`: entities and relations from elsewhere, tied to the chunks that support them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _jsonl(path: Path, records: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_import_by_chunk_document_and_mention(rag, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ada.md").write_text("Ada Lovelace wrote programs for the Analytical Engine.", encoding="utf-8")
    (docs / "bab.md").write_text("Charles Babbage designed the Analytical Engine in London.", encoding="utf-8")
    rag.ingest([docs], base=tmp_path, extractor="none")
    assert rag.stats()["entities"] == 0
    ada_chunk = rag.store.retrieval.get_document("docs/ada.md")["chunks"][0]["id"]
    graph = _jsonl(tmp_path / "graph.jsonl", [
        {"name": "Ada Lovelace", "type": "person", "description": "Mathematician.", "chunk_id": ada_chunk},
        {"name": "Charles Babbage", "type": "PERSON", "document_id": "docs/bab.md"},
        {"name": "Analytical Engine", "type": "technology"},  # by mention: both documents
        {"source": "Charles Babbage", "target": "Analytical Engine", "type": "designed", "weight": 3},
        {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "WROTE_PROGRAMS_FOR",
         "document_id": "docs/ada.md"},
        {"name": "Nobody Mentioned", "type": "person"},  # no chunk supports it
        "{not json",
    ])
    report = rag.import_graph(graph)
    assert (report.entities, report.relations) == (3, 2)
    assert sorted(s.source.rsplit(":", 1)[1] for s in report.skipped) == ["6", "7"]
    rows = rag.store.read("MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN e.name AS e, labels(e)[1] AS l, "
                           "collect(c.document_id) AS docs ORDER BY e")
    assert [(r["e"], r["l"], sorted(r["docs"])) for r in rows] == [
        ("Ada Lovelace", "Person", ["docs/ada.md"]),
        ("Analytical Engine", "Technology", ["docs/ada.md", "docs/bab.md"]),
        ("Charles Babbage", "Person", ["docs/bab.md"])]
    rels = rag.store.read("MATCH (a:Entity)-[r]->(b:Entity) RETURN a.name AS a, type(r) AS t, r.weight AS w "
                           "ORDER BY a")
    assert rels == [{"a": "Ada Lovelace", "t": "WROTE_PROGRAMS_FOR", "w": 1.0},
                    {"a": "Charles Babbage", "t": "DESIGNED", "w": 3.0}]
    # imported facts follow the same delete semantics as extracted ones
    rag.delete_document("docs/bab.md")
    names = {r["n"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS n")}
    assert names == {"Ada Lovelace", "Analytical Engine"}
