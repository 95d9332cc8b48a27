"""Optional cross-encoder reranking (any local sentence-transformers CrossEncoder path or name)."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any, Protocol

from graphwright.errors import TorchNotInstalledError
from graphwright.models import RetrievedChunk


class Reranker(Protocol):
    def rerank(self, question: str, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]: ...


class CrossEncoderReranker:
    def __init__(self, model: str, device: str = "cpu") -> None:
        self.model_ref = model
        self.device = device

    @cached_property
    def _model(self) -> Any:  # CrossEncoder, imported lazily
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise TorchNotInstalledError(
                f"reranking with {self.model_ref!r} runs on torch, which this install leaves out: "
                "pip install 'graphwright[torch]', or unset GRAPHWRIGHT_RERANK_MODEL"
            ) from exc

        return CrossEncoder(self.model_ref, device=self.device)

    def scores(self, question: str, texts: list[str]) -> list[float]:
        return [float(s) for s in self._model.predict([(question, t) for t in texts], show_progress_bar=False)]

    def rerank(self, question: str, chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
        if not chunks:
            return []
        scored = list(zip(self.scores(question, [c.text for c in chunks]), chunks))
        scored.sort(key=lambda pair: -pair[0])
        out = []
        for rank, (score, chunk) in enumerate(scored, start=1):
            out.append(
                chunk.model_copy(update={"score": score, "rank": rank, "scores": {**chunk.scores, "rerank": score}})
            )
        return out
