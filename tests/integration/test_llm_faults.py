"""A flaky LLM endpoint, over real HTTP with the real `openai` client, while ingesting into the real Neo4j:
429 with Retry-After, 500s, timeouts, connection resets, malformed and truncated JSON, refusals. Each fault
of the endpoint is retried a bounded number of times, then the chunk is reported as failed; a reply that
stays unusable gets the offline extractor's graph: never a hang, never a lost document. And an ingest
killed midway resumes without repeating a finished LLM call."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.integration.helpers import GOOD, ada_corpus, extractor_reply, write_space_corpus
from tests.stub_openai import chat_reply, connection_reset, error_reply, hang, refusal_reply

pytestmark = pytest.mark.integration


@pytest.fixture
def flaky(rag, llm_rag_factory):
    return llm_rag_factory(llm_timeout=1.0, llm_concurrency=1, llm_gleanings=0, llm_max_retries=2)


def ingest_within(graph, folder: Path, base: Path, seconds: float = 120):
    """Ingest in a thread and fail (instead of hanging the suite) if it does not return in time."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(report=graph.ingest([folder], base=base)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"ingest still running after {seconds} s: a hang"
    return box["report"]


@pytest.mark.parametrize("fault", ["429", "500", "timeout", "reset"])
def test_transient_faults_are_retried_then_succeed(fault: str, flaky, stub, tmp_path: Path) -> None:
    first = {
        "429": error_reply(429, "slow down", retry_after=1),
        "500": error_reply(500, "boom"),
        "timeout": hang(2.0),
        "reset": connection_reset(),
    }[fault]
    stub.script.append(first)
    stub.default = extractor_reply(json.dumps(GOOD))
    report = ingest_within(flaky, ada_corpus(tmp_path), tmp_path)
    assert report.documents_written == 1 and not report.extraction_failures, report.extraction_failures
    assert flaky.inspect.stats()["entities"] == 3
    assert len(stub.requests) == 2  # the fault, then the retry that worked
    if fault == "429":  # the client waited as long as the server asked
        assert stub.requests[1]["at"] - stub.requests[0]["at"] >= 0.9


@pytest.mark.parametrize(
    "fault, message",
    [
        ("500", "refused: HTTP 500"),
        ("timeout", "no reply within 1 s (3 attempts)"),
        ("reset", "unreachable"),
        ("refusal", "LLM refused"),
    ],
)
def test_persistent_faults_fail_the_chunk_not_the_run(fault: str, message: str, flaky, stub, tmp_path: Path) -> None:
    stub.default = {
        "500": error_reply(500, "boom"),
        "timeout": hang(1.5),
        "reset": connection_reset(),
        "refusal": refusal_reply(),
    }[fault]
    folder = ada_corpus(tmp_path)
    report = ingest_within(flaky, folder, tmp_path)
    # The text is indexed (searchable), the chunk's extraction is reported by file, the graph has no half.
    assert report.documents_written == 1, report.failures
    assert len(report.extraction_failures) == 1, report.extraction_failures
    failure = report.extraction_failures[0]
    assert "ada.md" in failure.source and message in failure.error, failure.error
    assert flaky.inspect.stats()["chunks"] == 1 and flaky.inspect.stats()["entities"] == 0 and not flaky.inspect.check()
    # Bounded: the first try plus max_retries (2); a refusal is not retried.
    assert len(stub.requests) <= 3
    # The next run asks again (a failed chunk is not cached as done), and succeeds once the endpoint does.
    stub.default = extractor_reply(json.dumps(GOOD))
    again = ingest_within(flaky, folder, tmp_path)
    assert again.documents_written == 1 and not again.extraction_failures
    assert flaky.inspect.stats()["entities"] == 3


@pytest.mark.parametrize(
    "reply",
    ["I'm sorry, I cannot extract that.", '{"entities": [{"na', ""],
    ids=["prose", "truncated-nothing", "empty"],
)
def test_an_unusable_reply_gets_the_offline_graph_counted_as_a_fallback(reply: str, flaky, stub, tmp_path) -> None:
    stub.default = chat_reply(reply)
    folder = ada_corpus(tmp_path)
    report = ingest_within(flaky, folder, tmp_path)
    assert report.documents_written == 1 and not report.extraction_failures, report.extraction_failures
    assert sum(report.extraction_fallbacks.values()) == 1, report.extraction_fallbacks
    assert len(stub.requests) == 2  # the question and one re-ask with the parse error; then offline
    names = {r["name"] for r in flaky.store.read("MATCH (e:Entity) RETURN e.name AS name")}
    assert "Ada Lovelace" in names, names  # the offline extractor's graph stands in
    assert not flaky.inspect.check()
    # The model's reply, not the endpoint, was at fault: the document is complete and is not asked again.
    again = ingest_within(flaky, folder, tmp_path)
    assert again.documents_unchanged == 1 and len(stub.requests) == 2


def test_malformed_json_shapes_are_repaired_or_reported(flaky, stub, tmp_path: Path) -> None:
    odd = {
        "entities": [{"name": "Ada Lovelace", "type": ["person"]}, "Analytical Engine", {"type": "x"}],
        "relations": [
            {"source": "Ada Lovelace"},
            {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "USED", "strength": "very"},
        ],
    }
    stub.default = extractor_reply("```json\n" + json.dumps(odd) + "\n```")
    report = ingest_within(flaky, ada_corpus(tmp_path), tmp_path)
    assert report.documents_written == 1
    names = {r["name"] for r in flaky.store.read("MATCH (e:Entity) RETURN e.name AS name")}
    # whatever could be read is kept; whatever could not is dropped or reported, never a crash
    assert report.extraction_failures or "Ada Lovelace" in names
    assert not flaky.inspect.check()


def test_killed_llm_ingest_resumes_without_repeating_finished_calls(rag, stub, cli_env, tmp_path: Path) -> None:
    answered: list[str] = []

    def slow(body: dict):
        time.sleep(0.25)  # slow enough to kill mid-run
        if body["messages"][-1]["content"].startswith("Below are descriptions"):  # an entity's, merged: not a chunk's
            return chat_reply("A summary of the descriptions.")
        answered.append(body["messages"][-1]["content"])
        return chat_reply(json.dumps(GOOD), prompt_tokens=100, completion_tokens=40)

    stub.default = slow
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    env = {
        **cli_env,
        "OPENAI_BASE_URL": stub.base_url,
        "GRAPHWRIGHT_LLM_PROBE": "false",
        "OPENAI_API_KEY": "sk-test",
        "GRAPHWRIGHT_LLM_MODEL": "m",
        "GRAPHWRIGHT_LLM_GLEANINGS": "0",
        "GRAPHWRIGHT_LLM_CONCURRENCY": "1",
        "GRAPHWRIGHT_INGEST_GROUP_CHUNKS": "3",
    }
    command = [
        sys.executable,
        "-m",
        "graphwright.cli",
        "ingest",
        str(folder),
        "--base",
        str(folder.parent),
        "--extractor",
        "llm",
        "--no-communities",  # the extraction calls alone: community reports would ask the stub too
        "--json",
    ]
    process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(answered) < 8 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    time.sleep(1.0)  # the stub may still be answering the call in flight; it belongs to the first run
    first_run = list(answered)
    cached = list(Path(env["GRAPHWRIGHT_HOME"], "cache", "llm").rglob("*.json"))
    documents_before, chunks_before = rag.inspect.stats()["documents"], rag.inspect.stats()["chunks"]
    assert 8 <= len(first_run) < 20 and len(cached) >= len(first_run) - 1  # at most the call in flight is lost
    assert not rag.inspect.check()

    answered.clear()
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    repeated = set(first_run) & set(answered)
    assert len(repeated) <= 1, f"{len(repeated)} finished LLM calls were repeated"
    assert report["documents_unchanged"] == documents_before  # finished documents are skipped by hash
    # the unfinished documents' chunks: answered before the kill come from the cache, the rest are asked
    assert report["llm_usage"]["cached"] + len(answered) == 20 - chunks_before
    assert rag.inspect.stats()["documents"] == 12 and not rag.inspect.check()
    assert (
        len(first_run) + len(answered) - len(repeated) == rag.inspect.stats()["chunks"] == 20
    )  # each chunk asked once
