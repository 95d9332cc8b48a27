"""The embedding backends `EMBEDDING_BACKENDS` (embeddings/registry.py) names (GRAPHWRIGHT_EMBEDDING_BACKEND):
each builds an `Embedder` from the settings and says whether the settings configure it. Adding one = an object
like these in a module, plus one line in that table or `EMBEDDING_BACKENDS.register(name, target)`."""

from __future__ import annotations

from pathlib import Path

from graphwright.config import Settings
from graphwright.embeddings.base import BUNDLED, Embedder

# Names that choose the packaged multilingual embedder (embeddings/e5.py).
MULTILINGUAL = ("multilingual", "multilingual-e5-small")


class LocalBackend:
    """On this machine: the bundled all-MiniLM-L6-v2 on onnxruntime (int8 by GRAPHWRIGHT_EMBEDDING_RUNTIME), the
    packaged multilingual-e5-small, or any sentence-transformers model on torch."""

    @staticmethod
    def configured(settings: Settings) -> bool:
        return True  # the bundled model needs nothing

    def __call__(self, settings: Settings) -> Embedder:
        if settings.embedding.model in MULTILINGUAL:
            from graphwright.embeddings.e5 import E5Embedder

            return E5Embedder()
        if (
            settings.embedding.model == BUNDLED
            and settings.embedding.runtime != "torch"
            and settings.embedding.device == "cpu"
        ):
            from graphwright.embeddings.onnx import OnnxEmbedder
            from graphwright.embeddings.onnx_export import default_cache_dir

            return OnnxEmbedder(
                Path(settings.embedding.model_cache or default_cache_dir()),
                quantized=settings.embedding.runtime == "onnx-int8",
                batch_size=settings.embedding.batch_size or 0,
            )
        from graphwright.embeddings.local import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(
            settings.embedding.model, settings.embedding.batch_size or 16, settings.embedding.device
        )


class EndpointBackend:
    """Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, text-embeddings-inference);
    URL and key default to the LLM's."""

    @staticmethod
    def configured(settings: Settings) -> bool:
        endpoint = bool(settings.embedding.base_url) or settings.llm.openai_configured
        return endpoint and settings.embedding.model != BUNDLED

    def __call__(self, settings: Settings) -> Embedder:
        from graphwright.embeddings.endpoint import EndpointEmbedder

        return EndpointEmbedder(settings)


LOCAL = LocalBackend()
ENDPOINT = EndpointBackend()
