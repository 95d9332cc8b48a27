"""LLM extraction through the real `openai` client against a local OpenAI-compatible stub, into the real
Neo4j: good JSON, prose-wrapped JSON, truncated JSON, 429, timeouts, empty answers, gleaning, the cache."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphwright.api import GraphRAG
from tests.integration.helpers import GOOD, ada_corpus, extractor_reply, is_glean
from tests.stub_openai import chat_reply, error_reply, hang

pytestmark = pytest.mark.integration


@pytest.fixture
def llm_graph(rag, llm_rag_factory):
    return llm_rag_factory(
        llm_timeout=1.0, llm_concurrency=1, llm_gleanings=1, llm_price_input=1.0, llm_price_output=2.0
    )


def _relations(graph: GraphRAG) -> set[tuple[str, str, str]]:
    rows = graph.store.read("MATCH (a:Entity)-[r]->(b:Entity) RETURN a.name AS a, type(r) AS t, b.name AS b")
    return {(r["a"], r["t"], r["b"]) for r in rows}


def test_typed_graph_from_good_json_and_zero_calls_when_cached(llm_graph, stub, tmp_path: Path) -> None:
    stub.default = extractor_reply(json.dumps(GOOD))
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)  # auto = llm when configured
    assert report.ok and report.extractor == "llm" and not report.extraction_failures
    assert _relations(llm_graph) == {
        ("Ada Lovelace", "WROTE_PROGRAMS_FOR", "Analytical Engine"),
        ("Charles Babbage", "DESIGNED", "Analytical Engine"),
    }
    labels = {r["n"]: r["l"] for r in llm_graph.store.read("MATCH (e:Entity) RETURN e.name AS n, labels(e)[1] AS l")}
    assert labels == {"Ada Lovelace": "Person", "Analytical Engine": "Technology", "Charles Babbage": "Person"}
    evidence = llm_graph.store.read("MATCH ()-[r:DESIGNED]->() RETURN r.evidence AS e, r.weight AS w")
    assert evidence == [{"e": ["Charles Babbage designed the machine."], "w": 10.0}]
    first_calls = len(stub.requests)
    assert first_calls == 2  # one extraction + one gleaning pass that found nothing more
    system = stub.requests[0]["body"]["messages"][0]["content"]
    assert "person, organization" in system and "JSON" in system
    assert report.llm_usage == {
        "calls": 2.0,
        "cached": 0.0,
        "prompt_tokens": 200.0,
        "completion_tokens": 80.0,
        "cost": pytest.approx((200 * 1.0 + 80 * 2.0) / 1e6),
    }

    llm_graph.store.admin.reset()  # re-index the same corpus from scratch: every answer comes from the cache
    again = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert len(stub.requests) == first_calls
    assert again.llm_usage["calls"] == 0 and again.llm_usage["cached"] == 2  # this run's own: no new calls
    assert _relations(llm_graph) == {
        ("Ada Lovelace", "WROTE_PROGRAMS_FOR", "Analytical Engine"),
        ("Charles Babbage", "DESIGNED", "Analytical Engine"),
    }


def test_json_in_prose_with_think_tags_and_trailing_commas(llm_graph, stub, tmp_path: Path) -> None:
    messy = (
        "<think>list the people first</think>Sure! Here is the graph:\n```json\n"
        + json.dumps(GOOD)[:-2]
        + "],}\n```\nLet me know if you need more."
    )
    stub.default = extractor_reply(messy)
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert not report.extraction_failures
    assert ("Charles Babbage", "DESIGNED", "Analytical Engine") in _relations(llm_graph)


def test_truncated_json_keeps_what_arrived(llm_graph, stub, tmp_path: Path) -> None:
    text = json.dumps(GOOD)
    cut = text[: text.index('{"source": "Charles Babbage"') + 20]  # stops inside the second relation
    stub.default = extractor_reply(cut)
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert not report.extraction_failures
    assert _relations(llm_graph) == {("Ada Lovelace", "WROTE_PROGRAMS_FOR", "Analytical Engine")}


def test_unreadable_then_repaired_on_reask(llm_graph, stub, tmp_path: Path) -> None:
    stub.script.extend([chat_reply("I cannot produce JSON today."), extractor_reply(json.dumps(GOOD))])
    stub.default = extractor_reply(json.dumps(GOOD))
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert not report.extraction_failures
    reask = stub.requests[1]["body"]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "I cannot produce JSON today."}
    assert "could not be read as JSON" in reask[-1]["content"]


def test_failed_chunk_is_reported_and_retried_next_run(llm_graph, stub, tmp_path: Path) -> None:
    stub.default = error_reply(503, "model loading")
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert report.documents_written == 1  # the text is indexed even when extraction failed
    assert len(report.extraction_failures) == 1 and "ada.md" in report.extraction_failures[0].source
    assert "HTTP 503" in report.extraction_failures[0].error
    assert llm_graph.inspect.stats()["entities"] == 0
    stub.default = extractor_reply(json.dumps(GOOD))
    retry = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert retry.documents_written == 1 and not retry.extraction_failures  # not skipped as "unchanged"
    assert llm_graph.inspect.stats()["entities"] == 3


def test_rate_limit_then_success(llm_graph, stub, tmp_path: Path) -> None:
    stub.script.append(error_reply(429, "slow down"))
    stub.default = extractor_reply(json.dumps(GOOD))
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert not report.extraction_failures and llm_graph.inspect.stats()["entities"] == 3
    assert len(stub.requests) == 3  # 429, then extraction, then gleaning


def test_timeout_is_retried(llm_graph, stub, tmp_path: Path) -> None:
    stub.script.append(hang(3.0))
    stub.default = extractor_reply(json.dumps(GOOD))
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert not report.extraction_failures and llm_graph.inspect.stats()["entities"] == 3


def test_empty_answers_fall_back_to_the_offline_graph(llm_graph, stub, tmp_path: Path) -> None:
    stub.default = chat_reply("")
    report = llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert report.documents_written == 1 and not report.extraction_failures
    assert list(report.extraction_fallbacks) == ["offline graph: empty reply"], report.extraction_fallbacks


def test_gleaning_merges_new_items(llm_graph, stub, tmp_path: Path) -> None:
    first = {"entities": GOOD["entities"][:2], "relations": GOOD["relations"][:1]}
    more = {"entities": [GOOD["entities"][0], GOOD["entities"][2]], "relations": GOOD["relations"]}
    stub.default = extractor_reply(json.dumps(first), glean=json.dumps(more))
    llm_graph.ingest([ada_corpus(tmp_path)], base=tmp_path)
    assert llm_graph.inspect.stats()["entities"] == 3
    assert _relations(llm_graph) == {
        ("Ada Lovelace", "WROTE_PROGRAMS_FOR", "Analytical Engine"),
        ("Charles Babbage", "DESIGNED", "Analytical Engine"),
    }
    glean_request = stub.requests[1]["body"]["messages"]
    assert glean_request[-2]["role"] == "assistant" and re.search(r"Ada Lovelace", glean_request[-2]["content"])


def test_llm_extractor_without_llm_is_a_clear_error(rag, tmp_path: Path) -> None:
    from graphwright.errors import ExtractorNotAvailableError

    with pytest.raises(ExtractorNotAvailableError, match="needs an LLM"):
        rag.ingest([ada_corpus(tmp_path)], base=tmp_path, extractor="llm")


@pytest.mark.parametrize("long", [True, False], ids=["too-long-to-join", "short"])
def test_descriptions_are_summarized_by_the_llm_only_when_they_no_longer_fit(
    long: bool, llm_graph, stub, tmp_path: Path
) -> None:
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "a.md").write_text("Ada Lovelace was a mathematician.", encoding="utf-8")
    (folder / "b.md").write_text("Ada Lovelace wrote the first program.", encoding="utf-8")
    # (distinct sentences: a reply repeating one sentence over and over is cut as a loop)
    padding = "".join(
        f" Her note {i} on the engine is cited in histories of computing." for i in range(10 if long else 0)
    )

    def reply(body: dict):
        content = body["messages"][-1]["content"]
        if content.startswith("Below are descriptions"):
            return chat_reply("Ada Lovelace was a mathematician who wrote the first program.")
        if is_glean(body):
            return chat_reply('{"entities": [], "relations": []}')
        description = ("A mathematician." if "mathematician" in content else "Wrote the first program.") + padding
        return chat_reply(
            json.dumps(
                {"entities": [{"name": "Ada Lovelace", "type": "person", "description": description}], "relations": []}
            )
        )

    stub.default = reply
    llm_graph.ingest([folder], base=tmp_path)
    summaries = [r for r in stub.requests if r["body"]["messages"][-1]["content"].startswith("Below are")]
    rows = llm_graph.store.read("MATCH (e:Entity {name: 'Ada Lovelace'}) RETURN e.description AS d")
    if not long:  # joined whole, nothing lost: no call for a rewording
        assert summaries == [] and rows == [{"d": "A mathematician. Wrote the first program."}]
        return
    assert len(summaries) == 1
    asked = summaries[0]["body"]["messages"][-1]["content"]
    assert "- A mathematician." in asked and "- Wrote the first program." in asked
    assert rows == [{"d": "Ada Lovelace was a mathematician who wrote the first program."}]


def _stub_env(cli_env: dict[str, str], stub) -> dict[str, str]:
    """The CLI's environment for the stub: probes off (scripted replies stay in order), no gleaning."""
    return {
        **cli_env,
        "OPENAI_BASE_URL": stub.base_url,
        "GRAPHWRIGHT_LLM_PROBE": "false",
        "OPENAI_API_KEY": "sk-test-not-a-secret",
        "GRAPHWRIGHT_LLM_MODEL": "stub-model",
        "GRAPHWRIGHT_LLM_GLEANINGS": "0",
    }


def test_ingest_progress_shows_live_llm_calls_and_tokens(rag, stub, cli_env, tmp_path: Path) -> None:
    from tests.integration.helpers import run

    stub.default = extractor_reply(json.dumps(GOOD))
    env = _stub_env(cli_env, stub)
    folder = ada_corpus(tmp_path)
    (folder / "babbage.md").write_text("Charles Babbage designed the Difference Engine in London.", encoding="utf-8")
    out = run(["ingest", str(folder), "--extractor", "llm"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    # Two chunks, one call each (no gleaning) at 100 + 40 tokens: the extract bar's last state says so.
    extract_line = next(line for line in out.stderr.splitlines() if line.startswith("extract"))
    assert "2/2" in extract_line and "LLM 2 calls (0 cached), 280 tokens" in extract_line, out.stderr
    quiet = run(["ingest", str(folder), "--extractor", "llm", "--quiet"], env, tmp_path)
    assert quiet.returncode == 0 and "extract" not in quiet.stderr
    as_json = run(["ingest", str(folder), "--extractor", "llm", "--json"], env, tmp_path)
    assert json.loads(as_json.stdout)["documents_unchanged"] == 2 and "extract" not in as_json.stderr
    assert "sk-test-not-a-secret" not in out.stdout + out.stderr + quiet.stderr + as_json.stdout  # never echoed


def _corpus_of(folder: Path, n: int) -> Path:
    folder.mkdir(exist_ok=True)
    for i in range(n):
        (folder / f"ada{i}.md").write_text(f"Note {i}. Ada Lovelace wrote programs for the Analytical Engine.")
    return folder


def test_a_time_budget_writes_the_rest_offline_and_the_next_run_continues_with_the_llm(
    rag, llm_rag_factory, stub, tmp_path: Path
) -> None:
    stub.default = extractor_reply(json.dumps(GOOD))
    folder = _corpus_of(tmp_path / "docs", 3)
    hurried = llm_rag_factory(llm_gleanings=0, llm_max_time=1e-6)  # over before the first chunk
    report = hurried.ingest([folder], base=tmp_path)
    assert report.documents_written == 3 and report.extraction_fallbacks == {"offline graph: time budget": 3}
    assert not [r for r in stub.requests if r["path"].endswith("/chat/completions")]  # no call was started
    assert rag.store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 3  # written, offline graph
    patient = llm_rag_factory(llm_gleanings=0)
    again = patient.ingest([folder], base=tmp_path)  # continued with the LLM: not skipped as unchanged
    assert again.documents_written == 3 and again.documents_unchanged == 0 and not again.extraction_fallbacks
    assert again.llm_usage["calls"] == 3
    assert ("Ada Lovelace", "WROTE_PROGRAMS_FOR", "Analytical Engine") in _relations(patient)
    assert patient.ingest([folder], base=tmp_path).documents_unchanged == 3


def test_killed_mid_ingest_the_documents_extracted_so_far_are_in_the_graph_and_a_rerun_finishes(
    rag, stub, cli_env, tmp_path: Path
) -> None:
    import signal
    import subprocess
    import sys
    import time

    stub.default = extractor_reply(json.dumps(GOOD))
    stub.stream_delay = 0.05  # a reply takes about a second: a slow local model
    folder = _corpus_of(tmp_path / "docs", 6)
    env = _stub_env(cli_env, stub)
    args = [sys.executable, "-m", "graphwright.cli", "ingest", str(folder), "--extractor", "llm", "-q"]
    ingest = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def documents() -> int:
        return rag.store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"]

    deadline = time.monotonic() + 120
    while documents() < 2 and ingest.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    ingest.send_signal(signal.SIGKILL)
    ingest.wait(30)
    kept = documents()
    assert 2 <= kept < 6  # each document was written when its chunks were extracted, not all at the end
    facts = rag.store.read("MATCH (:Entity {name: 'Ada Lovelace'})-[r:WROTE_PROGRAMS_FOR]->() RETURN count(r) AS n")
    assert facts[0]["n"] == 1  # with its LLM graph
    stub.stream_delay = 0.0
    out = subprocess.run([*args, "--json"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = json.loads(out.stdout)
    assert out.returncode == 0 and documents() == 6
    assert report["documents_unchanged"] >= kept and report["documents_written"] == 6 - report["documents_unchanged"]
