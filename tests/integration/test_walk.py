"""local's Personalized PageRank walk on a small multi-hop corpus, against the real Neo4j: the bridge passage,
a document's subject as an entity, synonym lists, and the bounded neighbourhood."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.search.neighbourhood import CHUNK, fetch_neighbourhood

pytestmark = pytest.mark.integration

# "Aldo Verran" never names its subject: only its title ties it to the film that names him.
RECORDS = [
    {
        "id": "moonfall",
        "title": "Moonfall Road",
        "text": "Moonfall Road is a 1987 drama film directed by Aldo Verran. "
        "It was shot in the hills above Lake Corra.",
    },
    {
        "id": "verran",
        "title": "Aldo Verran (director)",
        "text": "He was born in Trieste in 1941 and trained as a painter before he made his first picture.",
    },
    {
        "id": "salt",
        "title": "Salt Harbour",
        "text": "Salt Harbour is a 1990 drama film directed by Mira Kolb. It was shot on the coast near Porto Verde.",
    },
    {
        "id": "kolb",
        "title": "Mira Kolb",
        "text": "She was born in Graz in 1950 and worked as a photographer before she made her first picture.",
    },
    {"id": "trieste", "title": "Trieste", "text": "Trieste is a port city in north-eastern Italy on the Adriatic."},
    {"id": "corra", "title": "Lake Corra", "text": "Lake Corra is a glacial lake where painters were born."},
    {
        "id": "ballad",
        "title": "Sailor's Ballad",
        "text": "A ballad about where a film director was born, sung by a sailor of Porto Verde.",
    },
]
QUESTION = "Where was the director of Moonfall Road born?"


def _write(rag, cypher: str) -> None:
    rag.store.connection.execute_write(lambda tx: tx.run(cypher).consume())


@pytest.fixture
def films(rag, tmp_path: Path):
    path = tmp_path / "films.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    report = rag.ingest([path], extractor="nlp")
    assert report.documents_written == len(RECORDS) and not report.failures
    return rag


def test_the_walk_finds_the_passage_about_the_bridge_entity(films) -> None:
    # The subject rule: the passage that never says "Aldo Verran" mentions him all the same.
    mentioned = films.store.read("MATCH (:Chunk {document_id: 'verran'})-[:MENTIONS]->(e:Entity) RETURN e.name AS n")
    assert "Aldo Verran" in {r["n"] for r in mentioned}

    result = films.search(QUESTION, mode="local", k=5)
    assert {c.document_id for c in result.chunks[:2]} == {"moonfall", "verran"}
    assert result.chunks[0].scores["ppr"] >= result.chunks[1].scores["ppr"] > result.chunks[2].scores["ppr"]
    assert "Aldo Verran" in [e.name for e in result.entities[:3]]
    assert any(note.startswith("walked ") for note in result.notes)


def test_synonym_lists_are_a_property_filled_for_every_entity(films) -> None:
    rows = films.store.read("MATCH (e:Entity) RETURN e.id AS id, e.similar AS similar")
    ids = {r["id"] for r in rows}
    assert rows and all(isinstance(r["similar"], list) and len(r["similar"]) <= 5 for r in rows)
    assert all(set(r["similar"]) <= ids - {r["id"]} for r in rows)
    # not relationships: communities, paths and relation counts never see them
    assert films.store.read("MATCH ()-[r:SIMILAR|SIMILAR_TO]->() RETURN count(r) AS n")[0]["n"] == 0

    # A graph built before synonym lists (or an entity whose list went missing) is filled in by the next run.
    _write(films, "MATCH (e:Entity) WITH e LIMIT 3 REMOVE e.similar")
    assert films.store.writes.link_similar() == 3
    assert films.store.writes.link_similar() == 0

    # Batches run side by side give every entity the list one batch at a time gives it.
    def lists() -> dict[str, list[str]]:
        return {
            r["id"]: r["similar"] for r in films.store.read("MATCH (e:Entity) RETURN e.id AS id, e.similar AS similar")
        }

    before = lists()
    _write(films, "MATCH (e:Entity) REMOVE e.similar")
    assert films.store.writes.link_similar(batch_size=2, workers=3) == len(ids)
    assert lists() == before

    # A list may name an entity deleted since; the walk skips it.
    _write(films, "MATCH (e:Entity) SET e.similar = e.similar + ['e_gone']")
    assert {c.document_id for c in films.search(QUESTION, mode="local", k=5).chunks[:2]} == {"moonfall", "verran"}


def test_the_neighbourhood_is_bounded_by_its_caps(films) -> None:
    seeds = [c["id"] for c in films.store.read("MATCH (c:Chunk {document_id: 'moonfall'}) RETURN c.id AS id")]
    embedding = films.embedder.embed([QUESTION])[0]
    wide = fetch_neighbourhood(films.store, [], seeds, embedding, per_entity=10, hub=50)
    narrow = fetch_neighbourhood(films.store, [], seeds, embedding, per_entity=1, hub=50)
    assert set(seeds) <= set(narrow.chunks) < set(wide.chunks)
    named = {
        r["id"]
        for r in films.store.read(
            "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids RETURN e.id AS id", ids=seeds
        )
    }
    assert len(narrow.chunks) <= len(seeds) + len(named)  # one passage per named entity at most
    # an entity named in more passages than `hub` adds none of them unless the question names it
    no_hubs = fetch_neighbourhood(films.store, [], seeds, embedding, per_entity=10, hub=0)
    assert no_hubs.chunks == seeds
    assert all(CHUNK + c in no_hubs.graph.degree for c in seeds)


def test_the_neighbourhood_from_entities_alone_or_from_nothing(films) -> None:
    """One read serves every shape of seeds: a question that names entities but has no close passage, and
    one with neither (an empty store answer, not an error)."""
    embedding = films.embedder.embed([QUESTION])[0]
    verran = films.store.read("MATCH (e:Entity) WHERE e.name CONTAINS 'Verran' RETURN e.id AS id LIMIT 1")[0]["id"]
    mentioning = {
        r["id"]
        for r in films.store.read("MATCH (c:Chunk)-[:MENTIONS]->(:Entity {id: $id}) RETURN c.id AS id", id=verran)
    }
    alone = fetch_neighbourhood(films.store, [verran], [], embedding, per_entity=10, hub=50)
    assert set(alone.chunks) == mentioning and verran in alone.entities and alone.mentions[verran] == len(mentioning)
    assert all(CHUNK + c in alone.graph.degree for c in alone.chunks)
    # a linked entity that is a hub still adds its passages: the question names it
    assert set(fetch_neighbourhood(films.store, [verran], [], embedding, per_entity=10, hub=0).chunks) == mentioning
    nothing = fetch_neighbourhood(films.store, [], [], embedding, per_entity=10, hub=50)
    assert nothing.chunks == [] and nothing.entities == [] and not nothing.graph.edges
    gone = fetch_neighbourhood(films.store, ["e_gone"], ["c_gone"], embedding, per_entity=10, hub=50)
    assert gone.chunks == [] and gone.entities == []
