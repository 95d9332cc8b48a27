"""`graphwright reembed`: recompute every embedding (chunks, entities, community reports) with the configured
embedder and rebuild the vector indexes at its dimension, keeping the graph.

New vectors are staged in `embedding_next` first, so until the final swap every search still uses the old
ones; a run that stops half-way resumes where it stopped. Relations carry no embedding in this graph model,
so there is nothing else to re-embed."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from graphwright.config import Settings
from graphwright.embeddings import Embedder
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.queries.schema import EMBEDDING_LABELS
from graphwright.graph_store.schema import SchemaPlan
from graphwright.models import chunk_embedding_text, community_embedding_text, entity_embedding_text

log = logging.getLogger(__name__)

_TEXT: dict[str, Callable[[dict[str, str]], str]] = {
    "Chunk": lambda f: chunk_embedding_text(f["context"], f["text"]),
    "Entity": lambda f: entity_embedding_text(f["name"], f["type"], f["description"]),
    "Community": lambda f: community_embedding_text(f["title"], f["summary"]),
}


@dataclass
class ReembedReport:
    model: str
    dimension: int
    previous_model: str | None
    previous_dimension: int | None
    embedded: dict[str, int] = field(default_factory=dict)  # per label, this run
    resumed: int = 0  # staged by an interrupted run and kept
    seconds: float = 0.0


def reembed(
    store: GraphStore,
    embedder: Embedder,
    settings: Settings,
    page: int = 512,
    progress: Callable[[str, int], None] | None = None,
) -> ReembedReport:
    """`progress(label, done)` after each page."""
    started = time.perf_counter()
    tell = progress or (lambda label, done: None)
    before = store.admin.meta()
    dimension = embedder.dimension
    report = ReembedReport(
        model=embedder.name,
        dimension=dimension,
        previous_model=before.get("model") if before else None,
        previous_dimension=before.get("dimension") if before else None,
    )
    store.admin.begin_reembed(embedder.name)
    for label in EMBEDDING_LABELS:
        report.embedded[label] = 0
        after, done = "", 0
        while rows := store.admin.embedding_page(label, after, page):
            after = rows[-1]["id"]
            todo = [r for r in rows if not r["done"]]
            report.resumed += len(rows) - len(todo)
            vectors = embedder.embed([_TEXT[label](r["fields"]) for r in todo]) if todo else []
            store.admin.stage_embeddings(label, [{"id": r["id"], "embedding": v} for r, v in zip(todo, vectors)])
            done += len(rows)
            report.embedded[label] += len(todo)
            tell(label, done)
        log.info("re-embedded %d %s nodes", done, label)
    store.admin.finish_reembed(
        SchemaPlan(dimension=dimension, embedding_model=embedder.name, analyzer=settings.fulltext_analyzer)
    )
    report.seconds = time.perf_counter() - started
    return report
