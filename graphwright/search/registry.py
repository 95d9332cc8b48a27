"""The search modes by name, in a registry (graphwright/registry.py). Adding a mode = one module with a
`SearchMode` subclass plus one line in `MODES` (or `MODES.register(name, "module:Class")`): the CLI, the HTTP
and MCP schemas, the agent's tools and the router read the names when they are asked, so a mode registered at
run time is offered everywhere. Classes are imported on first use, so listing the names costs nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator

from graphwright.registry import Registry

if TYPE_CHECKING:
    from graphwright.search.base import SearchMode

MODES: Registry[type[SearchMode]] = Registry(
    "mode",
    {
        "vector": "graphwright.search.vector:VectorMode",
        "hybrid": "graphwright.search.hybrid:HybridMode",
        "local": "graphwright.search.local:LocalMode",
        "global": "graphwright.search.global_search:GlobalMode",
        "path": "graphwright.search.path:PathMode",
        "auto": "graphwright.search.router:AutoMode",
        "agent": "graphwright.search.agent:AgentMode",
        "multihop": "graphwright.search.multihop:MultihopMode",
        "corrective": "graphwright.search.corrective:CorrectiveMode",
        "cypher": "graphwright.search.cypher:CypherMode",
        "raptor": "graphwright.search.raptor:RaptorMode",
        "federated": "graphwright.search.federated:FederatedMode",
        "drift": "graphwright.search.drift:DriftMode",
    },
    parameter="mode",
)


def mode_names() -> tuple[str, ...]:
    """The registered modes' names, now."""
    return MODES.names()


def _registered_mode(name: str) -> str:
    if name not in MODES:
        raise ValueError(f"unknown mode {name!r}; available: {', '.join(MODES)}")
    return name


# A mode's name where a model or a signature takes one: any registered mode, checked when validated (a
# mode registered at run time included), so an unknown one is a validation error naming the modes.
ModeName = Annotated[str, AfterValidator(_registered_mode)]


def mode_class(name: str) -> type[SearchMode]:
    cls = MODES.load(name)  # InvalidRequestError naming `mode` when none is registered by that name
    if cls.name != name:
        raise TypeError(f"{MODES.target(name)} registers as {cls.name!r}, not {name!r}")
    return cls


def get_mode(name: str) -> SearchMode:
    return mode_class(name)()


def modes_where(flag: str) -> tuple[str, ...]:
    """Names of the modes whose class attribute `flag` is true (e.g. "uses_graph", "needs_llm")."""
    return tuple(name for name in MODES if getattr(mode_class(name), flag))
