"""DRIFT on the real Neo4j over the known small graph (with its communities): offline, the retrieval-only
variant, labelled so; with the stub LLM over real HTTP, the published loop with every call bounded, follow-ups
ranked by how well their answers address the question, and failures that degrade instead of failing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.stub_openai import chat_reply

pytestmark = pytest.mark.integration

QUESTION = "Which company owns the operator of the Kiruna mine?"


def _system(body: dict[str, Any]) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


def _user(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"]


def test_drift_offline_follows_the_reports_findings_with_local_searches(world) -> None:
    result = world.search(QUESTION, mode="drift", k=4)
    local = world.search(QUESTION, mode="local", k=4)
    assert any(n.startswith("drift offline: retrieval only") for n in result.notes)
    follow = next(n for n in result.notes if " follow-ups: " in n)
    assert not follow.startswith("0 reports") and result.communities
    assert len(result.chunks) == 4 and len({c.chunk_id for c in result.chunks}) == 4
    assert result.answer_kind == "retrieval"
    # the question's own local search weighs as much as every follow-up together: its best passage stays in,
    # and what the follow-ups found beside it (the acquisition, in another document) comes in too
    assert local.chunks[0].chunk_id in [c.chunk_id for c in result.chunks]
    assert {"gamma.md", "funding.md"} <= {c.document_id for c in result.chunks}


def test_drift_without_communities_is_the_questions_local_search(rag, tmp_path) -> None:
    from tests.integration.helpers import write_files
    from tests.integration.world import DOCS

    folder = write_files(tmp_path / "w", DOCS)
    rag.ingest([folder], base=folder, extractor="none")
    result = rag.search(QUESTION, mode="drift", k=3)
    assert any("run `graphwright communities build` first" in n for n in result.notes)
    assert [c.chunk_id for c in result.chunks] == [c.chunk_id for c in rag.search(QUESTION, mode="local", k=3).chunks]


def test_drift_with_an_llm_runs_the_bounded_loop_and_ranks_follow_ups_by_their_answers(
    world, llm_rag_factory, stub
) -> None:
    def reply(body: dict[str, Any]):
        system, user = _system(body), _user(body)
        if "encyclopedia" in system:  # HyDE
            return chat_reply("Borealis Steel owns Gamma Mining, which runs the Kiruna iron mine.")
        if "to start answering" in system:  # primer
            return chat_reply(
                json.dumps(
                    {
                        "intermediate_answer": "Gamma Mining runs Kiruna; its owner is in the funding reports.",
                        "score": 60,
                        "follow_up_queries": ["Who acquired Gamma Mining?", "Where does Gamma Mining ship ore?"],
                    }
                )
            )
        if "one follow-up question" in system:
            follow_up = user.rsplit("Follow-up: ", 1)[1].strip()
            useful = "acquired" in follow_up or follow_up == QUESTION
            ids = [part.split("]")[0] for part in user.split("[")[1:] if part.startswith("c_")]
            return chat_reply(
                json.dumps(
                    {
                        "response": f"Borealis Steel acquired Gamma Mining [{ids[0]}]." if useful else "Narvik.",
                        "score": 90 if useful else 10,
                        "follow_up_queries": ["Who acquired Gamma Mining?"] * 5,  # repeats are asked once
                    }
                )
            )
        if "intermediate answers" in system:
            cited = user.split("[c_")[1].split("]")[0]
            return chat_reply(f"Borealis Steel owns Gamma Mining, the Kiruna operator [c_{cited}].")
        return chat_reply("unexpected")

    stub.default = reply
    result = llm_rag_factory().search(QUESTION, mode="drift", k=4)
    systems = [_system(r["body"]) for r in stub.requests]
    assert len(systems) <= 10  # 1 + FOLDS + DEPTH x FOLLOW_UPS + 1
    assert "encyclopedia" in systems[0] and "intermediate answers" in systems[-1]
    assert sum("one follow-up question" in s for s in systems) <= 6
    assert result.answer_kind == "generated" and result.answer.startswith("Borealis Steel owns Gamma Mining")
    cited = [c for c in result.citations if c.kind == "chunk"]
    assert cited and {c.id for c in cited} <= {ch.chunk_id for ch in result.chunks}  # ids the passages had
    ranking = next(n for n in result.notes if n.startswith("drift: "))
    # the follow-ups, best first by their answers' scores: the useful ones before the ore question
    assert ranking.index("(90)") < ranking.index("(10) Where does Gamma Mining ship ore?"), ranking
    assert "funding.md" in {c.document_id for c in result.chunks[:2]}


def test_drift_degrades_when_the_llm_rambles_or_fails(world, llm_rag_factory, stub) -> None:
    stub.default = lambda body: chat_reply("Well, let me think about reports and many things " * 40)
    result = llm_rag_factory().search(QUESTION, mode="drift", k=3)
    notes = " | ".join(result.notes)
    assert "drift primer over" in notes and "drift: no intermediate answer from the reports" in notes
    assert "drift offline: retrieval only" in notes and len(result.chunks) == 3
    assert len(stub.requests) <= 1 + 2 + 2 + 1  # hyde, the primer folds (each may be repaired once), the answer
