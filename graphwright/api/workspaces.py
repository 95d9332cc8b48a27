"""`GraphRAG.workspaces`: the database's workspaces, listed, read, created and deleted."""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable
from typing import Any

from graphwright.config import DEFAULT_WORKSPACE
from graphwright.errors import InvalidRequestError
from graphwright.extraction.registry import check_extractor
from graphwright.graph_store import GraphStore
from graphwright.models import WorkspaceInfo


class Workspaces:
    """`initialize(name)` gives a new workspace its indexes (a GraphRAG of it runs `init`)."""

    def __init__(self, store: GraphStore, initialize: Callable[[str], None]) -> None:
        self._store = store
        self._initialize = initialize

    def list(self) -> builtins.list[WorkspaceInfo]:
        """Every workspace of the database, `default` first, with what each holds."""
        return [self.info(name) for name in self.names()]

    def names(self) -> builtins.list[str]:
        return self._store.workspaces.names()

    def info(self, name: str) -> WorkspaceInfo:
        """One workspace with what it holds; NotFoundError if there is none."""
        record = self._store.workspaces.get(name)
        counts = self._store.in_workspace(name).admin.counts()
        return WorkspaceInfo(
            **record, documents=counts["documents"], chunks=counts["chunks"], entities=counts["entities"]
        )

    def create(self, name: str, *, extractor: str | None = None, entity_types: str | None = None) -> WorkspaceInfo:
        """A new, empty workspace with its indexes; `extractor` and `entity_types` are its own settings (used
        where the environment names none). WorkspaceExistsError if the name is taken."""
        settings: dict[str, Any] = {}
        try:
            if extractor is not None:
                settings["extractor"] = check_extractor(extractor)
        except ValueError as exc:
            raise InvalidRequestError(str(exc)) from exc
        if entity_types is not None:
            if not [t for t in entity_types.split(",") if t.strip()]:
                raise InvalidRequestError("`entity_types` names no type")
            settings["entity_types"] = entity_types
        self._store.verify()
        self._store.workspaces.create(name, settings)
        self._initialize(name)
        return self.info(name)

    def delete(self, name: str, *, yes: bool = False) -> WorkspaceInfo:
        """Delete a workspace's documents, graph, communities, conversations and indexes, and nothing of any
        other; `default` keeps existing, empty. A workspace that holds documents needs `yes` (else
        InvalidRequestError, nothing deleted). Returns what it held."""
        held = self.info(name)
        if (held.documents or held.chunks or held.entities) and not yes:
            raise InvalidRequestError(
                f"workspace {name!r} holds {held.documents} documents and {held.entities} entities: pass yes=True "
                "(`--yes`) to delete them"
            )
        self._store.in_workspace(name).admin.reset()
        if name != DEFAULT_WORKSPACE:
            self._store.workspaces.forget(name)
        return held

    def __call__(self) -> builtins.list[WorkspaceInfo]:
        """`rag.workspaces()`, as it was before this was an object: `rag.workspaces.list()`."""
        warnings.warn("GraphRAG.workspaces() is now GraphRAG.workspaces.list()", DeprecationWarning, stacklevel=2)
        return self.list()
