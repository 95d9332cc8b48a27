"""Calls to an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, text-embeddings-inference)
through the same `openai` client as chat. Retries with backoff on 429, 5xx and timeouts are the client's."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from graphwright.config import Settings
from graphwright.errors import EmbeddingError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbeddingBatch:
    vectors: list[list[float]]
    tokens: int  # as the endpoint reported them (0 when it did not)


class EmbeddingClient:
    def __init__(self, settings: Settings) -> None:
        base_url = settings.embedding.base_url or settings.llm.base_url
        secret = settings.embedding.api_key or settings.llm.api_key
        key = secret.get_secret_value() if secret is not None else ""
        if not base_url and not key:
            raise EmbeddingError(
                "GRAPHWRIGHT_EMBEDDING_BACKEND=openai needs GRAPHWRIGHT_EMBEDDING_BASE_URL "
                "(or OPENAI_BASE_URL) and/or an API key"
            )
        from openai import OpenAI

        self.model = settings.embedding.model
        self.dimensions = settings.embedding.dimensions
        self.base_url = base_url or "https://api.openai.com/v1"
        self._client = OpenAI(
            api_key=key or "not-needed",
            base_url=base_url,
            timeout=settings.embedding.timeout,
            max_retries=settings.embedding.max_retries,
        )

    def embed(self, texts: list[str]) -> EmbeddingBatch:
        import openai

        options: dict[str, Any] = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            response = self._client.embeddings.create(model=self.model, input=texts, encoding_format="float", **options)
        except openai.APIStatusError as exc:
            log.warning("embeddings endpoint answered HTTP %s after retries", exc.status_code)
            raise EmbeddingError(
                f"embeddings endpoint answered HTTP {exc.status_code} after retries: {exc.message}"
            ) from exc
        except openai.APIConnectionError as exc:  # includes timeouts
            log.warning("embeddings endpoint unreachable after retries: %s", exc.__class__.__name__)
            raise EmbeddingError(f"embeddings endpoint unreachable after retries: {exc}") from exc
        except (ValueError, TypeError) as exc:  # a body that is not the embeddings schema
            raise EmbeddingError(f"embeddings endpoint sent an unreadable answer: {exc}") from exc
        data = sorted(response.data or [], key=lambda d: d.index)
        if len(data) != len(texts) or any(not isinstance(d.embedding, list) or not d.embedding for d in data):
            raise EmbeddingError(f"embeddings endpoint returned {len(data)} vectors for {len(texts)} texts")
        usage = getattr(response, "usage", None)
        tokens = int(getattr(usage, "prompt_tokens", 0) or getattr(usage, "total_tokens", 0) or 0) if usage else 0
        return EmbeddingBatch([[float(x) for x in d.embedding] for d in data], tokens)
