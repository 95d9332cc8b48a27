"""A store backend in plain Python: the "storage backend" recipe of docs/architecture.md, exercised. It keeps
graph_store/contracts.py's `GraphStore` (mypy checks it, scripts/test.sh), passes the store contract suite
(tests/store_contract.py) that Neo4j passes, and registered as `memory` in `STORE_BACKENDS` a GraphRAG ingests
and searches through it (tests/unit/graph_store/test_memory_store.py). Its smaller roles are in
tests/memory_roles.py, the records they share in tests/memory_space.py.

What it models: documents, chunks, the entity graph they support, vector and keyword search, entity linking,
conversations, workspaces, schema and counts. What it does not (it raises NotImplementedError naming the
method): the walk's neighbourhood reads, paths, community reports, curation, re-embedding and Cypher; those
need a graph database, and a backend that lacks them serves `vector`, `fulltext` and `hybrid` search only."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

from graphwright.config import DEFAULT_WORKSPACE, Settings
from graphwright.errors import GraphStoreError
from graphwright.graph_store.contracts import GraphStore, ReadLimits
from graphwright.graph_store.rows import (
    CatalogEntityRow,
    ChunkRow,
    CommonNeighbourRow,
    DocumentListRow,
    DocumentProfileRow,
    DocumentRow,
    EmbeddedChunkRow,
    EntityListRow,
    EntityProfileRow,
    EntityRow,
    EntitySourceRow,
    ExportEntityRow,
    ExportRelationRow,
    FoundEntityRow,
    KeyedEntityRow,
    NeighbourhoodRow,
    OverviewRow,
    PathRow,
    RelationRow,
    ScoredChunkRow,
    ScoredEntityRow,
    TopEntityRow,
)
from graphwright.graph_store.workspace_names import Workspace
from graphwright.models import (
    Chunk,
    CypherRows,
    Document,
    DocumentQuery,
    Entity,
    MetadataFilter,
    Relation,
)
from graphwright.text.normalize import normalize_key
from tests.memory_roles import (
    MemoryAdmin,
    MemoryCommunities,
    MemoryConversations,
    MemoryCuration,
    MemoryGds,
    MemorySources,
    MemorySummaries,
    MemoryWorkspaces,
)
from tests.memory_space import Database, Space, _cosine, _missing, _words


class MemoryRetrieval:
    def __init__(self, space: Space) -> None:
        self.s = space

    def _row(self, chunk: Chunk) -> ChunkRow:
        document = self.s.documents[chunk.document_id]
        return {
            "chunk_id": chunk.id,
            "document_id": chunk.document_id,
            "text": chunk.text,
            "title": document.title,
            "source": document.source,
            "pages": chunk.pages,
            "section": chunk.section or None,
        }

    def _scored(self, chunk: Chunk, score: float) -> ScoredChunkRow:
        return {**self._row(chunk), "score": score, "language": chunk.language}

    def _passing(self, filters: list[MetadataFilter] | None) -> list[Chunk]:
        if filters:
            _missing("metadata filters")
        return list(self.s.chunks.values())

    def vector_search(
        self, embedding: list[float], k: int, filters: list[MetadataFilter] | None = None
    ) -> list[ScoredChunkRow]:
        scored = [(_cosine(embedding, c.embedding), c) for c in self._passing(filters) if c.embedding]
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        return [self._scored(c, (1 + score) / 2) for score, c in scored[:k]]  # Neo4j's cosine score, in [0, 1]

    def fulltext_search(
        self, lucene_query: str, k: int, filters: list[MetadataFilter] | None = None, *, terms: bool = False
    ) -> list[ScoredChunkRow]:
        """A plain BM25 over the chunks' context and text (Lucene's operators read as words)."""
        chunks = self._passing(filters)
        query = set(_words(lucene_query))
        if not chunks or not query:
            return []
        bags = {c.id: Counter(_words(c.terms if terms else f"{c.context} {c.text}")) for c in chunks}
        average = sum(sum(b.values()) for b in bags.values()) / len(bags) or 1.0
        scored = []
        for chunk in chunks:
            bag, length, score = bags[chunk.id], sum(bags[chunk.id].values()), 0.0
            for word in query & bag.keys():
                having = sum(1 for b in bags.values() if word in b)
                idf = math.log(1 + (len(bags) - having + 0.5) / (having + 0.5))
                score += idf * bag[word] * 2.2 / (bag[word] + 1.2 * (0.25 + 0.75 * length / average))
            if score > 0:
                scored.append((score, chunk))
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        return [self._scored(c, score) for score, c in scored[:k]]

    def corpus_languages(self) -> set[str]:
        return {c.language for c in self.s.chunks.values()}

    def term_counts(self, clauses: dict[str, str], limit: int = 1000) -> dict[str, int]:
        return {term: min(limit, sum(1 for c in self.s.chunks.values() if term in c.terms.split())) for term in clauses}

    def co_mentions(self, a: str, b: str, limit: int) -> list[ChunkRow]:
        if a not in self.s.entities or b not in self.s.entities:
            return []
        ids = set(self.s.entities[a].mentions) & set(self.s.entities[b].mentions)
        return [self._row(self.s.chunks[i]) for i in sorted(ids) if i in self.s.chunks][:limit]

    def chunks_with_ids(self, ids: list[str]) -> list[ChunkRow]:
        return [self._row(self.s.chunks[i]) for i in ids if i in self.s.chunks]

    def all_chunks(self) -> list[EmbeddedChunkRow]:
        return [
            {**self._row(c), "embedding": list(c.embedding or [])}
            for c in sorted(self.s.chunks.values(), key=lambda c: c.id)
        ]

    def chunks_by_id(self, ids: list[str]) -> dict[str, str]:
        return {i: self.s.chunks[i].text for i in ids if i in self.s.chunks}

    def document_chunks(self, document_id: str) -> dict[str, str]:
        chunks = sorted((c for c in self.s.chunks.values() if c.document_id == document_id), key=lambda c: c.index)
        return {c.id: c.text for c in chunks}

    def chunks_matching(self, lucene_query: str, k: int = 50) -> dict[str, str]:
        return {row["chunk_id"]: row["text"] for row in self.fulltext_search(lucene_query, k)}

    def get_document(self, document_id: str) -> DocumentRow | None:
        document = self.s.documents.get(document_id)
        if document is None:
            return None
        chunks = sorted((c for c in self.s.chunks.values() if c.document_id == document_id), key=lambda c: c.index)
        return {
            "document": {**document.metadata, "id": document.id, "source": document.source, "title": document.title},
            "chunks": [{"id": c.id, "index": c.index, "text": c.text, "n_tokens": c.n_tokens} for c in chunks],
        }

    def _document_rows(self, search: str | None) -> list[DocumentListRow]:
        rows: list[DocumentListRow] = [
            {
                "id": d.id,
                "title": d.title,
                "source": d.source,
                "chunks": sum(1 for c in self.s.chunks.values() if c.document_id == d.id),
                "content_hash": d.content_hash,
                "ingested_at": None,
                "languages": None,
                "error": None,
                "status": "incomplete" if d.content_hash.endswith(":incomplete") else "processed",
            }
            for d in self.s.documents.values()
        ]
        staged = sorted({key[0] for key in self.s.staged if key[0] not in self.s.documents})
        rows += [
            {
                "id": document_id,
                "title": None,
                "source": None,
                "chunks": sum(len(v) for k, v in self.s.staged.items() if k[0] == document_id),
                "content_hash": None,
                "ingested_at": None,
                "languages": None,
                "error": None,
                "status": "interrupted",
            }
            for document_id in staged
        ]
        rows += [
            {
                "id": source,
                "title": None,
                "source": source,
                "chunks": 0,
                "content_hash": None,
                "ingested_at": None,
                "languages": None,
                "error": error,
                "status": "failed",
            }
            for source, error in self.s.failed.items()
        ]
        return [r for r in rows if not search or search in r["id"].lower() or search in (r["title"] or "").lower()]

    def list_documents(self, query: DocumentQuery | None = None) -> list[DocumentListRow]:
        query = query or DocumentQuery()
        if query.language or query.sort != "id":
            _missing("document filters beyond search and status")
        rows = [
            r
            for r in self._document_rows(query.search)
            if query.status in (None, r["status"]) and not (query.stored and r["content_hash"] is None)
        ]
        return sorted(rows, key=lambda r: r["id"], reverse=query.descending)[query.offset : query.offset + query.limit]

    def document_status_counts(self, *, search: str | None = None, language: str | None = None) -> dict[str, int]:
        return dict(Counter(r["status"] for r in self._document_rows(search)))

    def known_documents(self, keys: list[str]) -> set[str]:
        return {k for k in keys for d in self.s.documents.values() if k in (d.id, d.title)}

    def passage_similarities(
        self, ids: list[str], embedding: list[float], languages: frozenset[str] | None = None
    ) -> dict[str, float]:
        chunks = [self.s.chunks[i] for i in ids if i in self.s.chunks and self.s.chunks[i].embedding]
        chunks = [c for c in chunks if languages is None or c.language in languages]
        return {c.id: (1 + _cosine(embedding, c.embedding or [])) / 2 for c in chunks}

    def documents_passing(self, ids: list[str], filters: list[MetadataFilter]) -> set[str]:
        _missing("metadata filters")

    def document_sections(self, ids: list[str], limit: int = 20_000) -> list[tuple[str, str]]:
        found = {(c.document_id, c.section) for c in self.s.chunks.values() if c.document_id in ids and c.section}
        return sorted(found)[:limit]

    def document_profiles(self, limit: int = 10_000) -> list[DocumentProfileRow]:
        profiled = [d for d in sorted(self.s.documents.values(), key=lambda d: d.id) if d.metadata.get("issuer")]
        return [
            {
                "id": d.id,
                "issuer": str(d.metadata["issuer"]),
                "aliases": list(d.metadata.get("issuer_aliases") or []),
                "tickers": list(d.metadata.get("tickers") or []),
                "kind": d.metadata.get("doc_kind"),
                "fiscal_year": d.metadata.get("fiscal_year"),
                "fiscal_quarter": d.metadata.get("fiscal_quarter"),
                "years": list(d.metadata.get("period_years") or []),
            }
            for d in profiled[:limit]
        ]


class MemoryGraph:
    def __init__(self, space: Space) -> None:
        self.s = space

    def _row(self, entity: Entity) -> EntityRow:
        return {"id": entity.id, "name": entity.name, "type": entity.type, "description": entity.description}

    def _degree(self, entity_id: str) -> int:
        return sum(1 for (a, _, b) in self.s.relations if entity_id in (a, b))

    def _relation_row(self, relation: Relation) -> RelationRow:
        return {
            "source_id": relation.source_id,
            "source": self.s.entities[relation.source_id].name,
            "type": relation.type,
            "target_id": relation.target_id,
            "target": self.s.entities[relation.target_id].name,
            "description": relation.description,
            "weight": relation.weight or 1.0,
            "chunk_ids": list(relation.chunk_ids),
            "evidence": list(relation.evidence),
        }

    def entities_by_key(self, keys: list[str]) -> list[KeyedEntityRow]:
        by_key = {normalize_key(e.name): e for e in self.s.entities.values()}
        return [{"key": k, "degree": self._degree(by_key[k].id), **self._row(by_key[k])} for k in keys if k in by_key]

    def entity_name_search(self, lucene_query: str, k: int) -> list[ScoredEntityRow]:
        query = set(_words(lucene_query.replace("name:", " ")))
        scored = [(len(query & set(_words(e.name))), e) for e in self.s.entities.values()]
        scored = sorted((pair for pair in scored if pair[0]), key=lambda pair: (-pair[0], pair[1].id))
        return [{**self._row(e), "score": float(score)} for score, e in scored[:k]]

    def entity_vector_search(self, embedding: list[float], k: int) -> list[ScoredEntityRow]:
        scored = [(_cosine(embedding, e.embedding), e) for e in self.s.entities.values() if e.embedding]
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        return [{**self._row(e), "score": (1 + score) / 2} for score, e in scored[:k]]

    def entities_with_ids(self, ids: list[str]) -> list[EntityRow]:
        return [self._row(self.s.entities[i]) for i in ids if i in self.s.entities]

    def relations_among(self, ids: list[str], seeds: list[str], limit: int) -> list[RelationRow]:
        inside = [r for (a, _, b), r in self.s.relations.items() if a in ids and b in ids and a != b]
        touches = {id(r): (r.source_id in seeds) + (r.target_id in seeds) for r in inside}
        rows = [self._relation_row(r) for r in inside]
        order = sorted(range(len(rows)), key=lambda i: (-touches[id(inside[i])], -rows[i]["weight"], rows[i]["source"]))
        return [rows[i] for i in order][:limit]

    def entity_descriptions(self, ids: list[str]) -> dict[str, str]:
        return {i: e.description for i in ids if (e := self.s.entities.get(i)) is not None and e.description}

    def entity_catalog(self) -> list[CatalogEntityRow]:
        return [
            {"id": e.id, "key": normalize_key(e.name), "name": e.name, "type": e.type} for e in self.s.entities.values()
        ]

    def neighbourhood(
        self, entity_ids: list[str], chunk_ids: list[str], embedding: list[float], per_entity: int, hub: int
    ) -> NeighbourhoodRow:
        _missing("the walk's neighbourhood")

    def shortest_paths(self, source: str, target: str, limit: int) -> list[PathRow]:
        _missing("paths")

    def common_neighbours(self, a: str, types_a: list[str], b: str, types_b: list[str]) -> list[CommonNeighbourRow]:
        _missing("common neighbours")

    def entity_relations(self, entity_id: str, limit: int) -> list[RelationRow]:
        found = [r for (a, _, b), r in self.s.relations.items() if entity_id in (a, b)]
        return [self._relation_row(r) for r in found][:limit]

    def entity_lookup(self, text: str, limit: int) -> list[FoundEntityRow]:
        found = [e for e in self.s.entities.values() if text.lower() in e.name.lower()]
        rows: list[FoundEntityRow] = [
            {"id": e.id, "name": e.name, "type": e.type, "degree": self._degree(e.id)} for e in found
        ]
        return sorted(rows, key=lambda r: (-r["degree"], r["name"]))[:limit]

    def relation_types(self) -> list[str]:
        return sorted({kind for (_, kind, _) in self.s.relations})

    def top_entities(self, limit: int = 5) -> list[TopEntityRow]:
        rows: list[TopEntityRow] = [
            {"name": e.name, "type": e.type, "degree": self._degree(e.id), "chunks": len(e.mentions)}
            for e in self.s.entities.values()
        ]
        return sorted(rows, key=lambda r: (-(r["degree"] or 0), r["name"]))[:limit]

    def list_entities(
        self, offset: int = 0, limit: int = 100, *, search: str | None = None, type: str | None = None
    ) -> list[EntityListRow]:
        _missing("the entities table")

    def count_entities(self, *, search: str | None = None, type: str | None = None) -> int:
        _missing("the entities table")

    def overview(self, limit: int = 150, types: list[str] | None = None, min_degree: int = 0) -> list[OverviewRow]:
        _missing("the explorer's overview")

    def export_entities(self, ids: list[str] | None = None) -> Iterator[ExportEntityRow]:
        _missing("exports")

    def export_relations(self, ids: list[str] | None = None) -> Iterator[ExportRelationRow]:
        _missing("exports")

    def entity_profile(self, entity_id: str) -> EntityProfileRow | None:
        _missing("entity profiles")

    def entity_sources(self, entity_id: str, limit: int = 20) -> list[EntitySourceRow]:
        _missing("entity sources")

    def read_only(self, query: str, limits: ReadLimits, caller: str = "") -> CypherRows:
        _missing("Cypher")

    def schema_text(self) -> str:
        return "Document, Chunk, Entity; relations: " + ", ".join(self.relation_types())


class MemoryWrites:
    def __init__(self, space: Space) -> None:
        self.s = space

    def _remove(self, document_id: str) -> list[str]:
        """The document's chunks go, and so does their share of the entity graph; the chunk ids gone."""
        gone = [i for i, c in self.s.chunks.items() if c.document_id == document_id]
        for chunk_id in gone:
            del self.s.chunks[chunk_id]
        for entity in self.s.entities.values():
            for chunk_id in gone:
                entity.mentions.pop(chunk_id, None)
        for key, relation in list(self.s.relations.items()):
            kept = [i for i in relation.chunk_ids if i not in gone]
            if relation.chunk_ids and not kept:
                del self.s.relations[key]
            else:
                relation.chunk_ids = kept
        self._settle()
        return gone

    def _settle(self) -> None:
        """An entity no passage mentions any longer goes, with its relations (Neo4j's settle_entities)."""
        orphans = {i for i, e in self.s.entities.items() if not e.mentions}
        for entity_id in orphans:
            del self.s.entities[entity_id]
        for key in [k for k in self.s.relations if k[0] in orphans or k[2] in orphans]:
            del self.s.relations[key]

    def _graph(self, entities: list[Entity] | None, relations: list[Relation] | None) -> None:
        for entity in entities or []:
            mentions = {i: n for i, n in entity.mentions.items() if i in self.s.chunks}
            kept = self.s.entities.get(entity.id)
            if kept is None:
                self.s.entities[entity.id] = entity.model_copy(update={"mentions": mentions})
            else:
                kept.mentions.update(mentions)
        for relation in relations or []:
            if relation.source_id in self.s.entities and relation.target_id in self.s.entities:
                key = (relation.source_id, relation.type, relation.target_id)
                self.s.relations[key] = relation.model_copy()
        self._settle()

    def link_similar(self, batch_size: int = 500, workers: int = 0) -> int:
        return 0  # synonym lists are derived data; this store keeps none

    def document_hashes(self, ids: list[str]) -> dict[str, str]:
        return {i: self.s.documents[i].content_hash for i in ids if i in self.s.documents}

    def stored_vectors(self, document_ids: list[str], texts: list[str]) -> dict[str, list[float]]:
        wanted, ids = set(texts), set(document_ids)
        return {
            c.embedding_text: list(c.embedding)
            for c in self.s.chunks.values()
            if c.document_id in ids and c.text in wanted and c.embedding is not None
        }

    def write_documents(
        self,
        items: list[tuple[Document, list[Chunk]]],
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:
        for document, chunks in items:
            self._remove(document.id)
            self.s.documents[document.id] = document.model_copy(update={"text": ""})
            self.s.chunks.update({c.id: c.model_copy() for c in chunks})
        self._graph(entities, relations)

    def clear_staged(self, document_id: str, keep: str | None = None) -> None:
        for key in [k for k in self.s.staged if k[0] == document_id and k[1] != keep]:
            del self.s.staged[key]
            self.s.staged_extractions.pop(key, None)

    def staged_extractions(self, document_id: str, stage: str) -> dict[str, str]:
        return dict(self.s.staged_extractions.get((document_id, stage), {}))

    def record_failures(self, failed: list[tuple[str, str]], cleared: list[str]) -> None:
        for source in cleared:
            self.s.failed.pop(source, None)
        self.s.failed.update(failed)

    def stage_chunks(
        self,
        document_id: str,
        stage: str,
        chunks: list[Chunk],
        batch_size: int = 500,
        extractions: dict[str, str] | None = None,
    ) -> None:
        self.s.staged.setdefault((document_id, stage), []).extend(chunks)
        self.s.staged_extractions.setdefault((document_id, stage), {}).update(extractions or {})

    def commit_staged(
        self,
        document: Document,
        chunks: list[Chunk],
        stage: str,
        batch_size: int = 500,
        entities: list[Entity] | None = None,
        relations: list[Relation] | None = None,
    ) -> None:
        staged = {c.id: c for c in self.s.staged.pop((document.id, stage), [])}
        self.s.staged_extractions.pop((document.id, stage), None)
        if any(c.id not in staged for c in chunks):
            raise GraphStoreError(f"{len(staged)} of {len(chunks)} staged chunks found")
        self.write_documents([(document, [staged[c.id] for c in chunks])], entities=entities, relations=relations)

    def delete_document(self, document_id: str) -> int | None:
        if document_id not in self.s.documents:
            return None
        del self.s.documents[document_id]
        return len(self._remove(document_id))

    def forget_record(self, record_id: str) -> bool:
        staged = [key for key in self.s.staged if key[0] == record_id]
        for key in staged:
            del self.s.staged[key]
            self.s.staged_extractions.pop(key, None)
        return self.s.failed.pop(record_id, None) is not None or bool(staged)

    def write_graph(self, entities: list[Entity], relations: list[Relation], batch_size: int = 500) -> None:
        self._graph(entities, relations)


class MemoryStore:
    """The whole store over one `Database`, in one workspace."""

    def __init__(self, *, workspace: str = DEFAULT_WORKSPACE, database: Database | None = None) -> None:
        self.database = database or Database()
        self.workspace = Workspace(workspace)
        space = self.database.space(workspace)
        self.retrieval = MemoryRetrieval(space)
        self.graph = MemoryGraph(space)
        self.writes = MemoryWrites(space)
        self.communities = MemoryCommunities(space)
        self.summaries = MemorySummaries(space)
        self.admin = MemoryAdmin(space, self.database, self.workspace)
        self.conversations = MemoryConversations(space)
        self.curation = MemoryCuration()
        self.gds = MemoryGds()
        self.sources = MemorySources(space)
        self.workspaces = MemoryWorkspaces(self.database)

    def in_workspace(self, name: str) -> MemoryStore:
        return MemoryStore(workspace=name, database=self.database)

    def verify(self) -> None:
        pass  # always there

    def close(self) -> None:
        pass


def open_memory(settings: Settings, *, workspace: str) -> GraphStore:
    """The `memory` store backend: a new, empty database (what STORE_BACKENDS calls)."""
    return MemoryStore(workspace=workspace)
