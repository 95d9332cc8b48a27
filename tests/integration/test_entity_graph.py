"""The entity graph in the real Neo4j: provenance, idempotency, delete and update semantics, sanitization."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation
from graphwright.pipeline import IngestPipeline

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _graph_snapshot(rag) -> tuple:
    entities = rag.store.read("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, labels(e) AS labels ORDER BY id")
    relations = rag.store.read(
        "MATCH (a:Entity)-[r]->(b:Entity) RETURN a.id AS a, type(r) AS t, b.id AS b, "
        "r.weight AS w, r.chunk_ids AS c ORDER BY a, t, b"
    )
    mentions = rag.store.read(
        "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) RETURN c.id AS c, e.id AS e, m.count AS n ORDER BY c, e"
    )
    return entities, relations, mentions


def test_sample_corpus_graph_has_provenance(rag) -> None:
    report = rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    assert report.ok and report.entities_written > 150 and report.relations_written > 100
    counts = rag.inspect.stats()
    assert counts["entities"] > 150 and counts["relations"] > 100
    # relations are named by what their sentence says, never by a bare preposition; RELATED_TO is left for names
    # listed together or linked by a word that states no type (two thirds typed on this sample, 99 of 148)
    types = rag.store.admin.type_counts()["relations"]
    assert 1 - types.get("RELATED_TO", 0) / sum(types.values()) >= 0.6, types
    assert not set(types) & {"IN", "ON", "AT", "FROM", "FOR", "NEAR", "HAS", "OF", "WITH", "BY"}, types
    founded = rag.store.read(
        "MATCH (:Entity {name: 'Jeff Bezos'})-[r:FOUNDED]->(:Entity {name: 'Blue Origin'}) RETURN r.evidence AS e"
    )
    assert founded and "founded in 2000 by Jeff Bezos" in founded[0]["e"][0]
    # typed labels read naturally in the Browser
    nasa = rag.store.read("MATCH (e:Entity {name: 'NASA'}) RETURN labels(e) AS l, e.type AS t, e.degree AS d")
    assert nasa == [{"l": ["Entity", "Organization"], "t": "ORGANIZATION", "d": nasa[0]["d"]}]
    assert nasa[0]["d"] >= 10
    people = {r["name"] for r in rag.store.read("MATCH (e:Person) RETURN e.name AS name")}
    assert {"Neil Armstrong", "Buzz Aldrin", "Elon Musk", "Sergei Korolev"} <= people
    esa = rag.store.read("MATCH (e:Entity {name: 'European Space Agency'}) RETURN e.aliases AS a")
    assert esa and "ESA" in esa[0]["a"]  # the acronym resolved into the full name
    # every relation is backed by chunks that exist and mention both ends, weight = sum of its support
    bad = rag.store.read("""
        MATCH (a:Entity)-[r]->(b:Entity)
        WHERE size(r.chunk_ids) = 0 OR size(r.chunk_ids) <> size(r.chunk_weights)
           OR size(r.chunk_ids) <> size(r.evidence)
           OR abs(r.weight - reduce(s = 0.0, w IN r.chunk_weights | s + w)) > 1e-9
           OR any(cid IN r.chunk_ids WHERE NOT EXISTS { MATCH (c:Chunk {id: cid})-[:MENTIONS]->(a)
                                                       MATCH (c)-[:MENTIONS]->(b) })
        RETURN count(r) AS n""")
    assert bad == [{"n": 0}]
    evidence = rag.store.read(
        "MATCH (:Entity {name: 'Neil Armstrong'})-[r:RELATED_TO]-(:Entity {name: 'Buzz Aldrin'}) RETURN r.evidence AS e"
    )
    assert evidence and "Armstrong" in evidence[0]["e"][0] and "Aldrin" in evidence[0]["e"][0]
    # entity embeddings are in the Entity vector index
    hits = rag.store.graph.entity_vector_search(rag.embedder.embed(["Elon Musk"])[0], 3)
    assert hits[0]["name"] == "Elon Musk"


def test_reingest_leaves_the_graph_unchanged(rag) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    before = _graph_snapshot(rag)
    again = rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    assert again.documents_written == 0
    assert _graph_snapshot(rag) == before


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_delete_keeps_shared_entities_with_their_other_support(rag, tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "Acme Rockets hired Zed Widget. Acme Rockets opened a plant in Paris.")
    _write(tmp_path, "b.md", "Acme Rockets opened a plant in Paris.")
    rag.ingest([tmp_path], base=tmp_path, extractor="nlp")

    def weight(x: str, y: str) -> float | None:
        rows = rag.store.read("MATCH (a:Entity {name: $x})-[r]-(b:Entity {name: $y}) RETURN r.weight AS w", x=x, y=y)
        return rows[0]["w"] if rows else None

    assert weight("Acme Rockets", "Paris") == 2.0  # one sentence in each document
    assert weight("Acme Rockets", "Zed Widget") == 1.0
    assert rag.delete_document("a.md") == 1
    names = {r["n"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS n")}
    assert names == {"Acme Rockets", "Paris"}  # Zed Widget had no other support
    assert weight("Acme Rockets", "Paris") == 1.0
    assert weight("Acme Rockets", "Zed Widget") is None
    sources = rag.store.read(
        "MATCH (c:Chunk)-[:MENTIONS]->(:Entity {name: 'Acme Rockets'}) RETURN collect(c.document_id) AS d"
    )
    assert sources == [{"d": ["b.md"]}]
    assert rag.store.read("MATCH (e:Entity {name: 'Acme Rockets'}) RETURN e.degree AS d") == [{"d": 1}]


def test_changed_document_moves_its_support(rag, tmp_path: Path) -> None:
    doc = _write(tmp_path, "a.md", "Acme Rockets hired Zed Widget in Paris.")
    _write(tmp_path, "b.md", "Zed Widget visited Paris.")
    rag.ingest([tmp_path], base=tmp_path, extractor="nlp")
    doc.write_text("Acme Rockets moved to Berlin.", encoding="utf-8")
    rag.ingest([tmp_path], base=tmp_path, extractor="nlp")
    names = {r["n"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS n")}
    assert names == {"Acme Rockets", "Berlin", "Zed Widget", "Paris"}
    rels = rag.store.read("MATCH (a:Entity)-[r]->(b:Entity) RETURN a.name + '|' + b.name AS p, r.weight AS w")
    pairs = {frozenset(r["p"].split("|")): r["w"] for r in rels}
    assert pairs == {frozenset({"Acme Rockets", "Berlin"}): 1.0, frozenset({"Zed Widget", "Paris"}): 1.0}


class ScriptedExtractor:
    """Stands in for an *extractor* (Neo4j stays real): returns what a hostile LLM might."""

    name = "scripted"

    def __init__(self, entities: list[ExtractedEntity], relations: list[ExtractedRelation]) -> None:
        self.entities, self.relations = entities, relations

    def extract_many(self, chunks: list[tuple[str, str]], on_done=None) -> list[ChunkExtraction]:
        return [ChunkExtraction(chunk_id=cid, entities=self.entities, relations=self.relations) for cid, _ in chunks]

    def usage(self) -> dict[str, float]:
        return {}


def test_hostile_types_and_names_never_reach_cypher_as_code(rag, tmp_path: Path) -> None:
    hostile_type = "x]->() DETACH DELETE n //"
    entities = [
        ExtractedEntity(name="Robert'); MATCH (n) DETACH DELETE n //", type="PERSON`) DELETE n"),
        ExtractedEntity(name="Acme {evil: true}", type="ORGANIZATION"),
        ExtractedEntity(name="名字\n`backtick`", type="Concept:Admin"),
    ]
    relations = [
        ExtractedRelation(source=entities[0].name, target=entities[1].name, type=hostile_type),
        ExtractedRelation(source=entities[1].name, target=entities[2].name, type="PART_OF"),
        ExtractedRelation(source=entities[2].name, target=entities[0].name, type="works for"),
    ]
    _write(tmp_path, "doc.md", "Some text about three parties.")
    pipeline = IngestPipeline(rag.settings, rag.store, rag.embedder, ScriptedExtractor(entities, relations))
    report = pipeline.ingest([tmp_path], base=tmp_path)
    assert report.ok and report.entities_written == 3
    counts = rag.inspect.stats()
    assert counts["documents"] == 1 and counts["entities"] == 3 and counts["relations"] == 3
    types = sorted(r["t"] for r in rag.store.read("MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS t"))
    assert types == ["RELATED_TO", "WORKS_FOR", "X_DETACH_DELETE_N"]  # PART_OF is ours, so refused
    labels = sorted(r["l"] for r in rag.store.read("MATCH (e:Entity) RETURN labels(e)[1] AS l"))
    assert labels == ["Concept", "Concept", "Organization"]
    names = {r["n"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS n")}
    assert "Acme {evil: true}" in names
