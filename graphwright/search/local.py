"""Local search: the neighbourhood of the entities a question names.

Link the question to entities, expand one or two hops (neighbours ranked by how many linked entities they
touch, edge weight, degree), then gather four context sections within the token budget: entities,
relations, text units and the linked entities' community reports. Text units are ranked by reciprocal rank
fusion of three signals: the graph (how strongly a chunk mentions the selected entities, then similarity),
dense similarity and BM25; so a question whose entities the graph missed still gets the hybrid ranking."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from graphwright.config import Settings
from graphwright.graph_store import Neo4jStore
from graphwright.graph_store.rows import CommunityRow, RelationRow
from graphwright.models import CommunityRef, EntityRef, RelationRef, RetrievedChunk
from graphwright.search.base import GraphMode, SearchContext, SearchQuery, ToolSpec
from graphwright.search.context import Item, pack_sections, parse_shares
from graphwright.search.evidence import Retrieval
from graphwright.search.hybrid import HybridRetriever, reciprocal_rank_fusion
from graphwright.search.linking import EntityLinker

# How much an entity reached by a hop counts, relative to the linked entity it came from.
_HOP_DECAY = (1.0, 0.35, 0.12)
_FUZZY_LINK_WEIGHT = 0.5  # a fulltext/vector link counts half an exact name match at best
_GRAPH_CANDIDATES = 200
# Measured on hotpotqa-dev (docs/benchmarks.md): the offline co-occurrence graph is a weaker ranking than
# dense or BM25 on their own, so it counts half in the fusion; its similarity share is kept small.
_GRAPH_WEIGHT = 0.5
_SIGNAL_SHARE = 0.01
_BRIDGE_ANCHORS = 2
_TEXT_UNITS = 20
_RELATIONS = 40
_COMMUNITIES = 3
_DESCRIPTION_CHARS = 240
_EVIDENCE_CHARS = 240


def community_ref(row: CommunityRow, score: float = 0.0) -> CommunityRef:
    findings = []
    for finding in json.loads(row.get("findings") or "[]"):
        findings.append(finding.get("summary", "") if isinstance(finding, dict) else str(finding))
    return CommunityRef(id=row["id"], level=row["level"], title=row.get("title") or row["id"],
                        summary=row.get("summary") or "", findings=[f for f in findings if f],
                        rating=float(row.get("rating") or 0.0), score=score,
                        cited_chunks=list(row.get("cited_chunks") or []))


def ranked_rows(rows: Sequence[Mapping[str, Any]], signal: str, limit: int) -> list[RetrievedChunk]:
    """Chunk rows ordered by similarity plus a small share of the graph `signal`: the graph decides among
    chunks the question matches about equally, without overruling a clearly closer passage."""
    def score(row: Mapping[str, Any]) -> float:
        return float(row["similarity"]) + _SIGNAL_SHARE * float(row[signal])

    ordered = sorted(rows, key=lambda r: (-score(r), r["chunk_id"]))[:limit]
    return [RetrievedChunk(chunk_id=r["chunk_id"], document_id=r["document_id"], text=r["text"], score=score(r),
                           rank=rank, title=r["title"], source=r["source"],
                           scores={signal: float(r[signal]), "similarity": float(r["similarity"])})
            for rank, r in enumerate(ordered, start=1)]


def relation_refs(rows: Sequence[RelationRow]) -> list[RelationRef]:
    return [RelationRef(**row) for row in rows]


def chunk_item(chunk: RetrievedChunk) -> Item:
    return Item(chunk.chunk_id, f"[{chunk.chunk_id}] (from {chunk.title or chunk.document_id})\n{chunk.text}")


def relation_item(relation: RelationRef) -> Item:
    evidence = relation.evidence[0][:_EVIDENCE_CHARS] if relation.evidence else relation.description
    sources = ", ".join(relation.chunk_ids[:3])
    return Item(relation.id, f"- {relation.render()}: {evidence} [{sources}]")


def entity_item(entity: EntityRef) -> Item:
    return Item(entity.id, f"- [{entity.id}] {entity.name} ({entity.type}): {entity.description[:_DESCRIPTION_CHARS]}")


def community_item(community: CommunityRef) -> Item:
    findings = "; ".join(community.findings[:3])
    return Item(community.id, f"- [{community.id}] {community.title}: {community.summary} {findings}".strip())


class LocalSearch:
    def __init__(self, store: Neo4jStore, hybrid: HybridRetriever, settings: Settings) -> None:
        self.store = store
        self.hybrid = hybrid
        self.settings = settings
        self.linker = EntityLinker(store)
        self.shares = parse_shares(settings.local_shares)

    def entities(self, question: str, embedding: list[float]) -> tuple[list[EntityRef], list[str]]:
        """Linked entities and their neighbours, each with a weight in [0, 1] for ranking chunks."""
        linked, _ = self.linker.link(question, embedding, self.settings.local_entities)
        notes = [f"linked: {', '.join(f'{e.name} ({e.how})' for e in linked) or 'nothing'}"]
        top_fuzzy = max((e.score for e in linked if e.how != "exact"), default=1.0)
        for entity in linked:
            entity.score = 1.0 if entity.how == "exact" else _FUZZY_LINK_WEIGHT * entity.score / top_fuzzy
        selected = list(linked)
        frontier = linked
        for hop in range(1, self.settings.local_hops + 1):
            if not frontier or not self.settings.local_neighbours:
                break
            rows = self.store.graph.entity_neighbours([{"id": e.id, "score": e.score} for e in frontier],
                                                      [e.id for e in selected], self.settings.local_neighbours)
            top = max((r["weight"] for r in rows), default=1.0) or 1.0
            strongest = max(e.score for e in frontier)
            frontier = [EntityRef(id=r["id"], name=r["name"], type=r["type"], description=r["description"],
                                  score=_HOP_DECAY[hop] * strongest * (0.5 + 0.5 * r["weight"] / top), how=f"hop{hop}")
                        for r in rows]
            selected += frontier
        return selected, notes

    def text_units(self, question: str, embedding: list[float], entities: list[EntityRef],
                   k: int) -> list[RetrievedChunk]:
        """Two rounds. First: the graph ranking (chunks mentioning the selected entities, by IDF-weighted
        link score plus similarity) fused with dense and BM25. Second, for multi-hop questions: chunks that
        share rare entities with the two best first-round chunks (the bridge) join the ranking below them."""
        total = self.store.retrieval.chunk_count()
        depth = max(k, _TEXT_UNITS)
        rows = self.store.retrieval.chunks_mentioning([{"id": e.id, "score": e.score} for e in entities],
                                                      embedding, _GRAPH_CANDIDATES, total) if entities else []
        graph = ranked_rows(rows, "link_score", depth)
        first = reciprocal_rank_fusion(
            {"graph": graph, "vector": self.hybrid.vector.retrieve(question, depth, None, embedding),
             "fulltext": self.hybrid.fulltext(question, depth)},
            self.settings.rrf_k, {"graph": _GRAPH_WEIGHT})
        anchors = first[:_BRIDGE_ANCHORS]
        if not anchors:
            return []
        bridge_rows = self.store.retrieval.bridge_chunks([c.chunk_id for c in anchors], embedding,
                                                         _GRAPH_CANDIDATES, total)
        rest = reciprocal_rank_fusion({"first": first[_BRIDGE_ANCHORS:depth],
                                       "bridge": ranked_rows(bridge_rows, "bridge_score", depth)},
                                      self.settings.rrf_k)
        ranked = anchors + [c for c in rest if c.chunk_id not in {a.chunk_id for a in anchors}]
        for rank, chunk in enumerate(ranked, start=1):
            chunk.rank = rank
        return ranked

    def search(self, question: str, embedding: list[float], k: int) -> Retrieval:
        entities, notes = self.entities(question, embedding)
        chunks = self.text_units(question, embedding, entities, k)
        ids = [e.id for e in entities]
        seeds = [e.id for e in entities if not e.how.startswith("hop")]
        relations = relation_refs(self.store.graph.relations_among(ids, seeds, _RELATIONS)) if len(ids) > 1 else []
        communities = [community_ref(r, float(r["hits"]))
                       for r in self.store.communities.entity_communities(seeds, _COMMUNITIES)]
        sections = pack_sections(
            {"entities": [entity_item(e) for e in entities],
             "relations": [relation_item(r) for r in relations],
             "text_units": [chunk_item(c) for c in chunks[:_TEXT_UNITS]],
             "communities": [community_item(c) for c in communities]},
            self.shares, self.settings.context_tokens)
        return Retrieval(entities=entities, relations=relations, chunks=chunks[: max(k, _TEXT_UNITS)],
                         communities=communities, context=sections, notes=notes)


class LocalMode(GraphMode):
    name = "local"
    summary = "the named entities' neighbourhood: entities, relations, passages and their communities"
    tool = ToolSpec("local_search", "Entities named in the query, their neighbours, relations and passages.")

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        hybrid = HybridRetriever.from_settings(ctx.store, ctx.embedder, ctx.settings)
        searcher = LocalSearch(ctx.store, hybrid, ctx.settings)
        return searcher.search(query.question, query.vector(), query.k)
