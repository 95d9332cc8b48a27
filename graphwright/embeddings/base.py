"""What every embedder offers: a name (stored with the graph, so vectors of two models never mix), a
dimension and `embed`, returning unit-length vectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

BUNDLED = "bundled"


@dataclass
class EmbeddingUsage:
    """What an endpoint embedder has cost so far, like the LLM's token accounting."""

    calls: int = 0
    tokens: int = 0
    texts: int = 0
    cached: int = 0


class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]: ...


@runtime_checkable
class MeteredEmbedder(Embedder, Protocol):
    """An embedder that counts what it costs (an endpoint's calls and tokens); reports show it."""

    usage: EmbeddingUsage
