"""Where Leiden and PageRank run: a contract (`base.GraphAlgorithms`) and a registry of engines
(`algorithms/registry.py: GRAPH_ALGORITHMS`: `client` in this process, `gds` in Neo4j Graph Data Science).

`graph_algorithms` picks by the `graph_algorithms` setting: an engine by name for everything (an error when it
cannot run on this store: `gds` on a server without GDS), or `auto` (the default): GDS for work over the
whole graph (community detection) when `gds.version()` answers, falling back to the client with a warning
should a GDS call fail, and the client for the walk. The walk's graph is a cut of bounded size the client
already holds, and GDS's fixed cost per call (a projection, an algorithm run; ~0.1-0.3 s measured) would be
paid on every question for the same ranking (docs/scaling.md). Adding an engine: a module with a factory
`(store, *, strict) -> GraphAlgorithms | None`, and a line in `GRAPH_ALGORITHMS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphwright.algorithms.base import Arc, Edge, GraphAlgorithms, LeidenProblem
from graphwright.algorithms.client import ClientAlgorithms
from graphwright.algorithms.registry import GRAPH_ALGORITHMS

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store.contracts import GraphStore

__all__ = ["Arc", "ClientAlgorithms", "Edge", "GraphAlgorithms", "LeidenProblem", "graph_algorithms"]


def graph_algorithms(settings: Settings, store: GraphStore, *, whole_graph: bool = True) -> GraphAlgorithms:
    """The engine the settings ask for, on this store's server; `whole_graph`: for work over the whole graph
    (False: a small graph the caller holds, such as the walk's cut)."""
    if settings.graph_algorithms == "auto":
        if not whole_graph:
            return ClientAlgorithms()
        return GRAPH_ALGORITHMS.load("gds")(store, strict=False) or ClientAlgorithms()
    engine: GraphAlgorithms = GRAPH_ALGORITHMS.load(settings.graph_algorithms)(store, strict=True)
    return engine
