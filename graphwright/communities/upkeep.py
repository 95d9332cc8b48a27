"""Build and keep the community layer current: detect, reuse unchanged reports, write the rest.

A community's id is its level and member set, so after an ingest or delete only communities whose members
changed get a new report (no LLM call for the others); vanished ones are removed. "Rewritten" counts new
communities that replace an old one at the same level (at least half the members in common)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphwright.communities.leiden import DetectedCommunity, detect
from graphwright.communities.reports import (
    Report,
    extractive_report,
    findings_json,
    llm_report_prompt,
    parse_llm_report,
)

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.embeddings import Embedder
    from graphwright.graph_store import Neo4jStore
    from graphwright.graph_store.rows import CommunityCatalogRow, CommunityContextRow
    from graphwright.llm import LLM

log = logging.getLogger(__name__)

_CONTEXT_BATCH = 200


@dataclass
class CommunityRun:
    kept: int = 0
    rewritten: int = 0
    created: int = 0
    removed: int = 0
    isolated_entities: int = 0
    levels: dict[int, int] = field(default_factory=dict)
    llm_failures: int = 0
    detect_seconds: float = 0.0
    report_seconds: float = 0.0
    embed_seconds: float = 0.0
    write_seconds: float = 0.0


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


class CommunityBuilder:
    def __init__(self, store: Neo4jStore, embedder: Embedder, settings: Settings,
                 llm: LLM | None = None) -> None:
        self.store, self.embedder, self.settings, self.llm = store, embedder, settings, llm

    def build(self, max_cluster_size: int = 10, seed: int = 42,
              progress: Callable[[str, int, int], None] | None = None) -> CommunityRun:
        """`progress(stage, done, total)` is told about detect, reports, embed and write as they go."""
        run = CommunityRun()
        tell = progress or (lambda stage, done, total: None)
        tell("detect", 0, 1)
        started = time.perf_counter()
        edges = self.store.communities.entity_edges()
        detected = detect(edges, max_cluster_size, seed)
        connected = {n for a, b, _ in edges for n in (a, b)}
        run.isolated_entities = len(set(self.store.communities.entity_ids()) - connected)
        run.detect_seconds = time.perf_counter() - started
        tell("detect", 1, 1)

        existing = {row["id"]: row for row in self.store.communities.community_catalog()}
        new_ids = {c.id for c in detected}
        created = [c for c in detected if c.id not in existing]
        removed = [cid for cid in existing if cid not in new_ids]
        run.kept = len(detected) - len(created)
        run.removed = len(removed)
        old_by_level: dict[int, list[set[str]]] = {}
        for cid in removed:
            old_by_level.setdefault(existing[cid]["level"], []).append(set(existing[cid]["members"] or []))
        for c in created:
            members = set(c.members)
            if any(_jaccard(members, old) >= 0.5 for old in old_by_level.get(c.level, [])):
                run.rewritten += 1
        run.created = len(created) - run.rewritten
        for c in detected:
            run.levels[c.level] = run.levels.get(c.level, 0) + 1

        started = time.perf_counter()
        reports = self._reports(created, existing, run, tell)
        rows = [{"id": c.id, "level": c.level, "size": len(c.members), "member_hash": c.member_hash,
                 "members": c.members, "title": reports[c.id].title, "summary": reports[c.id].summary,
                 "findings": findings_json(reports[c.id]), "rating": reports[c.id].rating,
                 "rating_explanation": reports[c.id].rating_explanation, "report_kind": reports[c.id].kind,
                 "cited_chunks": reports[c.id].cited_chunks} for c in created]
        run.report_seconds = time.perf_counter() - started
        started = time.perf_counter()
        tell("embed", 0, 1)
        # Title and the start of the summary: embedding dominates the cost of many small communities.
        vectors = self.embedder.embed([f"{r['title']}. {r['summary']}"[:200] for r in rows]) if rows else []
        run.embed_seconds = time.perf_counter() - started
        tell("embed", 1, 1)

        tell("write", 0, 1)
        started = time.perf_counter()
        self.store.communities.write_communities(
            removed, rows, [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors)],
            [{"entity": m, "community": c.id} for c in detected for m in c.members],
            [{"parent": c.parent, "child": c.id} for c in detected if c.parent])
        run.write_seconds = time.perf_counter() - started
        tell("write", 1, 1)
        log.info("communities: %d kept, %d rewritten, %d created, %d removed", run.kept, run.rewritten,
                 run.created, run.removed)
        return run

    def _reports(self, created: list[DetectedCommunity], existing: Mapping[str, CommunityCatalogRow],
                 run: CommunityRun, tell: Callable[[str, int, int], None]) -> dict[str, Report]:
        context: dict[str, CommunityContextRow] = {}
        for start in range(0, len(created), _CONTEXT_BATCH):
            part = created[start:start + _CONTEXT_BATCH]
            context.update(self.store.communities.community_context([{"id": c.id, "members": c.members} for c in part]))
        reports: dict[str, Report] = {}
        summaries = {cid: {"title": row.get("title") or "", "summary": row.get("summary") or ""}
                     for cid, row in existing.items()}
        # deepest level first: a parent's LLM report can then read its children's
        for level in sorted({c.level for c in created}, reverse=True):
            batch = [c for c in created if c.level == level]
            llm = self.llm
            if llm is None:
                made = [self._extractive(c, context) for c in batch]
            else:
                with ThreadPoolExecutor(max_workers=self.settings.llm_concurrency) as pool:
                    made = list(pool.map(lambda c, llm=llm: self._llm(llm, c, context, summaries, run), batch))
            for c, report in zip(batch, made):
                reports[c.id] = report
                summaries[c.id] = {"title": report.title, "summary": report.summary}
            tell("reports", len(reports), len(created))
        return reports

    @staticmethod
    def _extractive(c: DetectedCommunity, context: Mapping[str, CommunityContextRow]) -> Report:
        ctx = context.get(c.id)
        return extractive_report(len(c.members), ctx["members"] if ctx else [], ctx["relations"] if ctx else [])

    def _llm(self, llm: LLM, c: DetectedCommunity, context: Mapping[str, CommunityContextRow],
             summaries: dict[str, dict[str, str]],
             run: CommunityRun) -> Report:
        from graphwright.llm import LLMError
        from graphwright.llm.json_repair import JSONRepairError, parse_json_object

        ctx = context.get(c.id)
        members: Sequence[Mapping[str, Any]] = ctx["members"] if ctx else []
        relations: Sequence[Mapping[str, Any]] = ctx["relations"] if ctx else []
        # a large parent is described from its children's reports rather than raw members
        children = [summaries[child] for child in c.children if child in summaries] if len(c.members) > 30 else []
        prompt = llm_report_prompt(members, relations, children)
        messages = [{"role": "user", "content": prompt}]
        try:
            reply = llm.chat(messages).text
            return parse_llm_report(parse_json_object(reply), relations)
        except (LLMError, JSONRepairError):
            llm.forget(messages)  # ask again next time instead of replaying an unusable answer
            run.llm_failures += 1
            return self._extractive(c, context)
