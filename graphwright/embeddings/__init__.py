"""Sentence embeddings. The default is the bundled all-MiniLM-L6-v2, exported once to ONNX and run by
onnxruntime without torch (`onnx.py`; `GRAPHWRIGHT_EMBEDDING_RUNTIME=onnx-int8` for int8 weights).
`GRAPHWRIGHT_EMBEDDING_RUNTIME=torch` runs it, or any other sentence-transformers model, on torch (`local.py`);
`GRAPHWRIGHT_EMBEDDING_BACKEND=openai` calls any OpenAI-compatible endpoint (`endpoint.py`);
`GRAPHWRIGHT_EMBEDDING_MODEL=multilingual` runs the packaged multilingual-e5-small (`e5.py`). Heavy libraries
are imported on first use only."""

from __future__ import annotations

from pathlib import Path

from graphwright.config import Settings
from graphwright.embeddings.base import BUNDLED, Embedder, embed_questions, knows_language, similarity
from graphwright.embeddings.endpoint import EmbeddingUsage, EndpointEmbedder, VectorCache
from graphwright.embeddings.local import SentenceTransformerEmbedder
from graphwright.embeddings.onnx import OnnxEmbedder
from graphwright.embeddings.onnx_export import default_cache_dir

# Names that choose the packaged multilingual embedder (embeddings/e5.py).
MULTILINGUAL = ("multilingual", "multilingual-e5-small")

__all__ = [
    "BUNDLED",
    "Embedder",
    "EmbeddingUsage",
    "EndpointEmbedder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "VectorCache",
    "embed_questions",
    "knows_language",
    "make_embedder",
    "similarity",
]


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedding_backend == "openai":
        return EndpointEmbedder(settings)
    if settings.embedding_model in MULTILINGUAL:
        from graphwright.embeddings.e5 import E5Embedder

        return E5Embedder()
    if (
        settings.embedding_model == BUNDLED
        and settings.embedding_runtime != "torch"
        and settings.embedding_device == "cpu"
    ):
        return OnnxEmbedder(
            Path(settings.model_cache or default_cache_dir()),
            quantized=settings.embedding_runtime == "onnx-int8",
            batch_size=settings.embedding_batch_size or 0,
        )
    return SentenceTransformerEmbedder(
        settings.embedding_model, settings.embedding_batch_size or 16, settings.embedding_device
    )
