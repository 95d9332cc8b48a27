"""The graph algorithms in Neo4j Graph Data Science (the store's `gds` role): names become integer ids, the
graph is projected in the server, and the answer comes back by name.

The walk's restart is weighted (seed entities and passages by their similarity), and GDS 2.13's PageRank
takes only unweighted source nodes. So the walk starts from one extra node, `root`, whose arcs lead to the
seeds with their restart weights: everything `root` sends on is the restart, one step later, so every other
node's score is exactly `damping` times the client's. A node whose arcs carry less than all of its mass (the
neighbourhood is cut out of a larger graph) sends the rest to a `sink` with no arcs out, where it is lost,
as in the client."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphwright.algorithms.base import Arcs, GraphAlgorithms, LeidenProblem, Restart, Shares
from graphwright.algorithms.client import ClientAlgorithms
from graphwright.errors import GdsUnavailableError, GraphStoreError, QueryRejectedError

if TYPE_CHECKING:
    from graphwright.graph_store.contracts import GdsRole, GraphStore

log = logging.getLogger(__name__)


class GdsAlgorithms:
    name = "gds"

    def __init__(self, role: GdsRole, fallback: GraphAlgorithms | None = None) -> None:
        """`fallback`: where to compute when a GDS call fails (`auto`), with a warning once; None: raise."""
        self.role, self.fallback = role, fallback
        self._fallen = False

    def leiden(self, problems: Sequence[LeidenProblem], *, seed: int) -> list[dict[str, int]]:
        """All problems as one graph of disjoint parts, in one projection and one Leiden run. Modularity
        over a union is not each part's alone: its penalty is relative to the union's weight. Scaling part
        i's weights to r_i / m_i (its resolution over its weight) and running at gamma = sum of the r_i
        makes each part's share of the union's modularity that part's own at its own resolution, so the
        union's optimum is every part's (see `graphwright docs scaling`)."""
        if self._fallen and self.fallback is not None:
            return self.fallback.leiden(problems, seed=seed)
        if not problems:
            return []
        names: list[list[str]] = []
        edges: list[tuple[int, int, float]] = []
        start: dict[int, int] = {}
        offset = label_offset = 0
        for problem in problems:
            part = sorted({n for a, b, _ in problem.edges for n in (a, b)})
            index = {n: offset + i for i, n in enumerate(part)}
            scale = problem.resolution / max(sum(w for _, _, w in problem.edges), 1e-300)
            edges += [(index[a], index[b], w * scale) for a, b, w in problem.edges]
            start.update({index[n]: label_offset + problem.start[n] for n in part})
            names.append(part)
            offset += len(part)
            label_offset += max(problem.start.values(), default=0) + 1
        try:
            found = self.role.leiden(edges, start, resolution=sum(p.resolution for p in problems), seed=seed)
        except (QueryRejectedError, GraphStoreError) as exc:
            return self._fall_back(exc).leiden(problems, seed=seed)
        answers, offset = [], 0
        for part in names:
            answers.append({n: found[offset + i] for i, n in enumerate(part)})
            offset += len(part)
        return answers

    def pagerank(self, arcs: Arcs, restart: Restart, *, damping: float, iterations: int, tolerance: float) -> Shares:
        if self._fallen and self.fallback is not None:
            return self.fallback.pagerank(arcs, restart, damping=damping, iterations=iterations, tolerance=tolerance)
        names = sorted({n for a, b, _ in arcs for n in (a, b)} | set(restart))
        if damping == 0.0:  # no walk: the restart alone
            return {n: restart.get(n, 0.0) for n in names}
        index = {n: i for i, n in enumerate(names)}
        sink, root = len(names), len(names) + 1
        out = [0.0] * len(names)
        rows = []
        for a, b, share in arcs:
            rows.append((index[a], index[b], share))
            out[index[a]] += share
        rows += [(i, sink, 1.0 - sent) for i, sent in enumerate(out) if sent < 1.0 - 1e-12]
        rows += [(root, index[n], w) for n, w in restart.items() if w > 0]
        try:
            found = self.role.pagerank(
                rows,
                [root],
                damping=damping,
                iterations=iterations + 1,  # the restart arrives one step after root's
                tolerance=tolerance / max(len(names), 1),  # GDS compares each node's change, the client the sum
            )
        except (QueryRejectedError, GraphStoreError) as exc:
            return self._fall_back(exc).pagerank(
                arcs, restart, damping=damping, iterations=iterations, tolerance=tolerance
            )
        return {n: found.get(i, 0.0) / damping for n, i in index.items()}

    def _fall_back(self, error: Exception) -> GraphAlgorithms:
        if self.fallback is None:
            raise error
        log.warning("Graph Data Science failed (%s); computing in the client from here on", error)
        self._fallen = True
        self.name = "client"  # what computed the rest, as reports say
        return self.fallback


def open_gds(store: GraphStore, *, strict: bool) -> GdsAlgorithms | None:
    """GDS on this store's server (`GRAPH_ALGORITHMS`' factory): None when it has none, or an error when
    `strict` (asked for by name); not strict, a failing call falls back to the client."""
    if store.gds.version() is None:
        if strict:
            raise GdsUnavailableError(
                "GRAPHWRIGHT_GRAPH_ALGORITHMS=gds, but this Neo4j has no Graph Data Science "
                "(start it with `graphwright db start --gds`, or set the setting to auto)"
            )
        return None
    return GdsAlgorithms(store.gds, fallback=None if strict else ClientAlgorithms())
