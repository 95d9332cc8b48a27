"""All Cypher text of graphwright. User and document text only ever arrives as parameters; the few
pieces formatted into a query (index dimension, filter operators) come from allowlists or integers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# --- names -------------------------------------------------------------------------------------------
CHUNK_VECTOR_INDEX = "chunk_embedding"
ENTITY_VECTOR_INDEX = "entity_embedding"
COMMUNITY_VECTOR_INDEX = "community_embedding"
CHUNK_FULLTEXT_INDEX = "chunk_text"
ENTITY_FULLTEXT_INDEX = "entity_text"
VECTOR_INDEXES = {
    CHUNK_VECTOR_INDEX: "Chunk",
    ENTITY_VECTOR_INDEX: "Entity",
    COMMUNITY_VECTOR_INDEX: "Community",
}

# --- schema ------------------------------------------------------------------------------------------
CONSTRAINTS = [
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.id IS UNIQUE",
]
RANGE_INDEXES = [
    "CREATE INDEX chunk_document_id IF NOT EXISTS FOR (n:Chunk) ON (n.document_id)",
]
_ANALYZERS = {"standard-no-stop-words", "standard", "english", "cjk", "simple", "whitespace", "classic"}


def vector_index(name: str, dimension: int) -> str:
    label = VECTOR_INDEXES[name]
    return (
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimension)}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


def fulltext_indexes(analyzer: str) -> list[str]:
    if analyzer not in _ANALYZERS:
        raise ValueError(f"unknown fulltext analyzer {analyzer!r}; choose one of {sorted(_ANALYZERS)}")
    options = f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}"
    return [
        f"CREATE FULLTEXT INDEX {CHUNK_FULLTEXT_INDEX} IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text] {options}",
        f"CREATE FULLTEXT INDEX {ENTITY_FULLTEXT_INDEX} IF NOT EXISTS FOR (n:Entity) "
        f"ON EACH [n.name, n.description] {options}",
    ]


SHOW_VECTOR_INDEXES = """
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options, state
RETURN name, options.indexConfig['vector.dimensions'] AS dimension, state
"""
SHOW_INDEXES = "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, populationPercent RETURN *"
AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"
GET_META = "MATCH (m:GraphwrightMeta {id: 'schema'}) RETURN m.embedding_model AS model, m.dimension AS dimension"
SET_META = """
MERGE (m:GraphwrightMeta {id: 'schema'})
SET m.embedding_model = $model, m.dimension = $dimension, m.updated_at = datetime()
"""
DROP_INDEX = "DROP INDEX $name IF EXISTS"
LIST_DROPPABLE = """
SHOW INDEXES YIELD name, type, owningConstraint
WHERE owningConstraint IS NULL AND type <> 'LOOKUP'
RETURN name
"""
LIST_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name RETURN name"
DROP_CONSTRAINT = "DROP CONSTRAINT $name IF EXISTS"
DELETE_ALL_BATCH = """
MATCH (n) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted
"""

# --- documents and chunks ----------------------------------------------------------------------------
DOCUMENT_HASHES = """
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.content_hash AS hash
"""
DELETE_DOCUMENT_CHUNKS = "MATCH (c:Chunk {document_id: $id}) DETACH DELETE c"
UPSERT_DOCUMENT = """
MERGE (d:Document {id: $id})
SET d = $props, d.ingested_at = datetime()
"""
WRITE_CHUNKS = """
MATCH (d:Document {id: $document_id})
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c.document_id = $document_id, c.index = row.index, c.text = row.text, c.n_tokens = row.n_tokens
MERGE (c)-[:PART_OF]->(d)
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
"""
LINK_NEXT = """
UNWIND $pairs AS pair
MATCH (a:Chunk {id: pair[0]}), (b:Chunk {id: pair[1]})
MERGE (a)-[:NEXT]->(b)
"""
DELETE_DOCUMENT = """
MATCH (d:Document {id: $id})
OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN size(chunks) AS chunks
"""
GET_DOCUMENT = """
MATCH (d:Document {id: $id})
OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
WITH d, c ORDER BY c.index
RETURN properties(d) AS document, collect(c {.id, .index, .text, .n_tokens}) AS chunks
"""
COUNTS = """
CALL () { MATCH (d:Document) RETURN count(d) AS documents }
CALL () { MATCH (c:Chunk) RETURN count(c) AS chunks }
CALL () { MATCH (:Chunk)-[r:NEXT]->(:Chunk) RETURN count(r) AS next_links }
CALL () { MATCH (:Chunk)-[r:PART_OF]->(:Document) RETURN count(r) AS part_of_links }
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH (m:Community) RETURN count(m) AS communities }
RETURN documents, chunks, next_links, part_of_links, entities, communities
"""

# --- retrieval ---------------------------------------------------------------------------------------
_CHUNK_RETURN = """
RETURN c.id AS chunk_id, c.document_id AS document_id, c.text AS text, score,
       d.title AS title, d.source AS source
ORDER BY score DESC
LIMIT $k
"""
VECTOR_SEARCH = f"""
CALL db.index.vector.queryNodes('{CHUNK_VECTOR_INDEX}', $k, $embedding) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{_CHUNK_RETURN}
"""
FULLTEXT_SEARCH = f"""
CALL db.index.fulltext.queryNodes('{CHUNK_FULLTEXT_INDEX}', $query, {{limit: $k}}) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{_CHUNK_RETURN}
"""

# Filter operators accepted from users; anything else is refused before a query is built.
FILTER_OPERATORS = {"=": "=", "!=": "<>", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "~": "CONTAINS"}


@dataclass(frozen=True)
class MetadataFilter:
    key: str
    op: str
    value: Any


def filter_clause(filters: list[MetadataFilter], alias: str = "d") -> tuple[str, dict[str, Any]]:
    """`WHERE` text over Document properties; keys and values stay parameters (`d[$f0_key]`)."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    for i, flt in enumerate(filters):
        op = FILTER_OPERATORS.get(flt.op)
        if op is None:
            raise ValueError(f"unsupported filter operator {flt.op!r}")
        parts.append(f"{alias}[$f{i}_key] {op} $f{i}_value")
        params[f"f{i}_key"] = flt.key
        params[f"f{i}_value"] = flt.value
    return ("WHERE " + " AND ".join(parts)) if parts else "", params


def vector_search_filtered(filters: list[MetadataFilter]) -> tuple[str, dict[str, Any]]:
    """Exact cosine over the chunks of matching documents: with a filter, an approximate top-k from the
    index could be filtered down to nothing, so the filtered set is scanned instead."""
    where, params = filter_clause(filters)
    query = f"""
MATCH (c:Chunk)-[:PART_OF]->(d:Document)
{where}
WITH c, d, vector.similarity.cosine(c.embedding, $embedding) AS score
{_CHUNK_RETURN}
"""
    return query, params


def fulltext_search_filtered(filters: list[MetadataFilter]) -> tuple[str, dict[str, Any]]:
    where, params = filter_clause(filters)
    query = f"""
CALL db.index.fulltext.queryNodes('{CHUNK_FULLTEXT_INDEX}', $query, {{limit: $scan}}) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{where}
{_CHUNK_RETURN}
"""
    return query, params
