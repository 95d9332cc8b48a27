"""The community layer: the entity graph as Leiden reads it, community reports written and read back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from graphwright.graph_store.connection import Role, write_batches
from graphwright.graph_store.queries import communities as q
from graphwright.graph_store.queries.graph import COMMUNITIES_AT_LEVEL, COMMUNITY_VECTOR_SEARCH, ENTITY_COMMUNITIES
from graphwright.graph_store.rows import CommunityCatalogRow, CommunityContextRow, CommunityLevelRow, CommunityRow


class CommunityStore(Role):
    # --- detection ----------------------------------------------------------------------------------------
    def entity_edges(self) -> list[tuple[str, str, float]]:
        weights: dict[tuple[str, str], float] = {}
        for record in self.connection.stream(q.ENTITY_EDGES):
            a, b = record["source"], record["target"]
            key = (a, b) if a < b else (b, a)
            weights[key] = weights.get(key, 0.0) + float(record["weight"])
        return [(a, b, w) for (a, b), w in sorted(weights.items())]

    def entity_ids(self) -> list[str]:
        return [r["id"] for r in self.connection.read(q.ENTITY_IDS)]

    # --- reports ------------------------------------------------------------------------------------------
    def community_catalog(self) -> list[CommunityCatalogRow]:
        return cast(list[CommunityCatalogRow], self.connection.read(q.COMMUNITY_CATALOG))

    def community_context(
        self, communities: list[dict[str, Any]], max_members: int = 30, max_relations: int = 20
    ) -> dict[str, CommunityContextRow]:
        rows = self.connection.read(
            q.COMMUNITY_CONTEXT, communities=communities, max_members=max_members, max_relations=max_relations
        )
        return {r["id"]: cast(CommunityContextRow, r) for r in rows}

    def write_communities(
        self,
        removed: list[str],
        rows: list[dict[str, Any]],
        embeddings: list[dict[str, Any]],
        members: list[dict[str, str]],
        parents: list[dict[str, str]],
        graph_hashes: Sequence[dict[str, str]] = (),
        batch_size: int = 5000,
    ) -> None:
        for statement, data, key in (
            (q.WRITE_COMMUNITIES, rows, "rows"),
            (q.SET_COMMUNITY_EMBEDDINGS, embeddings, "rows"),
            (q.SET_GRAPH_HASHES, list(graph_hashes), "rows"),
            (q.DELETE_COMMUNITIES, removed, "ids"),
            (q.LINK_MEMBERS, members, "rows"),
            (q.LINK_PARENTS, parents, "rows"),
        ):
            write_batches(self.connection, statement, key, data, batch_size)

    def communities(self, level: int | None = None, limit: int = 20) -> list[CommunityRow]:
        return cast(list[CommunityRow], self.connection.read(q.COMMUNITIES_BY_LEVEL, level=level, limit=limit))

    def community_levels(self) -> list[CommunityLevelRow]:
        return cast(list[CommunityLevelRow], self.connection.read(q.COMMUNITY_LEVELS))

    # --- search -------------------------------------------------------------------------------------------
    def entity_communities(self, ids: list[str], limit: int) -> list[CommunityRow]:
        return cast(list[CommunityRow], self.connection.read(ENTITY_COMMUNITIES, ids=ids, limit=limit))

    def community_vector_search(self, embedding: list[float], k: int, level: int | None) -> list[CommunityRow]:
        # Ask the index wide: a level filter after an approximate top-k could leave nothing.
        return cast(
            list[CommunityRow],
            self.connection.read(
                COMMUNITY_VECTOR_SEARCH, embedding=embedding, k=k, level=level, candidates=max(k * 20, 500)
            ),
        )

    def communities_at_level(self, level: int, embedding: list[float]) -> list[CommunityRow]:
        return cast(list[CommunityRow], self.connection.read(COMMUNITIES_AT_LEVEL, level=level, embedding=embedding))
