"""Schema, counts, integrity rules and reset: the store's administration."""

from __future__ import annotations

from typing import Any, cast

from graphwright.graph_store.connection import Neo4jConnection, Role
from graphwright.graph_store.queries import schema as q
from graphwright.graph_store.queries.admin import (
    DELETE_DEFAULT_BATCH,
    OTHER_WORKSPACE_NAME,
    WORKSPACE_LABELS,
    delete_label_batch,
)
from graphwright.graph_store.queries.documents import COUNTS
from graphwright.graph_store.queries.inspection import (
    ENTITY_TYPE_COUNTS,
    INTEGRITY_CHECKS,
    RELATION_TYPE_COUNTS,
    RESUMABLE,
)
from graphwright.graph_store.rows import EmbeddingSourceRow, IndexRow, IntegrityProblem, MetaRow
from graphwright.graph_store.schema import SchemaPlan, check_compatible


class StoreAdmin(Role):
    def __init__(self, connection: Neo4jConnection) -> None:
        super().__init__(connection)
        self.workspace = connection.workspace

    def vector_index_dimensions(self) -> dict[str, int | None]:
        return {
            self.workspace.base_of(row["name"]): row["dimension"]
            for row in self.connection.read(q.SHOW_VECTOR_INDEXES)
            if self.workspace.owns(row["name"])
        }

    def ensure_schema(self, plan: SchemaPlan) -> list[str]:
        check_compatible(self.vector_index_dimensions(), self.meta(), plan)
        # A fulltext index whose properties changed between versions is rebuilt (Neo4j repopulates it from
        # the nodes); `IF NOT EXISTS` alone would keep the old definition.
        for row in self.indexes():
            wanted = q.FULLTEXT_PROPERTIES.get(self.workspace.base_of(row["name"]))
            if row["type"] == "FULLTEXT" and wanted and list(row["properties"] or []) != wanted[1]:
                self.connection.write(q.DROP_INDEX, name=row["name"])
        statements = plan.statements()
        for statement in statements:
            self.connection.write(statement)
        self.connection.write(q.SET_META, model=plan.embedding_model, dimension=plan.dimension)
        self.await_indexes()
        return statements

    def await_indexes(self, seconds: int = 300) -> None:
        self.connection.write(q.AWAIT_INDEXES, seconds=seconds)

    def _in_batches(self, query: str, batch: int) -> None:
        """A write that handles `$batch` nodes per transaction and returns how many as `n`, until none is left:
        bounded transaction memory on any graph size."""
        while self.connection.write(query, batch=batch)[0]["n"]:
            pass

    def meta(self) -> MetaRow | None:
        rows = self.connection.read(q.GET_META)
        return cast(MetaRow, rows[0]) if rows else None

    def graph_schema(self) -> str | None:
        rows = self.connection.read(q.GET_GRAPH_SCHEMA)
        return cast(str, rows[0]["schema"]) if rows else None

    def set_graph_schema(self, schema_json: str) -> None:
        self.connection.write(q.SET_GRAPH_SCHEMA, schema=schema_json)

    # --- re-embedding (graphwright reembed) ------------------------------------------------------------
    def begin_reembed(self, model: str, batch: int = 10_000) -> None:
        meta = self.meta()
        if meta is None or meta.get("reembed_model") != model:
            for label in q.EMBEDDING_LABELS:
                self._in_batches(q.clear_next_embeddings(label), batch)
            self.connection.write(q.SET_REEMBED_MODEL, model=model)

    def embedding_page(self, label: str, after: str, limit: int) -> list[EmbeddingSourceRow]:
        return cast(list[EmbeddingSourceRow], self.connection.read(q.embedding_page(label), after=after, limit=limit))

    def stage_embeddings(self, label: str, rows: list[dict[str, Any]]) -> None:
        self.connection.write(q.set_next_embeddings(label), rows=rows)

    def finish_reembed(self, plan: SchemaPlan, batch: int = 2_000) -> None:
        for name in q.VECTOR_INDEXES:
            self.connection.write(q.DROP_INDEX, name=self.workspace.name_of(name))
        for label in q.EMBEDDING_LABELS:
            self._in_batches(q.swap_embeddings(label), batch)
        for name in q.VECTOR_INDEXES:
            self.connection.write(q.vector_index(name, plan.dimension))
        self.connection.write(q.FINISH_REEMBED, model=plan.embedding_model, dimension=plan.dimension)
        self.await_indexes(600)

    def indexes(self) -> list[IndexRow]:
        rows = cast(list[IndexRow], self.connection.read(q.SHOW_INDEXES))
        return [row for row in rows if self.workspace.owns(row["name"])]

    def reset(self, batch: int = 10_000) -> None:
        if self.workspace.is_default:
            while self.connection.write(DELETE_DEFAULT_BATCH, batch=batch, other=OTHER_WORKSPACE_NAME)[0]["n"]:
                pass
        else:
            for label in WORKSPACE_LABELS:
                self._in_batches(delete_label_batch(label), batch)
        for row in self.connection.read(q.LIST_DROPPABLE):
            if self.workspace.owns(row["name"]):
                self.connection.write(q.DROP_INDEX, name=row["name"])
        for row in self.connection.read(q.LIST_CONSTRAINTS):
            if self.workspace.owns(row["name"]):
                self.connection.write(q.DROP_CONSTRAINT, name=row["name"])

    def counts(self) -> dict[str, int]:
        return cast(dict[str, int], self.connection.read(COUNTS)[0])

    def type_counts(self) -> dict[str, dict[str, int]]:
        return {
            "entities": {r["type"]: r["n"] for r in self.connection.read(ENTITY_TYPE_COUNTS)},
            "relations": {r["type"]: r["n"] for r in self.connection.read(RELATION_TYPE_COUNTS)},
        }

    def integrity_problems(self) -> dict[str, IntegrityProblem]:
        found = {}
        for rule, cypher in INTEGRITY_CHECKS.items():
            row = self.connection.read(cypher)[0]
            if row["n"]:
                found[rule] = cast(IntegrityProblem, row)
        return found

    def resumable(self) -> IntegrityProblem:
        return cast(IntegrityProblem, self.connection.read(RESUMABLE)[0])
