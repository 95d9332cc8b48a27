"""The engines graph algorithms run in, by name (GRAPHWRIGHT_GRAPH_ALGORITHMS), each imported on first use."""

from __future__ import annotations

from typing import Any

from graphwright.registry import Registry

# Where Leiden and the walk's PageRank run (GRAPHWRIGHT_GRAPH_ALGORITHMS, or `auto`): a factory
# `(store, *, strict) -> GraphAlgorithms | None` (algorithms/base.py); None: not available on this store.
GRAPH_ALGORITHMS: Registry[Any] = Registry(
    "graph algorithms engine",
    {
        "client": "graphwright.algorithms.client:open_client",  # in this process
        "gds": "graphwright.algorithms.gds:open_gds",  # in Neo4j Graph Data Science
    },
    parameter="GRAPHWRIGHT_GRAPH_ALGORITHMS",
)
