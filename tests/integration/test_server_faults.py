"""The server when things go wrong or take time: an LLM answer streamed token by token (and a client that
leaves mid-stream), Neo4j cut off under concurrent requests (503, then recovery without a restart)."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from urllib.parse import urlparse

import httpx
import pytest

from tests.live_server import LiveServer, TcpProxy, sse_events
from tests.stub_openai import chat_reply

pytestmark = pytest.mark.integration


def citing_reply(words: int = 8):
    """An LLM answer of `words` words that cites the first chunk id of the context it was given."""

    def reply(body: dict):
        context = body["messages"][-1]["content"]
        chunk = re.search(r"c_[0-9a-f]{6,}", context)
        text = " ".join(["Saturn", "V", "launched", "Apollo", "11"] + ["indeed"] * max(0, words - 5))
        return chat_reply(f"{text} [{chunk.group(0) if chunk else 'none'}].", prompt_tokens=30, completion_tokens=words)

    return reply


@pytest.fixture
def llm_server(world, llm_rag_factory, stub):
    from graphwright.server.app import create_app

    rag = llm_rag_factory()
    with LiveServer(create_app(rag.settings, rag)) as server:
        server.rag = rag
        yield server


def test_llm_answer_streams_token_by_token(llm_server, stub) -> None:
    stub.default = citing_reply(8)
    response = httpx.post(
        f"{llm_server.url}/v1/search/stream",
        timeout=60,
        json={"question": "Which rocket launched Apollo 11?", "mode": "vector", "k": 3},
    )
    events = sse_events(response.text)
    names = [n for n, _ in events]
    assert names[0] == "retrieval" and names[-1] == "result" and names.count("token") >= 8, names
    result = events[-1][1]
    assert result["answer_kind"] == "generated"
    assert "".join(d["text"] for n, d in events if n == "token").strip() == result["answer"]
    cited = re.search(r"c_[0-9a-f]{6,}", result["answer"]).group(0)
    assert cited in {c["id"] for c in result["citations"] if c["kind"] == "chunk"}
    assert result["token_usage"] == {"llm_calls": 1, "prompt_tokens": 30, "completion_tokens": 8}
    assert stub.requests[-1]["body"]["stream"] is True
    # The same answer through the OpenAI client, streamed.
    import openai

    client = openai.OpenAI(base_url=f"{llm_server.url}/v1", api_key="unused-on-loopback")
    chunks = list(
        client.chat.completions.create(
            model="graphwright-local",
            stream=True,
            messages=[{"role": "user", "content": "Which rocket launched Apollo 11?"}],
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    # the world holds no Apollo: the answer first says no passage answers well, then the model's words
    assert _after_verdict(text).startswith("Saturn V launched Apollo 11") and "Sources:" in text
    # A graph-mode answer from the LLM, not streamed.
    reply = httpx.post(
        f"{llm_server.url}/v1/search",
        json={"question": "Which rocket launched Apollo 11?", "mode": "local"},
        timeout=60,
    ).json()
    assert reply["answer_kind"] == "generated" and _after_verdict(reply["answer"]).startswith("Saturn V")


def test_llm_failing_mid_search_degrades_to_the_offline_answer_and_says_why(llm_server, stub) -> None:
    """A model that crashes while answering does not cost the reader the answer: the retrieval's own
    (offline) answer follows the evidence, and a note names the LLM's failure."""
    from tests.stub_openai import error_reply

    stub.script = [error_reply(500, "model crashed")] * 3  # the first try and the client's two retries
    response = httpx.post(
        f"{llm_server.url}/v1/search/stream",
        timeout=60,
        json={"question": "Which rocket launched Apollo 11?", "mode": "vector"},
    )
    events = sse_events(response.text)
    names = [n for n, _ in events]
    assert names[0] == "retrieval" and names[-1] == "result" and set(names[1:-1]) == {"token"}, events
    result = events[-1][1]
    assert result["answer_kind"] != "generated"
    # an LLM is configured: the answer's first line (after the verdict) must not say there is none
    assert _after_verdict(result["answer"]).startswith("Retrieved passages (the LLM's answer failed,"), result["answer"]
    cited = {c["id"] for c in result["citations"] if c["kind"] == "chunk"}
    assert cited and cited <= {c["chunk_id"] for c in result["chunks"]}
    assert any("HTTP 500" in note for note in result["notes"]) and "Traceback" not in response.text
    stub.script = [error_reply(500, "model crashed")] * 3
    whole = httpx.post(f"{llm_server.url}/v1/search", json={"question": "Apollo 11", "mode": "vector"}, timeout=60)
    assert whole.status_code == 200 and any("HTTP 500" in note for note in whole.json()["notes"])
    assert _after_verdict(whole.json()["answer"]).startswith("Retrieved passages (the LLM's answer failed,")
    stub.default = citing_reply(5)  # the next question is answered by the LLM again
    assert (
        httpx.post(f"{llm_server.url}/v1/search", json={"question": "Apollo 11", "mode": "vector"}, timeout=60).json()[
            "answer_kind"
        ]
        == "generated"
    )


def test_a_model_repeating_its_instructions_is_no_answer(llm_server, stub) -> None:
    """Gemma 3 270M, asked through llama.cpp, often answers with its system prompt continued ("You answer
    questions using ONLY the numbered passages..."): streamed or whole, that reply is not shown as the
    answer; the offline answer stands and a note says what the model did."""

    def echo(body: dict):
        instructions = next(m["content"] for m in body["messages"] if m["role"] in ("system", "developer"))
        return chat_reply(instructions + " Question answered.", prompt_tokens=30, completion_tokens=40)

    stub.default = echo
    response = httpx.post(
        f"{llm_server.url}/v1/search/stream",
        timeout=60,
        json={"question": "Which rocket launched Apollo 11?", "mode": "vector"},
    )
    events = sse_events(response.text)
    result = events[-1][1]
    assert result["answer_kind"] != "generated" and result["answer"].strip(), result
    assert any("repeated its instructions" in note for note in result["notes"]), result["notes"]
    tokens = "".join(d["text"] for n, d in events if n == "token")
    assert "ONLY" not in tokens, "the echo never reached the reader"
    whole = httpx.post(f"{llm_server.url}/v1/search", json={"question": "Apollo 11", "mode": "vector"}, timeout=60)
    body = whole.json()
    assert body["answer_kind"] != "generated" and any("repeated its instructions" in n for n in body["notes"])


def test_client_leaving_mid_stream_stops_the_llm(llm_server, stub) -> None:
    stub.default = citing_reply(60)
    stub.stream_delay = 0.15  # 60 words: about 9 s if nobody stopped it
    with httpx.stream(
        "POST",
        f"{llm_server.url}/v1/search/stream",
        timeout=60,
        json={"question": "Which rocket launched Apollo 11?", "mode": "vector"},
    ) as response:
        seen = []
        for line in response.iter_lines():
            if line.startswith("event: "):
                seen.append(line[7:])
            if seen.count("token") >= 3:
                break
    assert seen[0] == "retrieval"
    deadline = time.monotonic() + 5
    while stub.streams_broken == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stub.streams_broken == 1, "the LLM kept generating for a client that had left"
    stub.stream_delay = 0
    stub.default = citing_reply(5)
    again = httpx.post(f"{llm_server.url}/v1/search", json={"question": "Apollo 11", "mode": "vector"}, timeout=60)
    assert again.status_code == 200 and again.json()["answer_kind"] == "generated"
    assert httpx.get(f"{llm_server.url}/healthz").status_code == 200


def test_neo4j_cut_mid_requests_gives_503_then_recovers(world, settings, embedder) -> None:
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    proxy = TcpProxy(urlparse(settings.neo4j_uri).port or 7687)
    proxy.start()
    # the default retry time (30 s): a question must not wait it out, the database's address refuses connections
    configured = settings.updated(**{"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", "neo4j_retry_seconds": 30.0})
    rag = GraphRAG(configured, embedder=embedder)
    try:
        with LiveServer(create_app(configured, rag)) as server:
            ask = {"question": "Which rocket launched Apollo 11?", "mode": "local"}
            assert httpx.post(f"{server.url}/v1/search", json=ask, timeout=60).status_code == 200
            results: list[httpx.Response] = []
            waits: list[float] = []

            def client() -> None:
                for _ in range(3):
                    started = time.monotonic()
                    results.append(httpx.post(f"{server.url}/v1/search", json=ask, timeout=60))
                    waits.append(time.monotonic() - started)

            threads = [threading.Thread(target=client) for _ in range(4)]
            for t in threads:
                t.start()
            time.sleep(0.3)
            proxy.cut()
            for t in threads:
                t.join()
            statuses = [r.status_code for r in results]
            assert set(statuses) <= {200, 503} and 503 in statuses, statuses
            for r in results:
                if r.status_code == 503:
                    body = r.json()["error"]
                    assert "Neo4j" in body["message"] and "Traceback" not in r.text
            # none waited out the retry time (it used to: 33-63 s for a 503); bench/serve_faults.py times it
            assert max(waits) < 15, waits
            started = time.monotonic()
            down = httpx.post(f"{server.url}/v1/search", json=ask, timeout=60)
            assert down.status_code == 503 and time.monotonic() - started < 15
            assert "graphwright db start" in down.json()["error"]["message"]  # the one-line hint
            # the CLI handing the question to that server gets the same hint, not a fallback that waits again
            from click.testing import CliRunner

            from graphwright.cli import main

            asked = CliRunner().invoke(main, ["query", "Apollo 11", "--server", server.url])
            assert asked.exit_code == 2 and "not reachable" in asked.output and "said by the server" in asked.output
            # the page's streamed search: the hint at once, as a 503 or the stream's error event
            started = time.monotonic()
            streamed = httpx.post(f"{server.url}/v1/search/stream", json=ask, timeout=60)
            assert "not reachable" in streamed.text and time.monotonic() - started < 15
            # and an agent's MCP search: a tool error with the hint, not a wait
            started = time.monotonic()
            tool = asyncio.run(_mcp_search(server.url, "Apollo 11"))
            assert tool.is_error and "not reachable" in " ".join(getattr(c, "text", "") for c in tool.content)
            assert time.monotonic() - started < 15
            health = httpx.get(f"{server.url}/healthz", timeout=30)
            assert health.status_code == 503 and health.json() == {"ok": False}  # keyless: no details
            proxy.start()  # the database is back: the same server answers again
            deadline = time.monotonic() + 30
            while httpx.get(f"{server.url}/healthz", timeout=30).status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            again = httpx.post(f"{server.url}/v1/search", json=ask, timeout=60)
            assert again.status_code == 200 and again.json()["citations"]
    finally:
        proxy.cut()
        rag.close()


async def _mcp_search(url: str, question: str):
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        return await client.call_tool("search", {"question": question, "mode": "hybrid"})


def _after_verdict(answer: str) -> str:
    """The answer without the "no passage answers this well" line that leads it when none does."""
    return answer.split("\n\n", 1)[1] if answer.startswith("No passage found answers") else answer
