"""Chunk search: vector, fulltext, segmented terms, the corpus's languages, metadata filters (RetrievalRole)."""

from __future__ import annotations

from typing import Any

from graphwright.graph_store.queries.schema import CHUNK_FULLTEXT_INDEX, CHUNK_TERMS_INDEX, CHUNK_VECTOR_INDEX
from graphwright.models import FILTER_OPERATORS, INTERNAL_FILTER_OPERATORS, MetadataFilter

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
