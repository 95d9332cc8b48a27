"""The folders, sites and buckets a workspace keeps in step with (graph_store/sources.py)."""

from __future__ import annotations

# A record is one node: the location and the items' state as JSON (read and written whole, by one sync).
PUT_SOURCE = """
MERGE (s:SyncedSource {id: $id})
SET s.kind = $kind, s.location = $location, s.record = $record, s.last_sync = $last_sync
"""

GET_SOURCE = "MATCH (s:SyncedSource {id: $id}) RETURN s.record AS record"

LIST_SOURCES = "MATCH (s:SyncedSource) RETURN s.record AS record ORDER BY s.id"

FORGET_SOURCE = "MATCH (s:SyncedSource {id: $id}) DETACH DELETE s RETURN count(*) AS forgotten"
