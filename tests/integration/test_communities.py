"""Communities on the real Neo4j: recovery of planted groups, determinism, hierarchy, reuse, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import adjusted_rand_score

from tests.synthetic import planted_partition

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def planted(rag, tmp_path: Path):
    (tmp_path / "support.md").write_text("Synthetic support text.", encoding="utf-8")
    rag.ingest([tmp_path / "support.md"], base=tmp_path, extractor="none")
    chunk = rag.store.retrieval.get_document("support.md")["chunks"][0]["id"]
    entities, relations, truth = planted_partition(groups=6, size=8, chunk_id=chunk, intra_degree=5, seed=3)
    rag.store.writes.write_graph(entities, relations)
    return rag, truth, chunk


def _level(rag, level: int) -> dict[str, str]:
    rows = rag.store.read(
        "MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community {level: $level}) RETURN e.id AS e, c.id AS c", level=level
    )
    return {r["e"]: r["c"] for r in rows}


def test_planted_groups_are_recovered(planted) -> None:
    rag, truth, _ = planted
    run = rag.build_communities(max_cluster_size=10, seed=42)
    assert run.created + run.rewritten == sum(run.levels.values()) and run.kept == 0
    found = _level(rag, 0)
    assert set(found) == set(truth)
    ids = sorted(truth)
    score = adjusted_rand_score([truth[i] for i in ids], [found[i] for i in ids])
    assert score >= 0.9, score


def test_same_graph_and_seed_give_the_same_communities(planted) -> None:
    rag, _, _ = planted
    rag.build_communities(seed=5)
    first = rag.store.read("MATCH (c:Community) RETURN c.id AS id, c.members AS m ORDER BY id")
    rag.store.connection.write("MATCH (c:Community) DETACH DELETE c")
    again = rag.build_communities(seed=5)
    assert again.kept == 0  # really recomputed, not reused
    assert rag.store.read("MATCH (c:Community) RETURN c.id AS id, c.members AS m ORDER BY id") == first


def test_hierarchy_is_consistent(rag) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    run = rag.build_communities(max_cluster_size=6, seed=42)
    assert max(run.levels) >= 1, run.levels  # small clusters force deeper levels
    orphans = rag.store.read("""
        MATCH (c:Community) WHERE c.level > 0
        OPTIONAL MATCH (p:Community)-[:PARENT_OF]->(c)
        WITH c, collect(p) AS parents
        WHERE size(parents) <> 1 OR parents[0].level <> c.level - 1
           OR any(m IN c.members WHERE NOT m IN parents[0].members)
        RETURN count(c) AS n""")
    assert orphans == [{"n": 0}]
    doubles = rag.store.read("""
        MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community)
        WITH e, c.level AS level, count(c) AS n WHERE n <> 1 RETURN count(*) AS bad""")
    assert doubles == [{"bad": 0}]
    sizes = rag.store.read(
        "MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community) WITH c, count(e) AS n WHERE n <> c.size RETURN count(c) AS bad"
    )
    assert sizes == [{"bad": 0}]
    isolated = rag.store.read(
        "MATCH (e:Entity) WHERE NOT (e)-[]-(:Entity) AND NOT (e)-[:IN_COMMUNITY]->() RETURN count(e) AS n"
    )
    assert isolated == [{"n": run.isolated_entities}]  # entities without relations: counted, kept, no community


def test_unchanged_communities_keep_their_reports(planted) -> None:
    rag, truth, chunk = planted
    rag.build_communities(seed=42)
    before = {
        r["id"]: r["at"] for r in rag.store.read("MATCH (c:Community {level: 0}) RETURN c.id AS id, c.updated_at AS at")
    }
    # one new member joins group 0: only its community changes
    from graphwright.models import Entity, Relation

    group0 = sorted(e for e, g in truth.items() if g == 0)
    newcomer = Entity(id="e_newcomer", name="Newcomer", type="CONCEPT", label="Concept", mentions={chunk: 1})
    rels = [
        Relation(
            source_id="e_newcomer",
            target_id=m,
            type="RELATED_TO",
            chunk_ids=[chunk],
            chunk_weights=[3.0],
            evidence=["x"],
        )
        for m in group0[:4]
    ]
    rag.store.writes.write_graph([newcomer], rels)
    run = rag.build_communities(seed=42)
    assert run.rewritten == 1 and run.created == 0 and run.removed == 1
    assert run.kept == len(before) - 1
    after = {
        r["id"]: r["at"] for r in rag.store.read("MATCH (c:Community {level: 0}) RETURN c.id AS id, c.updated_at AS at")
    }
    assert sum(1 for cid, at in after.items() if before.get(cid) == at) == len(before) - 1


def test_extractive_reports_cite_chunks_that_exist(rag) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    rag.build_communities(seed=42)
    rows = rag.store.read(
        "MATCH (c:Community) RETURN c.title AS t, c.summary AS s, c.findings AS f, "
        "c.cited_chunks AS cited, c.rating AS r, c.report_kind AS k, size(c.embedding) AS d"
    )
    assert rows and all(r["k"] == "extractive" and r["t"] and r["s"] and 0 <= r["r"] <= 10 for r in rows)
    assert all(r["d"] == rag.embedder.dimension for r in rows)  # report embeddings in the Community index
    cited = {c for r in rows for c in r["cited"]}
    assert cited
    existing = rag.store.read("UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN count(c) AS n", ids=sorted(cited))
    assert existing == [{"n": len(cited)}]
    for r in rows:
        for finding in json.loads(r["f"]):
            assert set(finding["chunk_ids"]) <= cited and finding["summary"]
    largest = max(rows, key=lambda r: len(r["t"]))
    assert "," in largest["t"] or " and " in largest["t"]  # titled by its most central members


def test_delete_updates_communities(rag, tmp_path: Path) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    rag.build_communities(seed=42)
    members = {
        r["m"] for r in rag.store.read("MATCH (e:Entity {name: 'Jeff Bezos'})-[:IN_COMMUNITY]->(c) RETURN c.id AS m")
    }
    assert members
    rag.delete_document("examples/space/blue-origin.md")
    still = rag.store.read("MATCH (c:Community) WHERE c.id IN $ids RETURN count(c) AS n", ids=sorted(members))
    assert still == [{"n": 0}]  # the communities that held the deleted support were replaced
    stale = rag.store.read(
        "MATCH (c:Community) WHERE any(m IN c.members WHERE NOT EXISTS "
        "{ MATCH (e:Entity {id: m}) }) RETURN count(c) AS n"
    )
    assert stale == [{"n": 0}]


def test_llm_reports_from_the_stub_and_fallback(rag, llm_rag_factory, stub) -> None:
    from tests.stub_openai import chat_reply

    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    graph = llm_rag_factory(llm_concurrency=2)

    def reply(body: dict):
        prompt = body["messages"][-1]["content"]
        if "Apollo 11" in prompt and "Sub-community reports" not in prompt:
            return chat_reply("this is not JSON")  # one community's report fails: extractive fallback
        return chat_reply(
            json.dumps(
                {
                    "title": "Report title",
                    "summary": "Community summary.",
                    "findings": [{"summary": "F1", "explanation": "E1"}],
                    "rating": 7.5,
                    "rating_explanation": "important",
                }
            )
        )

    stub.default = reply
    run = graph.build_communities(seed=42)
    kinds = rag.store.read("MATCH (c:Community) RETURN c.report_kind AS k, count(*) AS n ORDER BY k")
    assert sum(r["n"] for r in kinds) == sum(run.levels.values())
    assert {r["k"] for r in kinds} == {"llm", "extractive"} and run.llm_failures >= 1
    llm_rows = rag.store.read(
        "MATCH (c:Community {report_kind: 'llm'}) RETURN c.title AS t, c.rating AS r, c.cited_chunks AS cited LIMIT 1"
    )
    assert llm_rows[0]["t"] == "Report title" and llm_rows[0]["r"] == 7.5
    prompts = [r["body"]["messages"][-1]["content"] for r in stub.requests]
    assert all("Entities:" in p or "Sub-community reports:" in p for p in prompts)
    calls = len(stub.requests)
    again = graph.build_communities(seed=42)  # nothing changed: every report is kept, no LLM call
    assert again.kept == sum(again.levels.values()) and len(stub.requests) == calls


def test_ingest_brings_existing_communities_up_to_date(rag, tmp_path: Path) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    assert rag.ingest([ROOT / "examples" / "space"], base=ROOT).communities == {}  # none yet, nothing changed
    first = rag.build_communities(seed=42)
    (tmp_path / "new.md").write_text("Elon Musk and Gwynne Shotwell met Zephyr Quill at Starbase.", encoding="utf-8")
    report = rag.ingest([tmp_path / "new.md"], base=tmp_path, extractor="nlp")
    changed = report.communities
    assert changed and changed["rewritten"] + changed["created"] >= 1
    assert 0 < changed["kept"] < sum(first.levels.values())
    quill = rag.store.read("MATCH (:Entity {name: 'Zephyr Quill'})-[:IN_COMMUNITY]->(c) RETURN count(c) AS n")
    assert quill[0]["n"] >= 1


def test_an_endpoint_whose_reports_hold_nothing_gets_extractive_ones_after_a_few(rag, llm_rag_factory, stub) -> None:
    from tests.stub_openai import chat_reply

    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    graph = llm_rag_factory(llm_concurrency=1)
    placeholders = {"title": "...", "summary": "...", "findings": [{"summary": "...", "explanation": "..."}]}
    stub.default = chat_reply(json.dumps(placeholders))  # Gemma 3 270M's reply: the format, copied
    run = graph.build_communities(seed=42)
    communities = sum(run.levels.values())
    assert communities > 10 and run.llm_calls == 8 and run.llm_skipped == communities - 8
    assert run.stale == 8  # the ones asked stay stale (asked again by a refresh); the skipped ones do not
    assert rag.store.read("MATCH (c:Community) WHERE c.title = '...' RETURN count(c) AS n") == [{"n": 0}]
    learned = json.loads((graph.settings.home / "cache" / "llm-endpoints.json").read_text())
    assert next(iter(learned.values()))["reports"] is False
    calls = len(stub.requests)
    again = llm_rag_factory(llm_concurrency=1).build_communities(seed=42, full=True)  # remembered: no call
    assert again.llm_calls == 0 and len(stub.requests) == calls
    asked = graph.refresh_communities(budget=2)  # asked for by name: the LLM is asked all the same
    assert len(stub.requests) == calls + 2 and asked.llm_failures == 2
