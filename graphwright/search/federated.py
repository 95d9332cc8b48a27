"""Federated search: this workspace and every knowledge base of the knowledge-base file at once, fused by rank.

Each source ranks by its own measure, and those measures are not comparable (a Dify score, our fused score), so
passages are fused by reciprocal rank (Cormack et al., 2009; k = 60, the published constant): every source's
first passage comes before any source's second, so each source is heard, and within a rank the passage closest
to the question (one embedder for all sources) leads. Each passage names its source (`knowledge_base`, its citation's
label). Sources are asked in parallel; one that fails or does not answer within `knowledge_timeout` is named
in the notes and left out, never fatal, and the search does not wait for it."""

from __future__ import annotations

import concurrent.futures as futures
import hashlib
from collections.abc import Sequence
from typing import Any

from graphwright.errors import GraphwrightError
from graphwright.knowledge import KnowledgeSource, SourcePassage
from graphwright.models import RetrievedChunk
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Retrieval
from graphwright.search.knowledge_sources import open_sources, passage_chunk, relevances
from graphwright.search.relevance import no_answer_floor, verdict

RRF_K = 60
LOCAL = "this workspace"
# Passages asked of each source: at least this many, so the first k of the fused ranking do not depend on k
CANDIDATES = 10
LOCAL_MODE = "hybrid"  # this workspace's side: the default mode, the one a knowledge base's `mode` defaults to
NO_SOURCES = "no knowledge bases configured (GRAPHWRIGHT_KNOWLEDGE_BASES names a file): this workspace only"


class FederatedMode(SearchMode):
    name = "federated"
    summary = (
        "this workspace and every configured knowledge base at once, fused by rank, each passage naming its source"
    )
    filterable = False  # other sources know nothing of this workspace's metadata

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        sources, notes = open_sources(ctx, tenant=query.tenant, reach=query.reach, caller=query.caller)
        if not sources:
            notes.append(NO_SOURCES)
        wide = max(query.k, CANDIDATES)
        local = SearchQuery(question=query.question, mode=LOCAL_MODE, k=wide, history=query.history)
        pool = futures.ThreadPoolExecutor(max_workers=1 + len(sources), thread_name_prefix="federated")
        try:
            asked: dict[futures.Future[Any], str] = {pool.submit(ctx.run, LOCAL_MODE, local, False): LOCAL}
            asked |= {pool.submit(_search, source, query.question, wide): source.name for source in sources}
            done, late = futures.wait(asked, timeout=ctx.settings.search.knowledge_timeout + 1.0)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # a source still working is not waited for
        rankings: dict[str, Sequence[RetrievedChunk | SourcePassage]] = {}
        for future, name in asked.items():
            if future in late:
                notes.append(f"{name}: no answer within {ctx.settings.search.knowledge_timeout:g} s; left out")
                continue
            try:
                found = future.result()
            except GraphwrightError as exc:
                if name == LOCAL:
                    raise  # this workspace's own failure (Neo4j down) is the search's, as in every mode
                notes.append(f"{name}: {exc}; left out")
                continue
            rankings[name] = found.chunks if isinstance(found, Retrieval) else found
        chunks = fuse(rankings, query.k, ctx, query.vector())
        counts = ", ".join(f"{name} {len(ranked)}" for name, ranked in rankings.items())
        notes.append(f"passages found: {counts}; fused by reciprocal rank")
        # the "no answer" verdict every passage mode gives, over the sources together
        best, nothing = verdict(chunks, no_answer_floor(ctx.settings.search.no_answer_below, ctx.embedder))
        return Retrieval(chunks=chunks, notes=notes, relevance=best, no_answer=nothing)


def _search(source: KnowledgeSource, question: str, k: int) -> list[SourcePassage]:
    return source.search(question, k)


def fuse(
    rankings: dict[str, Sequence[RetrievedChunk | SourcePassage]], k: int, ctx: SearchContext, embedding: list[float]
) -> list[RetrievedChunk]:
    """The first `k` passages by reciprocal rank; passages of one rank (each source's first, then each one's
    second...) are ordered by their similarity to the question, measured here with one embedder for all. A
    text two sources hold (a mirror, a server named twice) is kept once, at its better rank: agreement between
    copies of the same text is not evidence."""
    fused: dict[str, float] = {}
    first: dict[str, RetrievedChunk | SourcePassage] = {}
    for ranked in rankings.values():
        for rank, item in enumerate(ranked, start=1):
            key = hashlib.sha256(" ".join(item.text.split()).encode()).hexdigest()
            fused[key] = max(fused.get(key, 0.0), 1.0 / (RRF_K + rank))
            first.setdefault(key, item)
    keys = list(fused)
    relevance = dict(zip(keys, relevances(ctx, [first[key].text for key in keys], embedding), strict=True))
    best = sorted(keys, key=lambda key: (-fused[key], -relevance[key]))[:k]
    chunks: list[RetrievedChunk] = []
    for rank, key in enumerate(best, start=1):
        item = first[key]
        score = round(fused[key] * (RRF_K + 1), 4)  # 1.0: first in its source; 0.5: about the 62nd
        if isinstance(item, SourcePassage):
            chunks.append(passage_chunk(item, rank, score, relevance[key]))
        else:
            update = {
                "rank": rank,
                "score": score,
                "scores": {**item.scores, "federated": score},
                "relevance": relevance[key],  # this workspace's passages on the same scale as the others'
            }
            chunks.append(item.model_copy(update=update))
    return chunks
