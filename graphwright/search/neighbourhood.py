"""The part of the graph a question's walk can reach, fetched from Neo4j in a bounded number of rows.

Seeds are the question's entities and its closest passages. The cut holds those passages, the entities they
mention, each of those entities' passages closest to the question (at most `per_entity`), and every entity
those passages mention, with the relations and synonym links among them, read in one query. Its size follows
the seeds and the caps, not the corpus: a corpus a hundred times larger gives a cut of about the same size.
Measured on both shared sets, ranking on this cut equals ranking on the whole graph (docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphwright.graph_store.contracts import GraphStore
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
    store: GraphStore, entity_ids: list[str], chunk_ids: list[str], embedding: list[float], per_entity: int, hub: int
) -> Neighbourhood:
    """The cut in one read; this builds the walk graph from it."""
    graph = WalkGraph()
    if not entity_ids and not chunk_ids:
        return Neighbourhood(graph=graph)
    row = store.graph.neighbourhood(entity_ids, chunk_ids, embedding, per_entity, hub)
    for chunk, entities in zip(row["chunk_ids"], row["chunk_entities"]):
        graph.degree[CHUNK + chunk] = float(len(entities))
        for entity in entities:
            graph.connect(CHUNK + chunk, ENTITY + entity)
    inside = set(row["entity_ids"])
    synonyms: set[tuple[str, str]] = set()
    mentions: dict[str, int] = {}
    for entity, count, relations, related, similar in zip(
        row["entity_ids"], row["mentions"], row["relations"], row["related"], row["similar"]
    ):
        mentions[entity] = count
        graph.degree[ENTITY + entity] = float(count + relations + len(similar))
        for other in related:
            if other in inside:
                graph.connect(ENTITY + entity, ENTITY + other)
        # A synonym pair is one edge, whichever of the two lists the other.
        synonyms.update((min(entity, o), max(entity, o)) for o in similar if o in inside and o != entity)
    for a, b in sorted(synonyms):
        graph.connect(ENTITY + a, ENTITY + b)
    return Neighbourhood(graph=graph, chunks=row["chunks"], entities=row["entity_ids"], mentions=mentions)
