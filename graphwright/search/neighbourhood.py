"""The part of the graph a question's walk can reach, fetched from Neo4j in a bounded number of rows.

Seeds are the question's entities and its closest passages. The cut holds those passages, the entities they
mention, each of those entities' passages closest to the question (at most `per_entity`), and every entity
those passages mention, with the relations and synonym links among them. Its size follows the seeds and the
caps, not the corpus: a corpus a hundred times larger gives a cut of about the same size. Measured on both
shared sets, ranking on this cut equals ranking on the whole graph (docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphwright.graph_store import Neo4jStore
from graphwright.search.ppr import WalkGraph

CHUNK = "c:"
ENTITY = "e:"


@dataclass
class Neighbourhood:
    graph: WalkGraph
    chunks: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    mentions: dict[str, int] = field(default_factory=dict)  # entity id -> chunks mentioning it (whole graph)


def fetch_neighbourhood(
    store: Neo4jStore, entity_ids: list[str], chunk_ids: list[str], embedding: list[float], per_entity: int, hub: int
) -> Neighbourhood:
    graph = WalkGraph()
    first = store.graph.chunk_entities(chunk_ids)
    named = list(dict.fromkeys(entity_ids + [e for row in first for e in row["entity_ids"]]))
    reached = store.graph.entity_top_chunks(named, entity_ids, embedding, per_entity, hub) if named else []
    seen = set(chunk_ids)
    more = list(dict.fromkeys(c for row in reached for c in row["chunk_ids"] if c not in seen))
    rows = first + (store.graph.chunk_entities(more) if more else [])
    for row in rows:
        graph.degree[CHUNK + row["chunk_id"]] = float(len(row["entity_ids"]))
        for entity in row["entity_ids"]:
            graph.connect(CHUNK + row["chunk_id"], ENTITY + entity)
    entities = list(dict.fromkeys(entity_ids + [e for row in rows for e in row["entity_ids"]]))
    links = store.graph.entity_links(entities) if entities else []
    inside = {link["entity_id"] for link in links}
    synonyms: set[tuple[str, str]] = set()
    mentions: dict[str, int] = {}
    for link in links:
        entity = link["entity_id"]
        mentions[entity] = link["mentions"]
        graph.degree[ENTITY + entity] = float(link["mentions"] + link["relations"] + len(link["similar"]))
        for other in link["related"]:
            graph.connect(ENTITY + entity, ENTITY + other)
        # A synonym pair is one edge, whichever of the two lists the other.
        synonyms.update((min(entity, o), max(entity, o)) for o in link["similar"] if o in inside and o != entity)
    for a, b in sorted(synonyms):
        graph.connect(ENTITY + a, ENTITY + b)
    chunks = list(dict.fromkeys(chunk_ids + more))
    return Neighbourhood(graph=graph, chunks=chunks, entities=entities, mentions=mentions)
