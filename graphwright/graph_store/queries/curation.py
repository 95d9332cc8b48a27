"""Curation: the workspace lock, snapshots for undo, the changes themselves and their audit trail (CurationRole)."""

from __future__ import annotations

# Every change takes this lock first (a write lock on the workspace's meta node, which `init` made), so
# changes in one workspace run one at a time and each reads what the one before committed.
CURATION_LOCK = """
MATCH (m:GraphwrightMeta {id: 'schema'})
SET m.curation_seq = coalesce(m.curation_seq, 0) + 1
RETURN m.curation_seq AS seq
"""

CURATION_RULES = "MATCH (m:GraphwrightMeta {id: 'schema'}) RETURN m.curation_rules AS rules"

SET_CURATION_RULES = "MATCH (m:GraphwrightMeta {id: 'schema'}) SET m.curation_rules = $rules"

CURATION_ENTITY = """
MATCH (e:Entity) WHERE e.id = $ref OR e.key = $key
RETURN e.id AS id, e.name AS name, e.type AS type, coalesce(e.degree, 0) AS degree
ORDER BY e.id = $ref DESC, degree DESC
LIMIT 5
"""

# A snapshot of entities as they are: the node (every property, its type labels), who mentions it, its
# communities; and the relations of the scope (all touching the entities, or only those among them).
SNAPSHOT_ENTITIES = """
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})
RETURN e.id AS id, properties(e) AS props, [l IN labels(e) WHERE l <> 'Entity'] AS labels,
       [(c:Chunk)-[m:MENTIONS]->(e) | [c.id, m.count]] AS mentions,
       [(e)-[:IN_COMMUNITY]->(k:Community) | k.id] AS communities
"""

SNAPSHOT_RELATIONS = """
UNWIND $ids AS eid
MATCH (:Entity {id: eid})-[r]-(o:Entity)
WHERE $touching OR o.id IN $ids
WITH DISTINCT r
RETURN startNode(r).id AS source, type(r) AS type, endNode(r).id AS target, properties(r) AS props
"""

NEIGHBOUR_IDS = """
UNWIND $ids AS eid
MATCH (:Entity {id: eid})-[]-(o:Entity)
RETURN collect(DISTINCT o.id) AS ids
"""

DELETE_RELATION = """
MATCH (a:Entity {id: $source})-[r]->(b:Entity {id: $target})
WHERE type(r) = $type
DELETE r
RETURN count(r) AS deleted
"""

DELETE_RELATIONS_OF = """
UNWIND $ids AS eid
MATCH (:Entity {id: eid})-[r]-(o:Entity)
WHERE $touching OR o.id IN $ids
DELETE r
"""

DELETE_MENTIONS_OF = """
UNWIND $ids AS eid
MATCH (:Chunk)-[m:MENTIONS]->(:Entity {id: eid})
DELETE m
"""

DELETE_ENTITIES = "UNWIND $ids AS eid MATCH (e:Entity {id: eid}) DETACH DELETE e"

RESTORE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e = row.props
"""

REMOVE_ENTITY_LABEL = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
REMOVE e:$(row.label)
"""

ADD_ENTITY_LABEL = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
SET e:$(row.label)
"""

RESTORE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {id: row.source}), (b:Entity {id: row.target})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
"""

RESTORE_COMMUNITY_LINKS = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id}), (k:Community {id: row.community})
MERGE (e)-[:IN_COMMUNITY]->(k)
"""

SET_ENTITY_PROPERTIES = """
MATCH (e:Entity {id: $id})
SET e += $props
"""

WRITE_CHANGE = """
CREATE (c:CurationChange {id: $id})
SET c += $props, c.at = datetime()
"""

CHANGES = """
MATCH (c:CurationChange)
RETURN c.id AS id, c.seq AS seq, c.op AS op, c.summary AS summary, c.who AS who, toString(c.at) AS at,
       c.status AS status, c.affected AS affected, c.undoes AS undoes, c.undone_by AS undone_by
ORDER BY c.seq DESC
SKIP $offset LIMIT $limit
"""

CHANGE = """
MATCH (c:CurationChange {id: $id})
RETURN c.id AS id, c.seq AS seq, c.op AS op, c.summary AS summary, c.status AS status, c.affected AS affected,
       c.before AS before, c.after_hash AS after_hash
"""

LAST_ACTIVE_CHANGE = """
MATCH (c:CurationChange {status: 'applied'}) WHERE c.op <> 'undo'
RETURN c.id AS id ORDER BY c.seq DESC LIMIT 1
"""

LATER_ACTIVE_CHANGES = """
MATCH (c:CurationChange {status: 'applied'})
WHERE c.seq > $seq AND c.op <> 'undo' AND any(x IN c.affected WHERE x IN $affected)
RETURN c.id AS id, c.summary AS summary ORDER BY c.seq
"""

ACTIVE_RULES = """
MATCH (c:CurationChange {status: 'applied'})
WHERE c.rule IS NOT NULL
RETURN c.rule AS rule ORDER BY c.seq
"""

MARK_UNDONE = """
MATCH (c:CurationChange {id: $id})
SET c.status = 'undone', c.undone_by = $by, c.undone_at = datetime()
"""
