"""The extractor interface the pipeline uses (extraction/registry.py builds one by name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from graphwright.models import ChunkExtraction


class Extractor(Protocol):
    name: str

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        """(chunk id, text) pairs -> one ChunkExtraction each, in order; failures carry `error`.
        `on_done(n)` is told how many are finished as they finish (for live progress)."""
        ...

    def usage(self) -> dict[str, float]: ...
