"""Resetting a workspace, and the server's security posture (AdminRole, `graphwright doctor`)."""

from __future__ import annotations


# Reset of a workspace: its nodes, a label at a time (each node of ours has one of these labels).
def delete_label_batch(label: str) -> str:
    if label not in WORKSPACE_LABELS:
        raise ValueError(f"not a label of ours: {label!r}")
    return f"MATCH (n:{label}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n"


WORKSPACE_LABELS = (
    "Turn",
    "Conversation",
    "StagedChunk",
    "FailedFile",
    "Chunk",
    "Entity",
    "Community",
    "Document",
    "CurationChange",
    "GraphwrightMeta",
    "SyncedSource",
)

# Reset of the default workspace: every node no other workspace owns (so what else was written to the
# database, the peers' graphs of `graphwright eval` say, goes too, as it always did), but not the registry.
DELETE_DEFAULT_BATCH = """
MATCH (n) WHERE NOT n:GraphwrightWorkspace AND none(l IN labels(n) WHERE l =~ $other)
WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n
"""

OTHER_WORKSPACE_NAME = "[a-z0-9][a-z0-9_-]*__[A-Za-z][A-Za-z0-9_]*"

SECURITY_SETTINGS = "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value"

# A probe, run in a READ transaction: what the server answers says whether LOAD CSV may reach `$url`.
LOAD_PROBE = "LOAD CSV FROM $url AS row RETURN count(row) AS n"
