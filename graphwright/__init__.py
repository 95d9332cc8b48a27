"""graphwright: GraphRAG on a real Neo4j. `from graphwright import GraphRAG`; every error of
`graphwright.errors` is here too (`except graphwright.LoadError`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphwright.errors import *  # noqa: F403 - the error tree is part of the package's surface
from graphwright.errors import __all__ as _errors

__version__ = "0.1.0"
__all__ = ["GraphRAG", "SearchOptions", "SearchResult", "Settings", "__version__", *_errors]

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.models import SearchResult
    from graphwright.search.options import SearchOptions


def __getattr__(name: str) -> Any:
    # Lazy, so `graphwright --help` does not pay for the driver, pydantic models or torch.
    if name == "GraphRAG":
        from graphwright.api import GraphRAG

        return GraphRAG
    if name == "Settings":
        from graphwright.config import Settings

        return Settings
    if name == "SearchOptions":
        from graphwright.search.options import SearchOptions

        return SearchOptions
    if name == "SearchResult":
        from graphwright.models import SearchResult

        return SearchResult
    raise AttributeError(name)
