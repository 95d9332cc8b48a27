"""`init` against the real Neo4j: idempotent, and loud on an embedding dimension or model change."""

from __future__ import annotations

import hashlib

import pytest

from graphwright.api import GraphRAG
from graphwright.graph_store.schema import SchemaMismatchError

pytestmark = pytest.mark.integration


class HashEmbedder:
    """A deterministic stand-in *embedding model* of another dimension (Neo4j stays real)."""

    def __init__(self, dimension: int, name: str = "hash-embedder") -> None:
        self.dimension = dimension
        self.name = name

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            digest = hashlib.sha256(text.encode()).digest()
            out.append([digest[i % len(digest)] / 255.0 + 0.01 for i in range(self.dimension)])
        return out


def _index_summary(rag: GraphRAG) -> list[tuple]:
    return sorted(
        (r["name"], r["type"], tuple(r["labelsOrTypes"] or ()), tuple(r["properties"] or ()))
        for r in rag.store.admin.indexes()
    )


def test_init_creates_everything_once(rag) -> None:
    first = _index_summary(rag)
    names = {row[0] for row in first}
    assert {
        "chunk_embedding",
        "entity_embedding",
        "community_embedding",
        "chunk_text",
        "chunk_terms",
        "entity_text",
        "document_id",
        "chunk_id",
        "entity_id",
        "community_id",
    } <= names
    assert rag.store.admin.vector_index_dimensions() == {
        "chunk_embedding": 384,
        "entity_embedding": 384,
        "community_embedding": 384,
    }
    rag.init()
    rag.init()
    assert _index_summary(rag) == first
    constraints = rag.store.read("SHOW CONSTRAINTS YIELD name, type RETURN name, type")
    assert {c["name"] for c in constraints} == {
        "document_id",
        "chunk_id",
        "entity_id",
        "community_id",
        "conversation_id",
    }
    assert all(c["type"] == "UNIQUENESS" for c in constraints)


def test_other_dimension_is_a_clear_error(rag, settings) -> None:
    other = GraphRAG(settings, embedder=HashEmbedder(16))
    try:
        with pytest.raises(SchemaMismatchError, match="dimension 384.*produces 16"):
            other.init()
        assert rag.store.admin.vector_index_dimensions()["chunk_embedding"] == 384  # nothing was altered
    finally:
        other.close()


def test_other_model_same_dimension_is_refused(rag, settings) -> None:
    other = GraphRAG(settings, embedder=HashEmbedder(384, name="another-384-model"))
    try:
        with pytest.raises(SchemaMismatchError, match="another-384-model"):
            other.init()
    finally:
        other.close()


def test_reset_then_init_accepts_a_new_dimension(rag, settings) -> None:
    rag.store.admin.reset()
    other = GraphRAG(settings, embedder=HashEmbedder(16))
    try:
        other.init()
        assert other.store.admin.vector_index_dimensions()["chunk_embedding"] == 16
    finally:
        other.store.admin.reset()
        other.close()


def test_a_fulltext_index_of_an_older_version_is_rebuilt_over_text_and_context(rag, tmp_path) -> None:
    rag.store.connection.write("DROP INDEX chunk_text")
    rag.store.connection.write("CREATE FULLTEXT INDEX chunk_text FOR (n:Chunk) ON EACH [n.text]")  # before context
    rag.init()
    chunk_text = {r["name"]: list(r["properties"] or []) for r in rag.store.admin.indexes()}["chunk_text"]
    assert chunk_text == ["text", "context"]
    # the document's title is searched and embedded with each chunk, but never shown as its text
    (tmp_path / "zephyrine-quartz.md").write_text(
        "# Zephyrine Quartz\n\nA pale mineral.\n\n" + "It glows faintly under ultraviolet light. " * 30,
        encoding="utf-8",
    )
    rag.ingest([tmp_path / "zephyrine-quartz.md"], base=tmp_path, extractor="none")
    chunks = rag.search("Zephyrine", mode="hybrid", k=10).chunks
    late = [c for c in chunks if "Zephyrine" not in c.text]
    assert late and all(c.scores.get("fulltext") for c in late)  # found by the title alone
    stored = rag.store.read("MATCH (c:Chunk) RETURN DISTINCT c.context AS context")
    assert stored == [{"context": "Zephyrine Quartz"}]
