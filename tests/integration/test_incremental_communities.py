"""Incremental communities on the real Neo4j: an ingest rewrites only what it touches, report calls counted
against the OpenAI-compatible stub, the report budget, stale reports and their refresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def _report_reply(body: dict):
    from tests.stub_openai import chat_reply

    return chat_reply(
        json.dumps(
            {
                "title": "LLM title",
                "summary": "LLM summary.",
                "findings": [{"summary": "F", "explanation": "E"}],
                "rating": 6,
                "rating_explanation": "r",
            }
        )
    )


def _layer(rag) -> dict[str, tuple]:
    rows = rag.store.read(
        "MATCH (c:Community) OPTIONAL MATCH (p:Community)-[:PARENT_OF]->(c) "
        "RETURN c.id AS id, p.id AS parent, c.updated_at AS at, c.report_kind AS kind, "
        "COUNT { (:Entity)-[:IN_COMMUNITY]->(c) } AS linked"
    )
    return {r["id"]: (r["parent"], r["at"], r["kind"], r["linked"]) for r in rows}


def _holding(rag, name: str) -> set[str]:
    return {
        r["id"]
        for r in rag.store.read("MATCH (:Entity {name: $name})-[:IN_COMMUNITY]->(c) RETURN c.id AS id", name=name)
    }


@pytest.fixture
def built(rag, llm_rag_factory, stub):
    """The space corpus (offline extraction) with LLM-written reports for every community."""
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    stub.default = _report_reply
    graph = llm_rag_factory(llm_cache=False)
    first = graph.build_communities(seed=42)
    assert first.llm_calls == len(stub.requests) == sum(first.levels.values())  # one call per community
    return graph, first


def test_an_ingest_rewrites_only_the_communities_it_touches(rag, built, stub, tmp_path: Path) -> None:
    graph, first = built
    before, calls = _layer(rag), len(stub.requests)

    # 1. Entities that touch nothing existing: no existing community changes, new ones for the newcomers.
    (tmp_path / "island.txt").write_text(
        "Zorblax Quintero and Vexmira Tollund founded Quarnholm Dynamics.", encoding="utf-8"
    )
    changed = graph.ingest([tmp_path / "island.txt"], base=tmp_path, extractor="nlp").communities
    after = _layer(rag)
    assert {cid: after.get(cid) for cid in before} == before  # same ids, parents, reports and member links
    new = set(after) - set(before)
    assert new and _holding(rag, "Zorblax Quintero") <= new
    assert changed["kept"] == len(before) and changed["removed"] == changed["rewritten"] == 0
    assert changed["llm_calls"] == len(stub.requests) - calls == len(new)

    # 2. One existing entity touched: only the communities holding it (one per level) change.
    chain = _holding(rag, "Jeff Bezos")
    assert len(chain) >= 2  # a community and at least one ancestor
    before, calls = _layer(rag), len(stub.requests)
    (tmp_path / "touch.txt").write_text("Zephyr Quill interviewed Jeff Bezos.", encoding="utf-8")
    changed = graph.ingest([tmp_path / "touch.txt"], base=tmp_path, extractor="nlp").communities
    after = _layer(rag)
    assert set(before) - set(after) == chain
    assert {cid: after[cid][1:] for cid in before if cid not in chain} == {
        cid: before[cid][1:] for cid in before if cid not in chain
    }  # untouched: same report and links
    assert changed["removed"] == len(chain) and changed["kept"] == len(before) - len(chain)
    made = len(set(after) - set(before))
    # a community that gained one member keeps its LLM report when the overlap is high; the rest are asked for
    assert changed["llm_calls"] == len(stub.requests) - calls == made - changed["reused"]
    assert changed["reused"] >= 1 and changed["stale"] == changed["reused"]
    stale = rag.store.read(
        "MATCH (c:Community {stale: true}) RETURN c.title AS t, c.report_kind AS k, "
        "c.changed AS changed, size(c.report_members) AS basis, c.size AS size"
    )
    assert stale and all(
        # kept while at least report_reuse_overlap (0.8) of the members stay: at most a fifth changed
        r["t"] == "LLM title" and r["k"] == "llm" and 0 < r["changed"] <= 0.2 + 1e-9 and r["size"] == r["basis"] + 1
        for r in stale
    )


def test_the_report_budget_caps_ingest_calls_and_refresh_rewrites_stale_reports(
    rag, built, stub, llm_rag_factory, tmp_path: Path
) -> None:
    graph, _ = built
    stingy = llm_rag_factory(llm_cache=False, report_budget=1)
    calls = len(stub.requests)
    (tmp_path / "island.txt").write_text(
        "Zorblax Quintero and Vexmira Tollund founded Quarnholm Dynamics. "
        "Ustara Minsk and Dovrel Kasp ran Brellin Labs. Ivo Sarnath and Mela Toskin built Ferrowick Mills.",
        encoding="utf-8",
    )  # three groups that share no entity: three new communities
    changed = stingy.ingest([tmp_path / "island.txt"], base=tmp_path, extractor="nlp").communities
    assert changed["llm_calls"] == len(stub.requests) - calls == 1
    assert changed["stale"] >= 1  # the communities over budget: extractive now, marked stale
    stale = {
        r["id"]: r["k"]
        for r in rag.store.read("MATCH (c:Community {stale: true}) RETURN c.id AS id, c.report_kind AS k")
    }
    assert set(stale.values()) == {"extractive"}

    # global search says when a report it used is stale
    stale_ids = sorted(stale)
    result = rag.search("Who founded Quarnholm Dynamics, Zorblax Quintero?", mode="global", level=0)
    assert {c.id for c in result.communities if c.stale} & set(stale_ids)
    assert any("stale" in note and "communities refresh" in note for note in result.notes)
    assert "stale report" in result.answer

    # refresh: the most important first, within its budget, until none is left
    calls = len(stub.requests)
    levels = {r["level"] for r in rag.store.read("MATCH (c:Community {stale: true}) RETURN c.level AS level")}
    other = stingy.refresh_communities(budget=100, level=max(levels) + 1)  # --level: only that level's reports
    assert other.rewritten == 0 and len(stub.requests) == calls
    one = stingy.refresh_communities(budget=1)
    assert one.rewritten == 1 and one.stale_left == len(stale) - 1 and len(stub.requests) == calls + 1
    rest = stingy.refresh_communities(budget=100)
    assert rest.rewritten == len(stale) - 1 and rest.stale_left == 0
    assert rag.store.read("MATCH (c:Community {stale: true}) RETURN count(c) AS n") == [{"n": 0}]
    kinds = {
        r["k"]
        for r in rag.store.read("MATCH (c:Community) WHERE c.id IN $ids RETURN c.report_kind AS k", ids=stale_ids)
    }
    assert kinds == {"llm"}


def test_refresh_needs_an_llm_and_offline_reports_are_never_stale(rag, tmp_path: Path) -> None:
    from graphwright.errors import LLMRequiredError

    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    rag.build_communities(seed=42)
    (tmp_path / "touch.txt").write_text("Zephyr Quill interviewed Jeff Bezos.", encoding="utf-8")
    changed = rag.ingest([tmp_path / "touch.txt"], base=tmp_path, extractor="nlp").communities
    assert changed["removed"] >= 1 and changed["stale"] == changed["llm_calls"] == 0
    with pytest.raises(LLMRequiredError, match="needs an LLM"):
        rag.refresh_communities()


def test_a_full_rebuild_detects_everything_anew(rag) -> None:
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    first = rag.build_communities(seed=42)
    again = rag.build_communities(seed=42)
    assert again.kept == sum(again.levels.values()) and again.created == again.removed == 0
    full = rag.build_communities(seed=42, full=True)
    assert full.full and 0 < full.modularity <= 1
    # a fresh detection of an unchanged graph finds the same top level the stable one kept
    assert abs(full.modularity - first.modularity) < 0.03 * first.modularity
