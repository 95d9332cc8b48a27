"""All Cypher text of graphwright. User and document text only ever arrives as parameters; the few
pieces formatted into a query (index dimension, filter operators) come from allowlists or integers."""

from __future__ import annotations

import re
from typing import Any

from graphwright.graph_store.workspace import REGISTRY_CONSTRAINT
from graphwright.models import MetadataFilter

# --- names -------------------------------------------------------------------------------------------
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

# --- schema ------------------------------------------------------------------------------------------
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

# --- re-embedding: new vectors go to `embedding_next` first, so a failed run leaves the old ones in use ----
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

# --- documents and chunks ----------------------------------------------------------------------------
DOCUMENT_HASHES = """
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.content_hash AS hash
"""
# A changed document's passages that did not change: their vectors are kept instead of embedding them again.
STORED_CHUNK_VECTORS = """
UNWIND $ids AS id
MATCH (c:Chunk {document_id: id})
WHERE c.text IN $texts AND c.embedding IS NOT NULL
RETURN coalesce(c.context, '') AS context, c.text AS text, c.embedding AS embedding
"""
DELETE_DOCUMENT_CHUNKS = "MATCH (c:Chunk {document_id: $id}) DETACH DELETE c"
UPSERT_DOCUMENT = """
MERGE (d:Document {id: $id})
SET d = $props, d.ingested_at = datetime()
"""
# A profiled document is ABOUT its issuer's entity: one its own passages mention under a key the profile gives
# (issuer_keys), so the link stays inside the workspace and never guesses at another company's namesake.
LINK_DOCUMENT_ISSUER = """
UNWIND $ids AS id
MATCH (d:Document {id: id})
CALL (d) { MATCH (d)-[old:ABOUT]->(:Entity) DELETE old }
WITH d WHERE size(coalesce(d.issuer_keys, [])) > 0
CALL (d) {
  MATCH (:Chunk {document_id: d.id})-[:MENTIONS]->(e:Entity) WHERE e.key IN d.issuer_keys
  WITH DISTINCT e
  MERGE (d)-[:ABOUT]->(e)
}
"""
WRITE_CHUNKS = """
MATCH (d:Document {id: $document_id})
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c.document_id = $document_id, c.index = row.index, c.text = row.text, c.context = row.context,
    c.n_tokens = row.n_tokens, c.page_start = row.page_start, c.page_end = row.page_end, c.pages = row.pages,
    c.section = row.section, c.language = row.language, c.terms = row.terms
MERGE (c)-[:PART_OF]->(d)
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
"""
# Documents bigger than one write group: chunks are staged under another label (in no index, so no search
# sees them), then promoted in the transaction that replaces the document.
# An interrupted run's staged chunks of the same version of the document (`$keep`, its stage) are kept: the next
# run takes their embeddings and extractions instead of computing them again.
CLEAR_STAGED = "MATCH (c:StagedChunk {document_id: $id}) WHERE $keep IS NULL OR c.stage <> $keep DETACH DELETE c"
STAGED_EXTRACTIONS = """
MATCH (c:StagedChunk {document_id: $id}) WHERE c.stage = $stage AND c.extraction IS NOT NULL
RETURN c.id AS id, c.extraction AS extraction
"""
# MERGE, not CREATE: a write whose commit reached the server but whose reply was lost (Neo4j restarted) is
# retried by the driver, and a second copy would break the Chunk id constraint at the swap.
STAGE_CHUNKS = """
UNWIND $rows AS row
MERGE (c:StagedChunk {id: row.id, stage: $stage})
SET c.document_id = $document_id, c.index = row.index, c.text = row.text, c.context = row.context,
    c.n_tokens = row.n_tokens, c.page_start = row.page_start, c.page_end = row.page_end, c.pages = row.pages,
    c.section = row.section, c.language = row.language, c.terms = row.terms, c.extraction = row.extraction
WITH c, row
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
"""
PROMOTE_STAGED = """
MATCH (d:Document {id: $document_id})
UNWIND $ids AS id
MATCH (c:StagedChunk {id: id})
WHERE c.stage = $stage
REMOVE c:StagedChunk, c.stage, c.extraction
SET c:Chunk
MERGE (c)-[:PART_OF]->(d)
RETURN count(c) AS promoted
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
# A row of the documents table that is no stored document: a failed file's record (by its source) and the chunks
# an interrupted ingest staged (by document id).
FORGET_RECORD = """
CALL () {
  MATCH (f:FailedFile {source: $id})
  DETACH DELETE f
  RETURN count(*) AS failed
}
CALL () {
  MATCH (s:StagedChunk {document_id: $id})
  DETACH DELETE s
  RETURN count(*) AS staged
}
RETURN failed, staged
"""
# The documents table: stored documents, documents an interrupted ingest staged (no Document yet), and files
# the last ingests could not read or write, each with its status; filtered, then counted or paged.
_DOCUMENT_ROWS = """
CALL () {
  MATCH (d:Document)
  RETURN d.id AS id, d.title AS title, d.source AS source, d.n_chunks AS chunks, d.content_hash AS content_hash,
         toString(d.ingested_at) AS ingested_at, d.languages AS languages, null AS error
  UNION ALL
  MATCH (s:StagedChunk) WHERE NOT EXISTS { MATCH (:Document {id: s.document_id}) }
  WITH s.document_id AS id, count(s) AS staged
  RETURN id, null AS title, null AS source, staged AS chunks, null AS content_hash, null AS ingested_at,
         null AS languages, null AS error
  UNION ALL
  MATCH (f:FailedFile)
  RETURN f.source AS id, null AS title, f.source AS source, 0 AS chunks, null AS content_hash,
         toString(f.failed_at) AS ingested_at, null AS languages, f.error AS error
}
WITH *, CASE WHEN error IS NOT NULL THEN 'failed'
             WHEN EXISTS { MATCH (:StagedChunk {document_id: id}) } THEN 'interrupted'
             WHEN content_hash ENDS WITH ':incomplete' THEN 'incomplete'
             ELSE 'processed' END AS status
WHERE ($search IS NULL OR toLower(id) CONTAINS $search OR toLower(coalesce(title, '')) CONTAINS $search)
  AND ($language IS NULL OR $language IN coalesce(languages, []))
"""
_LIST_DOCUMENTS = (
    _DOCUMENT_ROWS
    + """
WITH * WHERE ($status IS NULL OR status = $status) AND (NOT $stored OR content_hash IS NOT NULL)
RETURN id, title, source, chunks, content_hash, ingested_at, languages, error, status
ORDER BY CASE $sort WHEN 'chunks' THEN chunks END {direction},
         CASE $sort WHEN 'date' THEN ingested_at END {direction},
         CASE $sort WHEN 'title' THEN toLower(coalesce(title, id)) END {direction},
         CASE $sort WHEN 'status' THEN status END {direction},
         id {direction}
SKIP $offset LIMIT $limit
"""
)
# Cypher cannot take a sort direction as a parameter: one fixed text for each.
LIST_DOCUMENTS = {
    False: _LIST_DOCUMENTS.replace("{direction}", "ASC"),
    True: _LIST_DOCUMENTS.replace("{direction}", "DESC"),
}
DOCUMENT_STATUS_COUNTS = _DOCUMENT_ROWS + "RETURN status, count(*) AS n"
# What one ingest could not read or write, kept for the documents table until the same source succeeds.
RECORD_FAILURES = """
CALL () {
  UNWIND $cleared AS source
  MATCH (f:FailedFile {source: source})
  DETACH DELETE f
}
CALL () {
  UNWIND $failed AS row
  MERGE (f:FailedFile {source: row.source})
  SET f.error = row.error, f.failed_at = datetime()
}
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
CALL () { MATCH (:Entity)-[r]->(:Entity) RETURN count(r) AS relations }
CALL () { MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m) AS mentions }
CALL () { MATCH (m:Community) RETURN count(m) AS communities }
RETURN documents, chunks, next_links, part_of_links, entities, relations, mentions, communities
"""

# --- entity graph ------------------------------------------------------------------------------------
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

# --- communities -------------------------------------------------------------------------------------
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

# --- retrieval ---------------------------------------------------------------------------------------
_CHUNK_RETURN = """
RETURN c.id AS chunk_id, c.document_id AS document_id, c.text AS text, score,
       d.title AS title, d.source AS source, c.pages AS pages, c.section AS section, c.language AS language
ORDER BY score DESC
LIMIT $k
"""
# HNSW searches only as wide as the k it is asked for, and at small k it misses close neighbours (measured:
# the exact nearest entity absent from k=5, present from k=50), so it is asked for $candidates >> k.
VECTOR_SEARCH = f"""
CALL db.index.vector.queryNodes('{CHUNK_VECTOR_INDEX}', $candidates, $embedding) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{_CHUNK_RETURN}
"""
FULLTEXT_SEARCH = f"""
CALL db.index.fulltext.queryNodes('{CHUNK_FULLTEXT_INDEX}', $query, {{limit: $k}}) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{_CHUNK_RETURN}
"""
TERMS_SEARCH = FULLTEXT_SEARCH.replace(CHUNK_FULLTEXT_INDEX, CHUNK_TERMS_INDEX)
# How many chunks of a segmented language use each term (a Lucene clause each), counted up to $limit: which of
# a word's candidate translations the corpus writes.
TERM_COUNTS = f"""
UNWIND $terms AS term
CALL (term) {{
  CALL db.index.fulltext.queryNodes('{CHUNK_TERMS_INDEX}', term.clause, {{limit: $limit}}) YIELD node
  RETURN count(node) AS chunks
}}
RETURN term.term AS term, chunks
"""
# The languages the corpus is written in: as documents record them, or for a document written before they did,
# as its chunks do (none for chunks older still).
CORPUS_LANGUAGES = """
MATCH (d:Document)
CALL (d) {
  OPTIONAL MATCH (c:Chunk {document_id: d.id}) WHERE d.languages IS NULL AND c.language IS NOT NULL
  RETURN collect(DISTINCT c.language) AS chunk_languages
}
UNWIND coalesce(d.languages, chunk_languages) AS language
RETURN DISTINCT language
"""

# Filter operators accepted from users; anything else is refused before a query is built.
FILTER_OPERATORS = {"=": "=", "!=": "<>", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "~": "CONTAINS"}


# Operators only the search itself builds (a document focus: `id in [...]`), never parsed from a user.
INTERNAL_FILTER_OPERATORS = {"in": "IN"}


def filter_clause(filters: list[MetadataFilter], alias: str = "d") -> tuple[str, dict[str, Any]]:
    """`WHERE` text over Document properties; keys and values stay parameters (`d[$f0_key]`)."""
    parts: list[str] = []
    params: dict[str, Any] = {}
    for i, flt in enumerate(filters):
        op = FILTER_OPERATORS.get(flt.op) or INTERNAL_FILTER_OPERATORS.get(flt.op)
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


def fulltext_search_filtered(
    filters: list[MetadataFilter], index: str = CHUNK_FULLTEXT_INDEX
) -> tuple[str, dict[str, Any]]:
    where, params = filter_clause(filters)
    query = f"""
CALL db.index.fulltext.queryNodes('{index}', $query, {{limit: $scan}}) YIELD node AS c, score
MATCH (c)-[:PART_OF]->(d:Document)
{where}
{_CHUNK_RETURN}
"""
    return query, params


# --- graph search ------------------------------------------------------------------------------------
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


# The documents a profile names (extraction/document_profile.py), for a question that names their issuer.
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

# --- read-only Cypher (Text2Cypher, the agent's cypher_read) -------------------------------------------
SCHEMA_NODE_PROPERTIES = """
CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName
WITH nodeLabels, propertyName WHERE propertyName IS NOT NULL AND propertyName <> 'embedding'
RETURN nodeLabels AS labels, collect(DISTINCT propertyName) AS properties
"""
EXPLAIN_PREFIX = "EXPLAIN "

# --- the server's security posture (graphwright doctor) -------------------------------------------------
SECURITY_SETTINGS = "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value"
# A probe, run in a READ transaction: what the server answers says whether LOAD CSV may reach `$url`.
LOAD_PROBE = "LOAD CSV FROM $url AS row RETURN count(row) AS n"

# --- inspection (stats, show entity) -----------------------------------------------------------------
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

# --- conversations ---------------------------------------------------------------------------------------
# (:Conversation)-[:HAS_TURN]->(:Turn), each turn linked to the chunks it cited and the entities it was about,
# so a conversation's evidence opens in Browser. Every query names the owner (the key's fingerprint): a
# conversation of another key is not found, the same as one that does not exist. Nothing else reads these
# labels: retrieval, communities and stats match Document, Chunk, Entity and Community only.
_CONVERSATION_FIELDS = """c.id AS id, c.title AS title, toString(c.created_at) AS created_at,
       toString(c.updated_at) AS updated_at, COUNT { (c)-[:HAS_TURN]->(:Turn) } AS turns"""
CREATE_CONVERSATION = f"""
CREATE (c:Conversation {{id: $id, owner: $owner, title: $title, created_at: datetime(), updated_at: datetime()}})
RETURN {_CONVERSATION_FIELDS}
"""
APPEND_TURN = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $owner
SET c.updated_at = datetime(), c.title = CASE WHEN c.title = '' THEN $title ELSE c.title END
WITH c
CALL (c) { OPTIONAL MATCH (c)-[:HAS_TURN]->(t:Turn) RETURN coalesce(max(t.index), -1) AS last }
CREATE (c)-[:HAS_TURN]->(t:Turn {index: last + 1, question: $question, answer: $answer, mode: $mode,
        standalone: $standalone, chunk_ids: $chunk_ids, entity_ids: $entity_ids, created_at: datetime()})
WITH c, t
CALL (t) { UNWIND $chunk_ids AS cid MATCH (x:Chunk {id: cid}) MERGE (t)-[:CITED]->(x) }
CALL (t) { UNWIND $entity_ids AS eid MATCH (x:Entity {id: eid}) MERGE (t)-[:ABOUT]->(x) }
WITH c, t
CALL (c) {
  MATCH (c)-[:HAS_TURN]->(old:Turn)
  WITH old ORDER BY old.index DESC SKIP $max_turns
  DETACH DELETE old
}
RETURN t.index AS index
"""
CONVERSATION = f"""
MATCH (c:Conversation {{id: $id}}) WHERE c.owner = $owner
CALL (c) {{
  OPTIONAL MATCH (c)-[:HAS_TURN]->(t:Turn)
  WITH t ORDER BY t.index
  RETURN collect(t {{.index, .question, .answer, .mode, .standalone, .chunk_ids, .entity_ids,
                     created_at: toString(t.created_at)}}) AS history
}}
RETURN {_CONVERSATION_FIELDS}, history
"""
CONVERSATIONS = f"""
MATCH (c:Conversation) WHERE c.owner = $owner
WITH c ORDER BY c.updated_at DESC, c.id SKIP $offset LIMIT $limit
RETURN {_CONVERSATION_FIELDS}
"""
DELETE_CONVERSATION = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $owner
CALL (c) { MATCH (c)-[:HAS_TURN]->(t:Turn) DETACH DELETE t }
DETACH DELETE c
RETURN count(*) AS deleted
"""
RESEAL_CONVERSATION = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $old
SET c.owner = $owner, c.title = $title
WITH c
CALL (c) {
  UNWIND $turns AS turn
  MATCH (c)-[:HAS_TURN]->(t:Turn {index: turn.index})
  SET t.question = turn.question, t.answer = turn.answer, t.standalone = turn.standalone
}
RETURN count(c) AS moved
"""
EXPIRE_CONVERSATIONS = """
MATCH (c:Conversation) WHERE c.updated_at < datetime() - duration({days: $days})
CALL (c) { MATCH (c)-[:HAS_TURN]->(t:Turn) DETACH DELETE t }
DETACH DELETE c
RETURN count(*) AS deleted
"""

# --- the registry of workspaces (the default workspace is not listed: it always exists) -----------------
WORKSPACE_CONSTRAINT = (
    f"CREATE CONSTRAINT {REGISTRY_CONSTRAINT} IF NOT EXISTS FOR (n:GraphwrightWorkspace) REQUIRE n.name IS UNIQUE"
)
_WORKSPACE_FIELDS = "w.name AS name, toString(w.created_at) AS created_at, coalesce(w.settings, '{}') AS settings"
# MERGE, so two creations of one name cannot both succeed; `created` says whether this one did.
CREATE_WORKSPACE = f"""
MERGE (w:GraphwrightWorkspace {{name: $name}})
ON CREATE SET w.created_at = datetime(), w.settings = $settings, w.fresh = true
WITH w, coalesce(w.fresh, false) AS created
REMOVE w.fresh
RETURN {_WORKSPACE_FIELDS}, created
"""
WORKSPACES = f"MATCH (w:GraphwrightWorkspace) RETURN {_WORKSPACE_FIELDS} ORDER BY name"
WORKSPACE = f"MATCH (w:GraphwrightWorkspace {{name: $name}}) RETURN {_WORKSPACE_FIELDS}"
FORGET_WORKSPACE = "MATCH (w:GraphwrightWorkspace {name: $name}) DELETE w RETURN count(*) AS n"

# --- curation (graph_store/curation.py) -----------------------------------------------------------------
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


# --- RAPTOR summary tree: summaries of clusters of passages, and of clusters of those summaries -----------
SUMMARY_VECTOR_INDEX = "summary_embedding"
SUMMARY_FULLTEXT_INDEX = "summary_text"


def summary_schema(dimension: int, analyzer: str) -> list[str]:
    """Made by the first tree build, not by `init`: a workspace that never builds one holds no such index."""
    if analyzer not in _ANALYZERS:
        raise ValueError(f"unknown fulltext analyzer {analyzer!r}; choose one of {sorted(_ANALYZERS)}")
    return [
        "CREATE CONSTRAINT summary_id IF NOT EXISTS FOR (n:Summary) REQUIRE n.id IS UNIQUE",
        f"CREATE VECTOR INDEX {SUMMARY_VECTOR_INDEX} IF NOT EXISTS FOR (n:Summary) ON (n.embedding) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimension)}, `vector.similarity_function`: 'cosine'}}}}",
        f"CREATE FULLTEXT INDEX {SUMMARY_FULLTEXT_INDEX} IF NOT EXISTS FOR (n:Summary) ON EACH [n.title, n.text] "
        f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}",
    ]


# Every passage's vector, a page at a time by id: what the tree clusters.
CHUNK_VECTORS_PAGE = """
MATCH (c:Chunk) WHERE c.id > $after AND c.embedding IS NOT NULL
RETURN c.id AS id, c.document_id AS document_id, c.text AS text, c.embedding AS embedding
ORDER BY c.id LIMIT $limit
"""
CHUNK_ENTITY_NAMES = """
UNWIND $ids AS id
MATCH (:Chunk {id: id})-[:MENTIONS]->(e:Entity)
RETURN e.name AS name, count(*) AS n ORDER BY n DESC, name LIMIT $limit
"""
SUMMARY_TEXTS = (
    "UNWIND $ids AS id MATCH (s:Summary {id: id}) RETURN s.id AS id, s.text AS text, s.embedding AS embedding"
)
SUMMARY_CATALOG = "MATCH (s:Summary) RETURN s.id AS id, COUNT { (s)-[:SUMMARIZES]->() } AS links"
DELETE_SUMMARIES = "UNWIND $ids AS id MATCH (s:Summary {id: id}) DETACH DELETE s"
WRITE_SUMMARIES = """
UNWIND $rows AS row
MERGE (s:Summary {id: row.id})
SET s.level = row.level, s.title = row.title, s.text = row.text, s.method = row.method,
    s.n_chunks = row.n_chunks, s.built_at = datetime()
WITH s, row
CALL db.create.setNodeVectorProperty(s, 'embedding', row.embedding)
"""
LINK_SUMMARY_CHUNKS = """
UNWIND $rows AS row
MATCH (s:Summary {id: row.summary}), (c:Chunk {id: row.member})
MERGE (s)-[:SUMMARIZES]->(c)
"""
LINK_SUMMARY_SUMMARIES = """
UNWIND $rows AS row
MATCH (s:Summary {id: row.summary}), (t:Summary {id: row.member})
MERGE (s)-[:SUMMARIZES]->(t)
"""
SUMMARY_SEARCH = f"""
CALL db.index.vector.queryNodes('{SUMMARY_VECTOR_INDEX}', $candidates, $embedding) YIELD node AS s, score
RETURN s.id AS id, s.level AS level, s.title AS title, s.text AS text, s.method AS method, score
ORDER BY score DESC LIMIT $k
"""


def summary_leaves(filters: list[MetadataFilter] | None = None) -> tuple[str, dict[str, Any]]:
    """A summary's leaf passages closest to the question (of the documents the filters keep): what a summary
    found cites."""
    where, params = filter_clause(filters or [])
    query = f"""
UNWIND $ids AS id
MATCH (:Summary {{id: id}})-[:SUMMARIZES*1..8]->(c:Chunk)-[:PART_OF]->(d:Document)
{where}
WITH id, c, d, vector.similarity.cosine(c.embedding, $embedding) AS score
ORDER BY score DESC
WITH id, collect({{c: c, d: d, score: score}})[..$n] AS best
UNWIND best AS b
RETURN id AS summary, b.c.id AS chunk_id, b.c.document_id AS document_id, b.c.text AS text, b.score AS score,
       b.d.title AS title, b.d.source AS source, b.c.pages AS pages, b.c.section AS section, b.c.language AS language
"""
    return query, params


# --- Graph Data Science (graph_store/gds.py) -------------------------------------------------------------
# Graphs are projected from rows the caller sends (integer node ids, no labels), so a projection holds only
# what the caller read from its own workspace; every name is unique to one call and dropped after it.
GDS_VERSION = "RETURN gds.version() AS version"
GDS_PROJECT_UNDIRECTED = """
UNWIND $edges AS e
WITH gds.graph.project($name, e[0], e[1],
    {sourceNodeProperties: {seed: e[3]}, targetNodeProperties: {seed: e[4]}, relationshipProperties: {weight: e[2]}},
    {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodes
"""
GDS_PROJECT_DIRECTED = """
UNWIND $edges AS e
WITH gds.graph.project($name, e[0], e[1], {relationshipProperties: {weight: e[2]}}) AS g
RETURN g.nodeCount AS nodes
"""
GDS_LEIDEN = """
CALL gds.leiden.stream($name, {relationshipWeightProperty: 'weight', gamma: $gamma, randomSeed: $seed,
    tolerance: 0.0000001, concurrency: 1})
YIELD nodeId, communityId
RETURN nodeId AS node, communityId AS community
"""
# Started from the last partition. GDS 2.13 estimates a seeded Leiden at about 16 bytes x nodes^2 (87 GB for a
# 74k-node graph) and refuses to run it; measured, the server's heap rose ~0.4 GiB, so its guard is bypassed
# (`sudo`) for a seeded run only: a real shortage still fails the call, and `auto` computes in the client.
GDS_LEIDEN_SEEDED = GDS_LEIDEN.replace("concurrency: 1}", "seedProperty: 'seed', sudo: true, concurrency: 1}")
GDS_PAGERANK = """
CALL gds.pageRank.stream($name, {relationshipWeightProperty: 'weight', dampingFactor: $damping,
    maxIterations: $iterations, tolerance: $tolerance, sourceNodes: $sources, concurrency: 1})
YIELD nodeId, score
RETURN nodeId AS node, score
"""
GDS_DROP = "CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName"


# --- sources: the folders, sites and buckets a workspace keeps in step with (graph_store/sources.py) ------
# A record is one node: the location and the items' state as JSON (read and written whole, by one sync).
PUT_SOURCE = """
MERGE (s:SyncedSource {id: $id})
SET s.kind = $kind, s.location = $location, s.record = $record, s.last_sync = $last_sync
"""
GET_SOURCE = "MATCH (s:SyncedSource {id: $id}) RETURN s.record AS record"
LIST_SOURCES = "MATCH (s:SyncedSource) RETURN s.record AS record ORDER BY s.id"
FORGET_SOURCE = "MATCH (s:SyncedSource {id: $id}) DETACH DELETE s RETURN count(*) AS forgotten"
