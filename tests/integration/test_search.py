"""Vector, fulltext and hybrid retrieval on the real indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.search.hybrid import HybridRetriever
from graphwright.search.vector import VectorRetriever
from tests.integration.corpus import write_corpus

pytestmark = pytest.mark.integration

CODE_QUERY = "QX-7719-ZB"
PARAPHRASE_QUERY = "feline resting atop rug"


@pytest.fixture
def indexed(rag, tmp_path: Path):
    report = rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    assert report.ok
    return rag


def _docs(chunks) -> list[str]:
    return [c.document_id for c in chunks]


def test_identifier_only_bm25_finds(indexed) -> None:
    hybrid = HybridRetriever(indexed.store, indexed.embedder)
    assert _docs(hybrid.fulltext(CODE_QUERY, 3))[:1] == ["corpus/parts.md"]
    vector = VectorRetriever(indexed.store, indexed.embedder).retrieve(CODE_QUERY, 3)
    assert "corpus/parts.md" not in _docs(vector)
    assert _docs(hybrid.retrieve(CODE_QUERY, 3))[0] == "corpus/parts.md"


def test_paraphrase_only_dense_finds(indexed) -> None:
    hybrid = HybridRetriever(indexed.store, indexed.embedder)
    assert "corpus/cats.md" not in _docs(hybrid.fulltext(PARAPHRASE_QUERY, 10))
    vector = VectorRetriever(indexed.store, indexed.embedder).retrieve(PARAPHRASE_QUERY, 3)
    assert _docs(vector)[:1] == ["corpus/cats.md"]
    assert "corpus/cats.md" in _docs(hybrid.retrieve(PARAPHRASE_QUERY, 3))


def test_hybrid_scores_are_the_scaled_score_fusion(indexed) -> None:
    result = indexed.search(CODE_QUERY, mode="hybrid", k=3)
    target = next(c for c in result.chunks if c.document_id == "corpus/parts.md")
    assert {"fulltext", "vector", "fused"} <= set(target.scores)
    vector = VectorRetriever(indexed.store, indexed.embedder).retrieve(CODE_QUERY, 20)
    best_cosine = max(2 * c.score - 1 for c in vector)
    best_bm25 = max(c.score for c in HybridRetriever(indexed.store, indexed.embedder).fulltext(CODE_QUERY, 20))
    # an identifier question: BM25 weighs 0.8, dense 0.2
    expected = 0.2 * target.scores["vector"] / best_cosine + 0.8 * target.scores["fulltext"] / best_bm25
    assert target.score == pytest.approx(expected)
    assert target.scores["fulltext_rank"] == 1
    assert [c.rank for c in result.chunks] == [1, 2, 3]
    assert [c.score for c in result.chunks] == sorted((c.score for c in result.chunks), reverse=True)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_metadata_filters_exclude(indexed, mode: str) -> None:
    question = "rocket engines and reusable boosters"
    unfiltered = indexed.search(question, mode=mode, k=10)
    assert any(not c.document_id.startswith("rec-rockets") for c in unfiltered.chunks)
    rockets = indexed.search(question, mode=mode, k=10, where=["category=rockets"])
    assert _docs(rockets.chunks) and set(_docs(rockets.chunks)) == {"rec-rockets-2015", "rec-rockets-2023"}
    recent = indexed.search(question, mode=mode, k=10, where=["category=rockets", "year>=2020"])
    assert _docs(recent.chunks) == ["rec-rockets-2023"]
    none = indexed.search(question, mode=mode, k=10, where=["category=nothing-like-this"])
    assert none.chunks == []


def test_offline_answer_is_labelled_retrieval_with_citations(indexed) -> None:
    result = indexed.search("Which company builds Falcon 9?", mode="hybrid", k=3)
    assert result.answer_kind == "retrieval"
    assert result.answer.startswith("Retrieved passages")
    assert result.chunks[0].document_id == "corpus/rockets.md"
    cited = {(c.kind, c.id) for c in result.citations}
    for chunk in result.chunks:
        assert ("chunk", chunk.chunk_id) in cited
        assert ("document", chunk.document_id) in cited
        assert chunk.chunk_id in result.answer
    assert {"embed_ms", "retrieve_ms", "answer_ms"} <= set(result.timings_ms)


def test_hostile_question_text_is_only_a_parameter(indexed) -> None:
    nasty = "') DETACH DELETE n // \" OR 1=1 AND title:* {x} [y] ~ ^ \\ `MATCH (n)`"
    before = indexed.inspect.stats()
    for mode in ("vector", "hybrid"):
        indexed.search(nasty, mode=mode, k=3, where=["title~'); MATCH (n) DETACH DELETE n //"])
    assert indexed.inspect.stats() == before


def test_inside_named_documents_the_keyword_side_weighs_only_identifiers(indexed) -> None:
    """Searching inside the documents a question names (the engine's focus), every page holds the names that
    chose them: hybrid ranks by meaning there, as vector does, unless the question holds a code."""
    hybrid = HybridRetriever(indexed.store, indexed.embedder)
    question = "which animal sleeps on the mat"
    everywhere = hybrid.retrieve(question, 5)
    assert any(c.scores.get("fulltext") for c in everywhere)  # the words count outside a focus
    focused = hybrid.retrieve(question, 5, focused=True)
    dense = {c.chunk_id: c.scores["vector"] for c in focused if "vector" in c.scores}
    best = max(dense.values())
    assert [c.score for c in focused if c.chunk_id in dense] == pytest.approx([v / best for v in dense.values()])
    assert all(c.score == 0 for c in focused if c.chunk_id not in dense)  # found by words alone: last
    code = hybrid.retrieve(CODE_QUERY, 3, focused=True)
    assert _docs(code)[0] == "corpus/parts.md" and code[0].scores["fulltext_rank"] == 1
