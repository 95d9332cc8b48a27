"""The knowledge-graph explorer's routes (find an entity, its neighbourhood with evidence, its passages) and
the curation routes (merge, rename, retype, describe, delete, relation retype and delete, history, undo). Reads are open
to read keys; every `POST /v1/curation/...` needs a write key (security.is_write), and the history records
the key's fingerprint, never the key."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from fastapi import FastAPI, Query, Request
from pydantic import BaseModel, Field

from graphwright.errors import NotFoundError
from graphwright.models import MAX_DESCRIPTION, CurationChange

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.curation import Curation

_NAME = Field(min_length=1, max_length=500)


class GraphNode(BaseModel):
    id: str
    name: str
    type: str
    degree: int = 0


class GraphEdge(BaseModel):
    source: str
    target: str
    type: str
    weight: float = 1.0
    evidence: list[str] = Field(default_factory=list)
    chunk_ids: list[str] = Field(default_factory=list)


class Neighbourhood(BaseModel):
    """An entity with its strongest relations and the entities at their other ends."""

    center: GraphNode
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class Overview(BaseModel):
    """The most connected entities and the relations among them: the explorer's whole-graph view."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]


class Passage(BaseModel):
    chunk_id: str
    document_id: str
    title: str | None = None
    text: str


class MergeBody(BaseModel):
    source: str = _NAME
    target: str = _NAME


class RenameBody(BaseModel):
    entity: str = _NAME
    name: str = _NAME


class DescribeBody(BaseModel):
    entity: str = _NAME
    description: str = Field(min_length=1, max_length=MAX_DESCRIPTION)


class RetypeBody(BaseModel):
    entity: str = _NAME
    type: str = Field(min_length=1, max_length=48)


class EntityBody(BaseModel):
    entity: str = _NAME


class RelationBody(BaseModel):
    source: str = _NAME
    type: str = Field(min_length=1, max_length=48)
    target: str = _NAME


class RelationRetypeBody(RelationBody):
    new_type: str = Field(min_length=1, max_length=48)


class UndoBody(BaseModel):
    change: str | None = Field(default=None, max_length=40)


def explorer_routes(app: FastAPI, graph: Callable[[Request], GraphRAG]) -> None:
    """The explorer's reads: entities by name, the overview, an entity's neighbourhood and passages."""

    @app.get("/v1/graph/entities", response_model=list[GraphNode], tags=["graph"])
    def find_entities(
        request: Request, q: str = Query("", max_length=200), limit: int = Query(20, ge=1, le=200)
    ) -> list[GraphNode]:
        """Entities whose name contains `q` (the exact name first); with no `q`, the most connected."""
        rows = graph(request).store.graph.entity_lookup(q, limit)
        return [GraphNode.model_validate(row) for row in rows]

    @app.get("/v1/graph/overview", response_model=Overview, tags=["graph"])
    def overview(
        request: Request,
        limit: int = Query(150, ge=1, le=2000),
        types: str = Query("", max_length=500, description="comma-separated entity types; empty: all"),
        min_degree: int = Query(0, ge=0),
    ) -> Overview:
        """The `limit` most connected entities (of `types`, with at least `min_degree` relations) and the
        relations among them."""
        wanted = [t.strip().upper() for t in types.split(",") if t.strip()]
        rows = graph(request).store.graph.overview(limit, wanted, min_degree)
        return Overview(
            nodes=[GraphNode(id=r["id"], name=r["name"], type=r["type"], degree=r["degree"]) for r in rows],
            edges=[
                GraphEdge(source=r["id"], target=o["target"], type=o["type"], weight=o["weight"])
                for r in rows
                for o in r["out"]
            ],
        )

    @app.get("/v1/graph/neighbourhood/{entity_id}", response_model=Neighbourhood, tags=["graph"])
    def neighbourhood(entity_id: str, request: Request, limit: int = Query(40, ge=1, le=500)) -> Neighbourhood:
        """An entity (by id), its `limit` strongest relations with their evidence sentences, and their ends."""
        reads = graph(request).store.graph
        profile = reads.entity_profile(entity_id)
        if profile is None:
            raise NotFoundError(f"no entity {entity_id!r}")
        relations = reads.entity_relations(entity_id, limit)
        others = {r["source_id"] for r in relations} | {r["target_id"] for r in relations}
        others.discard(entity_id)
        nodes = [
            GraphNode(id=row["id"], name=row["name"], type=row["type"])
            for row in reads.entities_with_ids(sorted(others))
        ]
        return Neighbourhood(
            center=GraphNode(id=profile["id"], name=profile["name"], type=profile["type"], degree=profile["degree"]),
            description=profile["description"],
            aliases=profile["aliases"],
            nodes=nodes,
            edges=[
                GraphEdge(
                    source=r["source_id"],
                    target=r["target_id"],
                    type=r["type"],
                    weight=r["weight"],
                    evidence=r["evidence"],
                    chunk_ids=r["chunk_ids"],
                )
                for r in relations
            ],
        )

    @app.get("/v1/graph/passages/{entity_id}", response_model=list[Passage], tags=["graph"])
    def passages(entity_id: str, request: Request, limit: int = Query(5, ge=1, le=50)) -> list[Passage]:
        """The passages that mention an entity, from the documents that mention it most."""
        store = graph(request).store
        ids = [c for source in store.graph.entity_sources(entity_id, limit) for c in source["chunk_ids"]][:limit]
        return [Passage.model_validate(row) for row in store.retrieval.chunks_with_ids(ids)]


def curation_routes(
    app: FastAPI,
    graph: Callable[[Request], GraphRAG],
    who: Callable[[Request], str],
    write_lock: Callable[[Request], AbstractContextManager[object]],
) -> None:
    """Curation: each change one call of `rag.curation`, beside the workspace's ingests; history and undo."""

    def change(request: Request, action: Callable[[Curation], CurationChange]) -> CurationChange:
        with write_lock(request):  # beside ingest jobs and document deletes of this workspace
            return action(graph(request).curation(who=who(request)))

    @app.post("/v1/curation/merge", response_model=CurationChange, tags=["curation"])
    def merge(body: MergeBody, request: Request) -> CurationChange:
        """Merge entity `source` into `target` (names or ids); needs a write key."""
        return change(request, lambda c: c.merge(body.source, body.target))

    @app.post("/v1/curation/rename", response_model=CurationChange, tags=["curation"])
    def rename(body: RenameBody, request: Request) -> CurationChange:
        return change(request, lambda c: c.rename(body.entity, body.name))

    @app.post("/v1/curation/retype", response_model=CurationChange, tags=["curation"])
    def retype(body: RetypeBody, request: Request) -> CurationChange:
        return change(request, lambda c: c.retype(body.entity, body.type))

    @app.post("/v1/curation/describe", response_model=CurationChange, tags=["curation"])
    def describe(body: DescribeBody, request: Request) -> CurationChange:
        """Replace an entity's description with one written by hand; later ingests add nothing to it."""
        return change(request, lambda c: c.describe(body.entity, body.description))

    @app.post("/v1/curation/delete", response_model=CurationChange, tags=["curation"])
    def delete(body: EntityBody, request: Request) -> CurationChange:
        return change(request, lambda c: c.delete(body.entity))

    @app.post("/v1/curation/relation-retype", response_model=CurationChange, tags=["curation"])
    def relation_retype(body: RelationRetypeBody, request: Request) -> CurationChange:
        return change(request, lambda c: c.retype_relation(body.source, body.type, body.target, body.new_type))

    @app.post("/v1/curation/relation-delete", response_model=CurationChange, tags=["curation"])
    def relation_delete(body: RelationBody, request: Request) -> CurationChange:
        return change(request, lambda c: c.delete_relation(body.source, body.type, body.target))

    @app.post("/v1/curation/undo", response_model=CurationChange, tags=["curation"])
    def undo(request: Request, body: UndoBody | None = None) -> CurationChange:
        """Undo `change` (default: the latest not undone); 409 when later changes or ingests depend on it."""
        return change(request, lambda c: c.undo(body.change if body else None))

    @app.get("/v1/curation/history", response_model=list[CurationChange], tags=["curation"])
    def history(
        request: Request, offset: int = Query(0, ge=0), limit: int = Query(50, ge=1, le=1000)
    ) -> list[CurationChange]:
        """The workspace's hand changes, newest first."""
        return graph(request).curation(who=who(request)).history(offset, limit)
