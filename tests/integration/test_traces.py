"""OpenTelemetry traces of one ingest and one query, as a local OTLP receiver gets them from the CLI: ingest
stages under one ingest span, embedding and LLM calls with the GenAI conventions, the search and its
retriever; no passage or question text in any span unless GRAPHWRIGHT_TRACE_CONTENT asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.helpers import run, write_files
from tests.otlp_receiver import OTLPReceiver
from tests.stub_openai import chat_reply

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

pytestmark = pytest.mark.integration

CANARY = "Quarnwick"  # in a document and in the question: it must not reach a span


def _env(cli_env: dict[str, str], receiver: OTLPReceiver, stub, **extra: str) -> dict[str, str]:
    return {
        **cli_env,
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
        "OTEL_SERVICE_NAME": "graphwright-test",
        "OPENAI_BASE_URL": stub.base_url,
        "OPENAI_API_KEY": "stub-key",
        "GRAPHWRIGHT_LLM_PROBE": "false",
        "GRAPHWRIGHT_LLM_MODEL": "stub-model",
        **extra,
    }


def test_an_ingest_and_a_query_reach_a_local_otlp_receiver(rag, cli_env, stub, tmp_path: Path) -> None:
    corpus = write_files(
        tmp_path / "corpus",
        {
            "quarnwick.md": f"# {CANARY} Institute\n\nAda Byron founded the {CANARY} Institute in London in 1843.",
            "other.md": "# Babbage\n\nCharles Babbage designed the Analytical Engine in London.",
        },
    )
    stub.default = chat_reply("Ada Byron founded it [1].", prompt_tokens=321, completion_tokens=7)
    with OTLPReceiver() as receiver:
        env = _env(cli_env, receiver, stub)
        ingested = run(["ingest", str(corpus), "--extractor", "nlp", "-q"], env, tmp_path)
        assert ingested.returncode == 0, ingested.stderr
        asked = run(["query", f"Who founded the {CANARY} Institute?", "--mode", "hybrid"], env, tmp_path)
        assert asked.returncode == 0, asked.stderr

    assert {s.service for s in receiver.spans} == {"graphwright-test"}
    ingest = next(s for s in receiver.spans if s.name == "ingest")
    assert ingest.attributes["graphwright.documents_written"] == 2 and ingest.parent_id == ""
    stages = {s.name for s in receiver.spans if s.name.startswith("ingest ") and s.trace_id == ingest.trace_id}
    assert {"ingest embed chunks", "ingest extract", "ingest write"} <= stages
    embeddings = [s for s in receiver.named("embeddings ") if s.trace_id == ingest.trace_id]
    assert embeddings and all(s.attributes["gen_ai.operation.name"] == "embeddings" for s in embeddings)
    assert embeddings[0].attributes["gen_ai.request.model"].startswith("all-MiniLM-L6-v2")

    search = next(s for s in receiver.spans if s.name == "search hybrid")
    assert (
        search.attributes["graphwright.search.mode"] == "hybrid" and search.attributes["graphwright.search.chunks"] > 0
    )
    in_search = [s for s in receiver.spans if s.trace_id == search.trace_id]
    assert any(s.name == "retrieve hybrid" and s.parent_id == search.span_id for s in in_search)
    assert any(s.name.startswith("embeddings ") for s in in_search)  # the question's vector
    (chat,) = [s for s in in_search if s.name == "chat stub-model"]
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "stub-model"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 321 and chat.attributes["gen_ai.usage.output_tokens"] == 7

    # no question, prompt or passage text in what was sent
    assert not any(CANARY.encode() in body for body in receiver.bodies)
    assert not any(b"Babbage" in body for body in receiver.bodies)


def test_content_goes_into_spans_only_when_asked(rag, cli_env, stub, tmp_path: Path) -> None:
    corpus = write_files(tmp_path / "corpus", {"q.md": f"# {CANARY}\n\nAda Byron founded {CANARY} in 1843."})
    stub.default = chat_reply("Ada Byron [1].")
    with OTLPReceiver() as receiver:
        env = _env(cli_env, receiver, stub, GRAPHWRIGHT_TRACE_CONTENT="true")
        assert run(["ingest", str(corpus), "--extractor", "nlp", "-q"], env, tmp_path).returncode == 0
        asked = run(["query", f"Who founded {CANARY}?", "--mode", "hybrid"], env, tmp_path)
        assert asked.returncode == 0, asked.stderr
    search = next(s for s in receiver.spans if s.name == "search hybrid")
    assert search.attributes["graphwright.search.question"] == f"Who founded {CANARY}?"
    chat = next(s for s in receiver.spans if s.name == "chat stub-model")
    assert CANARY in chat.attributes["gen_ai.input.messages"]


def test_server_requests_are_spans_named_by_their_route(rag, memory_spans) -> None:
    """A search over HTTP: the request's span (route template, status) holds the search's; a request the guard
    refuses is a span too."""
    from fastapi.testclient import TestClient

    from graphwright.server.app import create_app

    exporter = memory_spans
    rag.ingest([write_files(rag.settings.home / "c", {"a.md": "# A\n\nAda Byron lived in London."})])
    with TestClient(create_app(rag.settings, rag), base_url="http://127.0.0.1") as client:
        found = client.post("/v1/search", json={"question": f"Where did {CANARY} live?", "mode": "vector"})
        assert found.status_code == 200, found.text
        refused = client.get("/v1/stats", headers={"Host": "evil.example"})
        assert refused.status_code == 400
    spans = exporter.get_finished_spans()
    request = next(s for s in spans if s.name == "POST /v1/search")
    assert request.attributes["http.route"] == "/v1/search" and request.attributes["http.response.status_code"] == 200
    search = next(s for s in spans if s.name == "search vector")
    assert search.parent is not None and search.context.trace_id == request.context.trace_id
    assert any(s.name == "GET" and s.attributes.get("http.response.status_code") == 400 for s in spans)
    assert not any(CANARY in str(dict(s.attributes)) for s in spans)


def test_a_served_request_s_spans_hold_route_templates_only(rag, cli_env, tmp_path: Path) -> None:
    """Issue 76, finding 5: `graphwright serve` exporting to a local receiver, requests with canaries in their
    path and query: no span of any instrumentation (ours, FastAPI's, the MCP SDK's) holds them; the request
    spans are named by route template."""
    import os
    import signal
    import time

    import httpx

    from tests.serve_process import free_port, start_serve

    canary = "Pthalocanary"
    port = free_port()
    with OTLPReceiver() as receiver:
        env = {**cli_env, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SERVICE_NAME": "served"}
        env = {k: v for k, v in {**os.environ, **env}.items() if not k.startswith("OPENAI_")}
        server = start_serve(env, port, tmp_path)
        url = f"http://127.0.0.1:{port}"
        try:
            asked = [
                httpx.get(f"{url}/v1/entities/{canary}", params={"q": canary}),
                httpx.get(f"{url}/v1/graph/entities", params={"q": canary, "limit": 3}),
                httpx.get(f"{url}/v1/document", params={"id": f"{canary}.md"}),
                httpx.get(f"{url}/v1/jobs/{canary}"),
                httpx.get(f"{url}/w/{canary.lower()}/v1/stats", params={canary: canary}),
                httpx.post(f"{url}/v1/search", json={"question": f"Who is {canary}?", "mode": "vector"}),
                httpx.get(f"{url}/nowhere/{canary}", params={"token": canary}),
            ]
            assert [r.status_code for r in asked][:2] == [404, 200]
        finally:
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=30)
        deadline = time.monotonic() + 10
        while not receiver.named("GET /v1/entities") and time.monotonic() < deadline:
            time.sleep(0.1)
    assert receiver.named("GET /v1/entities/{name:path}"), [s.name for s in receiver.spans]
    assert receiver.named("POST /v1/search")
    for body in receiver.bodies:
        assert canary.encode() not in body and canary.lower().encode() not in body
    for span in receiver.spans:
        assert not any(key.startswith("url.") for key in span.attributes), span
