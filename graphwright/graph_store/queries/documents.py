"""Documents and chunks: hashes, writes, staging, deletes and the documents table (WritesRole)."""

from __future__ import annotations

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
