"""The graph algorithms in this process: graspologic's native Leiden core and a numpy power iteration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphwright.algorithms.base import Arcs, LeidenProblem, Restart, Shares

if TYPE_CHECKING:
    from graphwright.graph_store.contracts import GraphStore


class ClientAlgorithms:
    name = "client"

    def leiden(self, problems: Sequence[LeidenProblem], *, seed: int) -> list[dict[str, int]]:
        # graspologic itself imports numba and umap (~6 s); its Leiden core alone 0.07 s
        import graspologic_native as gn

        return [
            dict(gn.leiden(list(p.edges), starting_communities=dict(p.start), resolution=p.resolution, seed=seed)[1])
            for p in problems
        ]

    def pagerank(self, arcs: Arcs, restart: Restart, *, damping: float, iterations: int, tolerance: float) -> Shares:
        names = sorted({n for a, b, _ in arcs for n in (a, b)} | set(restart))
        index = {n: i for i, n in enumerate(names)}
        src = np.fromiter((index[a] for a, _, _ in arcs), dtype=np.int64, count=len(arcs))
        dst = np.fromiter((index[b] for _, b, _ in arcs), dtype=np.int64, count=len(arcs))
        share = np.fromiter((w for _, _, w in arcs), dtype=np.float64, count=len(arcs))
        s = np.zeros(len(names))
        for n, w in restart.items():
            s[index[n]] = w
        p = s.copy()
        for _ in range(iterations):
            new = (1.0 - damping) * s + damping * np.bincount(dst, weights=p[src] * share, minlength=len(names))
            moved = float(np.abs(new - p).sum())
            p = new
            if moved < tolerance:
                break
        return {n: float(p[i]) for n, i in index.items()}


def open_client(store: GraphStore, *, strict: bool) -> ClientAlgorithms:
    """Always available (`GRAPH_ALGORITHMS`' factory)."""
    return ClientAlgorithms()
