"""Constraints and indexes; idempotent, and loud when the embedding dimension does not fit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphwright.errors import (
    SchemaMismatchError,  # re-exported: they used to live here
)
from graphwright.graph_store.queries import schema as q


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


REEMBED_HINT = (
    "Switch the embedding settings back, or run `graphwright reembed` to re-embed chunks, entities "
    "and community reports with the configured model (the graph is kept)."
)


def check_compatible(existing: dict[str, int | None], meta: Mapping[str, Any] | None, plan: SchemaPlan) -> None:
    """Refuse to mix embeddings: a different dimension or model would silently corrupt similarity."""
    for name, dimension in existing.items():
        if dimension is not None and int(dimension) != plan.dimension:
            raise SchemaMismatchError(
                f"vector index {name!r} has dimension {dimension} but the embedder "
                f"({plan.embedding_model}) produces {plan.dimension}. {REEMBED_HINT}"
            )
    check_model(meta, plan.embedding_model)


def check_model(meta: Mapping[str, Any] | None, model: str) -> None:
    """The cheap half of the check (no embedding needed): the model the graph was embedded with."""
    if meta and meta.get("model") and meta["model"] != model:
        if meta.get("reembed_model") == model:  # the old model still serves searches meanwhile
            raise SchemaMismatchError(
                f"a `graphwright reembed` to {model!r} did not finish; run "
                "`graphwright reembed` again to complete it (it resumes)."
            )
        raise SchemaMismatchError(
            f"the graph was embedded with {meta['model']!r} but the configured embedder is {model!r}. {REEMBED_HINT}"
        )
