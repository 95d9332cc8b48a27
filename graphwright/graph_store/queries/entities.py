"""The entity graph: entities, mentions, relations, literal facts, synonyms, the entities table, export."""

from __future__ import annotations

from graphwright.graph_store.queries.schema import CHUNK_FULLTEXT_INDEX, ENTITY_VECTOR_INDEX, _embedded_label

# Provenance lives on the edges: MENTIONS from each chunk, and on every extracted relation the parallel
# lists chunk_ids / chunk_weights / evidence (weight = their sum). Removing a chunk prunes exactly its share.
_ENTITY_FIELDS = "e.id AS id, e.name AS name, e.type AS type, coalesce(e.description, '') AS description"

ENTITIES_BY_ID = f"""
UNWIND $ids AS eid
MATCH (e:Entity {{id: eid}})
RETURN {_ENTITY_FIELDS}
"""

ENTITY_VECTOR_SEARCH = f"""
CALL db.index.vector.queryNodes('{ENTITY_VECTOR_INDEX}', $candidates, $embedding) YIELD node AS e, score
RETURN {_ENTITY_FIELDS}, score
ORDER BY score DESC
LIMIT $k
"""

EXISTING_CHUNKS = """
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS id, c.text AS text
"""

DOCUMENT_CHUNKS = "MATCH (c:Chunk {document_id: $id}) RETURN c.id AS id, c.text AS text ORDER BY c.index"

CHUNKS_MATCHING = f"""
CALL db.index.fulltext.queryNodes('{CHUNK_FULLTEXT_INDEX}', $query, {{limit: $k}}) YIELD node
RETURN node.id AS id, node.text AS text
"""

ENTITY_CATALOG = "MATCH (e:Entity) RETURN e.id AS id, e.key AS key, e.name AS name, e.type AS type"

ENTITY_DESCRIPTIONS = "MATCH (e:Entity) WHERE e.id IN $ids RETURN e.id AS id, e.description AS description"

DOCUMENT_SUPPORT = """
MATCH (c:Chunk {document_id: $id})
OPTIONAL MATCH (c)-[m:MENTIONS]->(e:Entity)
RETURN collect(DISTINCT c.id) AS chunk_ids, collect(DISTINCT e.id) AS entity_ids,
       reduce(acc = [], names IN collect(coalesce(m.names, [])) | acc + names) AS names
"""

PRUNE_RELATION_SUPPORT = """
UNWIND $entity_ids AS eid
MATCH (:Entity {id: eid})-[r]-(:Entity)
WHERE any(x IN r.chunk_ids WHERE x IN $chunk_ids)
WITH DISTINCT r
WITH r, [i IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[i] IN $chunk_ids] AS keep,
     coalesce(r.descriptions, []) AS said
WITH r, [i IN keep | r.chunk_ids[i]] AS ids, [i IN keep | r.chunk_weights[i]] AS ws, [i IN keep | r.evidence[i]] AS ev,
     [i IN keep | coalesce(said[i], '')] AS ds
SET r.chunk_ids = ids, r.chunk_weights = ws, r.evidence = ev, r.weight = reduce(w = 0.0, x IN ws | w + x),
    r.descriptions = ds,
    r.description = left(reduce(acc = '', d IN ds | CASE WHEN d = '' OR acc CONTAINS d THEN acc
                                                         ELSE trim(acc + ' ' + d) END), $max_description)
"""

# A stored answer that quoted passages now gone (their document deleted, or changed so that they went) is
# replaced by a note: the conversation keeps the question and says what happened; nothing of the passage stays.
REDACT_TURNS = """
MATCH (t:Turn) WHERE any(c IN coalesce(t.chunk_ids, []) WHERE c IN $ids)
WITH t, [c IN t.chunk_ids WHERE c IN $ids AND NOT EXISTS { MATCH (:Chunk {id: c}) }] AS gone
WHERE size(gone) > 0
SET t.answer = $note, t.redacted = coalesce(t.redacted, []) + gone
"""

# After a delete, the entities it touched that remain: description and aliases made again from what the
# remaining chunks said of them (kept on MENTIONS), so nothing only the deleted text said survives. An entity
# with a mention written before mentions kept that (or moved by a curation merge) keeps what it has; a
# description a person wrote ($described) stands.
REDESCRIBE_ENTITIES = """
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
MATCH (c:Chunk)-[m:MENTIONS]->(e)
WITH e, m ORDER BY c.id
WITH e, collect(m) AS ms
WHERE all(m IN ms WHERE m.description IS NOT NULL)
WITH e, ms, reduce(acc = [], m IN ms | acc + coalesce(m.names, [])) AS names
SET e.aliases = [a IN coalesce(e.aliases, []) WHERE a IN names OR NOT a IN $removed_names]
WITH e, ms WHERE NOT e.id IN $described
SET e.description = left(reduce(acc = '', m IN ms | CASE WHEN m.description = '' OR acc CONTAINS m.description
                                                         THEN acc ELSE trim(acc + ' ' + m.description) END),
                         $max_description)
"""

DELETE_UNSUPPORTED_RELATIONS = """
UNWIND $entity_ids AS eid
MATCH (:Entity {id: eid})-[r]-(:Entity)
WHERE r.chunk_ids IS NOT NULL AND size(r.chunk_ids) = 0
DELETE r
"""

DELETE_ORPHAN_ENTITIES = """
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
DETACH DELETE e
RETURN count(*) AS deleted
"""

WRITE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.name = row.name, e.key = row.key, e.type = row.type, e.description = row.description,
              e.aliases = row.aliases
ON MATCH SET e.description = CASE
                 WHEN row.replace_description THEN row.description
                 WHEN row.description = '' OR coalesce(e.description, '') CONTAINS row.description
                 THEN e.description
                 ELSE left(trim(coalesce(e.description, '') + ' ' + row.description), $max_description) END,
             e.aliases = coalesce(e.aliases, []) + [a IN row.aliases WHERE NOT a IN coalesce(e.aliases, [])],
             e.type = CASE WHEN e.type = 'CONCEPT' THEN row.type ELSE e.type END
"""

# The label follows the type; a CONCEPT upgraded to a real type loses the Concept label.
SET_ENTITY_LABELS = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
WHERE e.type = row.type
REMOVE e:Concept
SET e:$(row.label)
"""


def set_embeddings(label: str) -> str:
    """Vector property writes for our own labels only (the label is formatted in, so it is allowlisted)."""
    return f"""
UNWIND $rows AS row
MATCH (n:{_embedded_label(label)} {{id: row.id}})
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
"""


SET_ENTITY_EMBEDDINGS = set_embeddings("Entity")

WRITE_MENTIONS = """
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id}), (e:Entity {id: row.entity_id})
MERGE (c)-[m:MENTIONS]->(e)
SET m.count = row.count, m.description = row.description, m.names = row.names
"""

WRITE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {id: row.source}), (b:Entity {id: row.target})
MERGE (a)-[r:$(row.type)]->(b)
ON CREATE SET r.chunk_ids = [], r.chunk_weights = [], r.evidence = [], r.description = '', r.descriptions = []
WITH r, row, [i IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[i] IN row.chunk_ids] AS keep
WITH r, row, keep, coalesce(r.descriptions, []) AS said
WITH r, row, [i IN keep | r.chunk_ids[i]] + row.chunk_ids AS ids,
     [i IN keep | r.chunk_weights[i]] + row.chunk_weights AS ws, [i IN keep | r.evidence[i]] + row.evidence AS ev,
     [i IN keep | coalesce(said[i], '')] + row.descriptions AS ds
SET r.chunk_ids = ids, r.chunk_weights = ws, r.evidence = ev, r.weight = reduce(w = 0.0, x IN ws | w + x),
    r.descriptions = ds,
    r.description = CASE WHEN r.description CONTAINS row.description THEN r.description
                         ELSE left(trim(r.description + ' ' + row.description), $max_description) END
"""

# Literal facts kept as properties too, where the schema declares them (graph_schema.LiteralProperty): a view
# of the literal relations, recomputed for the entities a write or delete touched, so provenance and exact
# deletes stay with the relations. `literal_keys` names the properties set so, for the next recompute.
LITERAL_FACTS = """
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
WHERE e.type IN $types OR e.literal_keys IS NOT NULL
OPTIONAL MATCH (e)-[r]->(v:Entity)
WHERE type(r) IN $relations
RETURN e.id AS id, e.type AS type, coalesce(e.literal_keys, []) AS keys,
       [fact IN collect([type(r), v.name]) WHERE fact[0] IS NOT NULL] AS facts
"""

SET_LITERAL_PROPERTIES = """
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
SET e += row.properties, e.literal_keys = row.keys
"""

# Synonym candidates: each new entity keeps the ids of its nearest entities by name embedding (at most $cap,
# index score at least $min_score). A property, not relationships, so communities, paths and relation counts
# never see them; only the walk of local search reads them, and it skips ids no longer in the graph.
MISSING_SIMILAR = "MATCH (e:Entity) WHERE e.similar IS NULL AND e.embedding IS NOT NULL RETURN e.id AS id LIMIT $limit"

LINK_SIMILAR = f"""
UNWIND $ids AS eid
MATCH (e:Entity {{id: eid}})
WHERE e.embedding IS NOT NULL
CALL {{
  WITH e
  CALL db.index.vector.queryNodes('{ENTITY_VECTOR_INDEX}', $candidates, e.embedding) YIELD node, score
  WITH e, node, score
  WHERE node <> e AND score >= $min_score
  RETURN collect(node.id)[..$cap] AS near
}}
SET e.similar = near
"""

UPDATE_DEGREES = """
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})
SET e.degree = COUNT { (e)-[]-(:Entity) }
"""

# The entities table (`graphwright entities`, the page): by name and type, most connected first.
LIST_ENTITIES = """
MATCH (e:Entity)
WHERE ($search IS NULL OR toLower(e.name) CONTAINS $search) AND ($type IS NULL OR toLower(e.type) = $type)
WITH e ORDER BY coalesce(e.degree, 0) DESC, e.name SKIP $offset LIMIT $limit
RETURN e.id AS id, e.name AS name, e.type AS type, coalesce(e.degree, 0) AS degree,
       COUNT { (:Chunk)-[:MENTIONS]->(e) } AS chunks, e.description AS description
"""

COUNT_ENTITIES = """
MATCH (e:Entity)
WHERE ($search IS NULL OR toLower(e.name) CONTAINS $search) AND ($type IS NULL OR toLower(e.type) = $type)
RETURN count(e) AS n
"""

# An export of the entity graph, streamed: every entity (or those of `$ids`) and the relations among them.
EXPORT_ENTITIES = """
MATCH (e:Entity) WHERE $ids IS NULL OR e.id IN $ids
RETURN e.id AS id, e.name AS name, e.type AS type, e.description AS description, coalesce(e.degree, 0) AS degree
ORDER BY id
"""

EXPORT_RELATIONS = """
MATCH (a:Entity)-[r]->(b:Entity) WHERE $ids IS NULL OR (a.id IN $ids AND b.id IN $ids)
RETURN a.id AS source, b.id AS target, type(r) AS type, r.weight AS weight, r.description AS description,
       r.chunk_ids AS chunk_ids
ORDER BY source, target, type
"""

# The explorer's whole-graph view: the most connected entities (of some types, of a least degree) and the
# relations among them.
GRAPH_OVERVIEW = """
MATCH (e:Entity)
WHERE coalesce(e.degree, 0) >= $min_degree AND ($types IS NULL OR e.type IN $types)
WITH e ORDER BY coalesce(e.degree, 0) DESC, e.name LIMIT $limit
WITH collect(e) AS top
UNWIND top AS a
OPTIONAL MATCH (a)-[r]->(b:Entity) WHERE b IN top AND a <> b
RETURN a.id AS id, a.name AS name, a.type AS type, coalesce(a.degree, 0) AS degree,
       collect(CASE WHEN r IS NOT NULL THEN {target: b.id, type: type(r), weight: coalesce(r.weight, 1.0)} END) AS out
"""

TOP_ENTITIES = """
MATCH (e:Entity)
RETURN e.name AS name, e.type AS type, e.degree AS degree, COUNT { (:Chunk)-[:MENTIONS]->(e) } AS chunks
ORDER BY degree DESC, chunks DESC, name
LIMIT $limit
"""
