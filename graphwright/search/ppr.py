"""Personalized PageRank over a passage–entity graph (the ranking behind HippoRAG and fast-graphrag).

A walker starts at the seeds (the question's entities and its closest passages), follows an edge with
probability `damping` and jumps back to a seed otherwise; the share of time it spends on a node is that
node's score. Passages reachable from several seeds through few, specific entities collect the most, which
is what a multi-hop question needs: the passage about the bridge entity, not only the one the question
names.

The graph may be a neighbourhood cut out of a larger one. Each node's out-weight is divided by its *full*
degree, so a hub entity passes each of its edges what it would pass in the whole graph, and what would flow
to nodes outside the cut is lost instead of inflating the nodes inside it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from graphwright.algorithms import ClientAlgorithms, GraphAlgorithms


@dataclass
class WalkGraph:
    """An undirected weighted graph by node name. `degree` holds the full degree of a node whose edges were
    not all fetched; a node without one uses the sum of its edges here."""

    edges: dict[tuple[str, str], float] = field(default_factory=dict)
    degree: dict[str, float] = field(default_factory=dict)

    def connect(self, a: str, b: str, weight: float = 1.0) -> None:
        """Parallel edges add up (two relations between a pair carry twice the walk), as in the degree."""
        if a != b:
            key = (a, b) if a < b else (b, a)
            self.edges[key] = self.edges.get(key, 0.0) + weight

    def nodes(self) -> list[str]:
        return sorted({n for edge in self.edges for n in edge} | set(self.degree))


def personalized_pagerank(
    graph: WalkGraph,
    seeds: Mapping[str, float],
    damping: float = 0.7,
    iterations: int = 50,
    tolerance: float = 1e-9,
    engine: GraphAlgorithms | None = None,
) -> dict[str, float]:
    """Stationary visit shares of a walk restarting at `seeds` (weights, normalised here). Seeds outside the
    graph still hold their restart mass. Power iteration stops when an update moves less than `tolerance`.
    `engine`: where it runs (the client's by default); the arcs and their shares are made here either way."""
    if not 0.0 <= damping < 1.0:
        raise ValueError("damping must be in [0, 1)")
    restart = {n: w for n, w in seeds.items() if w > 0}
    total = sum(restart.values())
    if total <= 0:
        return {}
    local: dict[str, float] = {}
    for (a, b), w in graph.edges.items():
        local[a] = local.get(a, 0.0) + w
        local[b] = local.get(b, 0.0) + w
    degree = {n: max(graph.degree.get(n, 0.0), local.get(n, 0.0), 1e-12) for n in graph.nodes()}
    arcs = [arc for (a, b), w in graph.edges.items() for arc in ((a, b, w / degree[a]), (b, a, w / degree[b]))]
    return (engine or ClientAlgorithms()).pagerank(
        arcs,
        {n: w / total for n, w in restart.items()},
        damping=damping,
        iterations=iterations,
        tolerance=tolerance,
    )
