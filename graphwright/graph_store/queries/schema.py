"""Index and constraint names, the schema statements, re-embedding and the stored graph schema (AdminRole)."""

from __future__ import annotations

CHUNK_VECTOR_INDEX = "chunk_embedding"

ENTITY_VECTOR_INDEX = "entity_embedding"

COMMUNITY_VECTOR_INDEX = "community_embedding"

CHUNK_FULLTEXT_INDEX = "chunk_text"

# The search terms of chunks in a language written without spaces (Chinese), segmented by the language
# (text/languages) and analysed by whitespace only, so a word stays one term (`chunk_text` would make a term
# of every character).
CHUNK_TERMS_INDEX = "chunk_terms"

ENTITY_FULLTEXT_INDEX = "entity_text"

VECTOR_INDEXES = {
    CHUNK_VECTOR_INDEX: "Chunk",
    ENTITY_VECTOR_INDEX: "Entity",
    COMMUNITY_VECTOR_INDEX: "Community",
}

CONSTRAINTS = [
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT community_id IF NOT EXISTS FOR (n:Community) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (n:Conversation) REQUIRE n.id IS UNIQUE",
]

RANGE_INDEXES = [
    "CREATE INDEX chunk_document_id IF NOT EXISTS FOR (n:Chunk) ON (n.document_id)",
    "CREATE INDEX entity_key IF NOT EXISTS FOR (n:Entity) ON (n.key)",
    "CREATE INDEX staged_chunk_document_id IF NOT EXISTS FOR (n:StagedChunk) ON (n.document_id)",
    "CREATE INDEX staged_chunk_id IF NOT EXISTS FOR (n:StagedChunk) ON (n.id)",
    "CREATE INDEX failed_file_source IF NOT EXISTS FOR (n:FailedFile) ON (n.source)",
]

_ANALYZERS = {"standard-no-stop-words", "standard", "english", "cjk", "simple", "whitespace", "classic"}


def vector_index(name: str, dimension: int) -> str:
    label = VECTOR_INDEXES[name]
    return (
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimension)}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


# The properties each fulltext index covers: a chunk's text and its context (its document's title).
FULLTEXT_PROPERTIES = {
    CHUNK_FULLTEXT_INDEX: ("Chunk", ["text", "context"]),
    ENTITY_FULLTEXT_INDEX: ("Entity", ["name", "description"]),
}


def fulltext_indexes(analyzer: str) -> list[str]:
    if analyzer not in _ANALYZERS:
        raise ValueError(f"unknown fulltext analyzer {analyzer!r}; choose one of {sorted(_ANALYZERS)}")

    def create(name: str, label: str, properties: list[str], analyzer: str) -> str:
        options = f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}"
        return (
            f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS FOR (n:{label}) "
            f"ON EACH [{', '.join(f'n.{p}' for p in properties)}] {options}"
        )

    return [
        *(create(name, label, properties, analyzer) for name, (label, properties) in FULLTEXT_PROPERTIES.items()),
        create(CHUNK_TERMS_INDEX, "Chunk", ["terms"], "whitespace"),
    ]


SHOW_VECTOR_INDEXES = """
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options, state
RETURN name, options.indexConfig['vector.dimensions'] AS dimension, state
"""

SHOW_INDEXES = "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, populationPercent RETURN *"

AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"

GET_META = """
MATCH (m:GraphwrightMeta {id: 'schema'})
RETURN m.embedding_model AS model, m.dimension AS dimension, m.reembed_model AS reembed_model
"""

SET_META = """
MERGE (m:GraphwrightMeta {id: 'schema'})
SET m.embedding_model = $model, m.dimension = $dimension, m.updated_at = datetime()
"""

DROP_INDEX = "DROP INDEX $name IF EXISTS"

# Re-embedding: new vectors go to `embedding_next` first, so a failed run leaves the old ones in use.
# What each label's embedding is made from (the same fields the ingest embeds).
_EMBEDDING_FIELDS = {
    "Chunk": "{context: coalesce(n.context, ''), text: n.text}",
    "Entity": "{name: n.name, type: coalesce(n.type, 'CONCEPT'), description: coalesce(n.description, '')}",
    "Community": "{title: coalesce(n.title, ''), summary: coalesce(n.summary, '')}",
}


def _embedded_label(label: str) -> str:
    """Labels are formatted into these queries, so only the allowlisted ones pass."""
    if label not in _EMBEDDING_FIELDS:
        raise ValueError(f"no embeddings on label {label!r}")
    return label


def embedding_page(label: str) -> str:
    return (
        f"MATCH (n:{_embedded_label(label)}) WHERE n.id > $after\n"
        f"RETURN n.id AS id, {_EMBEDDING_FIELDS[label]} AS fields, n.embedding_next IS NOT NULL AS done\n"
        "ORDER BY n.id LIMIT $limit"
    )


def set_next_embeddings(label: str) -> str:
    return f"UNWIND $rows AS row MATCH (n:{_embedded_label(label)} {{id: row.id}}) SET n.embedding_next = row.embedding"


def swap_embeddings(label: str) -> str:
    return (
        f"MATCH (n:{_embedded_label(label)}) WHERE n.embedding_next IS NOT NULL WITH n LIMIT $batch\n"
        "CALL db.create.setNodeVectorProperty(n, 'embedding', n.embedding_next)\n"
        "REMOVE n.embedding_next RETURN count(*) AS n"
    )


EMBEDDING_LABELS = tuple(_EMBEDDING_FIELDS)


def clear_next_embeddings(label: str) -> str:
    return (
        f"MATCH (n:{_embedded_label(label)}) WHERE n.embedding_next IS NOT NULL WITH n LIMIT $batch\n"
        "REMOVE n.embedding_next RETURN count(*) AS n"
    )


# The graph schema the user gave (graph_schema.GraphSchema as JSON), kept beside the graph so every later
# ingest, Text2Cypher and the agent use the same one.
GET_GRAPH_SCHEMA = "MATCH (m:GraphwrightMeta {id: 'graph_schema'}) RETURN m.schema AS schema"

SET_GRAPH_SCHEMA = """
MERGE (m:GraphwrightMeta {id: 'graph_schema'})
SET m.schema = $schema, m.updated_at = datetime()
"""

SET_REEMBED_MODEL = "MERGE (m:GraphwrightMeta {id: 'schema'}) SET m.reembed_model = $model"

FINISH_REEMBED = """
MERGE (m:GraphwrightMeta {id: 'schema'})
SET m.embedding_model = $model, m.dimension = $dimension, m.updated_at = datetime()
REMOVE m.reembed_model
"""

LIST_DROPPABLE = """
SHOW INDEXES YIELD name, type, owningConstraint
WHERE owningConstraint IS NULL AND type <> 'LOOKUP'
RETURN name
"""

LIST_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name RETURN name"

DROP_CONSTRAINT = "DROP CONSTRAINT $name IF EXISTS"
