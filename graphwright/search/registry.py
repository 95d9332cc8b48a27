"""The search modes by name. Adding a mode = one module with a `SearchMode` subclass, one line in `_MODES`
and its name in `ModeName` (a unit test checks that the two agree). Classes are imported on first use, so
listing the names (CLI choices, `--help`) costs nothing."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Literal

from graphwright.errors import InvalidRequestError

if TYPE_CHECKING:
    from graphwright.search.base import SearchMode

ModeName = Literal["vector", "hybrid", "local", "global", "path", "auto", "agent", "multihop", "corrective", "cypher"]

_MODES: dict[str, str] = {
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
}
MODE_NAMES: tuple[str, ...] = tuple(_MODES)


@cache
def mode_class(name: str) -> type[SearchMode]:
    if name not in _MODES:
        raise InvalidRequestError(f"unknown mode {name!r} (`mode`); available: {', '.join(MODE_NAMES)}")
    module, _, attribute = _MODES[name].partition(":")
    cls: type[SearchMode] = getattr(import_module(module), attribute)
    if cls.name != name:
        raise TypeError(f"{_MODES[name]} registers as {cls.name!r}, not {name!r}")
    return cls


def get_mode(name: str) -> SearchMode:
    return mode_class(name)()


def modes_where(flag: str) -> tuple[str, ...]:
    """Names of the modes whose class attribute `flag` is true (e.g. "uses_graph", "needs_llm")."""
    return tuple(name for name in MODE_NAMES if getattr(mode_class(name), flag))
