"""Peers that `graphwright eval --peers` runs beside our modes, on the same chunks and the same questions:
plain-Python BM25 (rank_bm25) and exact dense retrieval (numpy) over the chunks read out of Neo4j, and
neo4j-graphrag's VectorRetriever and HybridRetriever on our Neo4j indexes, called with their defaults. Also
`hybrid`'s lexical part alone (our fulltext index and query), so a run shows hybrid beside both its parts."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from graphwright.errors import (
    PeersNotInstalledError,  # re-exported: they used to live here
)
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.queries.schema import CHUNK_FULLTEXT_INDEX, CHUNK_VECTOR_INDEX
from graphwright.graph_store.rows import ChunkRow, EmbeddedChunkRow
from graphwright.models import RetrievedChunk
from graphwright.search.keywords import keyword_search
from graphwright.search.results import chunk_from_row
from graphwright.text.languages import detect
from graphwright.text.lucene import to_lucene

_TOKEN_RE = re.compile(r"\w+", re.UNICODE)

# A peer: (question, question embedding, k) -> ranked chunks.
Peer = Callable[[str, list[float], int], list[RetrievedChunk]]


def _tokens(text: str) -> list[str]:
    """Words as the text's language splits them (jieba's for Chinese, as a Chinese team would run BM25)."""
    language = detect(text)
    if language.segmented:
        return language.index_terms(text).split()
    return _TOKEN_RE.findall(text.casefold())


def _chunk(row: Mapping[str, Any], score: float, rank: int, name: str) -> RetrievedChunk:
    return chunk_from_row(cast(ChunkRow, row), score, rank, {name: score})


class CorpusPeers:
    """BM25 and dense retrieval in plain Python over a snapshot of the chunks."""

    def __init__(self, rows: list[EmbeddedChunkRow]) -> None:
        try:
            import numpy as np
            from rank_bm25 import BM25Okapi
        except ImportError as exc:
            raise PeersNotInstalledError("peers need `pip install graphwright[eval]` (rank-bm25)") from exc
        self.rows = rows
        self._bm25 = BM25Okapi([_tokens(r["text"]) for r in rows]) if rows else None
        matrix = np.array([r["embedding"] for r in rows], dtype=np.float32) if rows else np.zeros((0, 1))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self._matrix = matrix / np.where(norms == 0, 1, norms)
        self._np = np

    def _top(self, scores: Any, k: int, name: str) -> list[RetrievedChunk]:
        order = self._np.argsort(-scores, kind="stable")[:k]
        return [_chunk(self.rows[i], float(scores[i]), rank, name) for rank, i in enumerate(order, start=1)]

    def bm25(self, question: str, embedding: list[float], k: int) -> list[RetrievedChunk]:
        if self._bm25 is None:
            return []
        return self._top(self._np.asarray(self._bm25.get_scores(_tokens(question))), k, "bm25")

    def dense(self, question: str, embedding: list[float], k: int) -> list[RetrievedChunk]:
        if not self.rows:
            return []
        query = self._np.asarray(embedding, dtype=self._np.float32)
        query = query / (self._np.linalg.norm(query) or 1.0)
        return self._top(self._matrix @ query, k, "dense")


class Neo4jGraphRAGPeers:
    """neo4j-graphrag's retrievers on our indexes; the question vector comes from our embedder, so both
    sides search with identical embeddings."""

    def __init__(self, store: Neo4jStore, rows: list[EmbeddedChunkRow]) -> None:
        try:
            from neo4j_graphrag.retrievers import HybridRetriever, VectorRetriever
        except ImportError as exc:
            raise PeersNotInstalledError("peers need `pip install graphwright[eval]` (neo4j-graphrag)") from exc
        properties = ["id", "document_id", "text"]
        vector_index = store.workspace.name_of(CHUNK_VECTOR_INDEX)  # the peers read this workspace's indexes
        self._vector = VectorRetriever(
            store.driver, vector_index, return_properties=properties, neo4j_database=store.database
        )
        self._hybrid = HybridRetriever(
            store.driver,
            vector_index,
            store.workspace.name_of(CHUNK_FULLTEXT_INDEX),
            return_properties=properties,
            neo4j_database=store.database,
        )
        self._by_id = {r["chunk_id"]: r for r in rows}
        self.escaped_retries = 0  # questions the hybrid retriever's Lucene parser refused as written

    def _chunks(self, records: list[Any], name: str) -> list[RetrievedChunk]:
        out = []
        for rank, record in enumerate(records, start=1):
            node = record["node"]
            row = self._by_id.get(node["id"]) or {
                "chunk_id": node["id"],
                "document_id": node["document_id"],
                "text": node.get("text") or "",
            }
            out.append(_chunk(row, float(record["score"]), rank, name))
        return out

    def vector(self, question: str, embedding: list[float], k: int) -> list[RetrievedChunk]:
        found = self._vector.get_search_results(query_vector=embedding, top_k=k)
        return self._chunks(found.records, "neo4j-graphrag vector")

    def hybrid(self, question: str, embedding: list[float], k: int) -> list[RetrievedChunk]:
        from neo4j.exceptions import ClientError

        refused: tuple[type[Exception], ...] = (ClientError,)
        try:  # newer neo4j-graphrag wraps Lucene's refusal in its own error
            from neo4j_graphrag.exceptions import SearchQueryParseError

            refused = (ClientError, SearchQueryParseError)
        except ImportError:
            pass
        try:
            found = self._hybrid.get_search_results(query_text=question, query_vector=embedding, top_k=k)
        except refused:
            # The retriever hands the question to Lucene unescaped; a "?" or "/" can be a syntax error.
            self.escaped_retries += 1
            found = self._hybrid.get_search_results(query_text=to_lucene(question), query_vector=embedding, top_k=k)
        return self._chunks(found.records, "neo4j-graphrag hybrid")


def fulltext_part(store: GraphStore) -> Peer:
    """The chunk fulltext index queried as `hybrid` queries it (its vector part is the `vector` mode)."""

    def search(question: str, embedding: list[float], k: int) -> list[RetrievedChunk]:
        rows = keyword_search(store.retrieval, question, k)
        return [_chunk(row, float(row["score"]), rank, "fulltext") for rank, row in enumerate(rows, start=1)]

    return search


def make_peers(store: GraphStore) -> tuple[dict[str, Peer], list[str], Callable[[], list[str]]]:
    """Every peer that can run here, a note for each that cannot, and a callable with the notes the run
    itself produced (questions neo4j-graphrag's Lucene parser refused)."""
    rows = store.retrieval.all_chunks()
    peers: dict[str, Peer] = {}
    notes: list[str] = []
    graphrag: Neo4jGraphRAGPeers | None = None
    peers["part: fulltext (hybrid's lexical side)"] = fulltext_part(store)
    try:
        corpus = CorpusPeers(rows)
        peers["peer: bm25 (rank_bm25)"] = corpus.bm25
        peers["peer: dense (numpy, exact)"] = corpus.dense
    except PeersNotInstalledError as exc:
        notes.append(str(exc))
    if isinstance(store, Neo4jStore):  # neo4j-graphrag's retrievers take a Neo4j driver
        try:
            graphrag = Neo4jGraphRAGPeers(store, rows)
            peers["neo4j-graphrag VectorRetriever"] = graphrag.vector
            peers["neo4j-graphrag HybridRetriever"] = graphrag.hybrid
        except PeersNotInstalledError as exc:
            notes.append(str(exc))
    else:
        notes.append(f"neo4j-graphrag peers: they read Neo4j, and this store is {type(store).__name__}")

    def after() -> list[str]:
        if graphrag is None or not graphrag.escaped_retries:
            return []
        return [
            f"neo4j-graphrag HybridRetriever: {graphrag.escaped_retries} question(s) refused by Lucene as "
            "written, retried with special characters escaped"
        ]

    return peers, notes, after
