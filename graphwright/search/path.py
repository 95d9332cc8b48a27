"""Path search: how two entities are connected, and relational intersections, answered from the graph.

"How is X connected to Y?" links both names and returns the shortest typed paths (at most 4 hops) with the
evidence chunks of every edge. "Which of A's suppliers are also B's competitors?" is an intersection: the
words next to each name are matched to the graph's relation types (suppliers -> SUPPLIES, competitors ->
COMPETES_WITH) and the answer is the set of entities tied to A and B by those types, read from Neo4j."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphwright.errors import InvalidRequestError
from graphwright.graph_store.contracts import GraphStore
from graphwright.models import EntityRef, RelationRef, RetrievedChunk
from graphwright.search.base import GraphMode, PathArgs, SearchContext, SearchQuery, ToolSpec
from graphwright.search.context import Item, pack_sections
from graphwright.search.evidence import Retrieval
from graphwright.search.linking import EntityLinker, Mention, question_words
from graphwright.search.local import chunk_item, relation_item, relation_refs
from graphwright.search.results import evidence_chunks
from graphwright.text.languages import detect


def asks_intersection(question: str) -> bool:
    """Intersection wording ("both", "in common", "共同") in the question's language."""
    return bool(detect(question).intersection.search(question))


_MIN_STEM = 5
_EVIDENCE_PER_EDGE = 2
_SHARES = {"paths": 0.2, "relations": 0.3, "text_units": 0.5}
_SUFFIXES = ("ations", "ation", "ers", "ors", "ies", "ing", "ed", "er", "or", "es", "s", "y")


def stem(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def words_match(a: str, b: str) -> bool:
    """Same word family: equal stems, or a shared prefix of at least five letters covering the shorter stem
    ("suppliers" ~ SUPPLIES, "competitors" ~ COMPETES, "invested" ~ INVESTED)."""
    sa, sb = stem(a), stem(b)
    if sa == sb:
        return True
    prefix = 0
    for x, y in zip(sa, sb):
        if x != y:
            break
        prefix += 1
    return prefix >= _MIN_STEM and prefix >= min(len(sa), len(sb)) - 1


def relation_words(words: list[str], mentions: list[Mention], types: list[str]) -> list[tuple[int, list[str]]]:
    """(word index, matching relation types) for question words outside the linked names."""
    inside = {i for m in mentions for i in range(m.start, m.end)}
    found = []
    for index, word in enumerate(words):
        if index in inside or len(word) < 4:
            continue
        matched = [t for t in types if any(words_match(word, part) for part in t.split("_") if len(part) >= 4)]
        if matched:
            found.append((index, matched))
    return found


def nearest_mention(index: int, mentions: list[Mention]) -> Mention:
    """The name a relation word belongs to: "A's suppliers" (name before) beats "suppliers of A" (after)."""

    def distance(m: Mention) -> float:
        return index - m.end if index >= m.end else (m.start - index) + 0.5

    return min(mentions, key=distance)


def render_path(nodes: Sequence[Mapping[str, Any]], relations: list[RelationRef]) -> str:
    parts = [nodes[0]["name"]]
    for node, relation in zip(nodes[1:], relations):
        arrow = f"-[{relation.type}]->" if relation.target_id == node["id"] else f"<-[{relation.type}]-"
        parts += [arrow, node["name"]]
    return " ".join(parts)


@dataclass
class Endpoints:
    entities: list[EntityRef]
    mentions: list[Mention]


class PathSearch:
    def __init__(self, store: GraphStore, max_paths: int = 5, context_tokens: int = 3000) -> None:
        self.store = store
        self.linker = EntityLinker(store.graph)
        self.max_paths = max_paths
        self.context_tokens = context_tokens

    def endpoints(self, question: str, embedding: list[float]) -> Endpoints:
        """The named entities in question order; fuzzy links fill in when fewer than two names match."""
        exact, mentions = self.linker.exact(question)
        by_id = {e.id: e for e in exact}
        ordered = [by_id[m.entity_id] for m in mentions]
        ordered = list({e.id: e for e in ordered}.values())
        if len(ordered) < 2:
            linked, _ = self.linker.link(question, embedding, 4)
            ordered += [e for e in linked if e.id not in {o.id for o in ordered}][: 2 - len(ordered)]
        return Endpoints(ordered, mentions)

    def evidence(self, relations: list[RelationRef]) -> list[RetrievedChunk]:
        ids = list(dict.fromkeys(c for r in relations for c in r.chunk_ids[:_EVIDENCE_PER_EDGE]))
        return evidence_chunks(self.store.retrieval.chunks_with_ids(ids))

    def search(
        self, question: str, embedding: list[float], source: str | None = None, target: str | None = None
    ) -> Retrieval:
        if source and target:
            ends = Endpoints([self._named(source, embedding), self._named(target, embedding)], [])
        else:
            ends = self.endpoints(question, embedding)
        if len(ends.entities) < 2:
            found = ", ".join(e.name for e in ends.entities) or "none"
            return Retrieval(
                entities=ends.entities, notes=[f"path search needs two entities in the question; found: {found}"]
            )
        a, b = ends.entities[0], ends.entities[1]
        if asks_intersection(question) and len(ends.mentions) >= 2:
            return self.intersection(question, a, b, ends.mentions)
        return self.paths(a, b)

    def _named(self, name: str, embedding: list[float]) -> EntityRef:
        exact, _ = self.linker.exact(name)
        if exact:
            return exact[0]
        linked, _ = self.linker.link(name, embedding, 1)
        if not linked:
            raise InvalidRequestError(f"no entity matches {name!r} (`source`/`target`)")
        return linked[0]

    def paths(self, a: EntityRef, b: EntityRef) -> Retrieval:
        rows = self.store.graph.shortest_paths(a.id, b.id, self.max_paths)
        notes = [f"endpoints: {a.name} ({a.how}), {b.name} ({b.how})"]
        if not rows:
            notes.append(f"no path of at most 4 relations joins {a.name} and {b.name}")
            shared = evidence_chunks(self.store.retrieval.co_mentions(a.id, b.id, self.max_paths))
            if shared:
                notes.append(f"{len(shared)} passage(s) mention both")
            return self._with_sections(Retrieval(entities=[a, b], chunks=shared, notes=notes))
        rendered, relations, entities = [], {}, {a.id: a, b.id: b}
        for row in rows:
            rels = relation_refs(row["relations"])
            rendered.append(render_path(row["nodes"], rels))
            for rel in rels:
                relations[rel.id] = rel
            for node in row["nodes"]:
                entities.setdefault(
                    node["id"], EntityRef(id=node["id"], name=node["name"], type=node["type"], how="path")
                )
        rels = list(relations.values())
        return self._with_sections(
            Retrieval(
                entities=list(entities.values()),
                relations=rels,
                chunks=self.evidence(rels),
                graph_paths=rendered,
                notes=notes,
            )
        )

    def _with_sections(self, context: Retrieval) -> Retrieval:
        answer = (
            [Item("answer_set", "Entities tied to both: " + ", ".join(e.name for e in context.answer_set))]
            if context.answer_set is not None
            else []
        )
        context.context = pack_sections(
            {
                "paths": answer + [Item(f"path{i}", f"- {p}") for i, p in enumerate(context.graph_paths)],
                "relations": [relation_item(r) for r in context.relations],
                "text_units": [chunk_item(c) for c in context.chunks],
            },
            _SHARES,
            self.context_tokens,
        )
        return context

    def intersection(self, question: str, a: EntityRef, b: EntityRef, mentions: list[Mention]) -> Retrieval:
        words = question_words(question)
        types = self.store.graph.relation_types()
        anchored = [m for m in mentions if m.entity_id in {a.id, b.id}]
        wanted: dict[str, list[str]] = {a.id: [], b.id: []}
        for index, matched in relation_words(words, anchored, types):
            owner = nearest_mention(index, anchored).entity_id
            wanted[owner] += [t for t in matched if t not in wanted[owner]]
        rows = self.store.graph.common_neighbours(a.id, wanted[a.id], b.id, wanted[b.id])
        described = " / ".join(wanted[a.id]) or "any relation"
        described_b = " / ".join(wanted[b.id]) or "any relation"
        notes = [f"intersection: tied to {a.name} by {described} and to {b.name} by {described_b}"]
        entities = [
            EntityRef(id=r["id"], name=r["name"], type=r["type"], description=r["description"], how="intersection")
            for r in rows
        ]
        relations = list({rel.id: rel for r in rows for rel in relation_refs(r["relations"])}.values())
        paths = []
        for r in rows:
            rels = relation_refs(r["relations"])
            left = next((x for x in rels if a.id in (x.source_id, x.target_id)), None)
            right = next((x for x in rels if b.id in (x.source_id, x.target_id)), None)
            if left and right:
                node = {"id": r["id"], "name": r["name"]}
                paths.append(
                    render_path([{"id": a.id, "name": a.name}, node, {"id": b.id, "name": b.name}], [left, right])
                )
        return self._with_sections(
            Retrieval(
                entities=[a, b, *entities],
                relations=relations,
                chunks=self.evidence(relations),
                graph_paths=paths,
                notes=notes,
                answer_set=entities,
            )
        )


class PathMode(GraphMode):
    name = "path"
    summary = "how two entities connect (shortest typed paths), or what they share (intersections)"
    routable = True
    route_when = "how two named things are connected, or what they share"
    tool = ToolSpec("find_paths", "Shortest typed paths between two entities, with evidence.", PathArgs)

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        searcher = PathSearch(ctx.store, ctx.settings.search.path_max, ctx.settings.search.context_tokens)
        return searcher.search(query.question, query.vector(), query.source, query.target)
