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
    assert rag.inspect.stats()["entities"] == 0
    ada_chunk = rag.store.retrieval.get_document("docs/ada.md")["chunks"][0]["id"]
    graph = _jsonl(
        tmp_path / "graph.jsonl",
        [
            {"name": "Ada Lovelace", "type": "person", "description": "Mathematician.", "chunk_id": ada_chunk},
            {"name": "Charles Babbage", "type": "PERSON", "document_id": "docs/bab.md"},
            {"name": "Analytical Engine", "type": "technology"},  # by mention: both documents
            {"source": "Charles Babbage", "target": "Analytical Engine", "type": "designed", "weight": 3},
            {
                "source": "Ada Lovelace",
                "target": "Analytical Engine",
                "type": "WROTE_PROGRAMS_FOR",
                "document_id": "docs/ada.md",
            },
            {"name": "Nobody Mentioned", "type": "person"},  # no chunk supports it
            "{not json",
        ],
    )
    report = rag.import_graph(graph)
    assert (report.entities, report.relations) == (3, 2)
    assert sorted(s.source.rsplit(":", 1)[1] for s in report.skipped) == ["6", "7"]
    rows = rag.store.read(
        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN e.name AS e, labels(e)[1] AS l, "
        "collect(c.document_id) AS docs ORDER BY e"
    )
    assert [(r["e"], r["l"], sorted(r["docs"])) for r in rows] == [
        ("Ada Lovelace", "Person", ["docs/ada.md"]),
        ("Analytical Engine", "Technology", ["docs/ada.md", "docs/bab.md"]),
        ("Charles Babbage", "Person", ["docs/bab.md"]),
    ]
    rels = rag.store.read("MATCH (a:Entity)-[r]->(b:Entity) RETURN a.name AS a, type(r) AS t, r.weight AS w ORDER BY a")
    assert rels == [
        {"a": "Ada Lovelace", "t": "WROTE_PROGRAMS_FOR", "w": 1.0},
        {"a": "Charles Babbage", "t": "DESIGNED", "w": 3.0},
    ]
    # imported facts follow the same delete semantics as extracted ones
    rag.delete_document("docs/bab.md")
    names = {r["n"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS n")}
    assert names == {"Ada Lovelace", "Analytical Engine"}


def test_paraphrased_triples_go_to_their_documents_best_chunk_and_skips_are_summarized(
    rag, cli_env, tmp_path: Path
) -> None:
    from tests.integration.helpers import run

    docs = tmp_path / "docs"
    docs.mkdir()
    filler = " ".join(["Its pages carried news, letters and notices from the towns around it."] * 9)
    (docs / "mag.md").write_text(
        f"The Gazette was founded in 1901 as a weekly paper. {filler}\n\n"
        f"In 1963 it became a monthly publication edited in Leeds. {filler}",
        encoding="utf-8",
    )
    rag.ingest([docs], base=tmp_path, extractor="none")
    good = [  # real OpenIE objects are paraphrases: no chunk quotes them, but the document is named
        {
            "source": "The Gazette",
            "target": "became monthly publication in 1963",
            "type": "CHANGED_TO",
            "document_id": "docs/mag.md",
        },
        {"source": "monthly publication", "target": "Leeds editors", "type": "EDITED_BY", "document_id": "docs/mag.md"},
    ]
    unsupported = [
        {"source": "Zorro", "target": "Quux", "type": "KNOWS", "document_id": "docs/mag.md"},  # shares no word
        {"name": "The Gazette", "document_id": "docs/missing.md"},
        {"name": "Nobody Mentioned"},
    ]
    graph = _jsonl(tmp_path / "graph.jsonl", good + unsupported * 3)
    report = rag.import_graph(graph)
    assert (report.relations, report.attached) == (2, 2) and report.malformed == 0
    assert report.by_cause() == {
        "no chunk of its document shares a word with it": 3,
        "its document_id names no ingested document": 3,
        "no chunk mentions its name(s)": 3,
    }
    rows = rag.store.read(
        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.name IN ['The Gazette', "
        "'monthly publication'] RETURN e.name AS e, c.text AS text ORDER BY e"
    )
    assert [(r["e"], "founded in 1901" in r["text"], "In 1963" in r["text"]) for r in rows] == [
        ("The Gazette", True, False),
        ("monthly publication", False, True),
    ]  # each at the chunk naming it
    # The CLI: a summary by cause, the first few lines, every skip in --report, exit 0 (some were imported)
    out = run(["import-graph", str(graph), "--report", str(tmp_path / "skips.jsonl")], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "9 records skipped" in out.stdout and "3  no chunk mentions its name(s)" in out.stdout
    assert out.stdout.count("skipped:") == 5 and "and 4 more" in out.stdout
    skips = [json.loads(line) for line in (tmp_path / "skips.jsonl").read_text().splitlines()]
    assert len(skips) == 9 and {s["cause"] for s in skips} == set(report.by_cause())
    # malformed input, or nothing importable, is a failure
    bad = _jsonl(tmp_path / "bad.jsonl", [good[0], "{not json"])
    assert run(["import-graph", str(bad)], cli_env, tmp_path).returncode == 1
    nothing = _jsonl(tmp_path / "nothing.jsonl", unsupported)
    assert run(["import-graph", str(nothing)], cli_env, tmp_path).returncode == 1
