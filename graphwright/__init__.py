"""graphwright: GraphRAG on a real Neo4j. `from graphwright import GraphRAG`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["GraphRAG", "GraphwrightError", "SearchResult", "Settings", "__version__"]

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.errors import GraphwrightError
    from graphwright.models import SearchResult


def __getattr__(name: str) -> Any:
    # Lazy, so `graphwright --help` does not pay for the driver, pydantic models or torch.
    if name == "GraphRAG":
        from graphwright.api import GraphRAG

        return GraphRAG
    if name == "Settings":
        from graphwright.config import Settings

        return Settings
    if name == "GraphwrightError":
        from graphwright.errors import GraphwrightError

        return GraphwrightError
    if name == "SearchResult":
        from graphwright.models import SearchResult

        return SearchResult
    raise AttributeError(name)
