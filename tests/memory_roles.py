"""The in-memory store's smaller roles (communities, summaries, admin, conversations, curation, workspaces, GDS,
sources), each keeping its Protocol of graphwright/graph_store/contracts.py over a space of tests/memory_space.py."""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from graphwright.config import DEFAULT_WORKSPACE, check_workspace_name
from graphwright.curation.contract import Embed
from graphwright.errors import NotFoundError, WorkspaceExistsError
from graphwright.graph_store.rows import (
    ChunkVectorRow,
    CommunityCatalogRow,
    CommunityContextRow,
    CommunityLevelRow,
    CommunityRow,
    EmbeddingSourceRow,
    IndexRow,
    IntegrityProblem,
    MetaRow,
    ScoredChunkRow,
    SummaryRow,
)
from graphwright.graph_store.schema import SchemaPlan, check_compatible
from graphwright.graph_store.workspace_names import Workspace
from graphwright.models import (
    CurationChange,
    MetadataFilter,
    SourceRecord,
)
from tests.memory_space import VECTOR_INDEXES, Database, Space, _missing, _now


class MemoryCommunities:
    """No community reports are kept: the levels are empty, which search reads as "not built"."""

    def __init__(self, space: Space) -> None:
        self.s = space

    def entity_edges(self) -> list[tuple[str, str, float]]:
        return [(a, b, r.weight or 1.0) for (a, _, b), r in self.s.relations.items()]

    def entity_ids(self) -> list[str]:
        return sorted(self.s.entities)

    def community_catalog(self) -> list[CommunityCatalogRow]:
        return []

    def community_context(
        self, communities: list[dict[str, Any]], max_members: int = 30, max_relations: int = 20
    ) -> dict[str, CommunityContextRow]:
        _missing("community reports")

    def write_communities(
        self,
        removed: list[str],
        rows: list[dict[str, Any]],
        embeddings: list[dict[str, Any]],
        members: list[dict[str, str]],
        parents: list[dict[str, str]],
        graph_hashes: Sequence[dict[str, str]] = (),
        batch_size: int = 5000,
    ) -> None:
        _missing("community reports")

    def communities(self, level: int | None = None, limit: int = 20) -> list[CommunityRow]:
        return []

    def community_levels(self) -> list[CommunityLevelRow]:
        return []

    def entity_communities(self, ids: list[str], limit: int) -> list[CommunityRow]:
        return []

    def community_vector_search(self, embedding: list[float], k: int, level: int | None) -> list[CommunityRow]:
        return []

    def communities_at_level(self, level: int, embedding: list[float]) -> list[CommunityRow]:
        return []


class MemorySummaries:
    """Passages' vectors come out (a tree can be clustered from them); no tree is kept: search finds none."""

    def __init__(self, space: Space) -> None:
        self.s = space

    def ensure_schema(self, dimension: int, analyzer: str) -> None:
        pass

    def chunk_vectors(self, page: int = 5000) -> Iterator[ChunkVectorRow]:
        for chunk in sorted(self.s.chunks.values(), key=lambda c: c.id):
            if chunk.embedding is not None:
                yield {
                    "id": chunk.id,
                    "document_id": chunk.document_id,
                    "text": chunk.text,
                    "embedding": chunk.embedding,
                }

    def entity_names(self, chunk_ids: list[str], limit: int) -> list[str]:
        return []

    def catalog(self) -> dict[str, int]:
        return {}

    def texts_and_vectors(self, ids: list[str]) -> dict[str, tuple[str, list[float]]]:
        return {}

    def write(
        self,
        removed: Sequence[str],
        rows: Sequence[dict[str, Any]],
        chunk_links: Sequence[dict[str, str]],
        summary_links: Sequence[dict[str, str]],
        batch_size: int = 2000,
    ) -> None:
        _missing("summary trees")

    def search(self, embedding: list[float], k: int) -> list[SummaryRow]:
        return []

    def leaves(
        self, summary_ids: list[str], embedding: list[float], n: int, filters: list[MetadataFilter] | None = None
    ) -> dict[str, list[ScoredChunkRow]]:
        return {i: [] for i in summary_ids}


class MemoryAdmin:
    def __init__(self, space: Space, database: Database, workspace: Workspace) -> None:
        self.s, self.database, self.workspace = space, database, workspace

    def vector_index_dimensions(self) -> dict[str, int | None]:
        dimension = self.s.meta["dimension"] if self.s.meta else None
        return {name: dimension for name in VECTOR_INDEXES} if dimension else {}

    def ensure_schema(self, plan: SchemaPlan) -> list[str]:
        check_compatible(self.vector_index_dimensions(), self.s.meta, plan)
        created = [] if self.s.meta else list(VECTOR_INDEXES)
        self.s.meta = {"model": plan.embedding_model, "dimension": plan.dimension, "reembed_model": None}
        return created

    def await_indexes(self, seconds: int = 300) -> None:
        pass  # nothing here is built in the background

    def meta(self) -> MetaRow | None:
        return self.s.meta

    def graph_schema(self) -> str | None:
        return self.s.schema_json

    def set_graph_schema(self, schema_json: str) -> None:
        self.s.schema_json = schema_json

    def begin_reembed(self, model: str, batch: int = 10_000) -> None:
        _missing("re-embedding")

    def embedding_page(self, label: str, after: str, limit: int) -> list[EmbeddingSourceRow]:
        _missing("re-embedding")

    def stage_embeddings(self, label: str, rows: list[dict[str, Any]]) -> None:
        _missing("re-embedding")

    def finish_reembed(self, plan: SchemaPlan, batch: int = 2_000) -> None:
        _missing("re-embedding")

    def indexes(self) -> list[IndexRow]:
        return [
            {
                "name": name,
                "type": "VECTOR",
                "labelsOrTypes": None,
                "properties": ["embedding"],
                "state": "ONLINE",
                "populationPercent": 100.0,
            }
            for name in self.vector_index_dimensions()
        ]

    def reset(self, batch: int = 10_000) -> None:
        self.s.__dict__.update(Space().__dict__)  # in place: the other roles hold this space

    def counts(self) -> dict[str, int]:
        chunks = self.s.chunks.values()
        return {
            "documents": len(self.s.documents),
            "chunks": len(chunks),
            "next_links": sum(1 for c in chunks if c.index > 0),
            "part_of_links": len(chunks),
            "entities": len(self.s.entities),
            "relations": len(self.s.relations),
            "mentions": sum(len(e.mentions) for e in self.s.entities.values()),
            "communities": 0,
        }

    def type_counts(self) -> dict[str, dict[str, int]]:
        return {
            "entities": dict(Counter(e.type for e in self.s.entities.values())),
            "relations": dict(Counter(kind for (_, kind, _) in self.s.relations)),
        }

    def integrity_problems(self) -> dict[str, IntegrityProblem]:
        dangling = [c.id for c in self.s.chunks.values() if c.document_id not in self.s.documents]
        return {"chunk_without_document": {"n": len(dangling), "examples": dangling[:5]}} if dangling else {}

    def resumable(self) -> IntegrityProblem:
        staged = sorted({document_id for document_id, _ in self.s.staged})
        return {"n": sum(len(chunks) for chunks in self.s.staged.values()), "examples": staged[:5]}


class MemoryConversations:
    def __init__(self, space: Space) -> None:
        self.s = space

    def _fields(self, c: dict[str, Any]) -> dict[str, Any]:
        keys = ("id", "title", "created_at", "updated_at")
        return {**{k: c[k] for k in keys}, "turns": len(c["history"])}

    def _owned(self, conversation_id: str, owner: str) -> dict[str, Any] | None:
        found = self.s.conversations.get(conversation_id)
        return found if found is not None and found["owner"] == owner else None

    def create(self, conversation_id: str, owner: str, title: str = "") -> dict[str, Any]:
        now = _now()
        c = {"id": conversation_id, "owner": owner, "title": title, "created_at": now, "updated_at": now, "history": []}
        self.s.conversations[conversation_id] = c
        return self._fields(c)

    def append(self, conversation_id: str, owner: str, turn: dict[str, Any], max_turns: int, title: str) -> int | None:
        c = self._owned(conversation_id, owner)
        if c is None:
            return None
        index = c["history"][-1]["index"] + 1 if c["history"] else 0
        c["history"] = [*c["history"], {**turn, "index": index, "created_at": _now()}][-max_turns:]
        c["title"], c["updated_at"] = c["title"] or title, _now()
        return index

    def get(self, conversation_id: str, owner: str) -> dict[str, Any] | None:
        c = self._owned(conversation_id, owner)
        return None if c is None else {**self._fields(c), "history": [dict(t) for t in c["history"]]}

    def list(self, owner: str, offset: int = 0, limit: int = 100) -> builtins.list[dict[str, Any]]:
        mine = [c for c in self.s.conversations.values() if c["owner"] == owner]
        mine.sort(key=lambda c: c["id"])
        mine.sort(key=lambda c: c["updated_at"], reverse=True)
        return [self._fields(c) for c in mine[offset : offset + limit]]

    def delete(self, conversation_id: str, owner: str) -> bool:
        return self._owned(conversation_id, owner) is not None and bool(self.s.conversations.pop(conversation_id))

    def reseal(
        self, conversation_id: str, old: str, owner: str, title: str, turns: builtins.list[dict[str, Any]]
    ) -> int:
        c = self._owned(conversation_id, old)
        if c is None:
            return 0
        c["owner"], c["title"] = owner, title
        texts = {t["index"]: t for t in turns}
        for turn in c["history"]:
            if turn["index"] in texts:
                turn.update({k: texts[turn["index"]][k] for k in ("question", "answer", "standalone")})
        return 1

    def expire(self, days: int) -> int:
        cutoff = datetime.now(timezone.utc).timestamp() - days * 86400
        old = [
            i for i, c in self.s.conversations.items() if datetime.fromisoformat(c["updated_at"]).timestamp() < cutoff
        ]
        for conversation_id in old:
            del self.s.conversations[conversation_id]
        return len(old)


class MemoryCuration:
    def history(self, offset: int = 0, limit: int = 50) -> list[CurationChange]:
        return []

    def merge(self, source: str, target: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        _missing("curation")

    def rename(self, entity: str, new_name: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        _missing("curation")

    def retype(self, entity: str, new_type: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        _missing("curation")

    def describe(self, entity: str, description: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        _missing("curation")

    def delete_entity(self, entity: str, *, who: str) -> CurationChange:
        _missing("curation")

    def retype_relation(self, source: str, type_: str, target: str, new_type: str, *, who: str) -> CurationChange:
        _missing("curation")

    def delete_relation(self, source: str, type_: str, target: str, *, who: str) -> CurationChange:
        _missing("curation")

    def undo(self, change_id: str | None, *, who: str) -> CurationChange:
        _missing("curation")


class MemoryWorkspaces:
    def __init__(self, database: Database) -> None:
        self.database = database

    def names(self) -> list[str]:
        return [DEFAULT_WORKSPACE, *sorted(self.database.registry)]

    def others_exist(self) -> bool:
        return bool(self.database.registry)

    def get(self, name: str) -> dict[str, Any]:
        check_workspace_name(name)
        if name == DEFAULT_WORKSPACE:
            return {"name": name, "created_at": None, "settings": {}}
        if name not in self.database.registry:
            raise NotFoundError(f"no workspace {name!r}: create it with `graphwright workspace create {name}`")
        return dict(self.database.registry[name])

    def create(self, name: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
        check_workspace_name(name)
        if name == DEFAULT_WORKSPACE or name in self.database.registry:
            raise WorkspaceExistsError(f"workspace {name!r} already exists")
        self.database.registry[name] = {"name": name, "created_at": _now(), "settings": dict(settings or {})}
        return dict(self.database.registry[name])

    def forget(self, name: str) -> None:
        self.database.registry.pop(name, None)  # its data went first, by its store's reset


class MemoryGds:
    """No Graph Data Science here: `version` is None, so the algorithms run in the client."""

    def version(self) -> str | None:
        return None

    def leiden(
        self, edges: Sequence[tuple[int, int, float]], start: Mapping[int, int], *, resolution: float, seed: int
    ) -> dict[int, int]:
        _missing("gds")

    def pagerank(
        self,
        edges: Sequence[tuple[int, int, float]],
        sources: Sequence[int],
        *,
        damping: float,
        iterations: int,
        tolerance: float,
    ) -> dict[int, float]:
        _missing("gds")


class MemorySources:
    def __init__(self, space: Space) -> None:
        self.s = space

    def list(self) -> list[SourceRecord]:
        return [SourceRecord.model_validate_json(self.s.sources[k]) for k in sorted(self.s.sources)]

    def get(self, source_id: str) -> SourceRecord | None:
        found = self.s.sources.get(source_id)
        return SourceRecord.model_validate_json(found) if found else None

    def put(self, record: SourceRecord) -> None:
        self.s.sources[record.id] = record.model_dump_json()

    def forget(self, source_id: str) -> bool:
        return self.s.sources.pop(source_id, None) is not None
