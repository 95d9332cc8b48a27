"""Shared fixtures. Integration tests run against a real Neo4j: a dedicated local server on its own ports
(127.0.0.1:7688 / 7475, data under .graphwright/test-neo4j) that the session starts and stops, so tests
never touch the user's database. GRAPHWRIGHT_TEST_NEO4J_URI points them at another *disposable* server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_PASSWORD = "graphwright-test-pw"


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    external = os.environ.get("GRAPHWRIGHT_TEST_NEO4J_URI")
    if external:
        yield external
        return
    from graphwright.graph_store.launcher.local_server import LocalServer, default_project_dir

    server = LocalServer(
        project_dir=default_project_dir(),
        home=ROOT / ".graphwright" / "test-neo4j",
        bolt_uri="bolt://127.0.0.1:7688",
        http_port=7475,
        user="neo4j",
        password=TEST_PASSWORD,
        heap="768m",
        pagecache="256m",
    )
    if server.pid() is None and server.bolt_state() == "ok":
        yield server.bolt_url  # a test server left running by another checkout: reuse it
        return
    started = server.pid() is None
    server.start(timeout=300)
    yield server.bolt_url
    if started and not os.environ.get("GRAPHWRIGHT_TEST_KEEP_SERVER"):
        server.stop()


@pytest.fixture(scope="session")
def test_password() -> str:
    return os.environ.get("GRAPHWRIGHT_TEST_NEO4J_PASSWORD", TEST_PASSWORD)


@pytest.fixture(scope="session")
def embedder():
    from graphwright.config import Settings
    from graphwright.embeddings import make_embedder

    model = make_embedder(Settings(_env_file=None))  # the default, as the CLI builds it
    _ = model.dimension
    return model


@pytest.fixture
def settings(neo4j_uri: str, test_password: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from graphwright.config import Settings

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the developer's folder
    return Settings(neo4j_uri=neo4j_uri, neo4j_password=test_password, home=tmp_path / "home", _env_file=None)


@pytest.fixture
def rag(settings, embedder):
    """A GraphRAG over an emptied test database with the schema in place."""
    from graphwright.api import GraphRAG

    graph = GraphRAG(settings, embedder=embedder)
    graph.store.admin.reset()
    graph.init()
    yield graph
    graph.close()


@pytest.fixture
def cli_env(neo4j_uri: str, test_password: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    env.update({"NEO4J_URI": neo4j_uri, "NEO4J_PASSWORD": test_password, "GRAPHWRIGHT_HOME": str(tmp_path / "h")})
    return env


@pytest.fixture
def stub():
    """A local OpenAI-compatible HTTP server (tests/stub_openai.py) for the real `openai` client."""
    from tests.stub_openai import StubOpenAI

    with StubOpenAI() as server:
        yield server


@pytest.fixture
def llm_rag_factory(settings, embedder, stub):
    """GraphRAG instances wired to the stub; closed at the end of the test."""
    from graphwright.api import GraphRAG

    made = []

    def make(**overrides):
        configured = settings.updated(
            **{
                "openai_base_url": stub.base_url,
                "llm_model": "stub-model",
                "llm_max_retries": 2,
                "llm_probe": False,  # the probes have their own tests; scripted replies stay in order
                **overrides,
            }
        )
        made.append(GraphRAG(configured, embedder=embedder))
        return made[-1]

    yield make
    for graph in made:
        graph.close()


@pytest.fixture
def memory_spans(monkeypatch: pytest.MonkeyPatch):
    """The spans graphwright opens, kept in memory by OpenTelemetry's SDK (the `traces` extra)."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr("opentelemetry.trace.get_tracer", lambda name, *a, **k: provider.get_tracer(name))
    return exporter
