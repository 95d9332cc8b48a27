"""Which new or changed community gets which report: kept by overlap, written by the LLM, or extractive.

A community whose members changed only a little keeps its LLM report: at least `report_reuse_overlap`
(default 0.8) Jaccard overlap between its members now and the members the report was written for. At 0.8,
at most one member in five differs, so the central members the title and summary name are, but for rare
cases, still there; below it the report may describe a group that no longer exists. The overlap is taken
against the members *the report was written for*, not the last run's, so small changes cannot add up
unseen: after enough of them the report is rewritten.

LLM calls go to the most important changes first, within a budget; the rest get an extractive report
marked stale, for `graphwright communities refresh`.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from graphwright.communities.leiden import DetectedCommunity
from graphwright.communities.reports import Finding, Report
from graphwright.graph_store.rows import CommunityCatalogRow
from graphwright.text.tokens import jaccard

Action = Literal["extractive", "llm", "reuse"]


@dataclass
class ReportPlan:
    community: DetectedCommunity
    action: Action
    previous: CommunityCatalogRow | None  # the vanished community it replaces, if any
    basis: list[str]  # the members the report will have been written for
    changed: float  # 1 - overlap with the previous report's members (1 for a new community)
    priority: float = 0.0
    stale: bool = False


def report_basis(row: CommunityCatalogRow) -> list[str]:
    """The members a stored report was written for (its members, for a report from before this was kept)."""
    return list(row.get("report_members") or row.get("members") or [])


def priority(rating: float, size: int, largest: int, changed: float) -> float:
    """Rating, size and change, each scaled to [0, 1] and weighed alike (no set of questions to fit them to)."""
    return rating / 10 + math.log1p(size) / math.log1p(max(largest, 1)) + changed


def predecessors(
    created: Sequence[DetectedCommunity], removed: Sequence[CommunityCatalogRow]
) -> dict[str, CommunityCatalogRow]:
    """For each new community, the vanished one whose report members it shares most with (the same level
    first on a tie: a re-split can move an unchanged member set to another level, and its report still fits)."""
    by_member: dict[str, list[CommunityCatalogRow]] = defaultdict(list)
    for row in removed:
        for m in report_basis(row):
            by_member[m].append(row)
    found: dict[str, CommunityCatalogRow] = {}
    for c in created:
        members = set(c.members)
        candidates = {r["id"]: r for m in c.members for r in by_member.get(m, [])}
        scored = [(jaccard(members, set(report_basis(r))), r["level"] == c.level, rid) for rid, r in candidates.items()]
        if scored:
            found[c.id] = candidates[max(scored)[2]]
    return found


def plan_reports(
    created: Sequence[DetectedCommunity],
    removed: Sequence[CommunityCatalogRow],
    ratings: Mapping[str, float],
    *,
    llm: bool,
    budget: int | None,
    threshold: float,
) -> list[ReportPlan]:
    """`ratings` are the extractive reports' ratings, the importance of a community no LLM has rated yet."""
    before = predecessors(created, removed)
    largest = max((len(c.members) for c in created), default=1)
    plans: list[ReportPlan] = []
    for c in created:
        previous = before.get(c.id)
        basis = report_basis(previous) if previous else []
        overlap = jaccard(set(c.members), set(basis)) if previous else 0.0
        if previous and previous.get("report_kind") == "llm" and overlap >= threshold:
            plans.append(ReportPlan(c, "reuse", previous, basis, 1 - overlap, stale=overlap < 1))
            continue
        rating = (
            float(previous["rating"]) if previous and previous.get("report_kind") == "llm" else ratings.get(c.id, 0.0)
        )
        plans.append(
            ReportPlan(
                c,
                "llm" if llm else "extractive",
                previous,
                list(c.members),
                1 - overlap,
                priority(rating, len(c.members), largest, 1 - overlap),
            )
        )
    asked = sorted((p for p in plans if p.action == "llm"), key=lambda p: (-p.priority, p.community.id))
    for p in asked[budget:] if budget is not None else []:
        p.action, p.stale = "extractive", True  # over budget: extractive now, LLM at the next refresh
    return plans


def reused_report(previous: CommunityCatalogRow, fresh: Report) -> Report:
    """The previous LLM report kept, with the findings of the fresh extractive report it does not have."""
    findings = []
    for raw in json.loads(previous.get("findings") or "[]"):
        if isinstance(raw, dict):
            findings.append(Finding(**{k: raw[k] for k in ("summary", "explanation", "chunk_ids") if k in raw}))
    known = {f.summary for f in findings}
    findings += [f for f in fresh.findings if f.summary not in known][:3]
    return Report(
        title=previous.get("title") or fresh.title,
        summary=previous.get("summary") or fresh.summary,
        findings=findings,
        rating=previous.get("rating") or 0.0,
        rating_explanation=previous.get("rating_explanation") or "",
        kind="llm",
    )
