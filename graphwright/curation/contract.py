"""What curation needs of a store: the `curation` role (graph_store/curation.py is Neo4j's, tests/memory_store.py
the one in memory). Declared here, beside its one user, so the store implements what curation asks for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from graphwright.models import CurationChange

# Embeds texts for curation's renamed or merged entities (the embedder's `embed`).
Embed = Callable[[list[str]], list[list[float]]]


class CurationRole(Protocol):
    """Hand changes of the entity graph, their audit trail and undo (`store.curation`)."""

    def history(self, offset: int = 0, limit: int = 50) -> list[CurationChange]: ...

    def merge(self, source: str, target: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        """Entity `source` into `target`: its relations, mentions, aliases and description move onto the
        survivor, and later writes of its names land on the survivor."""

    def rename(self, entity: str, new_name: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        """A new display name; the old one stays an alias, and later writes of it land here."""

    def retype(self, entity: str, new_type: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        """A new entity type (and the label Neo4j Browser shows), kept by later writes."""

    def describe(self, entity: str, description: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        """A description written by hand; later writes add nothing to it."""

    def delete_entity(self, entity: str, *, who: str) -> CurationChange:
        """The entity, its mentions and relations; later writes do not create it again."""

    def retype_relation(self, source: str, type_: str, target: str, new_type: str, *, who: str) -> CurationChange:
        """`source -[type]-> target` becomes `-[new_type]->` (joined with one of that type if it exists)."""

    def delete_relation(self, source: str, type_: str, target: str, *, who: str) -> CurationChange:
        """`source -[type]-> target` goes, and later writes do not create it again."""

    def undo(self, change_id: str | None, *, who: str) -> CurationChange:
        """Put back exactly what change `change_id` (default: the latest not undone) found; refused when a
        later change touches the same entities, or when the graph it left has changed since."""
