"""Global search: questions about the whole corpus, answered from community reports.

Reports are taken at a chosen level, or selected by relevance across levels (similarity to the question
and the report's rating; near-duplicates, a community mostly inside one already chosen, are skipped).
With an LLM: map batches of reports in parallel to scored points citing reports, then reduce the best
points within the budget to one answer. Offline: the selected reports themselves are the answer.
Corpus-wide wording ("main themes", "overall") weighs rating and size over similarity, because such a
question is about equally far from every report."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from graphwright.config import Settings
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.rows import CommunityRow
from graphwright.llm import LLM, LLMError
from graphwright.llm.json_repair import JSONRepairError, parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import CommunityRef
from graphwright.search.answer import cited_ids, graph_citations
from graphwright.search.base import GraphMode, SearchContext, SearchQuery, ToolSpec
from graphwright.search.context import Item, pack_sections
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.local import community_ref
from graphwright.search.results import evidence_chunks
from graphwright.text.languages import detect
from graphwright.text.tokens import count_tokens


def is_thematic(question: str) -> bool:
    """Corpus-wide wording ("main themes", "overview", "主要内容") in the question's language."""
    return bool(detect(question).thematic.search(question))


_CANDIDATES = 60
_OVERLAP_SKIP = 0.6
_CHUNKS_PER_REPORT = 2  # share of a community's members already covered by chosen reports
POINTS_SCHEMA = {  # a map step's reply, where the endpoint has structured output (the prompt asks for the same)
    "name": "points",
    "schema": {
        "type": "object",
        "properties": {
            "points": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string"},
                        "score": {"type": "number"},
                        "reports": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["description", "score", "reports"],
                },
            }
        },
        "required": ["points"],
    },
}


@dataclass
class Point:
    description: str
    score: float
    reports: list[str]


@dataclass
class GlobalResult:
    context: Retrieval
    points: list[Point] = field(default_factory=list)
    answer: str | None = None  # the reduced answer, when an LLM wrote one


def report_text(community: CommunityRef) -> str:
    findings = "\n".join(f"  - {f}" for f in community.findings[:5])
    stale = ", stale: its members changed since it was written" if community.stale else ""
    return (
        f"[{community.id}] {community.title} (level {community.level}, rating {community.rating:.1f}{stale})\n"
        f"{community.summary}\n{findings}".rstrip()
    )


def batches(texts: list[tuple[str, str]], max_tokens: int) -> list[list[tuple[str, str]]]:
    """Consecutive groups of (id, text) whose token count stays within `max_tokens` (at least one each)."""
    groups: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    used = 0
    for item in texts:
        cost = count_tokens(item[1])
        if current and used + cost > max_tokens:
            groups.append(current)
            current, used = [], 0
        current.append(item)
        used += cost
    if current:
        groups.append(current)
    return groups


def parse_points(text: str, known: set[str]) -> list[Point]:
    data = parse_json_object(text)
    points = []
    for raw in data.get("points") or []:
        if not isinstance(raw, dict) or not str(raw.get("description") or "").strip():
            continue
        try:
            score = min(max(float(raw.get("score", 0)), 0.0), 100.0)
        except (TypeError, ValueError):
            score = 0.0
        reports = [str(r) for r in raw.get("reports") or [] if str(r) in known]
        if score > 0:
            points.append(Point(str(raw["description"]).strip(), score, reports))
    return points


class GlobalSearch:
    def __init__(self, store: GraphStore, settings: Settings, llm: LLM | None = None) -> None:
        self.store = store
        self.settings = settings
        self.llm = llm

    def select(
        self, question: str, embedding: list[float], level: int | None, limit: int
    ) -> tuple[list[CommunityRef], list[str]]:
        thematic = is_thematic(question)
        if level is not None:
            rows = self.store.communities.communities_at_level(level, embedding)
        else:
            rows = self.store.communities.community_vector_search(embedding, _CANDIDATES, None)
            if thematic:  # level 0, the coarsest, holds the corpus themes; make sure they are candidates
                levels = [r["level"] for r in self.store.communities.community_levels()]
                if levels:
                    rows += self.store.communities.communities_at_level(min(levels), embedding)
        if not rows:
            return [], ["no community reports: run `graphwright communities build` first"]
        largest = max(r.get("size") or 1 for r in rows)
        similarity_weight = 0.3 if thematic else 0.75

        def score(row: CommunityRow) -> float:
            size = math.log1p(row.get("size") or 1) / math.log1p(largest)
            importance = 0.5 * float(row.get("rating") or 0.0) / 10 + 0.5 * size
            return similarity_weight * float(row["score"] or 0.0) + (1 - similarity_weight) * importance

        ranked = sorted({r["id"]: r for r in rows}.values(), key=lambda r: (-score(r), r["id"]))
        chosen: list[CommunityRow] = []
        covered: set[str] = set()
        for row in ranked:
            members = set(row.get("members") or [])
            if level is None and members and len(members & covered) >= _OVERLAP_SKIP * len(members):
                continue
            chosen.append(row)
            covered |= members
            if len(chosen) >= limit:
                break
        notes = [
            f"{'thematic' if thematic else 'specific'} question; "
            f"{'level ' + str(level) if level is not None else 'reports chosen by relevance across levels'}"
        ]
        return [community_ref(r, score(r)) for r in chosen], notes

    def search(self, question: str, embedding: list[float], level: int | None = None) -> GlobalResult:
        level = self.settings.search.global_level if level is None else level
        llm = self.llm
        if llm is None:
            communities, notes = self.select(question, embedding, level, self.settings.search.global_reports)
            return GlobalResult(self.context(communities, notes, []))
        # The LLM reads more reports than a person would: map over the whole selection in batches.
        communities, notes = self.select(question, embedding, level, 4 * self.settings.search.global_reports)
        points = self.map(question, communities, notes, llm)
        answer = self.reduce(question, points, llm) if points else None
        cited = {r for p in points for r in p.reports}
        used = [c for c in communities if c.id in cited] or communities[: self.settings.search.global_reports]
        return GlobalResult(self.context(used, notes, points), points, answer)

    def context(self, communities: list[CommunityRef], notes: list[str], points: list[Point]) -> Retrieval:
        """Reports (and map points) as context sections; the reports' cited chunks as the evidence."""
        ids = list(dict.fromkeys(c for com in communities for c in com.cited_chunks[:_CHUNKS_PER_REPORT]))
        chunks = evidence_chunks(self.store.retrieval.chunks_with_ids(ids), "report_evidence")
        candidates = {"reports": [Item(c.id, report_text(c)) for c in communities]}
        if points:
            candidates = {
                "points": [
                    Item(f"point{i}", f"- ({p.score:.0f}) {p.description} [{', '.join(p.reports)}]")
                    for i, p in enumerate(points)
                ],
                **candidates,
            }
        shares = {"points": 0.5, "reports": 0.5} if points else {"reports": 1.0}
        sections = pack_sections(candidates, shares, self.settings.search.context_tokens)
        stale = [c.id for c in communities if c.stale]
        if stale:
            notes = [
                *notes,
                f"{len(stale)} of {len(communities)} reports used are stale (their communities changed "
                f"since they were written): {', '.join(stale)}; `graphwright communities refresh` "
                "rewrites them",
            ]
        return Retrieval(communities=communities, chunks=chunks, context=sections, notes=notes)

    def map(self, question: str, communities: list[CommunityRef], notes: list[str], llm: LLM) -> list[Point]:
        known = {c.id for c in communities}
        groups = batches([(c.id, report_text(c)) for c in communities], self.settings.search.global_batch_tokens)

        def one(group: list[tuple[str, str]]) -> list[Point]:
            reports = "\n\n".join(text for _, text in group)
            messages = [
                {"role": "system", "content": render("global_map")},
                {"role": "user", "content": f"Reports:\n\n{reports}\n\nQuestion: {question}"},
            ]
            try:
                return parse_points(llm.chat(messages, task="global_map", schema=POINTS_SCHEMA).text, known)
            except (LLMError, JSONRepairError) as exc:
                notes.append(f"map batch of {len(group)} reports failed: {exc}")
                return []

        failed_before = len(notes)
        with ThreadPoolExecutor(max_workers=self.settings.llm.concurrency) as pool:
            results = list(pool.map(one, groups))
        failed = len(notes) - failed_before  # each failed batch left its note; the answer uses the rest
        summary = f"map: {len(groups)} batches, {sum(len(r) for r in results)} points"
        notes.append(summary + (f"; {failed} of {len(groups)} batches failed" if failed else ""))
        return sorted((p for r in results for p in r), key=lambda p: -p.score)

    def reduce(self, question: str, points: list[Point], llm: LLM) -> str:
        lines, used = [], 0
        for point in points:
            line = f"- (importance {point.score:.0f}) {point.description} [{', '.join(point.reports)}]"
            cost = count_tokens(line)
            if used + cost > self.settings.search.context_tokens:
                break
            lines.append(line)
            used += cost
        messages = [
            {"role": "system", "content": render("global_reduce")},
            {"role": "user", "content": "Key points:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"},
        ]
        return llm.chat(messages, use_cache=False, task="global_reduce").text


class GlobalMode(GraphMode):
    name = "global"
    summary = "community reports, for questions about the whole corpus (map-reduce with an LLM)"
    routable = True
    route_when = "themes or summaries of the whole collection"
    tool = ToolSpec("global_search", "Community reports: themes across the whole collection.")

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        found = GlobalSearch(ctx.store, ctx.settings, ctx.llm).search(query.question, query.vector(), query.level)
        # the reports' evidence, best report first, cut to k passages as every mode's is
        found.context.chunks = found.context.chunks[: query.k]
        if found.answer is not None:  # the LLM's map-reduce answer, citing reports
            found.context.answer = Answer(
                text=found.answer, kind="generated", citations=graph_citations(found.context, cited_ids(found.answer))
            )
        return found.context
