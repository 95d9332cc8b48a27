"""The RAPTOR summary tree: summaries of clusters of passages, and of clusters of those summaries."""

from __future__ import annotations

from typing import Any

from graphwright.graph_store.queries.retrieval import filter_clause
from graphwright.graph_store.queries.schema import _ANALYZERS
from graphwright.models import MetadataFilter

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
