"""Graph search: entity linking, neighbourhoods, paths, chunks by id, document reads, read-only Cypher's schema."""

from __future__ import annotations

from typing import Any

from graphwright.graph_store.queries.entities import _ENTITY_FIELDS
from graphwright.graph_store.queries.retrieval import filter_clause
from graphwright.graph_store.queries.schema import COMMUNITY_VECTOR_INDEX, ENTITY_FULLTEXT_INDEX
from graphwright.models import MetadataFilter

ENTITIES_BY_KEY = f"""
UNWIND $keys AS key
MATCH (e:Entity {{key: key}})
RETURN key, {_ENTITY_FIELDS}, coalesce(e.degree, 0) AS degree
"""

ENTITY_NAME_SEARCH = f"""
CALL db.index.fulltext.queryNodes('{ENTITY_FULLTEXT_INDEX}', $query, {{limit: $k}}) YIELD node AS e, score
RETURN {_ENTITY_FIELDS}, score
"""

# Neighbours of the seeds ranked by how many seeds they touch, then the summed weight of those edges, then
# degree: an entity tied to two linked entities says more about the question than a hub tied to one.
_RELATION_FIELDS = """a.id AS source_id, a.name AS source, type(r) AS type, b.id AS target_id, b.name AS target,
       coalesce(r.description, '') AS description, coalesce(r.weight, 1.0) AS weight,
       coalesce(r.chunk_ids, []) AS chunk_ids, coalesce(r.evidence, []) AS evidence"""

RELATIONS_AMONG = f"""
MATCH (a:Entity)-[r]->(b:Entity)
WHERE a.id IN $ids AND b.id IN $ids AND a <> b
WITH a, r, b, (CASE WHEN a.id IN $seeds THEN 1 ELSE 0 END) + (CASE WHEN b.id IN $seeds THEN 1 ELSE 0 END) AS touches
RETURN {_RELATION_FIELDS}
ORDER BY touches DESC, weight DESC, source, target
LIMIT $limit
"""

# The neighbourhood that Personalized PageRank runs on (search/ppr.py): the whole cut in one read, as parallel
# lists in one row (records cost more to stream and decode than the lists they would hold: 779 entities took
# 33 ms as rows, against the query's 10 ms of work). The cut: the seed passages and the entities they mention;
# each of those entities' and the linked entities' passages closest to the question (at most $per_entity; a
# hub that is no seed, named in more than $hub passages, adds none: a walk through it passes each of its
# passages under 1/$hub of what reaches it, so they never rank, and ranking thousands would cost the most);
# the entities all those passages mention, with each one's full degree (a walk divides by it, so what an edge
# carries does not depend on what was fetched), the entities it relates to (the caller keeps those inside the
# cut) and its synonym list. Each subquery ends in an aggregate with no grouping key, so it returns one row
# even when it finds nothing.
NEIGHBOURHOOD = """
CALL () {
  UNWIND $chunk_ids AS cid
  MATCH (c:Chunk {id: cid})
  RETURN collect(c) AS seeds
}
CALL () {
  UNWIND $entity_ids AS eid
  MATCH (e:Entity {id: eid})
  RETURN collect(e) AS linked
}
CALL (seeds) {
  UNWIND seeds AS c
  MATCH (c)-[:MENTIONS]->(e:Entity)
  RETURN collect(DISTINCT e) AS mentioned
}
CALL (linked, mentioned) {
  UNWIND linked + mentioned AS e
  WITH DISTINCT e, linked
  WHERE e IN linked OR COUNT { (e)<-[:MENTIONS]-() } <= $hub
  MATCH (e)<-[:MENTIONS]-(c:Chunk)
  WITH e, c, vector.similarity.cosine(c.embedding, $embedding) AS similarity
  ORDER BY similarity DESC
  WITH e, collect(c)[..$per_entity] AS top
  UNWIND top AS c
  RETURN collect(DISTINCT c) AS reached
}
WITH seeds + [c IN reached WHERE NOT c IN seeds] AS chunks, linked
CALL (chunks) {
  UNWIND chunks AS c
  MATCH (c)-[:MENTIONS]->(e:Entity)
  WITH c, collect(e) AS entities
  RETURN collect(c.id) AS chunk_ids, collect([e IN entities | e.id]) AS chunk_entities,
         collect(entities) AS nested
}
CALL (linked, nested) {
  UNWIND [linked] + nested AS entities
  UNWIND entities AS e
  WITH DISTINCT e
  WITH e, COUNT { (e)<-[:MENTIONS]-() } AS mentions
  RETURN collect(e.id) AS entity_ids, collect(mentions) AS mentions, collect(coalesce(e.degree, 0)) AS relations,
         collect([(e)-[]->(o:Entity) WHERE o <> e | o.id]) AS related, collect(coalesce(e.similar, [])) AS similar
}
RETURN [c IN chunks | c.id] AS chunks, chunk_ids, chunk_entities, entity_ids, mentions, relations, related, similar
"""

ENTITY_COMMUNITIES = """
UNWIND $ids AS eid
MATCH (:Entity {id: eid})-[:IN_COMMUNITY]->(c:Community)
WITH c, count(*) AS hits
RETURN c.id AS id, c.level AS level, c.title AS title, c.summary AS summary, c.findings AS findings,
       coalesce(c.rating, 0.0) AS rating, coalesce(c.cited_chunks, []) AS cited_chunks, hits
ORDER BY hits DESC, c.level, rating DESC, c.id
LIMIT $limit
"""

_COMMUNITY_FIELDS = """c.id AS id, c.level AS level, c.title AS title, c.summary AS summary, c.findings AS findings,
       coalesce(c.rating, 0.0) AS rating, coalesce(c.cited_chunks, []) AS cited_chunks, c.size AS size,
       c.members AS members, coalesce(c.stale, false) AS stale"""

COMMUNITY_VECTOR_SEARCH = f"""
CALL db.index.vector.queryNodes('{COMMUNITY_VECTOR_INDEX}', $candidates, $embedding) YIELD node AS c, score
WHERE $level IS NULL OR c.level = $level
RETURN {_COMMUNITY_FIELDS}, score
ORDER BY score DESC
LIMIT $k
"""

COMMUNITIES_AT_LEVEL = f"""
MATCH (c:Community {{level: $level}})
RETURN {_COMMUNITY_FIELDS}, vector.similarity.cosine(c.embedding, $embedding) AS score
"""

_RELATION_MAP = """{source_id: startNode(r).id, source: startNode(r).name, type: type(r), target_id: endNode(r).id,
  target: endNode(r).name, description: coalesce(r.description, ''), weight: coalesce(r.weight, 1.0),
  chunk_ids: coalesce(r.chunk_ids, []), evidence: coalesce(r.evidence, [])}"""

# Shortest paths over extracted relations only, any direction, at most 4 hops. The quantified pattern puts
# the Entity label on every step, so the search never walks through chunks or communities (a filter on the
# finished path would, and then find nothing). Ordered by their relation types and nodes, so paths of one
# length (NASA -[CHOSE]-> and -[SELECTED]-> Blue Moon) come in the same order every time.
SHORTEST_PATHS = f"""
MATCH p = ALL SHORTEST (a:Entity {{id: $source}}) (()-[]-(:Entity)){{1,4}} (b:Entity {{id: $target}})
WITH p ORDER BY [r IN relationships(p) | type(r)], [n IN nodes(p) | n.id] LIMIT $limit
RETURN [n IN nodes(p) | n {{.id, .name, .type}}] AS nodes, [r IN relationships(p) | {_RELATION_MAP}] AS relations
"""

# Entities tied to A by one of $types_a and to B by one of $types_b (an empty list means any type).
COMMON_NEIGHBOURS = f"""
MATCH (a:Entity {{id: $a}})-[r1]-(x:Entity)-[r2]-(b:Entity {{id: $b}})
WHERE x <> a AND x <> b AND (size($types_a) = 0 OR type(r1) IN $types_a)
  AND (size($types_b) = 0 OR type(r2) IN $types_b)
WITH x, collect(DISTINCT r1) + collect(DISTINCT r2) AS rels
RETURN x.id AS id, x.name AS name, x.type AS type, coalesce(x.description, '') AS description,
       [r IN rels | {_RELATION_MAP}] AS relations
ORDER BY name
"""

# When no relation path exists: passages that mention both entities.
CO_MENTIONS = """
MATCH (:Entity {id: $a})<-[:MENTIONS]-(c:Chunk)-[:MENTIONS]->(:Entity {id: $b})
MATCH (c)-[:PART_OF]->(d:Document)
RETURN c.id AS chunk_id, c.document_id AS document_id, c.text AS text, d.title AS title, d.source AS source,
       c.pages AS pages, c.section AS section
ORDER BY c.document_id, c.index
LIMIT $limit
"""

ENTITY_RELATIONS = f"""
MATCH (e:Entity {{id: $id}})-[r]-(:Entity)
WITH r ORDER BY coalesce(r.weight, 1.0) DESC LIMIT $limit
RETURN {_RELATION_MAP} AS relation
"""

# The explorer's search box: names (or aliases) containing the typed text, the whole name first; else the hubs.
ENTITY_LOOKUP = """
MATCH (e:Entity)
WITH e, [a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS $text] AS aliases
WHERE $key = '' OR e.key CONTAINS $key OR size(aliases) > 0
RETURN e.id AS id, e.name AS name, e.type AS type, coalesce(e.degree, 0) AS degree
ORDER BY e.key = $key DESC, any(a IN aliases WHERE toLower(a) = $text) DESC, e.key STARTS WITH $key DESC,
         degree DESC, name
LIMIT $limit
"""

RELATION_TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType AS type"

CHUNKS_BY_IDS = """
UNWIND $ids AS cid
MATCH (c:Chunk {id: cid})-[:PART_OF]->(d:Document)
RETURN c.id AS chunk_id, c.document_id AS document_id, c.text AS text, d.title AS title, d.source AS source,
       c.pages AS pages, c.section AS section
"""

ALL_CHUNKS = """
MATCH (c:Chunk)-[:PART_OF]->(d:Document)
RETURN c.id AS chunk_id, c.document_id AS document_id, c.text AS text, d.title AS title, d.source AS source,
       c.pages AS pages, c.section AS section,
       c.embedding AS embedding
ORDER BY c.id
"""

# The distinct headings (sections, PDF page headings) of some documents: how common each heading word is there.
DOCUMENT_SECTIONS = """
UNWIND $ids AS id
MATCH (c:Chunk {document_id: id}) WHERE c.section IS NOT NULL AND c.section <> ''
WITH DISTINCT id, c.section AS section
RETURN id, section
LIMIT $limit
"""

PASSAGE_SIMILARITIES = """
UNWIND $ids AS id
MATCH (c:Chunk {id: id}) WHERE c.embedding IS NOT NULL
RETURN c.id AS id, vector.similarity.cosine(c.embedding, $embedding) AS score, c.language AS language
"""


def documents_passing(filters: list[MetadataFilter]) -> tuple[str, dict[str, Any]]:
    """Which of $ids name documents that pass `filters`."""
    where, params = filter_clause(filters)
    return f"UNWIND $ids AS id MATCH (d:Document {{id: id}}) {where} RETURN d.id AS id", params


# The documents a profile names (documents/document_profile.py), for a question that names their issuer.
DOCUMENT_PROFILES = """
MATCH (d:Document) WHERE d.issuer IS NOT NULL
RETURN d.id AS id, d.issuer AS issuer, coalesce(d.issuer_aliases, []) AS aliases,
       coalesce(d.tickers, []) AS tickers, d.doc_kind AS kind,
       d.fiscal_year AS fiscal_year, d.fiscal_quarter AS fiscal_quarter, coalesce(d.period_years, []) AS years
ORDER BY d.id
LIMIT $limit
"""

DOCUMENTS_KNOWN = """
UNWIND $keys AS key
OPTIONAL MATCH (d:Document) WHERE d.id = key OR d.title = key
RETURN key, count(d) > 0 AS known
"""

SCHEMA_NODE_PROPERTIES = """
CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName
WITH nodeLabels, propertyName WHERE propertyName IS NOT NULL AND propertyName <> 'embedding'
RETURN nodeLabels AS labels, collect(DISTINCT propertyName) AS properties
"""

EXPLAIN_PREFIX = "EXPLAIN "
