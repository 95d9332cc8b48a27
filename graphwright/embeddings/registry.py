"""The embedding backends by name (GRAPHWRIGHT_EMBEDDING_BACKEND), each imported on first use. Adding one = an
object keeping `EmbeddingBackend` (embeddings/base.py) in a module, plus one line here or
`EMBEDDING_BACKENDS.register(name, target)`."""

from __future__ import annotations

from typing import Any

from graphwright.registry import Registry

# Embedding backends (GRAPHWRIGHT_EMBEDDING_BACKEND): an object keeping embeddings/base.py's `EmbeddingBackend`.
EMBEDDING_BACKENDS: Registry[Any] = Registry(
    "embedding backend",
    {
        "local": "graphwright.embeddings.backends:LOCAL",  # the bundled model, e5, or sentence-transformers
        "openai": "graphwright.embeddings.backends:ENDPOINT",  # any OpenAI-compatible /v1/embeddings
    },
    parameter="GRAPHWRIGHT_EMBEDDING_BACKEND",
)
