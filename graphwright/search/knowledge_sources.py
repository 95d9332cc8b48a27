"""The knowledge bases of the settings' file, opened for one search: the sources, this database's other
workspaces read through the search engine, and a source's passages as citable `RetrievedChunk`s.

A key bound to named workspaces (a tenant) reaches no other workspace through a knowledge base: the file is the
operator's, the key's bounds are the caller's, and the narrower wins."""

from __future__ import annotations

import hashlib
import logging
import time
from typing import TYPE_CHECKING

from graphwright.embeddings import similarity
from graphwright.errors import GraphwrightError
from graphwright.knowledge import KnowledgeSource, SourceDocument, SourcePassage, load_knowledge_bases
from graphwright.knowledge.base import SourceEnv
from graphwright.knowledge.registry import open_source
from graphwright.models import KnowledgeBaseCheck, RetrievedChunk
from graphwright.search.results import document_text

if TYPE_CHECKING:
    from graphwright.search.base import SearchContext

log = logging.getLogger(__name__)


class EngineWorkspaces:
    """This database's other workspaces, searched with a mode (no LLM: a knowledge base returns passages)."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx

    def search(self, workspace: str, mode: str, question: str, k: int) -> list[SourcePassage]:
        from graphwright.search.base import SearchQuery
        from graphwright.search.engine import SearchEngine

        ctx = self.ctx
        engine = SearchEngine(ctx.store.in_workspace(workspace), ctx.embedder, ctx.settings, None)
        found = engine.search(SearchQuery(question=question, mode=mode, k=k, generate=False))
        return [
            SourcePassage(
                source=workspace, id=c.chunk_id, document_id=c.document_id, text=c.text, title=c.title, score=c.score
            )
            for c in found.chunks[:k]
        ]

    def document(self, workspace: str, document_id: str) -> SourceDocument | None:
        found = document_text(self.ctx.store.in_workspace(workspace).retrieval, document_id)
        if found is None:
            return None
        return SourceDocument(
            source=workspace,
            document_id=document_id,
            title=found.title,
            passages=[
                SourcePassage(source=workspace, id=c.chunk_id, document_id=document_id, text=c.text, title=found.title)
                for c in found.chunks
            ],
        )


def open_sources(ctx: SearchContext, tenant: bool) -> tuple[list[KnowledgeSource], list[str]]:
    """The sources the settings name (none without a file), and notes on those left out."""
    path = ctx.settings.knowledge_bases
    if path is None:
        return [], []
    env = SourceEnv(timeout=ctx.settings.knowledge_timeout, workspaces=EngineWorkspaces(ctx))
    sources: list[KnowledgeSource] = []
    notes: list[str] = []
    for spec in load_knowledge_bases(path):
        if tenant and spec.kind == "workspace":
            notes.append(
                f"knowledge base {spec.name!r} is another workspace, which a key bound to workspaces "
                "does not reach: left out"
            )
            continue
        sources.append(open_source(spec, env))
    return sources, notes


CHECK_QUESTION = "What does this knowledge base hold?"


def check_sources(ctx: SearchContext) -> list[KnowledgeBaseCheck]:
    """Each configured knowledge base asked one short question, in turn: whether it answers, in what time."""
    sources, _ = open_sources(ctx, tenant=False)
    found: list[KnowledgeBaseCheck] = []
    for source in sources:
        started = time.perf_counter()
        passages, error = 0, None
        try:
            passages = len(source.search(CHECK_QUESTION, 1))
        except GraphwrightError as exc:  # the source's failure is the finding, not the command's
            error = str(exc)
        found.append(
            KnowledgeBaseCheck(
                name=source.name,
                kind=source.kind,
                ok=error is None,
                seconds=round(time.perf_counter() - started, 3),
                passages=passages,
                documents=source.has_documents,
                error=error,
            )
        )
    return found


def citable_id(source: str, passage_id: str) -> str:
    """A passage's id in answers: `c_` and hex like this workspace's, so citations keep it, and distinct per
    source, so two sources' ids never meet."""
    return "c_" + hashlib.sha256(f"{source}\0{passage_id}".encode()).hexdigest()[:16]


def relevances(ctx: SearchContext, texts: list[str], embedding: list[float]) -> list[float]:
    """Each text's similarity to the question on the common scale (a source's own scores are not comparable
    with ours, nor with each other's)."""
    vectors = ctx.embedder.embed(texts) if texts else []
    return [round(similarity(ctx.embedder, _cosine(embedding, v)), 4) for v in vectors]


def passage_chunk(passage: SourcePassage, rank: int, score: float, relevance: float | None = None) -> RetrievedChunk:
    """A source's passage as a retrieved chunk naming its knowledge base."""
    return RetrievedChunk(
        chunk_id=citable_id(passage.source, passage.id),
        document_id=f"{passage.source}:{passage.document_id}",
        text=passage.text,
        score=score,
        rank=rank,
        title=passage.title,
        scores={"source_score": passage.score} if passage.score is not None else {},
        knowledge_base=passage.source,
        origin_id=passage.id,
        relevance=relevance,
    )


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
    return dot / norm if norm else 0.0
