"""The embedders: the ONNX int8 default against sentence-transformers on torch (same model), input order,
the on-disk vector cache, and the endpoint embedder's normalising and batching over real HTTP (the stub)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphwright.config import Settings
from graphwright.embeddings import (
    EndpointEmbedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    VectorCache,
    make_embedder,
)

TEXTS = [
    "Ada Lovelace wrote the first program for the Analytical Engine.",
    "Falcon 9 is a partially reusable rocket built by SpaceX; its first stage lands on drone ships.",
    "short",
    "The Nobel Prize in Physics of 1903 was shared by Henri Becquerel, Pierre Curie and Marie Curie. " * 5,
]


def test_the_default_is_onnx_with_the_vectors_of_torch() -> None:
    default = make_embedder(Settings(_env_file=None))
    assert isinstance(default, OnnxEmbedder) and default.name == "all-MiniLM-L6-v2 (bundled)"
    assert default.dimension == 384
    fast = np.array(default.embed(TEXTS))
    torch = SentenceTransformerEmbedder()
    reference = np.array(torch.embed(TEXTS))
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    assert ((fast * reference).sum(axis=1) > 0.99999).all(), "the same model, the same vectors"
    assert default.name == torch.name, "so a graph embedded on torch needs no reembed"
    # texts run sorted by length on several streams; the answers must come back in the order asked, and a
    # text's vector must not depend on the texts beside it
    single = np.array([default.embed([t])[0] for t in TEXTS])
    assert np.allclose(single, fast, atol=1e-6)
    assert default.embed([]) == []
    int8 = make_embedder(Settings(_env_file=None, embedding_runtime="onnx-int8"))
    assert isinstance(int8, OnnxEmbedder) and int8.name == "all-MiniLM-L6-v2 (bundled, onnx int8)"
    quantized = np.array(int8.embed(TEXTS))
    cosine = (quantized * reference).sum(axis=1)
    assert cosine.min() > 0.98 and cosine.max() < 0.99999, cosine  # close, and really a different model
    assert np.allclose(np.array([int8.embed([t])[0] for t in TEXTS]), quantized, atol=1e-6)


def test_runtime_settings_pick_the_embedder() -> None:
    torch = make_embedder(Settings(_env_file=None, embedding_runtime="torch"))
    assert isinstance(torch, SentenceTransformerEmbedder) and torch.name == "all-MiniLM-L6-v2 (bundled)"
    other = make_embedder(Settings(_env_file=None, embedding_model="/models/bge-small"))
    assert isinstance(other, SentenceTransformerEmbedder), "only the bundled model has an ONNX export"


def test_vector_cache_round_trips_float32(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, "m|None")
    assert cache.get("text") is None
    cache.put("text", [0.5, -0.25, 1.0])
    assert cache.get("text") == [0.5, -0.25, 1.0]
    assert VectorCache(tmp_path, "other|None").get("text") is None, "keyed by model"


def test_endpoint_embedder_normalises_batches_and_counts(tmp_path: Path) -> None:
    from tests.stub_openai import StubOpenAI, embedding_reply

    with StubOpenAI() as stub:
        stub.default = embedding_reply(16)
        settings = Settings(
            _env_file=None,
            embedding_backend="openai",
            embedding_model="stub-embed",
            embedding_base_url=stub.base_url,
            home=tmp_path,
            embedding_endpoint_batch=2,
        )
        embedder = make_embedder(settings)
        assert isinstance(embedder, EndpointEmbedder) and embedder.name == "stub-embed (endpoint)"
        vectors = embedder.embed(TEXTS)
        assert len(stub.requests) == 2 and [len(r["body"]["input"]) for r in stub.requests] == [2, 2]
        assert all(abs(np.linalg.norm(v) - 1.0) < 1e-6 for v in vectors)
        assert embedder.dimension == 16 and len(stub.requests) == 2  # known from the answers, no probe
        assert embedder.usage.calls == 2 and embedder.usage.texts == 4 and embedder.usage.tokens > 0
        assert embedder.embed(TEXTS) == vectors and len(stub.requests) == 2 and embedder.usage.cached == 4
        assert all(r["auth"] in (None, "Bearer not-needed") for r in stub.requests)
