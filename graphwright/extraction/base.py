"""The extractor interface the pipeline uses (extraction/registry.py builds one by name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class Summarizer(Protocol):
    """An extractor that can merge the descriptions an entity gathered from several chunks (the LLM's);
    without one, resolution keeps the descriptions joined."""

    def summarize(self, name: str, descriptions: list[str]) -> str: ...
