"""Build and keep the community layer current: detect, keep what did not change, write the rest.

Detection pins every community whose members' relations did not change (see `leiden`), so an ingest
rewrites only the communities it touches and their ancestors. A community's id is its level and member set:
a kept id keeps its report with no LLM call. A new member set keeps its predecessor's LLM report when the
overlap is high (`report_plan`), else it gets a new report, from the LLM within the run's budget."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphwright.algorithms import graph_algorithms
from graphwright.communities.leiden import DetectedCommunity, PreviousCommunity, detect, member_hash, modularity
from graphwright.communities.report_plan import ReportPlan, plan_reports, priority, reused_report
from graphwright.communities.reports import (
    Report,
    extractive_report,
    findings_json,
    llm_report_prompt,
    parse_llm_report,
)
from graphwright.errors import LLMRequiredError
from graphwright.llm.base import RemembersEndpoint
from graphwright.models import community_embedding_text
from graphwright.text.tokens import jaccard

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.embeddings import Embedder
    from graphwright.graph_store.contracts import GraphStore
    from graphwright.graph_store.rows import CommunityCatalogRow, CommunityContextRow
    from graphwright.llm import LLM

log = logging.getLogger(__name__)

_CONTEXT_BATCH = 200
_JUDGED_AFTER = 8  # LLM reports asked before their worth on an endpoint is judged
_TEXT = {"type": "string"}
REPORT_SCHEMA = {  # an LLM report, where the endpoint has structured output (the prompt asks for the same)
    "name": "community_report",
    "schema": {
        "type": "object",
        "properties": {
            "title": _TEXT,
            "summary": _TEXT,
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"summary": _TEXT, "explanation": _TEXT},
                    "required": ["summary", "explanation"],
                },
            },
            "rating": {"type": "number"},
            "rating_explanation": _TEXT,
        },
        "required": ["title", "summary", "findings", "rating"],
    },
}
Progress = Callable[[str, int, int], None]


@dataclass
class CommunityRun:
    kept: int = 0
    rewritten: int = 0  # new member sets replacing an old community at the same level (half the members shared)
    created: int = 0
    removed: int = 0
    reused: int = 0  # new member sets that kept their predecessor's LLM report (stale unless same members)
    llm_calls: int = 0  # report calls made to the LLM
    stale: int = 0  # reports marked stale after the run (all communities)
    isolated_entities: int = 0
    levels: dict[int, int] = field(default_factory=dict)
    llm_failures: int = 0
    llm_unusable: int = 0  # of the failures, replies that held no report (not an endpoint error)
    llm_skipped: int = 0  # reports left extractive, not stale: LLM reports measured not to pay on this endpoint
    modularity: float = 0.0  # of level 0
    full: bool = False
    detect_seconds: float = 0.0
    engine: str = "client"  # where Leiden ran (`algorithms`)
    report_seconds: float = 0.0
    embed_seconds: float = 0.0
    write_seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        """What an ingest reports of the run (`IngestReport.communities`)."""
        names = ("kept", "rewritten", "created", "removed", "reused", "llm_calls", "llm_skipped", "stale")
        return {name: getattr(self, name) for name in names}


@dataclass
class RefreshRun:
    """What a refresh did; a report whose LLM call failed stays extractive and stale."""

    rewritten: int
    llm_failures: int
    stale_left: int
    seconds: float


@dataclass
class _Written:
    report: Report
    stale: bool
    changed: float
    report_members: list[str] | None


class CommunityBuilder:
    def __init__(self, store: GraphStore, embedder: Embedder, settings: Settings, llm: LLM | None = None) -> None:
        self.store, self.embedder, self.settings, self.llm = store, embedder, settings, llm
        self._tally = threading.Lock()  # the run's counters, from the report threads

    def build(
        self,
        max_cluster_size: int = 10,
        seed: int = 42,
        progress: Progress | None = None,
        *,
        full: bool = False,
        budget: int | None = None,
    ) -> CommunityRun:
        """`full` detects from scratch instead of keeping untouched communities; `budget` caps the LLM
        report calls (None: no cap). `progress(stage, done, total)` hears of detect, reports, embed, write."""
        run = CommunityRun(full=full)
        tell = progress or (lambda stage, done, total: None)
        tell("detect", 0, 1)
        detected, existing, created, removed = self._detect(max_cluster_size, seed, full, run)
        tell("detect", 1, 1)
        for c in detected:
            run.levels[c.level] = run.levels.get(c.level, 0) + 1

        started = time.perf_counter()
        written = self._reports(created, removed, existing, budget, run, tell)
        rows = [self._row(c, written[c.id]) for c in created]
        run.report_seconds = time.perf_counter() - started
        stale_kept = sum(1 for c in detected if c.id in existing and existing[c.id]["stale"])
        run.stale = stale_kept + sum(1 for w in written.values() if w.stale)
        hashes = [
            {"id": c.id, "graph_hash": c.graph_hash}
            for c in detected
            if c.id in existing and existing[c.id]["graph_hash"] != c.graph_hash
        ]
        self._write([row["id"] for row in removed], rows, created, detected, hashes, run, tell)
        log.info(
            "communities: %d kept, %d rewritten, %d created, %d removed, %d reports reused, %d LLM calls",
            run.kept,
            run.rewritten,
            run.created,
            run.removed,
            run.reused,
            run.llm_calls,
        )
        return run

    def _detect(
        self, max_cluster_size: int, seed: int, full: bool, run: CommunityRun
    ) -> tuple[
        list[DetectedCommunity], dict[str, CommunityCatalogRow], list[DetectedCommunity], list[CommunityCatalogRow]
    ]:
        """Leiden over the entity graph, against the communities stored: (detected, existing by id, created,
        removed); reads only, and fills the run's counts."""
        started = time.perf_counter()
        edges = self.store.communities.entity_edges()
        existing = {row["id"]: row for row in self.store.communities.community_catalog()}
        previous = (
            []
            if full
            else [
                PreviousCommunity(r["id"], r["level"], tuple(r["members"] or []), r["parent"], r["graph_hash"])
                for r in existing.values()
            ]
        )
        engine = graph_algorithms(self.settings, self.store)
        detected = detect(edges, max_cluster_size, seed, previous, engine)
        run.engine = engine.name
        connected = {n for a, b, _ in edges for n in (a, b)}
        run.isolated_entities = len(set(self.store.communities.entity_ids()) - connected)
        run.modularity = modularity(edges, {m: c.id for c in detected if c.level == 0 for m in c.members})
        run.detect_seconds = time.perf_counter() - started

        new_ids = {c.id for c in detected}
        created = [c for c in detected if c.id not in existing]
        removed = [existing[cid] for cid in existing if cid not in new_ids]
        run.kept, run.removed = len(detected) - len(created), len(removed)
        old_by_level: dict[int, list[set[str]]] = {}
        for row in removed:
            old_by_level.setdefault(row["level"], []).append(set(row["members"] or []))
        run.rewritten = sum(
            1 for c in created if any(jaccard(set(c.members), old) >= 0.5 for old in old_by_level.get(c.level, []))
        )
        run.created = len(created) - run.rewritten
        return detected, existing, created, removed

    def report_prompts(
        self, max_cluster_size: int = 10, seed: int = 42, *, full: bool = False, budget: int | None = None
    ) -> list[list[dict[str, str]]]:
        """What a build would ask the LLM, for a dry run: detection and the report plan exactly as `build`
        makes them, and each LLM report's prompt (a parent's children read as their extractive reports, the
        LLM's being unwritten yet). Nothing is written."""
        run = CommunityRun(full=full)
        _, _, created, removed = self._detect(max_cluster_size, seed, full, run)
        context, fresh, plans = self._plan(created, removed, budget, llm=True)
        summaries = {cid: {"title": r.title, "summary": r.summary} for cid, r in fresh.items()}
        prompts = []
        for p in (p for p in plans if p.action == "llm"):
            c, ctx = p.community, context.get(p.community.id)
            children = [summaries[x] for x in c.children if x in summaries] if len(c.members) > 30 else []
            members = ctx["members"] if ctx else []
            relations = ctx["relations"] if ctx else []
            prompts.append([{"role": "user", "content": llm_report_prompt(members, relations, children)}])
        return prompts

    def refresh(
        self, budget: int | None = None, level: int | None = None, progress: Progress | None = None
    ) -> RefreshRun:
        """Rewrite stale reports with the LLM, the most important first, at most `budget` of them."""
        if self.llm is None:
            raise LLMRequiredError(
                "refreshing reports needs an LLM: set GRAPHWRIGHT_OPENAI_BASE_URL (or "
                "OPENAI_API_KEY); offline reports are extractive and never stale"
            )
        started = time.perf_counter()
        tell = progress or (lambda stage, done, total: None)
        existing = {row["id"]: row for row in self.store.communities.community_catalog()}
        stale = [r for r in existing.values() if r["stale"] and (level is None or r["level"] == level)]
        largest = max((len(r["members"] or []) for r in stale), default=1)

        def importance(r: CommunityCatalogRow) -> float:
            basis = set(r["report_members"] or [])
            changed = 1 - jaccard(set(r["members"] or []), basis) if basis else 1.0
            return priority(float(r["rating"]), len(r["members"] or []), largest, changed)

        chosen = sorted(stale, key=lambda r: (-importance(r), r["id"]))[:budget]
        children: dict[str, list[str]] = {}
        for cid, row in existing.items():
            if row["parent"]:
                children.setdefault(row["parent"], []).append(cid)
        communities = [
            DetectedCommunity(
                id=r["id"],
                level=r["level"],
                members=list(r["members"] or []),
                member_hash=member_hash(r["members"] or []),
                graph_hash=r["graph_hash"] or "",
                children=children.get(r["id"], []),
            )
            for r in chosen
        ]
        run = CommunityRun()
        plans = [ReportPlan(c, "llm", None, list(c.members), 1.0) for c in communities]
        written = self._generate(plans, existing, run, tell, judge=False)  # asked for: asked of the LLM
        rows = [self._row(c, written[c.id]) for c in communities]
        self._write([], rows, [], [], [], run, tell)
        left = len(stale) - sum(1 for w in written.values() if not w.stale)
        return RefreshRun(
            rewritten=len(rows) - run.llm_failures,
            llm_failures=run.llm_failures,
            stale_left=left,
            seconds=time.perf_counter() - started,
        )

    @staticmethod
    def _row(c: DetectedCommunity, w: _Written) -> dict[str, Any]:
        r = w.report
        return {
            "id": c.id,
            "level": c.level,
            "size": len(c.members),
            "member_hash": c.member_hash,
            "members": c.members,
            "graph_hash": c.graph_hash,
            "title": r.title,
            "summary": r.summary,
            "findings": findings_json(r),
            "rating": r.rating,
            "rating_explanation": r.rating_explanation,
            "report_kind": r.kind,
            "cited_chunks": r.cited_chunks,
            "stale": w.stale,
            "changed": round(w.changed, 4),
            "report_members": w.report_members,
        }

    def _write(
        self,
        removed: list[str],
        rows: list[dict[str, Any]],
        created: Sequence[DetectedCommunity],
        detected: Sequence[DetectedCommunity],
        hashes: list[dict[str, str]],
        run: CommunityRun,
        tell: Progress,
    ) -> None:
        started = time.perf_counter()
        tell("embed", 0, 1)
        vectors = (
            self.embedder.embed([community_embedding_text(r["title"], r["summary"]) for r in rows]) if rows else []
        )
        run.embed_seconds = time.perf_counter() - started
        tell("embed", 1, 1)
        tell("write", 0, 1)
        started = time.perf_counter()
        new = {c.id for c in created}
        self.store.communities.write_communities(
            removed,
            rows,
            [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors)],
            [{"entity": m, "community": c.id} for c in created for m in c.members],
            [{"parent": c.parent, "child": c.id} for c in detected if c.parent and (c.id in new or c.parent in new)],
            hashes,
        )
        run.write_seconds = time.perf_counter() - started
        tell("write", 1, 1)

    def _reports(
        self,
        created: list[DetectedCommunity],
        removed: list[CommunityCatalogRow],
        existing: Mapping[str, CommunityCatalogRow],
        budget: int | None,
        run: CommunityRun,
        tell: Progress,
    ) -> dict[str, _Written]:
        context, fresh, plans = self._plan(created, removed, budget, llm=self.llm is not None)
        run.reused = sum(1 for p in plans if p.action == "reuse")
        written: dict[str, _Written] = {}
        for p in plans:
            if p.action == "reuse" and p.previous is not None:
                written[p.community.id] = _Written(
                    reused_report(p.previous, fresh[p.community.id]), p.stale, p.changed, p.basis
                )
            elif p.action == "extractive":
                # offline, extractive is the report's final form; with an LLM it waits for a refresh
                written[p.community.id] = _Written(
                    fresh[p.community.id],
                    p.stale,
                    p.changed if p.stale else 0.0,
                    None if p.stale else list(p.community.members),
                )
        written.update(self._generate([p for p in plans if p.action == "llm"], existing, run, tell, context, written))
        return written

    def _plan(
        self, created: list[DetectedCommunity], removed: list[CommunityCatalogRow], budget: int | None, llm: bool
    ) -> tuple[dict[str, CommunityContextRow], dict[str, Report], list[ReportPlan]]:
        """The new communities' context, their extractive reports, and what each report will be."""
        context = self._context(created)
        fresh = {c.id: self._extractive(c, context) for c in created}
        plans = plan_reports(
            created,
            removed,
            {cid: r.rating for cid, r in fresh.items()},
            llm=llm,
            budget=budget,
            threshold=self.settings.report_reuse_overlap,
        )
        return context, fresh, plans

    def _context(self, communities: Sequence[DetectedCommunity]) -> dict[str, CommunityContextRow]:
        context: dict[str, CommunityContextRow] = {}
        for start in range(0, len(communities), _CONTEXT_BATCH):
            part = communities[start : start + _CONTEXT_BATCH]
            context.update(self.store.communities.community_context([{"id": c.id, "members": c.members} for c in part]))
        return context

    def _generate(
        self,
        plans: Sequence[ReportPlan],
        existing: Mapping[str, CommunityCatalogRow],
        run: CommunityRun,
        tell: Progress,
        context: Mapping[str, CommunityContextRow] | None = None,
        done: Mapping[str, _Written] | None = None,
        *,
        judge: bool = True,
    ) -> dict[str, _Written]:
        """LLM reports, deepest level first: a parent's report can then read its children's."""
        llm = self.llm
        if not plans or llm is None:
            return {}
        context = context if context is not None else self._context([p.community for p in plans])
        summaries = {
            cid: {"title": row["title"] or "", "summary": row["summary"] or ""} for cid, row in existing.items()
        }
        summaries.update(
            {cid: {"title": w.report.title, "summary": w.report.summary} for cid, w in (done or {}).items()}
        )
        written: dict[str, _Written] = {}
        for level in sorted({p.community.level for p in plans}, reverse=True):
            batch = [p.community for p in plans if p.community.level == level]
            with ThreadPoolExecutor(max_workers=self.settings.llm.concurrency) as pool:
                made = list(pool.map(lambda c: self._llm(llm, c, context, summaries, run, judge), batch))
            for c, (report, failed) in zip(batch, made):
                written[c.id] = _Written(report, failed, 1.0 if failed else 0.0, None if failed else c.members)
                summaries[c.id] = {"title": report.title, "summary": report.summary}
            tell("reports", len(written), len(plans))
        return written

    @staticmethod
    def _extractive(c: DetectedCommunity, context: Mapping[str, CommunityContextRow]) -> Report:
        ctx = context.get(c.id)
        return extractive_report(len(c.members), ctx["members"] if ctx else [], ctx["relations"] if ctx else [])

    def _llm(
        self,
        llm: LLM,
        c: DetectedCommunity,
        context: Mapping[str, CommunityContextRow],
        summaries: dict[str, dict[str, str]],
        run: CommunityRun,
        judge: bool = True,
    ) -> tuple[Report, bool]:
        """The community's LLM report, or its extractive one and whether it stays stale (to be asked again):
        not where this endpoint's reports were measured not to pay."""
        from graphwright.llm import LLMError
        from graphwright.llm.json_repair import JSONRepairError, parse_json_object

        if judge and not self._reports_pay(llm, run):
            with self._tally:
                run.llm_skipped += 1
            return self._extractive(c, context), False
        ctx = context.get(c.id)
        members: Sequence[Mapping[str, Any]] = ctx["members"] if ctx else []
        relations: Sequence[Mapping[str, Any]] = ctx["relations"] if ctx else []
        # a large parent is described from its children's reports rather than raw members
        children = [summaries[child] for child in c.children if child in summaries] if len(c.members) > 30 else []
        prompt = llm_report_prompt(members, relations, children)
        messages = [{"role": "user", "content": prompt}]
        with self._tally:
            run.llm_calls += 1
        try:
            reply = llm.chat(messages, task="community_report", schema=REPORT_SCHEMA).text
            return parse_llm_report(parse_json_object(reply), relations), False
        except (LLMError, JSONRepairError) as exc:  # (an LLMBudgetError is not one: the build stops, unwritten)
            llm.forget(messages)  # ask again next time instead of replaying an unusable answer
            with self._tally:
                run.llm_failures += 1
                run.llm_unusable += isinstance(exc, JSONRepairError)
            return self._extractive(c, context), True

    def _reports_pay(self, llm: LLM, run: CommunityRun) -> bool:
        """Whether to ask the LLM for reports: not on an endpoint where most of the first ones held no report
        (a small model copying the format's "..."); judged after _JUDGED_AFTER calls, remembered."""
        if not isinstance(llm, RemembersEndpoint):
            return True
        if llm.recall("reports") is False:
            return False
        with self._tally:
            judged = run.llm_calls >= _JUDGED_AFTER and run.llm_unusable * 2 > run.llm_calls
            note = f"{run.llm_unusable} of {run.llm_calls} LLM community reports held no report"
        if judged:
            log.info("community reports: extractive from now on for this endpoint: %s", note)
            llm.remember(reports=False, reports_note=note)
        return not judged
