"""DRIFT search (Microsoft GraphRAG's `drift_search`): community reports prime the question, their leads become
follow-up questions, each follow-up is answered by a local search, and the passages they found are merged.

With an LLM, the published algorithm with every call bounded: a hypothetical answer (HyDE) chooses the
reports; the LLM reads them in folds for an intermediate answer and follow-up questions; `DEPTH` rounds
answer the best `FOLLOW_UPS` open questions with local search, each answer scored by how well it addresses the
user's question (that score ranks the follow-ups and their passages, and the next round takes the best open
questions); one reduce writes the answer. At most 1 + FOLDS + DEPTH x FOLLOW_UPS + 1 = 10 LLM calls.

Offline it is an honest retrieval-only variant, labelled so in its notes: the reports closest to the question
(global search's selection), their findings as the follow-ups, a local search per follow-up, and the passages
fused by reciprocal rank with the question's own local search weighing as much as all follow-ups together
(the follow-ups re-rank and extend what the question finds; they do not replace it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphwright.errors import JSONRepairError, LLMError
from graphwright.llm import LLM
from graphwright.llm.json_repair import parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import CommunityRef, RetrievedChunk
from graphwright.search.answer import cited_ids, graph_citations
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.global_search import GlobalSearch, report_text
from graphwright.text.tokens import count_tokens

REPORTS = 3  # reports that prime the question (offline: their findings are the follow-ups)
FINDINGS_PER_REPORT = 2
FOLDS = 2  # LLM: the primer reads 2 x REPORTS reports in this many folds
FOLLOW_UPS = 3  # LLM: follow-ups answered per round
DEPTH = 2  # LLM: rounds of follow-ups
FOLLOW_UP_K = 3  # passages each follow-up's local search brings
# Passages of the question's own local search: at least this many, so the first k of the fused ranking do not
# depend on k
ROOT_CANDIDATES = 10
RRF_K = 60
_QUERY_CHARS = 300
_PASSAGE_CHARS = 700
OFFLINE = "drift offline: retrieval only (reports' findings as follow-ups, a local search each, fused by rank)"


def _step_schema(name: str, answer_key: str) -> dict[str, object]:
    """A step's reply where the endpoint has structured output (the prompt asks for the same)."""
    properties: dict[str, object] = {answer_key: {"type": "string"}, "score": {"type": "number"}}
    properties["follow_up_queries"] = {"type": "array", "items": {"type": "string"}}
    return {"name": name, "schema": {"type": "object", "properties": properties, "required": list(properties)}}


PRIMER_SCHEMA = _step_schema("drift_primer", "intermediate_answer")
LOCAL_SCHEMA = _step_schema("drift_local", "response")


@dataclass
class Step:
    """One intermediate answer: from the reports (primer) or from a follow-up's local search."""

    query: str
    answer: str
    score: float
    follow_ups: list[str] = field(default_factory=list)
    chunks: list[RetrievedChunk] = field(default_factory=list)


class DriftMode(SearchMode):
    name = "drift"
    summary = "community reports prime the question, their leads become follow-ups, each answered by local search"
    uses_graph = True
    ranks_passages = True

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        if ctx.llm is None:
            return self._offline(query, ctx)
        return self._with_llm(query, ctx, ctx.llm)

    # --- offline --------------------------------------------------------------------------------------
    def _offline(self, query: SearchQuery, ctx: SearchContext, notes: list[str] | None = None) -> Retrieval:
        notes = [*(notes or []), OFFLINE]
        reports, why = GlobalSearch(ctx.store, ctx.settings).select(query.question, query.vector(), None, REPORTS)
        follow_ups = list(
            dict.fromkeys(_clip(f) for r in reports for f in r.findings[:FINDINGS_PER_REPORT] if f.strip())
        )
        if not follow_ups:
            notes += why if not reports else ["the reports have no findings to follow"]
        root = self._local(query.question, max(query.k, ROOT_CANDIDATES), ctx, query)
        answers = [self._local(f, FOLLOW_UP_K, ctx, query) for f in follow_ups]
        weight = 1.0 / len(answers) if answers else 0.0
        chunks = _fuse([(1.0, root), *((weight, a) for a in answers)], query.k)
        notes.append(f"{len(reports)} reports, {len(follow_ups)} follow-ups: " + "; ".join(f[:80] for f in follow_ups))
        return Retrieval(chunks=chunks, communities=reports, notes=notes)

    @staticmethod
    def _local(question: str, k: int, ctx: SearchContext, parent: SearchQuery) -> list[RetrievedChunk]:
        asked = SearchQuery(question=question, mode="local", k=k, filters=parent.filters)
        if question == parent.question:
            asked = asked.model_copy(update={"embedding": parent.embedding, "carried": parent.carried})
        return ctx.run("local", asked, False).chunks[:k]

    # --- with an LLM ----------------------------------------------------------------------------------
    def _with_llm(self, query: SearchQuery, ctx: SearchContext, llm: LLM) -> Retrieval:
        notes: list[str] = []
        embedding = _hyde(query, ctx, llm, notes)
        reports, _ = GlobalSearch(ctx.store, ctx.settings).select(query.question, embedding, None, REPORTS * FOLDS)
        steps = [s for fold in _folds(reports, FOLDS) if (s := _primer(query.question, fold, llm, notes))]
        if not steps:  # no report, or every primer call failed: the offline variant, said so
            return self._offline(query, ctx, [*notes, "drift: no intermediate answer from the reports"])
        open_queries = [(s.score, q) for s in steps for q in s.follow_ups]
        answered: list[Step] = []
        asked: set[str] = set()
        for _ in range(DEPTH):
            # the question itself is the first follow-up, so its own passages are always read
            batch = [] if asked else [query.question]
            batch += [q for _, q in sorted(open_queries, key=lambda t: -t[0]) if q not in asked]
            batch = list(dict.fromkeys(batch))[:FOLLOW_UPS]
            if not batch:
                break
            asked.update(batch)
            for follow_up in batch:
                chunks = self._local(follow_up, FOLLOW_UP_K, ctx, query)
                step = _answer_follow_up(query.question, follow_up, chunks, llm, notes)
                answered.append(step)
                open_queries += [(step.score, q) for q in step.follow_ups]
        ranked = sorted(answered, key=lambda s: -s.score)  # the follow-ups by how well they answer the question
        chunks = _fuse([(1.0 / (i + 1), s.chunks) for i, s in enumerate(ranked)], query.k)
        notes.append(
            f"drift: {len(reports)} reports, {len(steps)} primer answers, {len(answered)} follow-ups: "
            + "; ".join(f"({s.score:.0f}) {s.query[:60]}" for s in ranked)
        )
        found = Retrieval(chunks=chunks, communities=reports, notes=notes)
        text = _reduce(query.question, [*steps, *ranked], llm, notes)
        if text is not None:
            found.answer = Answer(text=text, kind="generated", citations=graph_citations(found, cited_ids(text)))
        return found


def _clip(text: str) -> str:
    return " ".join(text.split())[:_QUERY_CHARS]


def _fuse(lists: list[tuple[float, list[RetrievedChunk]]], k: int) -> list[RetrievedChunk]:
    """Passages of weighted rankings by reciprocal rank, each once."""
    score: dict[str, float] = {}
    first: dict[str, RetrievedChunk] = {}
    for weight, chunks in lists:
        for rank, chunk in enumerate(chunks, start=1):
            score[chunk.chunk_id] = score.get(chunk.chunk_id, 0.0) + weight / (RRF_K + rank)
            first.setdefault(chunk.chunk_id, chunk)
    best = sorted(score, key=lambda cid: -score[cid])[:k]
    return [
        first[cid].model_copy(
            update={
                "rank": rank,
                "score": round(score[cid] * (RRF_K + 1), 4),
                "scores": {**first[cid].scores, "drift": score[cid]},
            }
        )
        for rank, cid in enumerate(best, start=1)
    ]


def _folds(reports: list[CommunityRef], folds: int) -> list[list[CommunityRef]]:
    size = max(1, -(-len(reports) // folds))
    return [reports[i : i + size] for i in range(0, len(reports), size)]


def _hyde(query: SearchQuery, ctx: SearchContext, llm: LLM, notes: list[str]) -> list[float]:
    """The question's vector averaged with a hypothetical answer's, as the published primer does."""
    messages = [{"role": "system", "content": render("hyde")}, {"role": "user", "content": query.question}]
    try:
        imagined = ctx.embedder.embed([llm.chat(messages, task="hyde").text])[0]
    except LLMError as exc:
        notes.append(f"drift: the hypothetical answer failed ({exc}); reports chosen by the question alone")
        return query.vector()
    mixed = [a + b for a, b in zip(query.vector(), imagined, strict=False)]
    norm = sum(x * x for x in mixed) ** 0.5 or 1.0
    return [x / norm for x in mixed]


def _ask_step(llm: LLM, system: str, user: str, task: str, answer_key: str) -> tuple[str, float, list[str]]:
    """(answer, score 0-100, follow-up questions) of one step; LLMError or JSONRepairError when unusable."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    schema = PRIMER_SCHEMA if task == "drift_primer" else LOCAL_SCHEMA
    data = parse_json_object(llm.chat(messages, task=task, schema=schema).text)
    try:
        score = min(max(float(data.get("score", 0)), 0.0), 100.0)
    except (TypeError, ValueError):
        score = 0.0
    raw = data.get("follow_up_queries")
    queries = [_clip(str(q)) for q in (raw if isinstance(raw, list) else []) if str(q).strip()][:FOLLOW_UPS]
    return str(data.get(answer_key) or "").strip(), score, queries


def _primer(question: str, fold: list[CommunityRef], llm: LLM, notes: list[str]) -> Step | None:
    reports = "\n\n".join(report_text(r) for r in fold)
    try:
        answer, score, queries = _ask_step(
            llm,
            render("drift_primer"),
            f"Reports:\n\n{reports}\n\nQuestion: {question}",
            "drift_primer",
            "intermediate_answer",
        )
    except (LLMError, JSONRepairError) as exc:
        notes.append(f"drift primer over {len(fold)} reports failed: {exc}")
        return None
    return Step(query=question, answer=answer, score=score, follow_ups=queries)


def _answer_follow_up(question: str, follow_up: str, chunks: list[RetrievedChunk], llm: LLM, notes: list[str]) -> Step:
    passages = "\n\n".join(f"[{c.chunk_id}] ({c.cited_as}) {c.text[:_PASSAGE_CHARS]}" for c in chunks)
    user = f"Passages:\n\n{passages}\n\nUser's question: {question}\nFollow-up: {follow_up}"
    try:
        answer, score, queries = _ask_step(llm, render("drift_local"), user, "drift_local", "response")
    except (LLMError, JSONRepairError) as exc:  # its passages still count, ranked last
        notes.append(f"drift follow-up {follow_up[:60]!r} failed: {exc}")
        return Step(query=follow_up, answer="", score=0.0, chunks=chunks)
    return Step(query=follow_up, answer=answer, score=score, follow_ups=queries, chunks=chunks)


def _reduce(question: str, steps: list[Step], llm: LLM, notes: list[str]) -> str | None:
    lines: list[str] = []
    used = 0
    for step in sorted((s for s in steps if s.answer), key=lambda s: -s.score):
        line = f"- ({step.score:.0f}) {step.query}: {step.answer}"
        cost = count_tokens(line)
        if lines and used + cost > 3000:
            break
        lines.append(line)
        used += cost
    if not lines:
        return None
    messages = [
        {"role": "system", "content": render("drift_reduce")},
        {"role": "user", "content": "Intermediate answers:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"},
    ]
    try:
        return llm.chat(messages, use_cache=False, task="drift_reduce").text
    except LLMError as exc:  # the engine answers from the passages instead
        notes.append(f"drift reduce failed: {exc}")
        return None
