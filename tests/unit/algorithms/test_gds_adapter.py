"""The GDS engine's own arithmetic, with a stand-in for the store's GDS role that computes what the server
would (the integration tests in tests/integration/test_gds.py run the real one): many Leiden problems as one
graph each at its own resolution, the walk's root and sink, and the fall-back to the client."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from graphwright.algorithms import ClientAlgorithms, LeidenProblem
from graphwright.algorithms.gds import GdsAlgorithms
from graphwright.errors import QueryRejectedError
from graphwright.search.ppr import WalkGraph, personalized_pagerank


class UnionRole:
    """Answers as GDS does, computed here: Leiden on the graph sent (graspologic), PageRank by the textbook
    (unweighted sources, weights normalised by a node's out-weight, a dangling node's mass lost)."""

    def __init__(self, fail: bool = False) -> None:
        self.fail, self.calls = fail, 0

    def version(self) -> str | None:
        return "2.13.9"

    def leiden(
        self, edges: Sequence[tuple[int, int, float]], start: Mapping[int, int], *, resolution: float, seed: int
    ) -> dict[int, int]:
        self.calls += 1
        if self.fail:
            raise QueryRejectedError("java.lang.OutOfMemoryError")
        import graspologic_native as gn

        named = [(str(a), str(b), w) for a, b, w in edges]
        _, found = gn.leiden(
            named, starting_communities={str(k): v for k, v in start.items()}, resolution=resolution, seed=seed
        )
        return {int(k): v for k, v in found.items()}

    def pagerank(
        self,
        edges: Sequence[tuple[int, int, float]],
        sources: Sequence[int],
        *,
        damping: float,
        iterations: int,
        tolerance: float,
    ) -> dict[int, float]:
        self.calls += 1
        if self.fail:
            raise QueryRejectedError("java.lang.OutOfMemoryError")
        n = 1 + max(max(a, b) for a, b, _ in edges)
        out = np.zeros(n)
        for a, _, w in edges:
            out[a] += w
        s = np.zeros(n)
        s[list(sources)] = 1.0
        p = s * (1 - damping)
        for _ in range(iterations):
            nxt = (1 - damping) * s
            for a, b, w in edges:
                nxt[b] += damping * p[a] * w / out[a]
            p = nxt
        return {i: float(p[i]) for i in range(n)}


def _cliques(tag: str, count: int = 4, size: int = 5) -> list[tuple[str, str, float]]:
    edges = []
    for c in range(count):
        members = [f"{tag}{c}-{i}" for i in range(size)]
        edges += [(a, b, 1.0) for i, a in enumerate(members) for b in members[i + 1 :]]
        edges.append((f"{tag}{c}-0", f"{tag}{(c + 1) % count}-1", 1.0))
    return edges


def _problem(edges: list[tuple[str, str, float]], resolution: float) -> LeidenProblem:
    nodes = sorted({n for a, b, _ in edges for n in (a, b)})
    return LeidenProblem(edges, {n: i for i, n in enumerate(nodes)}, resolution)


def _groups(labels: dict[str, int]) -> set[frozenset[str]]:
    by: dict[int, set[str]] = {}
    for node, label in labels.items():
        by.setdefault(label, set()).add(node)
    return {frozenset(g) for g in by.values()}


def test_problems_solved_together_each_keep_their_own_resolution() -> None:
    problems = [_problem(_cliques("a"), 1.0), _problem(_cliques("b"), 0.02), _problem(_cliques("c", 6, 4), 0.5)]
    role = UnionRole()
    together = GdsAlgorithms(role).leiden(problems, seed=1)
    alone = ClientAlgorithms().leiden(problems, seed=1)
    assert role.calls == 1  # one projection for all of them
    assert [_groups(t) for t in together] == [_groups(a) for a in alone]
    assert [len(_groups(t)) for t in together][:2] == [4, 1]  # the resolutions made a difference


def test_the_walk_through_root_and_sink_equals_the_client() -> None:
    graph = WalkGraph()
    for a, b in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")]:
        graph.connect(a, b)
    graph.degree.update({"a": 5.0, "e": 4.0, "lonely": 2.0})
    seeds = {"a": 2.0, "d": 1.0, "far": 1.0}
    here = personalized_pagerank(graph, seeds, 0.6, iterations=200, tolerance=0.0)
    there = personalized_pagerank(graph, seeds, 0.6, iterations=200, tolerance=0.0, engine=GdsAlgorithms(UnionRole()))
    assert set(here) == set(there)
    for node in here:
        assert there[node] == pytest.approx(here[node], abs=1e-12)


def test_a_failing_gds_falls_back_to_the_client_once_with_a_warning(caplog) -> None:
    role = UnionRole(fail=True)
    engine = GdsAlgorithms(role, fallback=ClientAlgorithms())
    problems = [_problem(_cliques("a"), 1.0)]
    with caplog.at_level(logging.WARNING):
        first = engine.leiden(problems, seed=1)
        second = engine.leiden(problems, seed=1)
    assert first == second == ClientAlgorithms().leiden(problems, seed=1)
    assert role.calls == 1  # not asked again after it failed
    assert engine.name == "client"  # what a community run reports as its engine
    assert sum("Graph Data Science failed" in r.message for r in caplog.records) == 1


def test_without_a_fallback_the_failure_is_raised() -> None:
    with pytest.raises(QueryRejectedError, match="OutOfMemory"):
        GdsAlgorithms(UnionRole(fail=True)).leiden([_problem(_cliques("a"), 1.0)], seed=1)
