"""The graph algorithms' contract: Leiden for communities and PageRank for the walk, wherever they run.

An engine gets the graph as the caller built it (by node name) and answers by node name, so the caller's
hierarchy, pinning and ranking are the same whichever engine computed the numbers (`client` in this
process, `gds` in Neo4j Graph Data Science)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

Edge = tuple[str, str, float]
Arc = tuple[str, str, float]  # directed: the share of the first node's mass the walk moves to the second
Arcs = Sequence[Arc]
Restart = Mapping[str, float]  # where the walk jumps back to, and with what weight (summing to 1)
Shares = dict[str, float]  # each node's share of the walk's visits


@dataclass(frozen=True)
class LeidenProblem:
    """Leiden on the undirected weighted `edges`, each node starting in `start[node]` (its seed community;
    every node of the edges has one), at modularity resolution `resolution`."""

    edges: Sequence[Edge]
    start: Mapping[str, int]
    resolution: float


class GraphAlgorithms(Protocol):
    name: str

    def leiden(self, problems: Sequence[LeidenProblem], *, seed: int) -> list[dict[str, int]]:
        """Community labels of each problem's nodes, in the problems' order; one `seed`, one answer. The
        problems are independent graphs: an engine may solve them in one go."""
        ...

    def pagerank(self, arcs: Arcs, restart: Restart, *, damping: float, iterations: int, tolerance: float) -> Shares:
        """Visit shares of a walk that moves along `arcs` (a node's shares sum to at most 1: the rest leaves
        the graph) with probability `damping`, and else jumps to a node of `restart` (weights summing to 1).
        Every node of the arcs and of `restart` gets a share."""
        ...
