"""The sources a workspace keeps in step with (a folder, a web site, a bucket), each one node holding its
record: where it is, how it is read, and the state of every item at the last sync."""

from __future__ import annotations

import builtins

from graphwright.graph_store.connection import Role
from graphwright.graph_store.queries import sources as q
from graphwright.models import SourceRecord


class SourceStore(Role):
    def list(self) -> builtins.list[SourceRecord]:
        return [SourceRecord.model_validate_json(r["record"]) for r in self.connection.read(q.LIST_SOURCES)]

    def get(self, source_id: str) -> SourceRecord | None:
        rows = self.connection.read(q.GET_SOURCE, id=source_id)
        return SourceRecord.model_validate_json(rows[0]["record"]) if rows else None

    def put(self, record: SourceRecord) -> None:
        self.connection.write(
            q.PUT_SOURCE,
            id=record.id,
            kind=record.kind,
            location=record.location,
            record=record.model_dump_json(),
            last_sync=record.last_sync,
        )

    def forget(self, source_id: str) -> bool:
        return bool(self.connection.write(q.FORGET_SOURCE, id=source_id)[0]["forgotten"])
