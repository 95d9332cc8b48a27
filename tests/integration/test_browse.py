"""Seeing what is there without Cypher: the documents table (with failed and interrupted rows), the
entities table and exports, through the CLI and the HTTP API, on a real Neo4j."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.integration.helpers import run, write_files

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "corpus",
        {
            "apollo.md": "# Apollo 11\n\nNeil Armstrong and Buzz Aldrin landed on the Moon in 1969. NASA ran it.",
            "hubble.md": "# Hubble\n\nThe Hubble Space Telescope was launched by NASA in 1990.",
            "empty.txt": "",
            "broken.pdf": "not a pdf at all",
        },
    )


def test_documents_lists_failures_until_they_go_in(rag, cli_env, corpus: Path, tmp_path: Path) -> None:
    first = run(["ingest", str(corpus), "-q", "--no-communities"], cli_env, tmp_path)
    assert first.returncode == 1  # two files failed, and said so
    table = json.loads(run(["documents", "--json"], cli_env, tmp_path).stdout)
    assert table["counts"] == {"processed": 2, "failed": 2} and table["total"] == 4
    failed = {Path(d["id"]).name: d for d in table["documents"] if d["status"] == "failed"}
    assert set(failed) == {"empty.txt", "broken.pdf"} and "empty" in failed["empty.txt"]["error"]
    processed = [d for d in table["documents"] if d["status"] == "processed"]
    assert {d["type"] for d in processed} == {"md"} and all(d["languages"] == ["en"] for d in processed)

    only = json.loads(run(["documents", "--status", "failed", "--json"], cli_env, tmp_path).stdout)
    assert {d["status"] for d in only["documents"]} == {"failed"} and only["total"] == 2
    found = json.loads(run(["documents", "--search", "HUBBLE", "--json"], cli_env, tmp_path).stdout)
    assert [Path(d["id"]).name for d in found["documents"]] == ["hubble.md"]
    by_size = json.loads(
        run(["documents", "--sort", "chunks", "--desc", "--limit", "1", "--json"], cli_env, tmp_path).stdout
    )
    assert len(by_size["documents"]) == 1 and by_size["total"] == 4
    shown = run(["documents"], {**cli_env, "COLUMNS": "200"}, tmp_path).stdout
    assert "2 failed" in shown and "file is empty" in shown

    # fixed, the file goes in and its failure is forgotten; the other stays listed
    (corpus / "empty.txt").write_text("Sputnik 1 was launched by the Soviet Union in 1957.", encoding="utf-8")
    run(["ingest", str(corpus), "-q", "--no-communities"], cli_env, tmp_path)
    after = json.loads(run(["documents", "--json"], cli_env, tmp_path).stdout)
    assert after["counts"] == {"processed": 3, "failed": 1}


def test_failed_records_are_retried_and_deleted_from_the_cli(rag, cli_env, corpus: Path, tmp_path: Path) -> None:
    run(["ingest", "corpus", "-q", "--no-communities"], cli_env, tmp_path)  # named below here, as a user types
    table = json.loads(run(["documents", "--status", "failed", "--json"], cli_env, tmp_path).stdout)
    assert sorted(d["id"] for d in table["documents"]) == ["corpus/broken.pdf", "corpus/empty.txt"]
    # a retry of a file still broken: still failed, said, exit 1
    again = run(["retry", "corpus/empty.txt", "-q"], cli_env, tmp_path)
    assert again.returncode == 1 and "1 failed" in again.stdout
    (corpus / "empty.txt").write_text("Sputnik 1 was launched by the Soviet Union in 1957.", encoding="utf-8")
    fixed = run(["retry", "--all", "-q"], cli_env, tmp_path)  # the PDF fails again; the text goes in
    assert fixed.returncode == 1 and "Ingested 1 documents" in fixed.stdout, fixed.stdout + fixed.stderr
    after = json.loads(run(["documents", "--json"], cli_env, tmp_path).stdout)
    assert after["counts"] == {"processed": 3, "failed": 1}
    assert "corpus/empty.txt" in {d["id"] for d in after["documents"] if d["status"] == "processed"}
    # a failed record is deleted like a document; an unknown id is still an error
    deleted = run(["delete", "corpus/broken.pdf"], cli_env, tmp_path)
    assert deleted.returncode == 0 and "Deleted corpus/broken.pdf" in deleted.stdout
    assert json.loads(run(["documents", "--json"], cli_env, tmp_path).stdout)["counts"] == {"processed": 3}
    assert run(["delete", "corpus/broken.pdf"], cli_env, tmp_path).returncode == 2
    # a record whose file is gone: said, nothing else happens
    (corpus / "empty.txt").unlink()
    gone = run(["retry", "corpus/empty.txt"], cli_env, tmp_path)
    assert gone.returncode == 2 and "not found" in gone.stdout


def test_entities_and_exports(rag, cli_env, corpus: Path, tmp_path: Path) -> None:
    (corpus / "broken.pdf").unlink()
    (corpus / "empty.txt").unlink()
    run(["ingest", str(corpus), "-q", "--no-communities"], cli_env, tmp_path)
    page = json.loads(run(["entities", "--json"], cli_env, tmp_path).stdout)
    names = [e["name"] for e in page["entities"]]
    assert "NASA" in names and page["total"] == len(names)
    degrees = [e["degree"] for e in page["entities"]]
    assert degrees == sorted(degrees, reverse=True)  # most connected first
    nasa = json.loads(run(["entities", "nas", "--type", "organization", "--json"], cli_env, tmp_path).stdout)
    assert [e["name"] for e in nasa["entities"]] == ["NASA"] and nasa["entities"][0]["chunks"] == 2

    stats = rag.inspect.stats()
    out = run(["export", str(tmp_path / "g.graphml")], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    graph = ET.parse(tmp_path / "g.graphml").getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    nodes, edges = graph.findall(".//g:node", ns), graph.findall(".//g:edge", ns)
    assert (len(nodes), len(edges)) == (stats["entities"], stats["relations"])
    node_ids = {n.get("id") for n in nodes}
    assert all(e.get("source") in node_ids and e.get("target") in node_ids for e in edges)

    run(["export", str(tmp_path / "g.csv")], cli_env, tmp_path)
    with (tmp_path / "g.nodes.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == stats["entities"] and "NASA" in {r["Label"] for r in rows}
    with (tmp_path / "g.edges.csv").open(encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == stats["relations"]

    sub = run(["export", str(tmp_path / "q.jsonl"), "--query", "Who landed on the Moon?"], cli_env, tmp_path)
    assert sub.returncode == 0 and "subgraph" in sub.stdout
    records = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = {r["id"] for r in records if r["kind"] == "entity"}
    assert 0 < len(kept) <= stats["entities"]
    assert all({r["source_id"], r["target_id"]} <= kept for r in records if r["kind"] == "relation")


def test_the_tables_over_http(rag, corpus: Path) -> None:
    from fastapi.testclient import TestClient

    from graphwright.server.app import create_app

    rag.ingest([corpus], base=corpus)
    with TestClient(create_app(rag.settings, rag), base_url="http://127.0.0.1") as client:
        table = client.get("/v1/documents/table", params={"status": "failed"}).json()
        assert table["total"] == 2 and {Path(d["id"]).name for d in table["documents"]} == {"empty.txt", "broken.pdf"}
        sorted_rows = client.get("/v1/documents/table", params={"sort": "title", "descending": True}).json()
        assert [d["status"] for d in sorted_rows["documents"]].count("processed") == 2
        assert client.get("/v1/documents/table", params={"sort": "nonsense"}).status_code == 400
        entities = client.get("/v1/entities", params={"search": "nasa"}).json()
        assert entities["entities"][0]["name"] == "NASA"
