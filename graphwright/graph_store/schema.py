"""Constraints and indexes; idempotent, and loud when the embedding dimension does not fit."""

from __future__ import annotations

from dataclasses import dataclass

from graphwright.errors import GraphwrightError
from graphwright.graph_store import queries as q


class SchemaMismatchError(GraphwrightError):
    """The database was indexed with another embedding model or dimension."""


@dataclass(frozen=True)
class SchemaPlan:
    dimension: int
    embedding_model: str
    analyzer: str

    def statements(self) -> list[str]:
        return [
            *q.CONSTRAINTS,
            *q.RANGE_INDEXES,
            *(q.vector_index(name, self.dimension) for name in q.VECTOR_INDEXES),
            *q.fulltext_indexes(self.analyzer),
        ]


def check_compatible(existing: dict[str, int | None], meta: dict | None, plan: SchemaPlan) -> None:
    """Refuse to mix embeddings: a different dimension or model would silently corrupt similarity."""
    for name, dimension in existing.items():
        if dimension is not None and int(dimension) != plan.dimension:
            raise SchemaMismatchError(
                f"vector index {name!r} has dimension {dimension} but the embedder "
                f"({plan.embedding_model}) produces {plan.dimension}. Use the original embedding model, "
                "or start over with `graphwright reset --yes` and re-ingest."
            )
    if meta and meta.get("model") and meta["model"] != plan.embedding_model:
        raise SchemaMismatchError(
            f"the graph was embedded with {meta['model']!r} but the configured embedder is "
            f"{plan.embedding_model!r}. Set GRAPHWRIGHT_EMBEDDING_MODEL back, or `graphwright reset --yes`."
        )
