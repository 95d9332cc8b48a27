"""Sentence embeddings. The default is the bundled all-MiniLM-L6-v2, exported once to ONNX and run by
onnxruntime without torch (`onnx.py`; `GRAPHWRIGHT_EMBEDDING_RUNTIME=onnx-int8` for int8 weights).
`GRAPHWRIGHT_EMBEDDING_RUNTIME=torch` runs it, or any other sentence-transformers model, on torch (`local.py`);
`GRAPHWRIGHT_EMBEDDING_BACKEND=openai` calls any OpenAI-compatible endpoint (`endpoint.py`);
`GRAPHWRIGHT_EMBEDDING_MODEL=multilingual` runs the packaged multilingual-e5-small (`e5.py`). Heavy libraries
are imported on first use only."""

from __future__ import annotations

from graphwright.config import Settings
from graphwright.embeddings.backends import MULTILINGUAL
from graphwright.embeddings.base import (
    BUNDLED,
    Embedder,
    EmbeddingBackend,
    embed_questions,
    knows_language,
    read_languages,
    similarity,
)
from graphwright.embeddings.endpoint import EmbeddingUsage, EndpointEmbedder, VectorCache
from graphwright.embeddings.local import SentenceTransformerEmbedder
from graphwright.embeddings.onnx import OnnxEmbedder
from graphwright.embeddings.onnx_export import default_cache_dir
from graphwright.embeddings.registry import EMBEDDING_BACKENDS

__all__ = [
    "BUNDLED",
    "Embedder",
    "EmbeddingBackend",
    "EmbeddingUsage",
    "MULTILINGUAL",
    "EndpointEmbedder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "default_cache_dir",
    "VectorCache",
    "embed_questions",
    "knows_language",
    "read_languages",
    "make_embedder",
    "similarity",
]


def make_embedder(settings: Settings) -> Embedder:
    """The embedder of the backend GRAPHWRIGHT_EMBEDDING_BACKEND names (embeddings/registry.py)."""
    backend: EmbeddingBackend = EMBEDDING_BACKENDS.load(settings.embedding.backend)
    return backend(settings)
