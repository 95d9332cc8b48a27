"""Embeddings from any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM,
text-embeddings-inference): batched, cached on disk, usage counted. The HTTP calls are the llm package's."""

from __future__ import annotations

import hashlib
import math
import os
import threading
from pathlib import Path

from graphwright.config import Settings
from graphwright.embeddings.base import BUNDLED, EmbeddingUsage
from graphwright.errors import EmbeddingError
from graphwright.telemetry import traced_embedding


class VectorCache:
    """Vectors on disk keyed by model, dimensions and text: re-embedding unchanged text is free."""

    def __init__(self, folder: Path, model_key: str) -> None:
        self.folder = folder
        self.model_key = model_key

    def _path(self, text: str) -> Path:
        key = hashlib.sha256(f"{self.model_key}\x00{text}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.f32"

    def get(self, text: str) -> list[float] | None:
        import array

        try:
            raw = self._path(text).read_bytes()
        except OSError:
            return None
        if not raw or len(raw) % 4:
            return None
        values = array.array("f")
        values.frombytes(raw)
        return values.tolist()

    def put(self, text: str, vector: list[float]) -> None:
        import array

        path = self._path(text)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(array.array("f", vector).tobytes())
        tmp.replace(path)  # atomic: a killed run never leaves half a vector behind


def _unit(vector: list[float]) -> list[float]:
    """Endpoints differ on normalising; the indexes use cosine and PPR seeds use dot products, so normalise.
    Rounded to float32, as Neo4j stores vectors and the cache keeps them, so a cached vector is the same."""
    import array

    norm = math.sqrt(sum(x * x for x in vector))
    return array.array("f", [x / norm for x in vector] if norm else vector).tolist()


class EndpointEmbedder:
    """Embeddings from an OpenAI-compatible endpoint, in batches, cached on disk, with usage counted."""

    def __init__(self, settings: Settings, cache: VectorCache | None = None) -> None:
        from graphwright.llm.embedding_client import EmbeddingClient

        if settings.embedding.model == BUNDLED:
            raise EmbeddingError(
                "GRAPHWRIGHT_EMBEDDING_BACKEND=openai needs GRAPHWRIGHT_EMBEDDING_MODEL set to "
                "the endpoint's model name (e.g. text-embedding-3-small, nomic-embed-text)"
            )
        self._client = EmbeddingClient(settings)
        dims = settings.embedding.dimensions
        self.name = f"{settings.embedding.model} (endpoint{f', {dims}d' if dims else ''})"
        self._batch_size = settings.embedding.endpoint_batch
        self._dimension = dims
        self.usage = EmbeddingUsage()
        self._lock = threading.Lock()
        if cache is None and settings.embedding.cache:
            cache = VectorCache(settings.home / "cache" / "embeddings", f"{settings.embedding.model}|{dims}")
        self._cache = cache

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len(self.embed(["dimension probe"])[0])
        return self._dimension

    @traced_embedding
    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float] | None] = [self._cache.get(t) if self._cache else None for t in texts]
        missing = [i for i, v in enumerate(out) if v is None]
        with self._lock:
            self.usage.cached += len(texts) - len(missing)
        for start in range(0, len(missing), self._batch_size):
            batch = missing[start : start + self._batch_size]
            result = self._client.embed([texts[i] for i in batch])
            for i, vector in zip(batch, result.vectors):
                if self._dimension is not None and len(vector) != self._dimension:
                    raise EmbeddingError(
                        f"embeddings endpoint returned {len(vector)} dimensions, expected "
                        f"{self._dimension} ({self.name})"
                    )
                self._dimension = len(vector)
                out[i] = _unit(vector)
                if self._cache is not None:
                    self._cache.put(texts[i], out[i] or [])
            with self._lock:
                self.usage.calls += 1
                self.usage.tokens += result.tokens
                self.usage.texts += len(batch)
        return [v or [] for v in out]
