"""An OpenAI-compatible /v1/embeddings endpoint (the stub, over real HTTP, through the real `openai` client)
end to end on the real Neo4j: the mismatch error, `graphwright reembed` from the bundled model to the endpoint
keeping the graph, search and ingest on the new vectors, the on-disk cache, usage, faults and resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.errors import EmbeddingError
from graphwright.graph_store.schema import SchemaMismatchError
from tests.integration.helpers import run
from tests.stub_openai import embedding_reply, error_reply

pytestmark = pytest.mark.integration

DIM = 64
GRAPH = (
    "MATCH (e:Entity) WITH count(e) AS entities MATCH ()-[r]->() WITH entities, count(r) AS relations "
    "MATCH (c:Community) RETURN entities, relations, count(c) AS communities"
)


@pytest.fixture
def endpoint_factory(settings, stub):
    from graphwright.api import GraphRAG

    made = []
    stub.default = embedding_reply(DIM)

    def make(**overrides):
        configured = settings.updated(
            **{
                "embedding_backend": "openai",
                "embedding_base_url": stub.base_url,
                "embedding_model": "stub-embed",
                "embedding_max_retries": 2,
                **overrides,
            }
        )
        made.append(GraphRAG(configured))
        return made[-1]

    yield make
    for graph in made:
        graph.close()


def _embed_requests(stub) -> int:
    return sum(1 for r in stub.requests if r["path"].endswith("/embeddings"))


def _dimensions(rag) -> set[int]:
    return set(rag.store.admin.vector_index_dimensions().values())


def test_switching_to_an_endpoint_needs_reembed_which_keeps_the_graph(world, endpoint_factory, stub) -> None:
    graph_before = world.store.read(GRAPH)
    chunks = world.inspect.stats()["chunks"]
    remote = endpoint_factory()
    with pytest.raises(SchemaMismatchError, match="graphwright reembed"):
        remote.search("Where does the Vega launcher fly from?", mode="vector")
    with pytest.raises(SchemaMismatchError, match="graphwright reembed"):
        remote.init()

    report = remote.reembed()
    assert report.previous_dimension == 384 and report.dimension == DIM
    assert report.embedded["Chunk"] == chunks and report.embedded["Entity"] == graph_before[0]["entities"]
    assert report.embedded["Community"] == graph_before[0]["communities"] > 0
    assert _dimensions(world) == {DIM}
    assert world.store.read(GRAPH) == graph_before, "re-embedding never touches the graph"
    sizes = world.store.read(
        "MATCH (n) WHERE n:Chunk OR n:Entity OR n:Community "
        "RETURN DISTINCT size(n.embedding) AS d, count(n.embedding_next) AS staged"
    )
    assert sizes == [{"d": DIM, "staged": 0}]

    result = remote.search("Where does the Vega launcher fly from?", mode="hybrid", k=3)
    assert result.chunks[0].document_id == "space.md"
    ids = {r["id"] for r in world.store.read("MATCH (c:Chunk) RETURN c.id AS id")}
    assert {c.id for c in result.citations if c.kind == "chunk"} <= ids
    with pytest.raises(SchemaMismatchError, match="graphwright reembed"):
        world.search("Where does the Vega launcher fly from?", mode="vector")  # the bundled model is now the odd one

    calls = _embed_requests(stub)
    again = endpoint_factory().reembed()  # every text is in the on-disk cache now
    assert again.embedded["Chunk"] == chunks and _embed_requests(stub) == calls


def test_ingest_on_an_endpoint_counts_its_usage_and_survives_faults(rag, endpoint_factory, stub, tmp_path) -> None:
    rag.store.admin.reset()
    remote = endpoint_factory(embedding_cache=False)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ada.md").write_text(
        "# Ada\n\nAda Lovelace wrote the first program for the Analytical Engine.", encoding="utf-8"
    )
    stub.script = [error_reply(500), error_reply(429)]  # retried by the client, then the default answers
    report = remote.ingest([folder], base=tmp_path, extractor="nlp")
    assert report.ok and report.documents_written == 1
    usage = report.embedding_usage
    assert usage["calls"] >= 2 and usage["tokens"] > 0 and usage["texts"] >= 2
    assert _dimensions(rag) == {DIM}
    assert remote.search("Who wrote the first program?", mode="vector", k=1).chunks[0].document_id == "docs/ada.md"

    stub.default = error_reply(503, "model is loading")
    (folder / "bob.md").write_text("# Bob\n\nBob built a telescope in his garden shed.", encoding="utf-8")
    with pytest.raises(EmbeddingError, match="HTTP 503"):
        remote.ingest([folder / "bob.md"], base=tmp_path, extractor="none")
    assert rag.store.read("MATCH (d:Document {id: 'docs/bob.md'}) RETURN d") == [], "nothing half-written"

    stub.default = lambda body: (200, {"object": "list", "data": [], "model": "x"})
    with pytest.raises(EmbeddingError, match="0 vectors for 1 texts"):
        remote.search("Who built a telescope?", mode="vector")
    stub.default = embedding_reply(DIM + 1)
    with pytest.raises(EmbeddingError, match=f"returned {DIM + 1} dimensions, expected {DIM}"):
        remote.search("Who built a telescope?", mode="vector")


def test_an_interrupted_reembed_keeps_the_old_vectors_serving_and_resumes(world, endpoint_factory, stub) -> None:
    remote = endpoint_factory(embedding_cache=False, embedding_endpoint_batch=8)
    served = world.search("Where does the Vega launcher fly from?", mode="vector", k=3)
    answered = [0]

    def flaky(body):
        answered[0] += 1
        return embedding_reply(DIM)(body) if answered[0] <= 3 else error_reply(500, "worker died")

    stub.default = flaky
    with pytest.raises(EmbeddingError):
        remote.reembed()
    assert _dimensions(world) == {384}
    # the bundled model still serves, with the same answer, while the run is unfinished
    assert world.search("Where does the Vega launcher fly from?", mode="vector", k=3).chunks == served.chunks
    with pytest.raises(SchemaMismatchError, match="did not finish"):
        endpoint_factory().search("Where does the Vega launcher fly from?", mode="vector")

    stub.default = embedding_reply(DIM)
    report = remote.reembed()
    assert report.resumed > 0 and _dimensions(world) == {DIM}


def test_cli_reembed_and_its_mismatch_line(rag, cli_env, stub, tmp_path: Path) -> None:
    stub.default = embedding_reply(DIM)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ada.md").write_text("# Ada\n\nAda Lovelace wrote the first program.", encoding="utf-8")
    assert run(["ingest", str(folder), "-q", "--extractor", "none"], cli_env, tmp_path).returncode == 0
    env = {
        **cli_env,
        "GRAPHWRIGHT_EMBEDDING_BACKEND": "openai",
        "GRAPHWRIGHT_EMBEDDING_MODEL": "stub-embed",
        "GRAPHWRIGHT_EMBEDDING_BASE_URL": stub.base_url,
    }
    refused = run(["query", "Who wrote the first program?"], env, tmp_path)
    assert refused.returncode == 2 and "graphwright reembed" in refused.stderr and "Traceback" not in refused.stderr
    done = run(["reembed", "-q"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "Re-embedded 1 chunks, 0 entities, 0 community reports" in said
    assert f"all-MiniLM-L6-v2 (bundled) (384d) -> stub-embed (endpoint) ({DIM}d)" in said
    answered = run(["query", "Who wrote the first program?", "--mode", "vector", "--explain"], env, tmp_path)
    assert answered.returncode == 0 and "docs/ada.md" in answered.stdout
