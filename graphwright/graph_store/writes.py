"""Writes of documents, chunks and their share of the entity graph. Each document lands whole or not at
all: a group of documents is one transaction, and a document too large for one group is staged under a
label no search reads, then swapped in by one transaction."""

from __future__ import annotations

import os
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from graphwright.curation.rules import CurationRules, aligned_descriptions
from graphwright.errors import WriteRejectedError
from graphwright.graph_schema import GraphSchema, LiteralProperty, literal_value
from graphwright.graph_store.connection import Role, ScopedTransaction, run_batches
from graphwright.graph_store.queries import entities as q
from graphwright.graph_store.queries.curation import CURATION_RULES
from graphwright.graph_store.queries.documents import (
    CLEAR_STAGED,
    DELETE_DOCUMENT,
    DELETE_DOCUMENT_CHUNKS,
    DOCUMENT_HASHES,
    FORGET_RECORD,
    LINK_DOCUMENT_ISSUER,
    LINK_NEXT,
    PROMOTE_STAGED,
    RECORD_FAILURES,
    STAGE_CHUNKS,
    STAGED_EXTRACTIONS,
    STORED_CHUNK_VECTORS,
    UPSERT_DOCUMENT,
    WRITE_CHUNKS,
)
from graphwright.graph_store.queries.schema import GET_GRAPH_SCHEMA
from graphwright.models import MAX_DESCRIPTION, Chunk, Document, Entity, Relation, chunk_embedding_text
from graphwright.text.normalize import normalize_key, relation_type

# Synonym lists (q.LINK_SIMILAR): the 5 nearest entities whose name embeddings have cosine >= 0.8 (Neo4j's
# cosine index score is (1 + cos) / 2). Measured in an offline copy of both shared sets' graphs: local's
# walk gains 0.5-1.5 points of R@2 with them, and 0.9 adds nothing (docs/benchmarks.md).
SIMILAR_CAP = 5
SIMILAR_MIN_SCORE = (1.0 + 0.8) / 2
SETTLE_BATCH = 500


class DocumentWrites(Role):
    def link_similar(self, batch_size: int = 500, workers: int = 0) -> int:
        workers = workers or min(4, os.cpu_count() or 1)
        done = 0
        while True:
            ids = [r["id"] for r in self.connection.read(q.MISSING_SIMILAR, limit=batch_size * workers)]
            if not ids:
                return done

            def work(part: list[str]) -> None:
                self.connection.execute_write(
                    lambda tx: tx.run(
                        q.LINK_SIMILAR,
                        ids=part,
                        candidates=SIMILAR_CAP + 1,
                        cap=SIMILAR_CAP,
                        min_score=SIMILAR_MIN_SCORE,
                    ).consume()
                )

            parts = [ids[start : start + batch_size] for start in range(0, len(ids), batch_size)]
            with ThreadPoolExecutor(len(parts)) as pool:
                list(pool.map(work, parts))  # every batch's error is raised here
            done += len(ids)

    def document_hashes(self, ids: list[str]) -> dict[str, str]:
        rows = self.connection.read(DOCUMENT_HASHES, ids=ids)
        return {row["id"]: row["hash"] for row in rows}

    def stored_vectors(self, document_ids: list[str], texts: list[str]) -> dict[str, list[float]]:
        if not document_ids or not texts:
            return {}
        rows = self.connection.read(STORED_CHUNK_VECTORS, ids=document_ids, texts=texts)
        return {chunk_embedding_text(r["context"], r["text"]): list(r["embedding"]) for r in rows}

    def write_documents(
        self,
        items: list[tuple[Document, list[Chunk]]],
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:

        def work(tx: ScopedTransaction) -> None:
            removed = _Removed()
            for document, chunks in items:
                removed += _remove_document_support(tx, document.id)
                _upsert_document(tx, document, chunks)
                run_batches(tx, WRITE_CHUNKS, "rows", _chunk_rows(chunks), batch_size, document_id=document.id)
            _link_and_settle(tx, [chunks for _, chunks in items], entities, relations, removed, batch_size)
            tx.run(LINK_DOCUMENT_ISSUER, ids=[document.id for document, _ in items]).consume()

        self.connection.execute_write(work)

    def clear_staged(self, document_id: str, keep: str | None = None) -> None:
        self.connection.execute_write(lambda tx: tx.run(CLEAR_STAGED, id=document_id, keep=keep).consume())

    def staged_extractions(self, document_id: str, stage: str) -> dict[str, str]:
        rows = self.connection.read(STAGED_EXTRACTIONS, id=document_id, stage=stage)
        return {r["id"]: r["extraction"] for r in rows}

    def record_failures(self, failed: list[tuple[str, str]], cleared: list[str]) -> None:
        rows = [{"source": source, "error": error[:2000]} for source, error in failed]
        self.connection.write(RECORD_FAILURES, failed=rows, cleared=cleared)

    def stage_chunks(
        self,
        document_id: str,
        stage: str,
        chunks: list[Chunk],
        batch_size: int = 500,
        extractions: dict[str, str] | None = None,
    ) -> None:
        """Part of a large document's chunks, with embeddings (and each chunk's extraction, as JSON), under a
        label no search reads."""
        rows = [{**row, "extraction": (extractions or {}).get(row["id"])} for row in _chunk_rows(chunks)]
        self.connection.execute_write(
            lambda tx: run_batches(tx, STAGE_CHUNKS, "rows", rows, batch_size, document_id=document_id, stage=stage)
        )

    def commit_staged(
        self,
        document: Document,
        chunks: list[Chunk],
        stage: str,
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:

        def work(tx: ScopedTransaction) -> None:
            removed = _remove_document_support(tx, document.id)
            _upsert_document(tx, document, chunks)
            promoted = sum(
                r["promoted"]
                for r in run_batches(
                    tx,
                    PROMOTE_STAGED,
                    "ids",
                    [c.id for c in chunks],
                    batch_size,
                    document_id=document.id,
                    stage=stage,
                )
            )
            if promoted != len(chunks):  # another run cleared them: roll back rather than write half
                raise WriteRejectedError(f"{promoted} of {len(chunks)} staged chunks found")
            _link_and_settle(tx, [chunks], entities, relations, removed, batch_size)
            tx.run(LINK_DOCUMENT_ISSUER, ids=[document.id]).consume()

        self.connection.execute_write(work)

    def delete_document(self, document_id: str) -> int | None:

        def work(tx: ScopedTransaction) -> int | None:
            removed = _remove_document_support(tx, document_id)
            rows = tx.run(DELETE_DOCUMENT, id=document_id).data()
            settle_entities(tx, removed.entity_ids, SETTLE_BATCH)
            _redescribe(tx, removed)
            return len(removed.chunk_ids) if rows else None

        return self.connection.execute_write(work)

    def forget_record(self, record_id: str) -> bool:
        rows = self.connection.write(FORGET_RECORD, id=record_id)
        return bool(rows and (rows[0]["failed"] or rows[0]["staged"]))

    def write_graph(self, entities: list[Entity], relations: list[Relation], batch_size: int = 500) -> None:

        def work(tx: ScopedTransaction) -> None:
            written = _write_graph(tx, entities, relations, batch_size)
            settle_entities(tx, written, batch_size)

        self.connection.execute_write(work)


def _upsert_document(tx: ScopedTransaction, document: Document, chunks: list[Chunk]) -> None:
    # The languages of its chunks: what tells a search which languages the corpus holds (few documents to
    # read, where the chunks are many).
    props = {
        **document.metadata,
        "id": document.id,
        "source": document.source,
        "title": document.title,
        "content_hash": document.content_hash,
        "n_chunks": len(chunks),
        "languages": sorted({c.language for c in chunks}),
    }
    tx.run(UPSERT_DOCUMENT, id=document.id, props=props).consume()


def _chunk_rows(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "index": c.index,
            "text": c.text,
            "context": c.context,
            "n_tokens": c.n_tokens,
            "embedding": c.embedding,
            "page_start": c.page_start,
            "page_end": c.page_end,
            "pages": c.pages,
            "section": c.section or None,
            "language": c.language,
            "terms": c.terms or None,
        }
        for c in chunks
    ]


def _link_and_settle(
    tx: ScopedTransaction,
    documents: list[list[Chunk]],
    entities: list[Entity] | None,
    relations: list[Relation] | None,
    removed: _Removed,
    batch_size: int,
) -> None:
    """NEXT chains of the documents' chunks, their entity graph, then the touched entities settled (and those
    the replaced versions mentioned described again by what remains)."""
    pairs = [[a.id, b.id] for chunks in documents for a, b in zip(chunks, chunks[1:])]
    run_batches(tx, LINK_NEXT, "pairs", pairs, batch_size)
    touched = list(removed.entity_ids)
    if entities:
        touched += _write_graph(tx, entities, relations or [], batch_size)
    settle_entities(tx, touched, batch_size)
    _redescribe(tx, removed)


@dataclass
class _Removed:
    """What taking a document's chunks out removed: its chunks, the entities they mentioned, and the names
    they called them."""

    chunk_ids: list[str] = field(default_factory=list)
    entity_ids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def __iadd__(self, other: _Removed) -> _Removed:
        self.chunk_ids += other.chunk_ids
        self.entity_ids += other.entity_ids
        self.names += other.names
        return self


def _remove_document_support(tx: ScopedTransaction, document_id: str) -> _Removed:
    """Delete a document's chunks and their share of relations (with what they said of them)."""
    support = tx.run(q.DOCUMENT_SUPPORT, id=document_id).single()
    chunk_ids: list[str] = support["chunk_ids"] if support else []
    entity_ids: list[str] = support["entity_ids"] if support else []
    names: list[str] = support["names"] if support else []
    if entity_ids:
        tx.run(
            q.PRUNE_RELATION_SUPPORT, entity_ids=entity_ids, chunk_ids=chunk_ids, max_description=MAX_DESCRIPTION
        ).consume()
        tx.run(q.DELETE_UNSUPPORTED_RELATIONS, entity_ids=entity_ids).consume()
    tx.run(DELETE_DOCUMENT_CHUNKS, id=document_id).consume()
    return _Removed(chunk_ids, entity_ids, names)


REDACTED_ANSWER = "(This answer quoted passages that have since been deleted or changed; ask again.)"


def _redescribe(tx: ScopedTransaction, removed: _Removed) -> None:
    """What outlives removed passages made again from what remains: the touched entities' descriptions and
    aliases (REDESCRIBE_ENTITIES), and stored answers that quoted them (REDACT_TURNS)."""
    if removed.chunk_ids:
        tx.run(q.REDACT_TURNS, ids=removed.chunk_ids, note=REDACTED_ANSWER).consume()
    entity_ids = list(dict.fromkeys(removed.entity_ids))
    if not entity_ids:
        return
    row = tx.run(CURATION_RULES).single()
    described = CurationRules.from_json(row["rules"] if row else None).described
    for start in range(0, len(entity_ids), SETTLE_BATCH):
        tx.run(
            q.REDESCRIBE_ENTITIES,
            entity_ids=entity_ids[start : start + SETTLE_BATCH],
            removed_names=sorted(set(removed.names)),
            described=described,
            max_description=MAX_DESCRIPTION,
        ).consume()


def _write_graph(
    tx: ScopedTransaction, entities: list[Entity], relations: list[Relation], batch_size: int
) -> list[str]:
    """The entity graph with the workspace's standing curation applied (curation/rules.py); the ids written."""
    row = tx.run(CURATION_RULES).single()
    rules = CurationRules.from_json(row["rules"] if row else None)
    entities, relations = rules.apply(entities, relations)
    rows = [
        {
            "id": e.id,
            "name": e.name,
            "key": normalize_key(e.name),
            "type": e.type,
            "label": e.label,
            "description": e.description,
            "replace_description": e.replace_description,
            "aliases": e.aliases,
        }
        for e in entities
    ]
    vectors = [{"id": e.id, "embedding": e.embedding} for e in entities if e.embedding is not None]
    mentions = [
        {
            "chunk_id": chunk,
            "entity_id": e.id,
            "count": n,
            "description": e.described_in.get(chunk, ""),
            "names": e.named_in.get(chunk, [e.name]),
        }
        for e in entities
        for chunk, n in e.mentions.items()
    ]
    rels = [
        {
            "source": r.source_id,
            "target": r.target_id,
            "type": r.type,
            "description": r.description,
            "chunk_ids": r.chunk_ids,
            "chunk_weights": r.chunk_weights,
            "evidence": r.evidence,
            "descriptions": aligned_descriptions(r),
        }
        for r in relations
    ]
    for statement, data in (
        (q.WRITE_ENTITIES, rows),
        (q.SET_ENTITY_LABELS, rows),
        (q.SET_ENTITY_EMBEDDINGS, vectors),
        (q.WRITE_MENTIONS, mentions),
        (q.WRITE_RELATIONS, rels),
    ):
        run_batches(tx, statement, "rows", data, batch_size, max_description=MAX_DESCRIPTION)
    return [e.id for e in entities]


def settle_entities(tx: ScopedTransaction, entity_ids: list[str], batch_size: int) -> None:
    """Entities no chunk mentions any more go; the rest get their degree recomputed."""
    ids = list(dict.fromkeys(entity_ids))
    for start in range(0, len(ids), batch_size):
        part = ids[start : start + batch_size]
        tx.run(q.DELETE_ORPHAN_ENTITIES, entity_ids=part).consume()
        tx.run(q.UPDATE_DEGREES, ids=part).consume()
    _set_literal_properties(tx, ids, batch_size)


def _literal_specs(tx: ScopedTransaction) -> dict[tuple[str, str], LiteralProperty]:
    """(entity type, relationship type) as stored -> the property the stored schema keeps their literals in."""
    row = tx.run(GET_GRAPH_SCHEMA).single()
    if row is None or not row["schema"]:
        return {}
    specs = GraphSchema.model_validate_json(row["schema"]).literal_properties()
    return {(relation_type(p.node_type), relation_type(p.relationship)): p for p in specs}


def _set_literal_properties(tx: ScopedTransaction, ids: list[str], batch_size: int) -> None:
    """The touched entities' literal facts as the properties the schema declares: one value, or a list of
    several; a property whose last fact went is removed."""
    specs = _literal_specs(tx)
    if not specs:
        return
    types = sorted({t for t, _ in specs})
    relations = sorted({r for _, r in specs})
    for start in range(0, len(ids), batch_size):
        part = ids[start : start + batch_size]
        rows = []
        for found in tx.run(q.LITERAL_FACTS, entity_ids=part, types=types, relations=relations):
            values: dict[str, list[Any]] = defaultdict(list)
            for relation, text in found["facts"]:
                spec = specs.get((found["type"], relation))
                if spec is not None and text is not None:
                    values[spec.key].append(literal_value(text, spec.kind))
            if not values and not found["keys"]:
                continue  # had none and has none: nothing to write
            properties: dict[str, Any] = {key: None for key in found["keys"]}  # None removes it
            for key, found_values in values.items():
                properties[key] = _property_value(found_values)
            rows.append({"id": found["id"], "properties": properties, "keys": sorted(values) or None})
        run_batches(tx, q.SET_LITERAL_PROPERTIES, "rows", rows, batch_size)


def _property_value(values: list[Any]) -> Any:
    """One value as itself, several as a list (Neo4j lists hold one type: mixed ones are kept as text)."""
    unique = sorted(set(values), key=str)
    if len(unique) == 1:
        return unique[0]
    return unique if len({type(v) for v in unique}) == 1 else [str(v) for v in unique]
