"""Neo4jStore: the only place that holds a driver. Writes are batched and run in managed transactions
(retried by the driver on transient errors); reads run in READ transactions."""

from __future__ import annotations

from typing import Any

import neo4j
from neo4j import GraphDatabase, NotificationMinimumSeverity, RoutingControl
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

from graphwright.extraction.normalize import RESERVED_RELATIONS, normalize_key
from graphwright.extraction.resolution import MAX_DESCRIPTION
from graphwright.graph_store import queries as q
from graphwright.graph_store.queries import MetadataFilter
from graphwright.graph_store.schema import SchemaPlan, check_compatible
from graphwright.models import Chunk, Document, Entity, Relation


class GraphStoreError(RuntimeError):
    """Neo4j cannot be used: not running, wrong credentials, or a failed statement."""


class Neo4jStore:
    def __init__(self, uri: str, user: str, password: str, database: str = "neo4j") -> None:
        self.uri = uri
        self.database = database
        # Notifications (e.g. "label does not exist yet" on an empty graph) are noise for users.
        self._driver = GraphDatabase.driver(uri, auth=(user, password), connection_timeout=10,
                                            max_transaction_retry_time=30,
                                            notifications_min_severity=NotificationMinimumSeverity.OFF)

    # --- lifecycle -----------------------------------------------------------------------------------
    def verify(self) -> None:
        try:
            self._driver.verify_connectivity()
        except AuthError as exc:
            raise GraphStoreError(
                f"Neo4j at {self.uri} refused the credentials (check NEO4J_USER / NEO4J_PASSWORD)"
            ) from exc
        except (ServiceUnavailable, OSError) as exc:
            raise GraphStoreError(
                f"Neo4j is not reachable at {self.uri} ({exc.__class__.__name__}). "
                "Start it with `graphwright db start` or `docker compose up -d`."
            ) from exc

    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def driver(self) -> neo4j.Driver:
        """The driver, for libraries that take one (the neo4j-graphrag peers of `graphwright eval`)."""
        return self._driver

    def server_version(self) -> str:
        info = self._driver.get_server_info()
        return info.agent

    # --- low level -----------------------------------------------------------------------------------
    def _read(self, cypher: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._run(cypher, params, RoutingControl.READ)

    def _write(self, cypher: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._run(cypher, params, RoutingControl.WRITE)

    def _run(self, query: str, params: dict[str, Any], routing: RoutingControl) -> list[dict[str, Any]]:
        try:
            records, _, _ = self._driver.execute_query(
                query, params, database_=self.database, routing_=routing
            )
        except ServiceUnavailable as exc:
            raise GraphStoreError(f"Neo4j at {self.uri} became unreachable: {exc}") from exc
        except AuthError as exc:
            raise GraphStoreError(f"Neo4j at {self.uri} refused the credentials") from exc
        return [record.data() for record in records]

    # --- schema --------------------------------------------------------------------------------------
    def vector_index_dimensions(self) -> dict[str, int | None]:
        return {row["name"]: row["dimension"] for row in self._read(q.SHOW_VECTOR_INDEXES)}

    def ensure_schema(self, plan: SchemaPlan) -> list[str]:
        """Create what is missing; raise SchemaMismatchError on an incompatible existing index."""
        meta_rows = self._read(q.GET_META)
        check_compatible(self.vector_index_dimensions(), meta_rows[0] if meta_rows else None, plan)
        statements = plan.statements()
        for statement in statements:
            self._write(statement)
        self._write(q.SET_META, model=plan.embedding_model, dimension=plan.dimension)
        self._write(q.AWAIT_INDEXES, seconds=300)
        return statements

    def indexes(self) -> list[dict[str, Any]]:
        return self._read(q.SHOW_INDEXES)

    def reset(self, batch: int = 10_000) -> None:
        """Delete every node, index and constraint (the local database belongs to graphwright)."""
        while self._write(q.DELETE_ALL_BATCH, batch=batch)[0]["deleted"]:
            pass
        for row in self._read(q.LIST_DROPPABLE):
            self._write(q.DROP_INDEX, name=row["name"])
        for row in self._read(q.LIST_CONSTRAINTS):
            self._write(q.DROP_CONSTRAINT, name=row["name"])

    # --- documents -----------------------------------------------------------------------------------
    def document_hashes(self, ids: list[str]) -> dict[str, str]:
        rows = self._read(q.DOCUMENT_HASHES, ids=ids)
        return {row["id"]: row["hash"] for row in rows}

    def write_documents(self, items: list[tuple[Document, list[Chunk]]], batch_size: int = 500,
                        entities: list[Entity] | None = None, relations: list[Relation] | None = None) -> None:
        """Replace documents, their chunks and their share of the entity graph in ONE transaction: each
        document lands whole or not at all. Grouping saves a commit (and its fsync) per document; callers
        retry one by one on failure."""

        def work(tx: neo4j.ManagedTransaction) -> None:
            touched: list[str] = []
            for document, chunks in items:
                touched += self._remove_document_support(tx, document.id)[1]
                self._upsert_document(tx, document, len(chunks))
                rows = self._chunk_rows(chunks)
                for start in range(0, len(rows), batch_size):
                    tx.run(q.WRITE_CHUNKS, document_id=document.id, rows=rows[start:start + batch_size]).consume()
            self._link_and_settle(tx, [chunks for _, chunks in items], entities, relations, touched, batch_size)

        self._execute_write(work)

    def clear_staged(self, document_id: str) -> None:
        self._execute_write(lambda tx: tx.run(q.CLEAR_STAGED, id=document_id).consume())

    def stage_chunks(self, document_id: str, stage: str, chunks: list[Chunk], batch_size: int = 500) -> None:
        """Part of a large document's chunks, with embeddings, under a label no search reads."""
        rows = self._chunk_rows(chunks)

        def work(tx: neo4j.ManagedTransaction) -> None:
            for start in range(0, len(rows), batch_size):
                tx.run(q.STAGE_CHUNKS, document_id=document_id, stage=stage,
                       rows=rows[start:start + batch_size]).consume()

        self._execute_write(work)

    def commit_staged(self, document: Document, chunks: list[Chunk], stage: str, batch_size: int = 500,
                      entities: list[Entity] | None = None, relations: list[Relation] | None = None) -> None:
        """Replace a document by its staged chunks and their entity graph in ONE transaction."""

        def work(tx: neo4j.ManagedTransaction) -> None:
            touched = self._remove_document_support(tx, document.id)[1]
            self._upsert_document(tx, document, len(chunks))
            promoted = 0
            for start in range(0, len(chunks), batch_size):
                ids = [c.id for c in chunks[start:start + batch_size]]
                promoted += tx.run(q.PROMOTE_STAGED, document_id=document.id, stage=stage,
                                   ids=ids).single()["promoted"]
            if promoted != len(chunks):  # another run cleared them: roll back rather than write half
                raise RuntimeError(f"{promoted} of {len(chunks)} staged chunks found")
            self._link_and_settle(tx, [chunks], entities, relations, touched, batch_size)

        self._execute_write(work)

    @staticmethod
    def _upsert_document(tx: neo4j.ManagedTransaction, document: Document, n_chunks: int) -> None:
        props = {**document.metadata, "id": document.id, "source": document.source, "title": document.title,
                 "content_hash": document.content_hash, "n_chunks": n_chunks}
        tx.run(q.UPSERT_DOCUMENT, id=document.id, props=props).consume()

    @staticmethod
    def _chunk_rows(chunks: list[Chunk]) -> list[dict[str, Any]]:
        return [{"id": c.id, "index": c.index, "text": c.text, "n_tokens": c.n_tokens, "embedding": c.embedding}
                for c in chunks]

    def _link_and_settle(self, tx: neo4j.ManagedTransaction, documents: list[list[Chunk]],
                         entities: list[Entity] | None, relations: list[Relation] | None, touched: list[str],
                         batch_size: int) -> None:
        """NEXT chains of the documents' chunks, their entity graph, then the touched entities settled."""
        pairs = [[a.id, b.id] for chunks in documents for a, b in zip(chunks, chunks[1:])]
        for start in range(0, len(pairs), batch_size):
            tx.run(q.LINK_NEXT, pairs=pairs[start:start + batch_size]).consume()
        if entities:
            self._write_graph(tx, entities, relations or [], batch_size)
            touched = touched + [e.id for e in entities]
        self._settle(tx, touched, batch_size)

    @staticmethod
    def _remove_document_support(tx: neo4j.ManagedTransaction, document_id: str) -> tuple[list[str], list[str]]:
        """Delete a document's chunks and their share of relations; returns (chunk ids, mentioned entities)."""
        support = tx.run(q.DOCUMENT_SUPPORT, id=document_id).single()
        chunk_ids, entity_ids = support["chunk_ids"], support["entity_ids"]
        if entity_ids:
            tx.run(q.PRUNE_RELATION_SUPPORT, entity_ids=entity_ids, chunk_ids=chunk_ids).consume()
            tx.run(q.DELETE_UNSUPPORTED_RELATIONS, entity_ids=entity_ids).consume()
        tx.run(q.DELETE_DOCUMENT_CHUNKS, id=document_id).consume()
        return chunk_ids, entity_ids

    @staticmethod
    def _write_graph(tx: neo4j.ManagedTransaction, entities: list[Entity], relations: list[Relation],
                     batch_size: int) -> None:
        rows = [{"id": e.id, "name": e.name, "key": normalize_key(e.name), "type": e.type, "label": e.label,
                 "description": e.description, "aliases": e.aliases} for e in entities]
        vectors = [{"id": e.id, "embedding": e.embedding} for e in entities if e.embedding is not None]
        mentions = [{"chunk_id": chunk, "entity_id": e.id, "count": n} for e in entities
                    for chunk, n in e.mentions.items()]
        rels = [{"source": r.source_id, "target": r.target_id, "type": r.type, "description": r.description,
                 "chunk_ids": r.chunk_ids, "chunk_weights": r.chunk_weights, "evidence": r.evidence}
                for r in relations]
        for statement, data in ((q.WRITE_ENTITIES, rows), (q.SET_ENTITY_LABELS, rows),
                                (q.SET_ENTITY_EMBEDDINGS, vectors), (q.WRITE_MENTIONS, mentions),
                                (q.WRITE_RELATIONS, rels)):
            for start in range(0, len(data), batch_size):
                tx.run(statement, rows=data[start:start + batch_size], max_description=MAX_DESCRIPTION).consume()

    @staticmethod
    def _settle(tx: neo4j.ManagedTransaction, entity_ids: list[str], batch_size: int) -> None:
        """Entities no chunk mentions any more go; the rest get their degree recomputed."""
        ids = list(dict.fromkeys(entity_ids))
        for start in range(0, len(ids), batch_size):
            part = ids[start:start + batch_size]
            tx.run(q.DELETE_ORPHAN_ENTITIES, entity_ids=part).consume()
            tx.run(q.UPDATE_DEGREES, ids=part).consume()

    def _execute_write(self, work) -> None:  # noqa: ANN001 - a transaction function
        try:
            with self._driver.session(database=self.database) as session:
                session.execute_write(work)
        except ServiceUnavailable as exc:
            raise GraphStoreError(f"Neo4j at {self.uri} became unreachable: {exc}") from exc

    def integrity_problems(self) -> dict[str, dict[str, Any]]:
        """Rules of the graph model that some element breaks: {rule: {"n": count, "examples": [...]}}."""
        found = {}
        for rule, cypher in q.INTEGRITY_CHECKS.items():
            row = self._read(cypher)[0]
            if row["n"]:
                found[rule] = row
        return found

    def delete_document(self, document_id: str) -> int | None:
        """Remove a document, its chunks, and the entities and relations only it supported;
        None when no such document exists."""
        removed: list[int | None] = [None]

        def work(tx: neo4j.ManagedTransaction) -> None:
            chunks, touched = self._remove_document_support(tx, document_id)
            rows = tx.run(q.DELETE_DOCUMENT, id=document_id).data()
            removed[0] = len(chunks) if rows else None
            self._settle(tx, touched, 500)

        self._execute_write(work)
        return removed[0]

    def write_graph(self, entities: list[Entity], relations: list[Relation], batch_size: int = 500) -> None:
        """Entities and relations whose chunks already exist (imported graphs), in one transaction."""

        def work(tx: neo4j.ManagedTransaction) -> None:
            self._write_graph(tx, entities, relations, batch_size)
            self._settle(tx, [e.id for e in entities], batch_size)

        self._execute_write(work)

    def chunks_by_id(self, ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self._read(q.EXISTING_CHUNKS, ids=ids)}

    def document_chunks(self, document_id: str) -> dict[str, str]:
        return {r["id"]: r["text"] for r in self._read(q.DOCUMENT_CHUNKS, id=document_id)}

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]:
        try:
            return {r["id"]: r["text"] for r in self._read(q.CHUNKS_MATCHING, query=lucene_query, k=k)}
        except Neo4jError as exc:
            raise GraphStoreError(f"fulltext query failed: {exc.message}") from exc

    # --- communities ---------------------------------------------------------------------------------
    def entity_edges(self) -> list[tuple[str, str, float]]:
        """The undirected, weighted entity graph in one streamed query (both directions summed)."""
        weights: dict[tuple[str, str], float] = {}
        with self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            for record in session.run(q.ENTITY_EDGES):
                a, b = record["source"], record["target"]
                key = (a, b) if a < b else (b, a)
                weights[key] = weights.get(key, 0.0) + float(record["weight"])
        return [(a, b, w) for (a, b), w in sorted(weights.items())]

    def entity_ids(self) -> list[str]:
        return [r["id"] for r in self._read(q.ENTITY_IDS)]

    def community_catalog(self) -> list[dict[str, Any]]:
        return self._read(q.COMMUNITY_CATALOG)

    def community_context(self, communities: list[dict[str, Any]], max_members: int = 30,
                          max_relations: int = 20) -> dict[str, dict[str, Any]]:
        rows = self._read(q.COMMUNITY_CONTEXT, communities=communities, max_members=max_members,
                          max_relations=max_relations)
        return {r["id"]: r for r in rows}

    def write_communities(self, removed: list[str], rows: list[dict[str, Any]], embeddings: list[dict[str, Any]],
                          members: list[dict[str, str]], parents: list[dict[str, str]],
                          batch_size: int = 5000) -> None:
        """Replace the community layer in bounded transactions: one transaction for 100k entities' links
        exceeds Neo4j's transaction memory limit (measured), so new reports land first, then links are
        rebuilt in batches, then vanished communities go."""
        def run_batches(statement: str, data: list[Any], key: str) -> None:
            for start in range(0, len(data), batch_size):
                part = data[start:start + batch_size]
                self._execute_write(lambda tx, part=part: tx.run(statement, **{key: part}).consume())

        run_batches(q.WRITE_COMMUNITIES, rows, "rows")
        run_batches(q.SET_COMMUNITY_EMBEDDINGS, embeddings, "rows")
        while self._write(q.CLEAR_COMMUNITY_LINKS, batch=20_000)[0]["deleted"]:
            pass
        self._write(q.CLEAR_PARENT_LINKS)
        run_batches(q.LINK_MEMBERS, members, "rows")
        run_batches(q.LINK_PARENTS, parents, "rows")
        run_batches(q.DELETE_COMMUNITIES, removed, "ids")

    def communities(self, level: int | None = None, limit: int = 20) -> list[dict[str, Any]]:
        return self._read(q.COMMUNITIES_BY_LEVEL, level=level, limit=limit)

    def community_levels(self) -> list[dict[str, Any]]:
        return self._read(q.COMMUNITY_LEVELS)

    def entity_catalog(self) -> list[dict[str, Any]]:
        return self._read(q.ENTITY_CATALOG)

    def top_entities(self, limit: int = 5) -> list[dict[str, Any]]:
        return self._read(q.TOP_ENTITIES, limit=limit)

    def get_document(self, document_id: str) -> dict[str, Any] | None:
        rows = self._read(q.GET_DOCUMENT, id=document_id)
        return rows[0] if rows else None

    def counts(self) -> dict[str, int]:
        return self._read(q.COUNTS)[0]

    # --- retrieval -----------------------------------------------------------------------------------
    def vector_search(self, embedding: list[float], k: int,
                      filters: list[MetadataFilter] | None = None) -> list[dict[str, Any]]:
        if filters:
            query, params = q.vector_search_filtered(filters)
            return self._read(query, embedding=embedding, k=k, **params)
        return self._read(q.VECTOR_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100))

    def entity_vector_search(self, embedding: list[float], k: int) -> list[dict[str, Any]]:
        return self._read(q.ENTITY_VECTOR_SEARCH, embedding=embedding, k=k, candidates=max(k * 10, 100))

    def fulltext_search(self, lucene_query: str, k: int,
                        filters: list[MetadataFilter] | None = None) -> list[dict[str, Any]]:
        try:
            if filters:
                query, params = q.fulltext_search_filtered(filters)
                return self._read(query, query=lucene_query, k=k, scan=max(k * 50, 500), **params)
            return self._read(q.FULLTEXT_SEARCH, query=lucene_query, k=k)
        except Neo4jError as exc:
            raise GraphStoreError(f"fulltext query failed: {exc.message}") from exc

    # --- graph search --------------------------------------------------------------------------------
    def entities_by_key(self, keys: list[str]) -> list[dict[str, Any]]:
        return self._read(q.ENTITIES_BY_KEY, keys=keys)

    def entity_name_search(self, lucene_query: str, k: int) -> list[dict[str, Any]]:
        try:
            return self._read(q.ENTITY_NAME_SEARCH, query=lucene_query, k=k)
        except Neo4jError as exc:
            raise GraphStoreError(f"entity fulltext query failed: {exc.message}") from exc

    def entity_neighbours(self, seeds: list[dict[str, Any]], exclude: list[str], limit: int) -> list[dict[str, Any]]:
        """`seeds` are {id, score}; neighbours come ranked by seeds touched, weighted edges, degree."""
        return self._read(q.ENTITY_NEIGHBOURS, seeds=seeds, exclude=exclude, limit=limit)

    def relations_among(self, ids: list[str], seeds: list[str], limit: int) -> list[dict[str, Any]]:
        return self._read(q.RELATIONS_AMONG, ids=ids, seeds=seeds, limit=limit)

    def chunk_count(self) -> int:
        return self._read(q.CHUNK_COUNT)[0]["n"]

    def chunks_mentioning(self, entities: list[dict[str, Any]], embedding: list[float], candidates: int,
                          total_chunks: int) -> list[dict[str, Any]]:
        return self._read(q.CHUNKS_MENTIONING, entities=entities, embedding=embedding, candidates=candidates,
                          n=max(total_chunks, 1))

    def bridge_chunks(self, chunk_ids: list[str], embedding: list[float], candidates: int,
                      total_chunks: int) -> list[dict[str, Any]]:
        return self._read(q.BRIDGE_CHUNKS, chunk_ids=chunk_ids, embedding=embedding, candidates=candidates,
                          n=max(total_chunks, 1))

    def entity_communities(self, ids: list[str], limit: int) -> list[dict[str, Any]]:
        return self._read(q.ENTITY_COMMUNITIES, ids=ids, limit=limit)

    def community_vector_search(self, embedding: list[float], k: int, level: int | None) -> list[dict[str, Any]]:
        # Ask the index wide: a level filter after an approximate top-k could leave nothing.
        return self._read(q.COMMUNITY_VECTOR_SEARCH, embedding=embedding, k=k, level=level,
                          candidates=max(k * 20, 500))

    def communities_at_level(self, level: int, embedding: list[float]) -> list[dict[str, Any]]:
        return self._read(q.COMMUNITIES_AT_LEVEL, level=level, embedding=embedding)

    def shortest_paths(self, source: str, target: str, limit: int) -> list[dict[str, Any]]:
        return self._read(q.SHORTEST_PATHS, source=source, target=target, limit=limit)

    def co_mentions(self, a: str, b: str, limit: int) -> list[dict[str, Any]]:
        return self._read(q.CO_MENTIONS, a=a, b=b, limit=limit)

    def common_neighbours(self, a: str, types_a: list[str], b: str, types_b: list[str]) -> list[dict[str, Any]]:
        return self._read(q.COMMON_NEIGHBOURS, a=a, types_a=types_a, b=b, types_b=types_b)

    def entity_relations(self, entity_id: str, limit: int) -> list[dict[str, Any]]:
        return [r["relation"] for r in self._read(q.ENTITY_RELATIONS, id=entity_id, limit=limit)]

    def relation_types(self) -> list[str]:
        return sorted(r["type"] for r in self._read(q.RELATION_TYPES) if r["type"] not in RESERVED_RELATIONS)

    def chunks_with_ids(self, ids: list[str]) -> list[dict[str, Any]]:
        """Chunk rows (with document title and source) in the order of `ids`; unknown ids are skipped."""
        rows = {r["chunk_id"]: r for r in self._read(q.CHUNKS_BY_IDS, ids=ids)}
        return [rows[i] for i in ids if i in rows]

    def all_chunks(self) -> list[dict[str, Any]]:
        """Every chunk with its text, document and embedding: the corpus the plain-Python peers search."""
        return self._read(q.ALL_CHUNKS)

    def known_documents(self, keys: list[str]) -> set[str]:
        """Which of `keys` name a document by id or title."""
        return {r["key"] for r in self._read(q.DOCUMENTS_KNOWN, keys=keys) if r["known"]}

    # --- read-only Cypher ------------------------------------------------------------------------------
    def explain_query_type(self, query: str) -> str:
        """Neo4j's own classification of a query without running it: "r", "rw", "w" or "s"."""
        try:
            with self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
                return session.run(q.EXPLAIN_PREFIX + query).consume().query_type or "?"
        except Neo4jError as exc:
            raise GraphStoreError(f"Neo4j refused the query: {exc.message}") from exc

    def read_query(self, query: str, max_rows: int, timeout: float) -> tuple[list[dict[str, Any]], bool]:
        """Rows of a query run in a READ transaction (the server refuses writes there) with a timeout;
        at most `max_rows`, and whether more were left."""
        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            result = tx.run(query)
            rows = []
            for record in result:
                rows.append(record.data())
                if len(rows) > max_rows:
                    break
            return rows

        try:
            with self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
                rows = session.execute_read(neo4j.unit_of_work(timeout=timeout)(work))
        except Neo4jError as exc:
            raise GraphStoreError(f"Neo4j refused the query: {exc.message}") from exc
        return rows[:max_rows], len(rows) > max_rows

    def schema_text(self) -> str:
        """The live graph model as a prompt sees it: labels with their properties, relationship types."""
        lines = ["Nodes (label: properties):"]
        for row in sorted(self._read(q.SCHEMA_NODE_PROPERTIES), key=lambda r: r["labels"]):
            lines.append(f"- {':'.join(row['labels'])}: {', '.join(sorted(row['properties']))}")
        types = self.relation_types()
        lines += ["Relationships:", "- (:Chunk)-[:PART_OF]->(:Document), (:Chunk)-[:NEXT]->(:Chunk),",
                  "  (:Chunk)-[:MENTIONS {count}]->(:Entity), (:Entity)-[:IN_COMMUNITY]->(:Community),",
                  "  (:Community)-[:PARENT_OF]->(:Community)",
                  "- between entities (properties weight, description, evidence, chunk_ids): "
                  + ", ".join(types[:200])]
        return "\n".join(lines)

    # --- inspection ----------------------------------------------------------------------------------
    def type_counts(self) -> dict[str, dict[str, int]]:
        """Entities by type and relations by type."""
        return {"entities": {r["type"]: r["n"] for r in self._read(q.ENTITY_TYPE_COUNTS)},
                "relations": {r["type"]: r["n"] for r in self._read(q.RELATION_TYPE_COUNTS)}}

    def entity_profile(self, entity_id: str) -> dict[str, Any] | None:
        rows = self._read(q.ENTITY_PROFILE, id=entity_id)
        return rows[0] if rows else None

    def entity_sources(self, entity_id: str, limit: int = 20) -> list[dict[str, Any]]:
        return self._read(q.ENTITY_SOURCES, id=entity_id, limit=limit)
