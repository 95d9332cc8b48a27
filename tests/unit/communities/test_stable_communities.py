"""Stable community detection and report planning: pure logic, no database."""

from __future__ import annotations

import json
import random

import pytest

from graphwright.communities.leiden import DetectedCommunity, PreviousCommunity, detect, modularity
from graphwright.communities.report_plan import plan_reports, reused_report
from graphwright.communities.reports import Finding, Report


def _graph(groups: int = 12, size: int = 30, seed: int = 4) -> list[tuple[str, str, float]]:
    """Planted groups of `size` (large enough to be split into deeper levels at max size 10)."""
    rng = random.Random(seed)
    edges = set()
    for k in range(groups * size):
        g = k // size
        for _ in range(3):
            other = g * size + rng.randrange(size)
            if other != k:
                edges.add((f"n{min(k, other):04d}", f"n{max(k, other):04d}", 1.0))
        if rng.random() < 0.1:
            other = rng.randrange(groups * size)
            if other // size != g:
                edges.add((f"n{min(k, other):04d}", f"n{max(k, other):04d}", 1.0))
    return sorted(edges)


def _previous(found: list[DetectedCommunity]) -> list[PreviousCommunity]:
    return [PreviousCommunity(c.id, c.level, tuple(c.members), c.parent, c.graph_hash) for c in found]


def _chain(found: list[DetectedCommunity], node: str) -> set[str]:
    """The communities holding `node`: one per level, each the parent of the next."""
    return {c.id for c in found if node in c.members}


def _assert_consistent(found: list[DetectedCommunity], edges: list[tuple[str, str, float]]) -> None:
    by_id = {c.id: c for c in found}
    assert len(by_id) == len(found)
    for c in found:
        if c.level == 0:
            assert c.parent is None
        else:
            parent = by_id[c.parent]
            assert parent.level == c.level - 1 and set(c.members) <= set(parent.members) and c.id in parent.children
    for level in {c.level for c in found}:
        members = [m for c in found if c.level == level for m in c.members]
        assert len(members) == len(set(members))
    assert {m for c in found if c.level == 0 for m in c.members} == {n for a, b, _ in edges for n in (a, b)}


def _shape(found: list[DetectedCommunity]) -> set[tuple[str, str | None]]:
    return {(c.id, c.parent) for c in found}


def test_an_unchanged_graph_keeps_every_community_and_parent() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    assert max(c.level for c in first) >= 1
    again = detect(edges, 10, 42, _previous(first))
    assert _shape(again) == _shape(first) and all(c.pinned for c in again)


def test_a_change_that_reaches_no_community_changes_none() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    after = detect(edges + [("new-a", "new-b", 1.0), ("new-b", "new-c", 2.0)], 10, 42, _previous(first))
    assert _shape(first) <= _shape(after)
    assert [c.members for c in after if c.id not in {f.id for f in first}] == [["new-a", "new-b", "new-c"]]


def test_a_change_in_one_community_rewrites_only_it_and_its_ancestors() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    deepest = max(first, key=lambda c: (c.level, c.id))
    node = deepest.members[0]
    touched = _chain(first, node)
    assert len(touched) == deepest.level + 1 >= 2
    after = detect(edges + [("newcomer", node, 1.0)], 10, 42, _previous(first))
    removed = {c.id for c in first} - {c.id for c in after}
    assert removed == touched
    assert any("newcomer" in c.members for c in after)
    _assert_consistent(after, edges + [("newcomer", node, 1.0)])
    kept = {c.id: c.parent for c in after if c.pinned}
    assert len(kept) == len(first) - len(touched)
    # the kept ones keep their parent unless the parent was rewritten
    first_parent = {c.id: c.parent for c in first}
    assert all(parent == first_parent[cid] or first_parent[cid] in touched for cid, parent in kept.items())


def test_a_deleted_member_rewrites_its_communities_only() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    node = first[-1].members[0]
    neighbours = {b if a == node else a for a, b, _ in edges if node in (a, b)}
    touched = {c.id for c in first if set(c.members) & (neighbours | {node})}
    after = detect([e for e in edges if node not in e[:2]], 10, 42, _previous(first))
    parent = {c.id: c.parent for c in first}
    removed = {c.id for c in first} - {c.id for c in after}
    # a touched community or the child of one that, smaller now, no longer needs splitting
    assert all(cid in touched or parent[cid] in touched for cid in removed), removed - touched
    assert len(removed) < len(first) / 10
    assert all(node not in c.members for c in after)


def test_a_resplit_that_lifts_an_untouched_community_a_level_keeps_the_hierarchy_whole() -> None:
    from tests.synthetic import planted_partition

    _, relations, _ = planted_partition(groups=200, size=100, chunk_id="c", intra_degree=5.6, inter_degree=0.4, seed=11)
    edges = sorted({(min(r.source_id, r.target_id), max(r.source_id, r.target_id), 1.0) for r in relations})
    first = detect(edges, 10, 42)
    changed = edges + [("newcomer", edges[0][0], 1.0)]
    after = detect(changed, 10, 42, _previous(first))
    _assert_consistent(after, changed)
    levels = {tuple(c.members): c.level for c in first}
    lifted = [c for c in after if levels.get(tuple(c.members), c.level) != c.level]
    assert lifted  # the touched community split into pieces one of which is an untouched child
    old = {tuple(c.members): c for c in first}
    assert any(old[tuple(c.members)].children for c in lifted)
    for c in lifted:  # same members one level up, with the subtree below them, one level up too
        below = [tuple(k.members) for k in first if k.parent == old[tuple(c.members)].id]
        assert sorted(below) == sorted(tuple(k.members) for k in after if k.parent == c.id)


def test_same_graph_seed_and_history_give_the_same_result() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    changed = edges + [("x1", edges[0][0], 1.0), ("x2", edges[500][1], 1.0), (edges[7][0], edges[900][1], 1.0)]
    one, two = detect(changed, 10, 42, _previous(first)), detect(changed, 10, 42, _previous(first))
    assert [(c.id, c.parent, c.members) for c in one] == [(c.id, c.parent, c.members) for c in two]


def test_incremental_modularity_stays_within_three_percent_of_a_full_rebuild() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    rng = random.Random(9)
    nodes = sorted({n for a, b, _ in edges for n in (a, b)})
    changed = (
        edges
        + [(f"new{i}", rng.choice(nodes), 1.0) for i in range(40)]
        + [(a, b, 1.0) for a, b in (sorted(rng.sample(nodes, 2)) for _ in range(40))]
    )

    def level0(found: list[DetectedCommunity]) -> dict[str, str]:
        return {m: c.id for c in found if c.level == 0 for m in c.members}

    incremental = modularity(changed, level0(detect(changed, 10, 42, _previous(first))))
    full = modularity(changed, level0(detect(changed, 10, 42)))
    assert incremental >= 0.97 * full, (incremental, full)


def test_old_communities_without_a_graph_hash_are_all_redetected() -> None:
    edges = _graph()
    first = detect(edges, 10, 42)
    legacy = [PreviousCommunity(c.id, c.level, tuple(c.members), c.parent, None) for c in first]
    again = detect(edges, 10, 42, legacy)
    assert not any(c.pinned for c in again)


# --- report planning ------------------------------------------------------------------------------------


def _community(cid: str, members: list[str], level: int = 0) -> DetectedCommunity:
    return DetectedCommunity(id=cid, level=level, members=members, member_hash=cid)


def _old(
    cid: str, members: list[str], kind: str = "llm", report_members: list[str] | None = None, rating: float = 5.0
) -> dict:
    return {
        "id": cid,
        "level": 0,
        "members": members,
        "graph_hash": "h",
        "parent": None,
        "title": f"T {cid}",
        "summary": f"S {cid}",
        "findings": json.dumps([{"summary": "old finding", "explanation": "", "chunk_ids": ["c1"]}]),
        "rating": rating,
        "rating_explanation": "why",
        "report_kind": kind,
        "stale": False,
        "report_members": report_members,
        "cited_chunks": ["c1"],
    }


def _members(n: int, prefix: str = "m") -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(n)]


def test_a_small_change_keeps_the_llm_report_and_marks_it_stale() -> None:
    old = _old("old", _members(10))
    new = _community("new", _members(10) + ["x"])  # 10/11 = 0.91 overlap
    (plan,) = plan_reports([new], [old], {}, llm=True, budget=10, threshold=0.8)
    assert plan.action == "reuse" and plan.stale and plan.basis == _members(10)
    assert plan.changed == pytest.approx(1 / 11)


def test_a_material_change_asks_the_llm() -> None:
    old = _old("old", _members(10))
    new = _community("new", _members(7) + ["x", "y", "z"])  # 7/13
    (plan,) = plan_reports([new], [old], {}, llm=True, budget=10, threshold=0.8)
    assert plan.action == "llm" and not plan.stale


def test_small_changes_add_up_against_the_members_the_report_was_written_for() -> None:
    # the last run already drifted: members now differ from the report's; one more member crosses 0.8
    old = _old("old", _members(10) + ["x"], report_members=_members(10))
    new = _community("new", _members(10) + ["x", "y"])  # 10/12 against the report's members
    assert plan_reports([new], [old], {}, llm=True, budget=10, threshold=0.8)[0].action == "reuse"
    newer = _community("newer", _members(10) + ["x", "y", "z"])  # 10/13 = 0.77
    assert plan_reports([newer], [old], {}, llm=True, budget=10, threshold=0.8)[0].action == "llm"


def test_an_extractive_predecessor_is_never_reused_and_offline_reports_are_never_stale() -> None:
    old = _old("old", _members(10), kind="extractive")
    new = _community("new", _members(10) + ["x"])
    (online,) = plan_reports([new], [old], {}, llm=True, budget=10, threshold=0.8)
    (offline,) = plan_reports([new], [old], {}, llm=False, budget=10, threshold=0.8)
    assert online.action == "llm" and offline.action == "extractive" and not offline.stale


def test_the_budget_goes_to_the_most_important_changes_first() -> None:
    small = _community("small", _members(3, "a"))
    big = _community("big", _members(40, "b"))
    rated = _community("rated", _members(3, "c"))
    plans = plan_reports(
        [small, big, rated], [], {"small": 1.0, "big": 1.0, "rated": 9.0}, llm=True, budget=2, threshold=0.8
    )
    actions = {p.community.id: (p.action, p.stale) for p in plans}
    assert actions == {"big": ("llm", False), "rated": ("llm", False), "small": ("extractive", True)}
    none = plan_reports([small, big], [], {}, llm=True, budget=0, threshold=0.8)
    assert all(p.action == "extractive" and p.stale for p in none)


def test_a_reused_report_keeps_its_text_and_adds_new_findings() -> None:
    fresh = Report(
        title="fresh",
        summary="fresh summary",
        findings=[Finding(summary="old finding"), Finding(summary="X joined", chunk_ids=["c9"])],
        rating=2.0,
    )
    kept = reused_report(_old("old", _members(5)), fresh)
    assert (kept.title, kept.summary, kept.rating, kept.kind) == ("T old", "S old", 5.0, "llm")
    assert [f.summary for f in kept.findings] == ["old finding", "X joined"]
    assert kept.cited_chunks == ["c1", "c9"]


def test_a_member_set_lifted_to_another_level_keeps_its_report_as_it_is() -> None:
    old = {**_old("L2-old", _members(6)), "level": 2}
    lifted = _community("L1-new", _members(6), level=1)
    (plan,) = plan_reports([lifted], [old], {}, llm=True, budget=10, threshold=0.8)
    assert plan.action == "reuse" and not plan.stale and plan.changed == 0
