"""What every embedder offers: a name (stored with the graph, so vectors of two models never mix), a
dimension and `embed`, returning unit-length vectors."""

from __future__ import annotations

from typing import Protocol

BUNDLED = "bundled"


class Embedder(Protocol):
    name: str

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]: ...
