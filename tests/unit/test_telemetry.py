"""Spans cost nothing and export nothing unless OTEL_EXPORTER_OTLP_ENDPOINT asks for them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphwright import telemetry


def test_without_an_endpoint_nothing_is_configured_or_imported() -> None:
    code = (
        "import os, sys\n"
        "os.environ.pop('OTEL_EXPORTER_OTLP_ENDPOINT', None)\n"
        "os.environ.pop('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', None)\n"
        "from graphwright import telemetry\n"
        "assert telemetry.configure_from_env() is False\n"
        "with telemetry.span('x', {'a': 1, 'dropped': [1]}) as s:\n"
        "    s.set_attribute('b', 2)\n"
        "print('opentelemetry.sdk' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_spans_reach_the_configured_provider_with_scalar_attributes_only(memory_spans) -> None:
    exporter = memory_spans
    with (
        telemetry.span("outer", {"n": 3, "text": "kept", "list": ["left out"]}),
        pytest.raises(ValueError),
        telemetry.span("inner"),
    ):
        raise ValueError("boom")
    inner, outer = exporter.get_finished_spans()
    assert outer.name == "outer" and dict(outer.attributes) == {"n": 3, "text": "kept"}
    assert inner.parent is not None and inner.parent.span_id == outer.context.span_id
    assert inner.status.status_code.name == "ERROR"  # the exception is recorded and raised


def test_an_embedding_span_counts_texts_and_an_endpoints_tokens(memory_spans) -> None:
    from graphwright.embeddings.base import EmbeddingUsage

    exporter = memory_spans

    class Metered:
        name = "m"
        usage = EmbeddingUsage()

        @telemetry.traced_embedding
        def embed(self, texts: list[str]) -> list[list[float]]:
            self.usage.tokens += 5 * len(texts)
            return [[1.0] for _ in texts]

    assert Metered().embed(["a", "b"]) == [[1.0], [1.0]]
    (found,) = exporter.get_finished_spans()
    assert found.name == "embeddings m"
    assert found.attributes["gen_ai.operation.name"] == "embeddings"
    assert found.attributes["graphwright.texts"] == 2 and found.attributes["gen_ai.usage.input_tokens"] == 10


def test_the_content_guard_strips_what_any_instrumentation_records() -> None:
    """A library's span with the raw path, query, full URL, headers and an exception quoting the input: what
    leaves the guard holds the method and route template only."""
    import pytest

    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from graphwright.telemetry import content_guard

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(content_guard(SimpleSpanProcessor(exporter)))
    tracer = provider.get_tracer("some.library")
    with tracer.start_as_current_span("GET /w/alpha/v1/entities/Canary?q=Canary") as span:
        span.set_attributes(
            {
                "http.request.method": "GET",
                "http.route": "/v1/entities/{name}",
                "url.path": "/w/alpha/v1/entities/Canary",
                "url.query": "q=Canary",
                "url.full": "http://h/w/alpha/v1/entities/Canary?q=Canary",
                "http.target": "/w/alpha/v1/entities/Canary?q=Canary",
                "http.request.header.authorization": "Bearer Canary",
                "http.response.status_code": 404,
            }
        )
        span.record_exception(ValueError("no entity named Canary"))
    (seen,) = exporter.get_finished_spans()
    assert seen.name == "GET /v1/entities/{name}"
    assert dict(seen.attributes) == {
        "http.request.method": "GET",
        "http.route": "/v1/entities/{name}",
        "http.response.status_code": 404,
    }
    assert "Canary" not in str([(e.name, dict(e.attributes or {})) for e in seen.events])
    assert seen.events and seen.events[0].attributes["exception.type"] == "ValueError"
