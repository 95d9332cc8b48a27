"""RAPTOR's collapsed-tree search: the question is matched against the passages and the summaries of every level of
the tree at once (`graphwright raptor build` makes it), the closest first. A summary found brings its own leaf
passages closest to the question, at its place in the ranking, so every answer cites passages; the summaries go
to the answer's context beside them, labelled with how each was written (extractive or llm). Without a tree it
is `vector`."""

from __future__ import annotations

from graphwright.embeddings import similarity
from graphwright.graph_store.rows import ScoredChunkRow, SummaryRow
from graphwright.models import ContextSection, RetrievedChunk
from graphwright.search.answer import AnswerPrompt, passages_prompt
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Retrieval
from graphwright.search.results import chunk_from_row
from graphwright.search.vector import cosine
from graphwright.text.tokens import count_tokens

# Passages each summary found brings in. Passages and summaries are each looked up this many at least,
# so the first k of a ranking do not depend on k.
LEAVES_PER_SUMMARY = 2
CANDIDATES = 20
CONTEXT_TOKENS = 1500  # the summaries' share of an answer's context
NO_TREE = "no summary tree in this workspace (`graphwright raptor build` makes one): ranked as `vector`"


class RaptorMode(SearchMode):
    name = "raptor"
    summary = "passages and the summaries of a RAPTOR tree over them, closest first (`raptor build` makes it)"
    ranks_passages = True
    filterable = True  # `--where` and the documents a question names keep a summary's passages too
    # not offered to the agent yet: without a tree it is `vector_search` again, one more tool for a small model

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        embedding = query.embedding if query.embedding is not None else ctx.embed(query.text)
        wide = max(query.k, CANDIDATES)
        rows = ctx.store.retrieval.vector_search(embedding, wide, query.filters or None)
        found = ctx.store.summaries.search(embedding, wide)
        if not found:
            plain = [self._chunk(r, cosine(float(r["score"])), ctx, rank) for rank, r in enumerate(rows[: query.k])]
            return Retrieval(chunks=plain, notes=[NO_TREE])
        leaves = ctx.store.summaries.leaves([s["id"] for s in found], embedding, LEAVES_PER_SUMMARY, query.filters)
        # one ranking of passages and summaries by their cosine to the question: the collapsed tree
        order = [(cosine(float(r["score"])), 0, i) for i, r in enumerate(rows)]
        order += [(cosine(float(s["score"])), 1, i) for i, s in enumerate(found)]
        order.sort(key=lambda item: -item[0])
        chunks: list[RetrievedChunk] = []
        seen: set[str] = set()
        used: list[SummaryRow] = []
        for score, kind, index in order:
            if kind == 0:
                candidates = [(rows[index], score)]
            else:  # a summary of none of the documents the filters keep brings nothing, and is not shown
                candidates = [(leaf, float(leaf["score"])) for leaf in leaves.get(found[index]["id"], [])]
                if candidates:
                    used.append(found[index])
            for row, cos in candidates:
                if row["chunk_id"] not in seen:
                    seen.add(row["chunk_id"])
                    chunks.append(self._chunk(row, cos, ctx, len(chunks)))
        return Retrieval(chunks=chunks[: query.k], context=[self._section(used)])

    @staticmethod
    def _chunk(row: ScoredChunkRow, cos: float, ctx: SearchContext, rank: int) -> RetrievedChunk:
        score = similarity(ctx.embedder, cos)
        return chunk_from_row(row, score, rank + 1, {"raptor": score})

    @staticmethod
    def _section(summaries: list[SummaryRow]) -> ContextSection:
        lines: list[str] = []
        ids: list[str] = []
        tokens = 0
        for s in summaries:
            line = f"[{s['id']}] (summary, level {s['level']}, {s['method']}) {s['title']}: {s['text']}"
            n = count_tokens(line)
            if lines and tokens + n > CONTEXT_TOKENS:
                break
            lines.append(line)
            ids.append(s["id"])
            tokens += n
        return ContextSection(name="summaries", text="\n".join(lines), ids=ids, tokens=tokens)

    def answer_prompt(self, query: SearchQuery, found: Retrieval) -> AnswerPrompt | None:
        summaries = "\n".join(s.text for s in found.context if s.name == "summaries" and s.text)
        preface = f"Summaries of groups of related passages (cite the passages, not these):\n{summaries}"
        return passages_prompt(query.question, found.chunks, preface if summaries else "")
