"""Inspection: type counts, entity profiles, integrity checks, and the queries `graphwright browser` prints."""

from __future__ import annotations

import re

ENTITY_TYPE_COUNTS = "MATCH (e:Entity) RETURN e.type AS type, count(*) AS n ORDER BY n DESC, type"

RELATION_TYPE_COUNTS = """
MATCH (:Entity)-[r]->(:Entity)
RETURN type(r) AS type, count(*) AS n ORDER BY n DESC, type
"""

ENTITY_PROFILE = """
MATCH (e:Entity {id: $id})
OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(c:Community)
WITH e, c ORDER BY c.level
RETURN e.id AS id, e.name AS name, e.type AS type, [l IN labels(e) WHERE l <> 'Entity'] AS labels,
       coalesce(e.description, '') AS description, coalesce(e.aliases, []) AS aliases,
       coalesce(e.degree, 0) AS degree, collect(c {.id, .level, .title}) AS communities
"""

ENTITY_SOURCES = """
MATCH (c:Chunk)-[m:MENTIONS]->(:Entity {id: $id})
RETURN c.document_id AS document_id, count(c) AS chunks, sum(coalesce(m.count, 1)) AS mentions,
       collect(c.id)[..3] AS chunk_ids
ORDER BY mentions DESC, document_id
LIMIT $limit
"""

# `graphwright check`: each query returns how many elements break one rule, and up to 5 of their ids.
# A crash can never produce these (documents are written whole in one transaction); they would mean a bug
# or a write made outside graphwright.
INTEGRITY_CHECKS = {
    "documents whose chunks do not match n_chunks": """
MATCH (d:Document)
WITH d, COUNT { (d)<-[:PART_OF]-(:Chunk) } AS found
WHERE found <> coalesce(d.n_chunks, -1)
RETURN count(d) AS n, collect(d.id)[..5] AS examples""",
    "chunks without a document": """
MATCH (c:Chunk) WHERE NOT EXISTS { (c)-[:PART_OF]->(:Document) }
RETURN count(c) AS n, collect(c.id)[..5] AS examples""",
    "chunks without an embedding": """
MATCH (c:Chunk) WHERE c.embedding IS NULL
RETURN count(c) AS n, collect(c.id)[..5] AS examples""",
    "entities no chunk mentions": """
MATCH (e:Entity) WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) }
RETURN count(e) AS n, collect(e.name)[..5] AS examples""",
    "relations citing missing chunks": """
MATCH (a:Entity)-[r]->(b:Entity) WHERE r.chunk_ids IS NOT NULL
WITH a, r, b, [x IN r.chunk_ids WHERE NOT EXISTS { MATCH (:Chunk {id: x}) }] AS missing
WHERE size(r.chunk_ids) = 0 OR size(missing) > 0
RETURN count(r) AS n, collect(a.name + ' -[' + type(r) + ']-> ' + b.name)[..5] AS examples""",
    "entity names held by more than one entity": """
MATCH (e:Entity) WHERE e.key IS NOT NULL
WITH e.key AS key, count(*) AS copies WHERE copies > 1
RETURN count(key) AS n, collect(key)[..5] AS examples""",
}

# Not a problem: work an interrupted ingest left, which the same ingest resumes (`check` says so, exit 0).
RESUMABLE = """
MATCH (c:StagedChunk)
RETURN count(c) AS n, collect(DISTINCT c.document_id)[..5] AS examples"""

_BROWSER_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,200}$")


def evidence_browser_query(chunk_ids: list[str], entity_ids: list[str], community_ids: list[str]) -> str:
    """A Cypher query, for a person to run in Neo4j Browser, that shows one answer's evidence: its chunks with
    their documents, entities and communities. The Browser draws the relationships among returned nodes
    (MENTIONS, typed relations, IN_COMMUNITY) itself. The ids are our own generated ids; anything else is
    dropped, so no document text is ever formatted into the query."""

    def listed(ids: list[str]) -> str:
        return "[" + ", ".join(f"'{i}'" for i in dict.fromkeys(ids) if _BROWSER_ID.match(i)) + "]"

    return (
        f"MATCH (n) WHERE (n:Chunk AND n.id IN {listed(chunk_ids)})\n"
        f"  OR (n:Entity AND n.id IN {listed(entity_ids)})\n"
        f"  OR (n:Community AND n.id IN {listed(community_ids)})\n"
        "OPTIONAL MATCH (n:Chunk)-[p:PART_OF]->(d:Document)\n"
        "RETURN n, p, d, n.pages AS pages, n.section AS section"
    )


# Printed by `graphwright browser` for users to run in Neo4j Browser (with :param name / :param other).
BROWSER_QUERIES = [
    ("An entity's neighbourhood", "MATCH (e:Entity {name: $name})-[r]-(n:Entity) RETURN e, r, n LIMIT 50"),
    (
        "The evidence of its relations",
        "MATCH (e:Entity {name: $name})-[r]-(n:Entity)\n"
        "RETURN e.name, type(r), n.name, r.weight, r.evidence, r.chunk_ids",
    ),
    (
        "Its passages and documents",
        "MATCH (d:Document)<-[:PART_OF]-(c:Chunk)-[:MENTIONS]->(e:Entity {name: $name}) RETURN d, c, e LIMIT 25",
    ),
    (
        "A community's members",
        "MATCH (c:Community)<-[:IN_COMMUNITY]-(e:Entity {name: $name})\nWITH c ORDER BY c.level LIMIT 1\n"
        "MATCH (c)<-[:IN_COMMUNITY]-(m:Entity) OPTIONAL MATCH (m)-[r]-(m2:Entity)-[:IN_COMMUNITY]->(c)\n"
        "RETURN c, m, r, m2 LIMIT 100",
    ),
    (
        "The path between two entities",
        "MATCH p = SHORTEST 1 (a:Entity {name: $name}) (()-[]-(:Entity)){1,4} (b:Entity {name: $other})\nRETURN p",
    ),
    (
        "Relation types and how often each occurs",
        "MATCH (:Entity)-[r]->(:Entity) RETURN type(r) AS type, count(*) AS n ORDER BY n DESC LIMIT 50",
    ),
    (
        "What it does, by relation type (FOUNDED, ACQUIRED, BUILT...: the types `graphwright stats` lists)",
        "MATCH (e:Entity {name: $name})-[r]->(o:Entity)\nRETURN type(r), o.name, r.evidence ORDER BY type(r) LIMIT 50",
    ),
    ("The lexical layer", "MATCH (d:Document)<-[:PART_OF]-(c:Chunk) RETURN d, c LIMIT 50"),
]
