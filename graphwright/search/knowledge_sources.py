"""The knowledge bases of the settings' file, opened for one search: the sources, this database's other
workspaces read through the search engine, and a source's passages as citable `RetrievedChunk`s.

Knowledge sources by grant, not by kind: a key bound to named workspaces (a tenant) reaches only the entries the
operator grants to the workspace it searches (`granted_to`, none by default), and an entry that resolves to this
database (kind `workspace`, or a remote whose URL this very server answers, proven by the install's secret) is
another workspace whatever its kind: read in this process, and only if the key reads that workspace itself. The
file is the operator's, the key's bounds are the caller's, and the narrower wins."""

from __future__ import annotations

import hashlib
import logging
import re
import time
from typing import TYPE_CHECKING

from graphwright.embeddings import similarity
from graphwright.errors import GraphwrightError
from graphwright.knowledge import KnowledgeSource, SourceDocument, SourcePassage, load_knowledge_bases
from graphwright.knowledge.base import SourceEnv
from graphwright.knowledge.config import KnowledgeBaseSpec, RemoteSpec
from graphwright.knowledge.http import origin
from graphwright.knowledge.registry import open_source
from graphwright.knowledge.workspace import WorkspaceSpec
from graphwright.models import KnowledgeBaseCheck, RetrievedChunk
from graphwright.search.results import document_text
from graphwright.serving_proof import existing_secret, proves

if TYPE_CHECKING:
    from graphwright.search.base import SearchContext

log = logging.getLogger(__name__)
_WORKSPACE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


class EngineWorkspaces:
    """This database's other workspaces, searched with a mode (no LLM: a knowledge base returns passages), as
    the caller who asked: its identity goes into the nested search, so a mode there keeps its tenant rules."""

    def __init__(self, ctx: SearchContext, caller: str = "", tenant: bool = False) -> None:
        self.ctx = ctx
        self.caller, self.tenant = caller, tenant

    def search(self, workspace: str, mode: str, question: str, k: int) -> list[SourcePassage]:
        from graphwright.search.base import SearchQuery
        from graphwright.search.engine import SearchEngine

        if mode == "federated":  # a knowledge base that is itself every knowledge base: never recurse
            mode = "hybrid"
        ctx = self.ctx
        engine = SearchEngine(ctx.store.in_workspace(workspace), ctx.embedder, ctx.settings, None)
        query = SearchQuery(
            question=question, mode=mode, k=k, generate=False, caller=self.caller, tenant=self.tenant, reach=None
        )
        found = engine.search(query)
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


def open_sources(
    ctx: SearchContext, *, tenant: bool = False, reach: frozenset[str] | None = None, caller: str = ""
) -> tuple[list[KnowledgeSource], list[str]]:
    """The sources the settings name that this caller reaches (none without a file), and notes on those left
    out. `tenant`: the caller's key is bound to named workspaces; `reach`: the workspaces it reads."""
    path = ctx.settings.search.knowledge_bases
    if path is None:
        return [], []
    env = SourceEnv(timeout=ctx.settings.search.knowledge_timeout, workspaces=EngineWorkspaces(ctx, caller, tenant))
    here = ctx.store.workspace.name
    sources: list[KnowledgeSource] = []
    notes: list[str] = []
    for spec in load_knowledge_bases(path):
        if tenant:
            if here not in spec.granted_to:
                continue  # not this tenant's: not named to it either
            if _resolves_here(spec, ctx):
                target = spec.named_workspace()
                if target is None or not _WORKSPACE.fullmatch(target) or reach is None or target not in reach:
                    notes.append(
                        f"knowledge base {spec.name!r} is another workspace of this database, which this key "
                        "does not read: left out"
                    )
                    continue
                spec = WorkspaceSpec(
                    name=spec.name,
                    kind="workspace",
                    description=spec.description,
                    granted_to=spec.granted_to,
                    workspace=target,
                    mode=getattr(spec, "mode", "hybrid"),
                )
        sources.append(open_source(spec, env))
    return sources, notes


def _resolves_here(spec: KnowledgeBaseSpec, ctx: SearchContext) -> bool:
    """Whether the entry is this database: a `workspace` entry, or a remote whose URL this install's server
    answers (its serving proof), whatever its kind."""
    if spec.kind == "workspace":
        return True
    if not isinstance(spec, RemoteSpec):
        return False
    secret = existing_secret(ctx.settings.home)
    if secret is None:  # no server of this home ever ran: nothing here answers a URL
        return False
    timeout = min(2.0, ctx.settings.search.knowledge_timeout)
    return any(proves(url, secret, timeout) for url in dict.fromkeys([origin(spec.url), spec.url.rstrip("/")]))


CHECK_QUESTION = "What does this knowledge base hold?"


def check_sources(ctx: SearchContext) -> list[KnowledgeBaseCheck]:
    """Each configured knowledge base asked one short question, in turn: whether it answers, in what time."""
    sources, _ = open_sources(ctx)
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
