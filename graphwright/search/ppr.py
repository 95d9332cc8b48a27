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

import numpy as np


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
    graph: WalkGraph, seeds: Mapping[str, float], damping: float = 0.7, iterations: int = 50, tolerance: float = 1e-9
) -> dict[str, float]:
    """Stationary visit shares of a walk restarting at `seeds` (weights, normalised here). Seeds outside the
    graph still hold their restart mass. Power iteration stops when an update moves less than `tolerance`."""
    if not 0.0 <= damping < 1.0:
        raise ValueError("damping must be in [0, 1)")
    restart = {n: w for n, w in seeds.items() if w > 0}
    total = sum(restart.values())
    if total <= 0:
        return {}
    names = sorted(set(graph.nodes()) | set(restart))
    index = {n: i for i, n in enumerate(names)}
    src = np.fromiter((index[a] for a, b in graph.edges), dtype=np.int64, count=len(graph.edges))
    dst = np.fromiter((index[b] for a, b in graph.edges), dtype=np.int64, count=len(graph.edges))
    weight = np.fromiter(graph.edges.values(), dtype=np.float64, count=len(graph.edges))
    src, dst, weight = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([weight, weight])
    local = np.bincount(src, weights=weight, minlength=len(names))
    full = np.array([graph.degree.get(n, 0.0) for n in names])
    degree = np.maximum(np.maximum(full, local), 1e-12)
    share = weight / degree[src]  # the part of a node's mass each edge carries
    s = np.zeros(len(names))
    for n, w in restart.items():
        s[index[n]] = w / total
    p = s.copy()
    for _ in range(iterations):
        spread = np.bincount(dst, weights=p[src] * share, minlength=len(names))
        new = (1.0 - damping) * s + damping * spread
        moved = float(np.abs(new - p).sum())
        p = new
        if moved < tolerance:
            break
    return {n: float(p[i]) for n, i in index.items()}
