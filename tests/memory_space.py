"""What the in-memory store (tests/memory_store.py) keeps: one database of workspaces, each a space of plain
Python records, and the small helpers every role of it uses."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, NoReturn

from graphwright.graph_store.rows import (
    MetaRow,
)
from graphwright.models import (
    Chunk,
    Document,
    Entity,
    Relation,
)

VECTOR_INDEXES = ("chunk_embedding", "entity_embedding", "community_embedding")


_WORD = re.compile(r"\w+")


_LUCENE_WORDS = {"and", "or", "not", "to"}


def _missing(what: str) -> NoReturn:
    raise NotImplementedError(f"the memory store does not model {what}")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _LUCENE_WORDS]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass
class Space:
    """One workspace's graph."""

    documents: dict[str, Document] = field(default_factory=dict)
    chunks: dict[str, Chunk] = field(default_factory=dict)
    staged: dict[tuple[str, str], list[Chunk]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    staged_extractions: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: dict[tuple[str, str, str], Relation] = field(default_factory=dict)
    meta: MetaRow | None = None
    schema_json: str | None = None
    conversations: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # id -> the record as JSON, as Neo4j keeps it


@dataclass
class Database:
    spaces: dict[str, Space] = field(default_factory=dict)
    registry: dict[str, dict[str, Any]] = field(default_factory=dict)

    def space(self, name: str) -> Space:
        return self.spaces.setdefault(name, Space())
