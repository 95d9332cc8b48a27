"""Leiden's input and the communities written from it (CommunitiesRole)."""

from __future__ import annotations

from graphwright.graph_store.queries.entities import set_embeddings

ENTITY_EDGES = """
MATCH (a:Entity)-[r]->(b:Entity)
WHERE a <> b
RETURN a.id AS source, b.id AS target, sum(coalesce(r.weight, 1.0)) AS weight
"""

ENTITY_IDS = "MATCH (e:Entity) RETURN e.id AS id"

COMMUNITY_CATALOG = """
MATCH (c:Community)
OPTIONAL MATCH (p:Community)-[:PARENT_OF]->(c)
RETURN c.id AS id, c.level AS level, c.members AS members, c.graph_hash AS graph_hash, p.id AS parent,
       c.title AS title, c.summary AS summary, c.findings AS findings, coalesce(c.rating, 0.0) AS rating,
       c.rating_explanation AS rating_explanation, c.report_kind AS report_kind,
       coalesce(c.stale, false) AS stale, c.report_members AS report_members,
       coalesce(c.cited_chunks, []) AS cited_chunks
"""

DELETE_COMMUNITIES = "UNWIND $ids AS cid MATCH (c:Community {id: cid}) DETACH DELETE c"

# A community's id is its level and member set: the member links of one that is kept are already right, so
# only new communities are linked, and vanished ones leave with their links (DETACH DELETE).
WRITE_COMMUNITIES = """
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c.level = row.level, c.size = row.size, c.member_hash = row.member_hash, c.members = row.members,
    c.graph_hash = row.graph_hash, c.title = row.title, c.summary = row.summary, c.findings = row.findings,
    c.rating = row.rating, c.rating_explanation = row.rating_explanation, c.report_kind = row.report_kind,
    c.cited_chunks = row.cited_chunks, c.stale = row.stale, c.changed = row.changed,
    c.report_members = row.report_members, c.updated_at = datetime()
"""

SET_GRAPH_HASHES = """
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.graph_hash = row.graph_hash
"""

SET_COMMUNITY_EMBEDDINGS = set_embeddings("Community")

LINK_MEMBERS = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.entity}), (c:Community {id: row.community})
MERGE (e)-[:IN_COMMUNITY]->(c)
"""

LINK_PARENTS = """
UNWIND $rows AS row
MATCH (p:Community {id: row.parent}), (c:Community {id: row.child})
MERGE (p)-[:PARENT_OF]->(c)
"""

COMMUNITY_CONTEXT = """
UNWIND $communities AS com
CALL (com) {
  UNWIND com.members AS mid
  MATCH (e:Entity {id: mid})
  WITH e ORDER BY e.degree DESC, e.name LIMIT $max_members
  RETURN collect(e {.id, .name, .type, .degree, .description}) AS members
}
CALL (com) {
  UNWIND com.members AS mid
  MATCH (a:Entity {id: mid})-[r]->(b:Entity)
  WHERE b.id IN com.members
  WITH a, r, b ORDER BY r.weight DESC, a.name, b.name LIMIT $max_relations
  RETURN collect({source: a.name, target: b.name, type: type(r), weight: r.weight, description: r.description,
                  evidence: r.evidence, chunk_ids: r.chunk_ids}) AS relations
}
RETURN com.id AS id, members, relations
"""

COMMUNITIES_BY_LEVEL = """
MATCH (c:Community)
WHERE $level IS NULL OR c.level = $level
RETURN c.id AS id, c.level AS level, c.size AS size, c.title AS title, c.summary AS summary, c.rating AS rating,
       c.findings AS findings, c.report_kind AS report_kind
ORDER BY c.level, c.size DESC, c.title
LIMIT $limit
"""

COMMUNITY_LEVELS = """
MATCH (c:Community) RETURN c.level AS level, count(*) AS communities, sum(c.size) AS members ORDER BY level
"""
