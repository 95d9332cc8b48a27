"""The RAPTOR summary tree on the real Neo4j: built over the passages, indexed, kept when nothing changed,
redone only for a changed long document, searched by the `raptor` mode (passages cited, summaries in the
context), and confined to its workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import run, write_files, write_space_corpus

pytestmark = pytest.mark.integration

TOPICS = {
    "reactor.md": ("The reactor coolant pump", "circulates water through the core at {n} litres a second"),
    "orchard.md": ("The apple orchard", "yields {n} crates of fruit in a good autumn"),
}


def _long(topic: str, phrase: str, paragraphs: int = 80, edit: str = "") -> str:
    body = "\n\n".join(
        f"{topic} was inspected on day {i}. {topic} {phrase.format(n=100 + i)}. "
        f"The inspector noted item {i} and signed report {i}."
        for i in range(paragraphs)
    )
    return f"# {topic}\n\n{body}{edit}"


def _summaries(rag) -> list[dict]:
    return rag.store.read(
        "MATCH (s:Summary) OPTIONAL MATCH (s)-[:SUMMARIZES*1..8]->(c:Chunk) "
        "RETURN s.id AS id, s.level AS level, s.method AS method, size(s.embedding) AS dimension, "
        "s.text AS text, collect(DISTINCT c.document_id) AS documents, count(DISTINCT c) AS leaves, "
        "s.n_chunks AS n_chunks ORDER BY id"
    )


def test_a_tree_is_built_kept_and_redone_only_where_passages_changed(rag, tmp_path: Path) -> None:
    folder = write_files(tmp_path / "docs", {name: _long(*topic) for name, topic in TOPICS.items()})
    rag.ingest([folder], base=tmp_path, extractor="nlp")
    chunks = rag.inspect.stats()["chunks"]
    run_ = rag.build_raptor()
    assert run_.passages == chunks and run_.trees == 2, "two long documents: a tree each"
    assert run_.summaries == run_.written > 0 and run_.kept == 0 and 1 in run_.levels and max(run_.levels) >= 2
    stored = _summaries(rag)
    assert len(stored) == run_.summaries
    assert all(s["method"] == "extractive" and s["dimension"] == rag.embedder.dimension for s in stored)
    assert all(len(s["documents"]) == 1 for s in stored), "a long document's tree stays in it"
    assert all(s["leaves"] == s["n_chunks"] >= 2 and s["text"] for s in stored)
    # every passage is under some summary of its document's tree
    uncovered = "MATCH (c:Chunk) WHERE NOT EXISTS { (:Summary)-[:SUMMARIZES*1..8]->(c) } RETURN count(c) AS n"
    assert rag.store.read(uncovered) == [{"n": 0}]

    again = rag.build_raptor()
    assert (again.written, again.removed, again.kept) == (0, 0, run_.summaries), "nothing changed: all kept"

    write_files(folder, {"orchard.md": _long(*TOPICS["orchard.md"], edit="\n\nA late frost damaged the blossoms.")})
    # the ingest keeps the existing tree current itself (GRAPHWRIGHT_RAPTOR_ON_INGEST), redoing only what changed
    redone = rag.ingest([folder], base=tmp_path, extractor="nlp").raptor
    reactor = {s["id"] for s in stored if s["documents"] == ["docs/reactor.md"]}
    after = _summaries(rag)
    assert reactor <= {s["id"] for s in after}, "the unchanged document's tree is kept"
    assert redone["kept"] >= len(reactor) and redone["written"] > 0 and redone["removed"] > 0
    # the changed document's passages, written anew, are all under its new tree again
    assert rag.store.read(uncovered) == [{"n": 0}]
    assert all(s["leaves"] == s["n_chunks"] for s in after), "no summary lost a passage"
    assert rag.build_raptor().written == 0, "nothing left to redo"

    # a deleted document takes its summaries with it: none speaks for passages that are gone
    rag.delete_document("docs/orchard.md")
    left = _summaries(rag)
    assert left and all(s["documents"] == ["docs/reactor.md"] for s in left)
    assert {s["id"] for s in left} == reactor and all(s["leaves"] == s["n_chunks"] for s in left)
    assert "orchard" not in " ".join(s["text"].lower() for s in left)


def test_the_raptor_mode_cites_passages_and_reads_summaries(rag, tmp_path: Path, cli_env) -> None:
    corpus = write_space_corpus(tmp_path / "space", revision=False)
    rag.ingest([corpus], base=tmp_path, extractor="nlp")
    before = rag.search("Who founded SpaceX?", mode="raptor", k=3, generate=False)
    assert any("index raptor" in n or "raptor build" in n for n in before.notes), "without a tree: said"
    assert [c.chunk_id for c in before.chunks] == [
        c.chunk_id for c in rag.search("Who founded SpaceX?", mode="vector", k=3, generate=False).chunks
    ]

    built = rag.build_raptor()
    assert built.summaries > 0 and built.trees == 1, "short documents share one tree"
    result = rag.search("Who founded SpaceX?", mode="raptor", k=3, generate=False)
    assert 0 < len(result.chunks) <= 3 and len({c.chunk_id for c in result.chunks}) == len(result.chunks)
    assert any("SpaceX" in c.text for c in result.chunks)
    [section] = [s for s in result.context if s.name == "summaries"]
    assert section.ids and all(i.startswith("s_") for i in section.ids) and "extractive" in section.text
    assert [c.kind for c in result.citations].count("chunk") == len(result.chunks), "passages are cited"

    # the CLI builds and searches the same way, and another workspace has no tree
    shown = run(["raptor", "build", "--json"], cli_env, tmp_path)
    assert shown.returncode == 0 and json.loads(shown.stdout)["written"] == 0
    indexed = run(["index", str(corpus), "--raptor", "-q"], cli_env, tmp_path)
    assert indexed.returncode == 0 and "RAPTOR tree over" in indexed.stdout and "0 written" in indexed.stdout
    other = rag.store.in_workspace("elsewhere")
    assert other.summaries.search(rag.embedder.embed(["SpaceX"])[0], 5) == []


def test_with_an_llm_the_broadest_summaries_are_its_own_and_a_bad_reply_falls_back(
    rag, llm_rag_factory, stub, tmp_path: Path
) -> None:
    from tests.stub_openai import chat_reply

    replies = iter(
        [chat_reply("Sure! Here is a summary of the passages, as you asked, in many words " * 20)]  # not JSON
        + [
            chat_reply(json.dumps({"summary": f"Inspection record {i}: the equipment and its readings."}))
            for i in range(10)
        ]
    )
    stub.default = lambda body: next(replies)
    rag = llm_rag_factory(raptor_llm_budget=3, llm_concurrency=1)  # over the emptied graph of `rag`
    folder = write_files(tmp_path / "docs", {name: _long(*topic) for name, topic in TOPICS.items()})
    rag.ingest([folder], base=tmp_path, extractor="none")
    built = rag.build_raptor()
    asked = [r for r in stub.requests if "belong together" in json.dumps(r["body"]["messages"])]
    assert len(asked) <= 3 + 3  # the budget, and at most one repair of each unusable reply
    stored = _summaries(rag)
    by_llm = [s for s in stored if s["method"] == "llm"]
    assert built.by_llm == len(by_llm) >= 1 and built.llm_failed >= 1 and built.by_llm + built.llm_failed == 3
    assert all(s["text"].startswith("Inspection record") for s in by_llm)
    top = max(s["level"] for s in stored)
    assert {s["level"] for s in by_llm} <= {top, top - 1}, "the budget goes to the broadest summaries"
    assert all(s["method"] == "extractive" for s in stored if s not in by_llm)
    assert rag.build_raptor().written == 0, "kept as written, whoever wrote them"
