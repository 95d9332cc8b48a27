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


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder that embeds a question differently from a passage (e5's "query: " and "passage: ")."""

    def embed_query(self, texts: list[str]) -> list[list[float]]: ...


@runtime_checkable
class LanguageLimited(Embedder, Protocol):
    """An embedder trained on some languages only: a question in another is noise to it, so hybrid search
    leans on BM25 there (search/hybrid.py)."""

    languages: frozenset[str]


def embed_questions(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Vectors of questions (search queries): the embedder's query side when it has one."""
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_query(texts)
    return embedder.embed(texts)


def knows_language(embedder: Embedder, code: str) -> bool:
    """Whether the embedder was trained on language `code` (one that does not say is taken to know all)."""
    return not isinstance(embedder, LanguageLimited) or code in embedder.languages
