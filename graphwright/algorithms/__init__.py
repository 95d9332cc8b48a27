"""Where Leiden and PageRank run: a contract (`base.GraphAlgorithms`) and a registry of engines.

`graph_algorithms` picks by the `graph_algorithms` setting: `client` computes in this process; `gds` in Neo4j
Graph Data Science (an error when the server has none); `auto` (the default) in GDS when `gds.version()`
answers, else in the client, and falls back to the client, with a warning, should a GDS call fail. Adding an
engine: a module with a class satisfying `GraphAlgorithms`, and a line in `ENGINES`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphwright.algorithms.base import Arc, Edge, GraphAlgorithms, LeidenProblem
from graphwright.algorithms.client import ClientAlgorithms
from graphwright.errors import GdsUnavailableError

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store.contracts import GraphStore

__all__ = ["ENGINES", "Arc", "ClientAlgorithms", "Edge", "GraphAlgorithms", "LeidenProblem", "graph_algorithms"]


def _gds(store: GraphStore, strict: bool) -> GraphAlgorithms | None:
    from graphwright.algorithms.gds import GdsAlgorithms

    if store.gds.version() is None:
        if strict:
            raise GdsUnavailableError(
                "GRAPHWRIGHT_GRAPH_ALGORITHMS=gds, but this Neo4j has no Graph Data Science "
                "(start it with `graphwright db start --gds`, or set the setting to auto)"
            )
        return None
    return GdsAlgorithms(store.gds, fallback=None if strict else ClientAlgorithms())


ENGINES: dict[str, Callable[[GraphStore, bool], GraphAlgorithms | None]] = {
    "client": lambda store, strict: ClientAlgorithms(),
    "gds": _gds,
}


def graph_algorithms(settings: Settings, store: GraphStore) -> GraphAlgorithms:
    """The engine the settings ask for, on this store's server."""
    choice = settings.graph_algorithms
    if choice == "auto":
        return ENGINES["gds"](store, False) or ClientAlgorithms()
    engine = ENGINES[choice](store, True)
    assert engine is not None  # a named engine raises rather than answer None
    return engine
