"""What every embedder offers: a name (stored with the graph, so vectors of two models never mix), a
dimension and `embed`, returning unit-length vectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from graphwright.config import Settings

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


class EmbeddingBackend(Protocol):
    """What `EMBEDDING_BACKENDS` (embeddings/registry.py) registers: builds an embedder from the settings, and
    says whether the settings configure it (an endpoint backend needs its URL and model name)."""

    def __call__(self, settings: Settings) -> Embedder: ...

    def configured(self, settings: Settings) -> bool: ...


@runtime_checkable
class MeteredEmbedder(Embedder, Protocol):
    """An embedder that counts what it costs (an endpoint's calls and tokens); reports show it."""

    usage: EmbeddingUsage


@runtime_checkable
class PrefetchingEmbedder(Embedder, Protocol):
    """An embedder whose work runs elsewhere (a cluster's workers): told a wave's texts at once, it starts on
    all of them, and `embed` then waits only for what is not done yet."""

    def prefetch(self, texts: list[str]) -> None: ...


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


def read_languages(embedder: Embedder) -> frozenset[str] | None:
    """The languages the embedder was trained on; None for one that does not say (taken to read all)."""
    return embedder.languages if isinstance(embedder, LanguageLimited) else None


def knows_language(embedder: Embedder, code: str) -> bool:
    """Whether the embedder was trained on language `code` (one that does not say is taken to know all)."""
    return not isinstance(embedder, LanguageLimited) or code in embedder.languages


@runtime_checkable
class Calibrated(Embedder, Protocol):
    """An embedder whose cosine similarities sit in a narrow band above a floor (e5's: 0.7 to 1.0); fusion and
    the walk's seeds rescale them so that the floor reads as 0, as unrelated text does for other models."""

    similarity_floor: float


def similarity(embedder: Embedder, cosine: float) -> float:
    """A cosine similarity on the common scale: rescaled above the embedder's floor when it declares one."""
    floor = embedder.similarity_floor if isinstance(embedder, Calibrated) else 0.0
    return (cosine - floor) / (1.0 - floor) if floor else cosine
