"""Reads of the entity graph: entity linking, neighbourhoods, relations, paths, profiles, and read-only
Cypher written by a model or a user."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import cast

from graphwright.errors import BusyError
from graphwright.graph_store.connection import Neo4jConnection, Role
from graphwright.graph_store.contracts import ReadLimits
from graphwright.graph_store.cypher_gate.read_only import run_read_only
from graphwright.graph_store.queries import graph as q
from graphwright.graph_store.queries.entities import (
    COUNT_ENTITIES,
    ENTITIES_BY_ID,
    ENTITY_CATALOG,
    ENTITY_DESCRIPTIONS,
    ENTITY_VECTOR_SEARCH,
    EXPORT_ENTITIES,
    EXPORT_RELATIONS,
    GRAPH_OVERVIEW,
    LIST_ENTITIES,
    TOP_ENTITIES,
)
from graphwright.graph_store.queries.inspection import ENTITY_PROFILE, ENTITY_SOURCES
from graphwright.graph_store.rows import (
    CatalogEntityRow,
    CommonNeighbourRow,
    EntityListRow,
    EntityProfileRow,
    EntityRow,
    EntitySourceRow,
    ExportEntityRow,
    ExportRelationRow,
    FoundEntityRow,
    KeyedEntityRow,
    NeighbourhoodRow,
    OverviewRow,
    PathRow,
    RelationRow,
    ScoredEntityRow,
    TopEntityRow,
)
from graphwright.models import CypherRows
from graphwright.text.normalize import RESERVED_RELATIONS, normalize_key


class GraphReads(Role):
    def __init__(self, connection: Neo4jConnection) -> None:
        super().__init__(connection)
        self._cypher_slots: dict[str, threading.BoundedSemaphore] = {}  # per caller
        self._slots_lock = threading.Lock()

    # --- linking ------------------------------------------------------------------------------------------
    def entities_by_key(self, keys: list[str]) -> list[KeyedEntityRow]:
        return cast(list[KeyedEntityRow], self.connection.read(q.ENTITIES_BY_KEY, keys=keys))

    def entity_name_search(self, lucene_query: str, k: int) -> list[ScoredEntityRow]:
        return cast(list[ScoredEntityRow], self.connection.read(q.ENTITY_NAME_SEARCH, query=lucene_query, k=k))

    def entity_vector_search(self, embedding: list[float], k: int) -> list[ScoredEntityRow]:
        return cast(
            list[ScoredEntityRow],
            self.connection.read(ENTITY_VECTOR_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100)),
        )

    def entities_with_ids(self, ids: list[str]) -> list[EntityRow]:
        rows = {r["id"]: cast(EntityRow, r) for r in self.connection.read(ENTITIES_BY_ID, ids=ids)}
        return [rows[i] for i in ids if i in rows]

    def entity_catalog(self) -> list[CatalogEntityRow]:
        return cast(list[CatalogEntityRow], self.connection.read(ENTITY_CATALOG))

    def entity_descriptions(self, ids: list[str]) -> dict[str, str]:
        rows = self.connection.read(ENTITY_DESCRIPTIONS, ids=ids)
        return {str(r["id"]): str(r["description"]) for r in rows if r["description"]}

    # --- neighbourhoods, relations, paths --------------------------------------------------------------
    def neighbourhood(
        self, entity_ids: list[str], chunk_ids: list[str], embedding: list[float], per_entity: int, hub: int
    ) -> NeighbourhoodRow:
        rows = self.connection.read(
            q.NEIGHBOURHOOD,
            entity_ids=entity_ids,
            chunk_ids=chunk_ids,
            embedding=embedding,
            per_entity=per_entity,
            hub=hub,
        )
        return cast(NeighbourhoodRow, rows[0])

    def relations_among(self, ids: list[str], seeds: list[str], limit: int) -> list[RelationRow]:
        return cast(list[RelationRow], self.connection.read(q.RELATIONS_AMONG, ids=ids, seeds=seeds, limit=limit))

    def shortest_paths(self, source: str, target: str, limit: int) -> list[PathRow]:
        return cast(list[PathRow], self.connection.read(q.SHORTEST_PATHS, source=source, target=target, limit=limit))

    def common_neighbours(self, a: str, types_a: list[str], b: str, types_b: list[str]) -> list[CommonNeighbourRow]:
        return cast(
            list[CommonNeighbourRow],
            self.connection.read(q.COMMON_NEIGHBOURS, a=a, types_a=types_a, b=b, types_b=types_b),
        )

    def entity_relations(self, entity_id: str, limit: int) -> list[RelationRow]:
        return [r["relation"] for r in self.connection.read(q.ENTITY_RELATIONS, id=entity_id, limit=limit)]

    def entity_lookup(self, text: str, limit: int) -> list[FoundEntityRow]:
        rows = self.connection.read(q.ENTITY_LOOKUP, key=normalize_key(text), text=text.strip().casefold(), limit=limit)
        return cast(list[FoundEntityRow], rows)

    def relation_types(self) -> list[str]:
        ws = self.connection.workspace
        names = (ws.base_of(r["type"]) for r in self.connection.read(q.RELATION_TYPES) if ws.owns(r["type"]))
        return sorted(t for t in names if t not in RESERVED_RELATIONS)

    # --- inspection ---------------------------------------------------------------------------------------
    def top_entities(self, limit: int = 5) -> list[TopEntityRow]:
        return cast(list[TopEntityRow], self.connection.read(TOP_ENTITIES, limit=limit))

    def list_entities(
        self, offset: int = 0, limit: int = 100, *, search: str | None = None, type: str | None = None
    ) -> list[EntityListRow]:
        rows = self.connection.read(
            LIST_ENTITIES,
            offset=offset,
            limit=limit,
            search=search.lower() if search else None,
            type=type.lower() if type else None,
        )
        return cast(list[EntityListRow], rows)

    def count_entities(self, *, search: str | None = None, type: str | None = None) -> int:
        rows = self.connection.read(
            COUNT_ENTITIES, search=search.lower() if search else None, type=type.lower() if type else None
        )
        return int(rows[0]["n"])

    def overview(self, limit: int = 150, types: list[str] | None = None, min_degree: int = 0) -> list[OverviewRow]:
        rows = self.connection.read(GRAPH_OVERVIEW, limit=limit, types=types or None, min_degree=min_degree)
        return cast(list[OverviewRow], rows)

    def export_entities(self, ids: list[str] | None = None) -> Iterator[ExportEntityRow]:
        for record in self.connection.stream(EXPORT_ENTITIES, ids=ids):
            yield cast(ExportEntityRow, record.data())

    def export_relations(self, ids: list[str] | None = None) -> Iterator[ExportRelationRow]:
        for record in self.connection.stream(EXPORT_RELATIONS, ids=ids):
            yield cast(ExportRelationRow, record.data())

    def entity_profile(self, entity_id: str) -> EntityProfileRow | None:
        rows = self.connection.read(ENTITY_PROFILE, id=entity_id)
        return cast(EntityProfileRow, rows[0]) if rows else None

    def entity_sources(self, entity_id: str, limit: int = 20) -> list[EntitySourceRow]:
        return cast(list[EntitySourceRow], self.connection.read(ENTITY_SOURCES, id=entity_id, limit=limit))

    # --- read-only Cypher ---------------------------------------------------------------------------------
    def read_only(self, query: str, limits: ReadLimits, caller: str = "") -> CypherRows:
        with self._slots_lock:
            slots = self._cypher_slots.get(caller)
            if slots is None:
                slots = self._cypher_slots[caller] = threading.BoundedSemaphore(limits.max_concurrent)
        if not slots.acquire(timeout=1.0):
            raise BusyError(
                f"{limits.max_concurrent} read-only Cypher queries of this caller are already running here (the "
                "limit); try again",
                retry_after=max(1, int(limits.timeout)),
            )
        try:
            return run_read_only(self.connection, query, limits)
        finally:
            slots.release()

    def schema_text(self) -> str:
        ws = self.connection.workspace
        lines = ["Nodes (label: properties):"]
        for row in sorted(self.connection.read(q.SCHEMA_NODE_PROPERTIES), key=lambda r: r["labels"]):
            if row["labels"] and all(ws.owns(label) for label in row["labels"]):
                labels = ":".join(ws.identifier(ws.base_of(label)) for label in row["labels"])
                lines.append(f"- {labels}: {', '.join(sorted(row['properties']))}")
        types = [ws.identifier(t) for t in self.relation_types()]
        lines += [
            "Relationships:",
            ws.render(
                "- (:Chunk)-[:PART_OF]->(:Document), (:Chunk)-[:NEXT]->(:Chunk),\n"
                "  (:Chunk)-[:MENTIONS {count}]->(:Entity), (:Entity)-[:IN_COMMUNITY]->(:Community),\n"
                "  (:Community)-[:PARENT_OF]->(:Community)"
            ),
            "- between entities (properties weight, description, evidence, chunk_ids): " + ", ".join(types[:200]),
        ]
        if not ws.is_default:
            lines.append(f"Every label and relationship type is named as above, with its `{ws.prefix}` prefix.")
        return "\n".join(lines)
