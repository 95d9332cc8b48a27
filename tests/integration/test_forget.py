"""Forget means forget: a document carrying a canary goes through everything that derives from documents (an
LLM extraction, cached on disk; entity and relation descriptions shared with other documents; communities and
their reports; the RAPTOR summary tree; a conversation citing it), then its file is removed and the folder
synced. After that no node or relationship property, no cached LLM answer and no search of any mode holds
the canary, and the conversation marks its citation stale. Before the delete each of those places does hold
it, so the test can fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.errors import GraphwrightError
from tests.integration.helpers import is_glean, workspace_texts, write_files
from tests.stub_openai import chat_reply

CANARY = "QX7CANARY"
# What a user asks: the canary's passage answers it, and the question itself never holds the canary.
QUESTION = "Which archive of Apollo program tapes did the Zorblax Foundation fund?"
NAMES = ("Zorblax Foundation", "Apollo program", "Saturn V", "Kennedy Space Center", "Wernher von Braun")
DOCS = {
    "canary.md": f"The Zorblax Foundation funded the Apollo program archive called {CANARY}. "
    f"The {CANARY} archive keeps Apollo program tapes for the Zorblax Foundation.",
    "saturn.md": "The Apollo program flew the Saturn V. Wernher von Braun led the design of the Saturn V rocket.",
    "kennedy.md": "The Saturn V launched from the Kennedy Space Center. The Apollo program used the Kennedy Space "
    "Center for every crewed launch.",
    "braun.md": "Wernher von Braun worked at the Kennedy Space Center and on the Apollo program.",
}


def stub_reply(body: dict):
    """Extraction: the names of NAMES the passage holds, described by the passage (the canary's passage says
    the canary). Anything else (answers, rewrites): what the prompt says of the canary, if anything, so an
    answer built from a leaked passage leaks too."""
    system = body["messages"][0]["content"]
    said = json.dumps(body["messages"])
    if is_glean(body):
        return chat_reply('{"entities": [], "relations": []}')
    if '"entities"' in system:
        user = body["messages"][-1]["content"]
        found = [n for n in NAMES if n in user]
        tag = f" (the {CANARY} archive)" if CANARY in user else ""
        entities = [{"name": n, "type": "organization", "description": f"{n} appears here{tag}."} for n in found]
        relations = [
            {"source": a, "target": b, "type": "WORKED_WITH", "description": f"{a} with {b}{tag}.", "strength": 8}
            for a, b in zip(found, found[1:])
        ]
        return chat_reply(json.dumps({"entities": entities, "relations": relations}))
    # The passage's own words, not the canary: a question about the canary is no leak, a passage quoted is.
    quoted = "funded the Apollo program archive" in said
    return chat_reply(f"The passages mention the {CANARY} archive." if quoted else "Nothing more is known.")


def cached_answers(home: Path) -> str:
    folder = home / "cache" / "llm"
    return "".join(p.read_text(encoding="utf-8") for p in folder.rglob("*.json")) if folder.is_dir() else ""


def searched(rag, offline) -> dict[str, str]:
    """Every registered mode's whole result (or its error) for the question the canary's passage answers."""
    from graphwright.search.registry import mode_names, modes_where

    llm_modes = set(modes_where("needs_llm"))
    results = {}
    for mode in mode_names():
        graph = rag if mode in llm_modes else offline
        extra = {"source": "Zorblax Foundation", "target": "Saturn V"} if mode == "path" else {}
        try:
            results[mode] = graph.search(QUESTION, mode=mode, **extra)
            results[mode] = results[mode].model_dump_json()
        except GraphwrightError as exc:
            results[mode] = f"error: {exc}"
    return results


@pytest.fixture
def canary_world(rag, llm_rag_factory, stub, settings, tmp_path: Path):
    stub.default = stub_reply
    graph = llm_rag_factory(llm_concurrency=1, llm_gleanings=0, report_budget=0, raptor_llm_budget=0)
    folder = write_files(tmp_path / "docs", DOCS)
    report = graph.sync(folder, extractor="llm")
    assert not report.failures and report.ingest and report.ingest.extractor == "llm"
    graph.build_communities(budget=0)
    graph.build_raptor()
    return graph, folder


def test_a_removed_document_leaves_nothing_behind(canary_world, rag, settings) -> None:
    graph, folder = canary_world
    talk = graph.conversations()
    conversation = talk.create("canary")
    asked = rag.search("Who funded the archive of the Zorblax Foundation?", mode="hybrid", k=2)
    talk.remember(conversation.id, asked)
    cited = {c.chunk_id for c in asked.chunks if c.document_id == "docs/canary.md"}
    assert cited, "the canary's passage was found before the delete"

    before = workspace_texts(graph)
    assert CANARY in before and CANARY in cached_answers(settings.home)
    assert CANARY in talk.get(conversation.id).history[0].answer
    leaks_before = {mode for mode, text in searched(graph, rag).items() if CANARY in text}
    assert {"vector", "hybrid", "local", "raptor"} <= leaks_before, leaks_before
    shared = graph.store.read("MATCH (e:Entity {name: 'Apollo program'}) RETURN e.description AS d")[0]["d"]
    assert CANARY in shared, "an entity other documents keep carried the canary's description"
    summaries = graph.store.read("MATCH (s:Summary) RETURN s.text AS t")
    assert any(CANARY in (s["t"] or "") for s in summaries), "the summary tree held the canary"

    (folder / "canary.md").unlink()
    report = graph.sync(folder)
    assert report.removed == ["docs/canary.md"] and report.documents_removed == 1

    assert CANARY not in workspace_texts(graph), "a node or relationship kept the canary"
    assert CANARY not in cached_answers(settings.home), "a cached LLM answer kept the canary"
    leaked = {
        mode: text[:300]
        for mode, text in searched(graph, rag).items()
        if CANARY in text.replace(f"What is the {CANARY}", "").replace(f"the {CANARY} archive of", "")
    }
    assert not leaked, leaked
    assert graph.store.read("MATCH (e:Entity {name: 'Apollo program'}) RETURN e.name AS n"), "shared entities stay"
    turn = talk.get(conversation.id).history[0]
    assert set(turn.stale) == cited, "the conversation says which citation is gone"
    assert turn.question == "Who funded the archive of the Zorblax Foundation?" and "deleted" in turn.answer
