"""Curation as a user meets it (`rag.curation`): each change is one transaction in the store
(graph_store/curation.py) with its audit record; here it also gets its new embeddings, synonym lists and
communities, and a type is checked against the workspace's graph schema."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphwright.curation.contract import CurationRole
from graphwright.errors import InvalidRequestError
from graphwright.models import CurationChange
from graphwright.text.normalize import INTERNAL_LABELS, is_internal_label, relation_type

if TYPE_CHECKING:
    from graphwright.graph_schema import GraphSchema


def local_user() -> str:
    """Who a change from this process is: `cli:<login>` (the server records a key's fingerprint instead)."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no passwd entry (some containers)
        return "cli:unknown"


class Curation:
    """Merge, rename, retype, describe and delete entities; retype and delete relations; the history and undo.

    `embed` gives the changed entities their new vectors; `after` runs after each committed change (the API
    links synonyms and updates the communities there); `schema` is the workspace's graph schema, if any.
    `who` names the author in the audit trail."""

    def __init__(
        self,
        store: CurationRole,
        *,
        embed: Callable[[list[str]], list[list[float]]],
        after: Callable[[CurationChange], None],
        schema: Callable[[], GraphSchema | None],
        who: str | None = None,
    ) -> None:
        self._store = store
        self._embed = embed
        self._after = after
        self._schema = schema
        self.who = who or local_user()

    def merge(self, source: str, target: str) -> CurationChange:
        """`source` into `target` (names or ids): relations, mentions, aliases and provenance move; the
        survivor is `target`."""
        return self._done(self._store.merge(source, target, who=self.who, embed=self._embed))

    def rename(self, entity: str, name: str) -> CurationChange:
        return self._done(self._store.rename(entity, name, who=self.who, embed=self._embed))

    def retype(self, entity: str, type_: str) -> CurationChange:
        self._check_type(type_)
        return self._done(self._store.retype(entity, type_, who=self.who, embed=self._embed))

    def describe(self, entity: str, description: str) -> CurationChange:
        """Replace the entity's description with `description`; later ingests add nothing to it."""
        return self._done(self._store.describe(entity, description, who=self.who, embed=self._embed))

    def delete(self, entity: str) -> CurationChange:
        return self._done(self._store.delete_entity(entity, who=self.who))

    def retype_relation(self, source: str, type_: str, target: str, new_type: str) -> CurationChange:
        return self._done(self._store.retype_relation(source, type_, target, new_type, who=self.who))

    def delete_relation(self, source: str, type_: str, target: str) -> CurationChange:
        return self._done(self._store.delete_relation(source, type_, target, who=self.who))

    def undo(self, change: str | None = None) -> CurationChange:
        """Revert `change` (default: the latest not undone) exactly."""
        return self._done(self._store.undo(change, who=self.who))

    def history(self, offset: int = 0, limit: int = 50) -> list[CurationChange]:
        """Changes newest first, undone ones included (marked)."""
        return self._store.history(offset, limit)

    # --- checks and what follows a change ---------------------------------------------------------------
    def _check_type(self, type_: str) -> None:
        if is_internal_label(relation_type(type_)):  # the type as the store keeps it ("CurationChange" too)
            raise InvalidRequestError(
                f"{type_!r} would become a label graphwright keeps for its own nodes "
                f"({', '.join(sorted(INTERNAL_LABELS))}): choose another type"
            )
        schema = self._schema()
        if schema is None or not schema.node_types or schema.additional_node_types:
            return
        declared = {relation_type(t.label) for t in schema.node_types}  # no other types are allowed here
        if relation_type(type_) not in declared:
            raise InvalidRequestError(f"{type_!r} is not a node type of this graph's schema: {sorted(declared)}")

    def _done(self, change: CurationChange) -> CurationChange:
        self._after(change)
        return change
