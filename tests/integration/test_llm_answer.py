"""LLM answers through the real `openai` client against a local OpenAI-compatible stub over HTTP."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphwright.search.answer import NOT_IN_CONTEXT
from tests.integration.corpus import write_corpus
from tests.stub_openai import chat_reply, error_reply

pytestmark = pytest.mark.integration


@pytest.fixture
def llm_rag(rag, llm_rag_factory, tmp_path: Path):
    rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    return llm_rag_factory()


def _cite_first_context_chunk(body: dict) -> tuple[int, dict]:
    prompt = body["messages"][-1]["content"]
    first = re.search(r"\[(c_[0-9a-f]+)\]", prompt).group(1)
    return chat_reply(f"Falcon 9 is built by SpaceX [{first}].", prompt_tokens=321, completion_tokens=12)


def test_generated_answer_cites_context_chunks(llm_rag, stub) -> None:
    stub.script.append(_cite_first_context_chunk)
    result = llm_rag.search("Which company builds Falcon 9?", mode="hybrid", k=3)
    assert result.answer_kind == "generated"
    assert result.answer.startswith("Falcon 9 is built by SpaceX")
    request = stub.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "stub-model"
    system, user = request["body"]["messages"]
    assert "ONLY" in system["content"] and NOT_IN_CONTEXT in system["content"]
    assert "Which company builds Falcon 9?" in user["content"]
    for chunk in result.chunks:  # every retrieved chunk went into the context, by id
        assert f"[{chunk.chunk_id}]" in user["content"]
    cited = [c.id for c in result.citations if c.kind == "chunk"]
    assert cited == [result.chunks[0].chunk_id]
    assert result.token_usage == {"llm_calls": 1, "prompt_tokens": 321, "completion_tokens": 12}


def test_unknown_answer_cites_nothing(llm_rag, stub) -> None:
    stub.script.append(chat_reply(NOT_IN_CONTEXT))
    result = llm_rag.search("What is the capital of Australia?", mode="vector", k=2)
    # no passage is relevant enough: the answer says so first, then the model's own "I don't know"
    assert result.no_answer and result.answer.startswith("No passage found answers this question well")
    assert result.answer.endswith(NOT_IN_CONTEXT)
    assert result.citations == []
    assert result.chunks  # the retrieval is still returned for inspection


def test_invented_chunk_ids_are_not_cited(llm_rag, stub) -> None:
    stub.script.append(chat_reply("SpaceX builds it [c_deadbeefdeadbeef] [c_0123456789ab]."))
    result = llm_rag.search("Which company builds Falcon 9?", k=2)
    assert [c for c in result.citations if c.kind == "chunk"] == []


def test_server_errors_are_retried(llm_rag, stub) -> None:
    stub.script.extend([error_reply(500), error_reply(429, "slow down"), _cite_first_context_chunk])
    result = llm_rag.search("Which company builds Falcon 9?", k=2)
    assert result.answer_kind == "generated"
    assert len(stub.requests) == 3


def test_persistent_failure_answers_offline_and_says_why(llm_rag, stub) -> None:
    stub.script.extend([error_reply(503)] * 3)
    result = llm_rag.search("Which company builds Falcon 9?", k=2)
    assert len(stub.requests) == 3  # one try + llm_max_retries
    assert result.answer_kind == "retrieval" and "SpaceX" in result.answer
    assert any("refused: HTTP 503" in n and "(3 attempts)" in n and "offline" in n for n in result.notes), result.notes


def test_think_tags_and_empty_answers(llm_rag, stub) -> None:
    stub.script.append(chat_reply("<think>the passage says SpaceX</think>SpaceX builds it."))
    assert llm_rag.search("Which company builds Falcon 9?", k=2).answer == "SpaceX builds it."
    stub.script.append(chat_reply(None))
    result = llm_rag.search("Which company builds Falcon 9?", k=2)
    assert result.answer_kind == "retrieval" and any("empty answer" in n for n in result.notes), result.notes


def test_no_llm_flag_returns_retrieval(llm_rag, stub) -> None:
    result = llm_rag.search("Which company builds Falcon 9?", k=2, generate=False)
    assert result.answer_kind == "retrieval" and stub.requests == []
