"""OpenTelemetry spans: ingest stages, LLM and embedding calls (the GenAI semantic conventions: operation,
model, input and output tokens), searches and their retrievers, server requests.

Spans go to whatever tracer provider the process has: an application that embeds graphwright and configures
OpenTelemetry gets them in its own traces; the CLI and `serve` configure one only when
`OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set, exporting by OTLP/HTTP (the `traces` extra).
With none, a span is OpenTelemetry's non-recording one (the API ships with the server's dependencies).
No question, prompt or passage text is put in a span unless `GRAPHWRIGHT_TRACE_CONTENT` asks for it."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

TRACER = "graphwright"
# Attribute values OpenTelemetry accepts; anything else is left out rather than failing the caller.
_SCALARS = (str, bool, int, float)


def _clean(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (attributes or {}).items() if isinstance(v, _SCALARS)}


class _NoSpan:
    """What a span is where OpenTelemetry's API is not installed."""

    def set_attribute(self, key: str, value: Any) -> None:
        pass

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        pass

    def update_name(self, name: str) -> None:
        pass


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A span around the block, a child of the current one; an exception is recorded on it and raised."""
    try:
        from opentelemetry import trace
    except ImportError:
        yield _NoSpan()
        return
    with trace.get_tracer(TRACER).start_as_current_span(name, attributes=_clean(attributes)) as current:
        yield current


@contextmanager
def detached_span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A span that is not made the current one: for a generator, whose steps may run in other threads (a
    streamed answer), where a current span could not be restored. Its parent is the span current here."""
    try:
        from opentelemetry import trace
    except ImportError:
        yield _NoSpan()
        return
    current = trace.get_tracer(TRACER).start_span(name, attributes=_clean(attributes))
    try:
        yield current
    except Exception as exc:  # not GeneratorExit: a reader that stops reading is no error
        current.record_exception(exc)
        current.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        current.end()


def set_attributes(target: Any, attributes: Mapping[str, Any]) -> None:
    target.set_attributes(_clean(attributes))


def llm_attributes(operation: str, model: str) -> dict[str, Any]:
    """A GenAI span's attributes (semantic conventions 1.3x: gen_ai.operation.name, gen_ai.request.model...)."""
    return {"gen_ai.operation.name": operation, "gen_ai.provider.name": "openai", "gen_ai.request.model": model}


def usage_attributes(input_tokens: int | None, output_tokens: int | None = None) -> dict[str, Any]:
    found = {"gen_ai.usage.input_tokens": input_tokens, "gen_ai.usage.output_tokens": output_tokens}
    return {k: v for k, v in found.items() if v is not None}


def traced_embedding(embed: Callable[[Any, list[str]], T]) -> Callable[[Any, list[str]], T]:
    """An embedder's `embed`, as a GenAI "embeddings" span: its model, how many texts, and the input tokens
    an endpoint counts (a local model counts none)."""

    @wraps(embed)
    def traced(self: Any, texts: list[str]) -> T:
        attributes = {**llm_attributes("embeddings", self.name), "graphwright.texts": len(texts)}
        usage = getattr(self, "usage", None)
        before = getattr(usage, "tokens", None)
        with span(f"embeddings {self.name}", attributes) as current:
            vectors = embed(self, texts)
            if before is not None:
                set_attributes(current, usage_attributes(getattr(usage, "tokens", before) - before))
            return vectors

    return traced


def flush_spans(seconds: float = 2.0) -> None:
    """Send the spans still buffered (a process about to die by a signal skips the exporter's atexit)."""
    from opentelemetry import trace

    flush = getattr(trace.get_tracer_provider(), "force_flush", None)
    if flush is not None:
        flush(int(seconds * 1000))


def configure_from_env(service: str = "graphwright") -> bool:
    """Export spans by OTLP/HTTP when the standard variables ask for it; True when they do and the `traces`
    extra is there. The endpoint, headers and timeout are the exporter's own `OTEL_EXPORTER_OTLP_*`. Unless
    GRAPHWRIGHT_TRACE_CONTENT is on, every span goes out through `content_guard`."""
    wanted = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not wanted or os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but the traces extra is not: pip install 'graphwright[traces]'")
        return False
    name = os.environ.get("OTEL_SERVICE_NAME") or service
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    exporting = BatchSpanProcessor(OTLPSpanExporter())  # flushed when the process exits
    content = os.environ.get("GRAPHWRIGHT_TRACE_CONTENT", "").strip().lower() in ("1", "true", "yes", "on")
    provider.add_span_processor(exporting if content else content_guard(exporting))
    trace.set_tracer_provider(provider)
    return True


# What instrumentations put in spans that can carry a user's words: the path and query a client sent (names,
# ids, questions), full URLs, bodies, headers (an Authorization header), statements. Dropped from every span,
# ours or a library's (FastAPI, the MCP SDK, an auto-instrumentation), unless content tracing is on.
_CONTENT_PREFIXES = ("url.", "http.request.header.", "http.response.header.", "http.request.body", "http.response.body")
_CONTENT_KEYS = frozenset(
    {"http.url", "http.target", "http.path", "http.query", "db.statement", "db.query.text", "exception.message"}
)
_EVENT_KEYS = frozenset({"exception.type", "exception.escaped"})  # an exception's message can quote the input


def without_content(attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    """`attributes` less every key that may carry what a client sent (see _CONTENT_KEYS)."""
    return {
        k: v
        for k, v in (attributes or {}).items()
        if k not in _CONTENT_KEYS and not k.startswith(_CONTENT_PREFIXES) and k != "exception.stacktrace"
    }


def content_guard(inner: Any) -> Any:
    """A span processor that hands `inner` each finished span with route templates only: no path values, query
    strings, bodies, headers or exception messages, whoever recorded them. A span named after a raw path is
    renamed to its method and route template (or its method alone)."""
    from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor

    class ContentGuard(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            inner.on_start(span, parent_context=parent_context)

        def on_end(self, span: ReadableSpan) -> None:
            attributes = span.attributes or {}
            name = span.name
            if "?" in name or any(k.startswith("url.") or k in _CONTENT_KEYS for k in attributes):
                method = str(attributes.get("http.request.method") or attributes.get("http.method") or "HTTP")
                route = attributes.get("http.route")
                name = f"{method} {route}" if route else method
            events = [
                Event(
                    e.name,
                    without_content({k: v for k, v in (e.attributes or {}).items() if k in _EVENT_KEYS}),
                    e.timestamp,
                )
                for e in span.events
            ]
            inner.on_end(
                ReadableSpan(
                    name=name,
                    context=span.context,
                    parent=span.parent,
                    resource=span.resource,
                    attributes=without_content(attributes),
                    events=events,
                    links=span.links,
                    kind=span.kind,
                    status=span.status,
                    start_time=span.start_time,
                    end_time=span.end_time,
                    instrumentation_scope=span.instrumentation_scope,
                )
            )

        def shutdown(self) -> None:
            inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return bool(inner.force_flush(timeout_millis))

    return ContentGuard()
