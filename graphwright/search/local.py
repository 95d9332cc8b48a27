"""Local search: the neighbourhood of the entities a question names, ranked by Personalized PageRank.

Link the question to entities; cut the bounded neighbourhood of those entities and of the question's closest
passages (by meaning, or by BM25 for a question in a language the embedder does not know) out of the graph
(search/neighbourhood.py); walk it from those seeds (search/ppr.py). Passages and entities are ranked by the
walk's visit share, so a passage about a bridge entity (the director of the film the question names) ranks
with the passage the question names. Then gather four context sections within the token budget: entities,
relations, text units and the linked entities' community reports.

The graph never hurts: passages are ranked by the walk only where the question names a specific graph entity
exactly, as a name, and the question's closest passages mention it (`anchors`: not a hub every page names, nor
a word that merely equals a name elsewhere). A question that names none (a company's own documents, where the
graph has little to say and linking can only guess) is ranked by similarity, as `vector` ranks it, over the
walk's neighbourhood (which holds `vector`'s closest passages); one that names its entities keeps the walk's
multi-hop ranking. Metadata filters narrow the seeds and the passages ranked, as in the passage modes."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from graphwright.algorithms import GraphAlgorithms, graph_algorithms
from graphwright.config import Settings
from graphwright.embeddings import read_languages
from graphwright.graph_store.contracts import GraphStore
from graphwright.graph_store.rows import CommunityRow, RelationRow
from graphwright.models import CommunityRef, EntityRef, MetadataFilter, RelationRef, RetrievedChunk
from graphwright.search.base import GraphMode, SearchContext, SearchQuery, ToolSpec
from graphwright.search.context import Item, pack_sections, parse_shares
from graphwright.search.evidence import Retrieval
from graphwright.search.keywords import keyword_search
from graphwright.search.linking import EntityLinker, named_mentions
from graphwright.search.neighbourhood import CHUNK, ENTITY, Neighbourhood, fetch_neighbourhood
from graphwright.search.ppr import personalized_pagerank
from graphwright.search.results import chunk_from_row, rows_to_chunks
from graphwright.search.vector import VectorRetriever, cosine
from graphwright.text.languages import detect
from graphwright.text.languages.base import Language
from graphwright.text.normalize import normalize_key

# A fulltext or vector link is a guess: at best a fifth of an exact name match as a seed. Chosen with the
# walk's other constants on both shared sets together (docs/benchmarks.md); one setting for every corpus.
_FUZZY_LINK_WEIGHT = 0.2
# An entity a follow-up carried from its conversation seeds the walk at half its carried weight: less than
# a name the question itself says, more than a fuzzy guess at one.
_CARRIED_WEIGHT = 0.5
_REACHED_FLOOR = 0.01
_RELATIONS = 40
_COMMUNITIES = 3
_DESCRIPTION_CHARS = 240
_EVIDENCE_CHARS = 240
# Passages ranked by the fused score: the walk's most visited, this many per passage asked, and the seeds.
_CANDIDATES = 4


def community_ref(row: CommunityRow, score: float = 0.0) -> CommunityRef:
    findings = []
    for finding in json.loads(row.get("findings") or "[]"):
        findings.append(finding.get("summary", "") if isinstance(finding, dict) else str(finding))
    return CommunityRef(
        id=row["id"],
        level=row["level"],
        title=row.get("title") or row["id"],
        summary=row.get("summary") or "",
        findings=[f for f in findings if f],
        rating=float(row.get("rating") or 0.0),
        score=score,
        cited_chunks=list(row.get("cited_chunks") or []),
        stale=bool(row.get("stale")),
    )


def relation_refs(rows: Sequence[RelationRow]) -> list[RelationRef]:
    return [RelationRef(**row) for row in rows]


def chunk_item(chunk: RetrievedChunk) -> Item:
    return Item(chunk.chunk_id, f"[{chunk.chunk_id}] (from {chunk.cited_as})\n{chunk.text}")


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
    def __init__(self, store: GraphStore, vector: VectorRetriever, settings: Settings) -> None:
        self.store = store
        self.vector = vector
        self.settings = settings
        self.linker = EntityLinker(store.graph)
        self.shares = parse_shares(settings.search.local_shares)
        self._algorithms: GraphAlgorithms | None = None  # chosen at the first walk (asks the server once)

    @property
    def algorithms(self) -> GraphAlgorithms:
        if self._algorithms is None:
            self._algorithms = graph_algorithms(self.settings, self.store, whole_graph=False)
        return self._algorithms

    def link(
        self, question: str, embedding: list[float], asked: Language
    ) -> tuple[list[EntityRef], set[str], list[str]]:
        """Linked entities, each weighted in [0, 1]: an exact name match 1, a fuzzy one less; and the ids of
        those the question writes as names."""
        linked, mentions = self.linker.link(question, embedding, self.settings.search.local_entities)
        top_fuzzy = max((e.score for e in linked if e.how != "exact"), default=1.0) or 1.0
        for entity in linked:
            entity.score = 1.0 if entity.how == "exact" else _FUZZY_LINK_WEIGHT * entity.score / top_fuzzy
        note = f"linked: {', '.join(f'{e.name} ({e.how})' for e in linked) or 'nothing'}"
        return linked, named_mentions(question, mentions, linked, spoken=asked), [note]

    def seeds(self, linked: list[EntityRef], dense: list[RetrievedChunk], mentions: dict[str, int]) -> dict[str, float]:
        """Where the walk restarts. An entity counts by its link weight over the passages mentioning it: a
        rare name says more about the question than a common one (HippoRAG's node specificity). The closest
        passages share `ppr_passage_weight` of the entities' mass, by a softmax of their similarity, so the walk
        never forgets plain similarity; with no entity linked they are the only seeds."""
        seeds = {ENTITY + e.id: e.score / max(1, mentions.get(e.id, 1)) for e in linked if e.score > 0}
        if dense:
            best = max(c.score for c in dense)
            temperature = self.settings.search.ppr_passage_temperature
            weights = {CHUNK + c.chunk_id: math.exp((c.score - best) / temperature) for c in dense}
            total = sum(weights.values())
            budget = self.settings.search.ppr_passage_weight * sum(seeds.values()) if seeds else 1.0
            for node, weight in weights.items():
                seeds[node] = seeds.get(node, 0.0) + budget * weight / total
        return seeds

    def closest_passages(
        self,
        question: str,
        embedding: list[float],
        filters: list[MetadataFilter] | None = None,
        n: int | None = None,
        *,
        asked: Language,
    ) -> list[RetrievedChunk]:
        """The passages closest to the question, each scored by its similarity: by the embedder where it reads
        both the question and the passage (cosine, on the common scale); else by BM25, each score over the
        best (an English-only embedder's similarities to a Chinese question, or an English question's to a
        Chinese passage, are noise, as in hybrid search; BM25 then finds them by the question's words or their
        translation)."""
        n = n or self.settings.search.ppr_seed_passages
        dense: list[RetrievedChunk] = []
        if self.vector.reads(asked):
            dense = self.vector.similarities(self.vector.retrieve(question, n, filters, embedding))
            readable = [c for c in dense if self.vector.reads_passage(c)]
            if len(readable) == len(dense):
                return dense
            dense = readable
        found = rows_to_chunks(keyword_search(self.store.retrieval, question, n, filters, asked=asked), "fulltext")
        if not dense:
            best = max((c.score for c in found), default=0.0) or 1.0
            return [c.model_copy(update={"score": c.score / best}) for c in found]
        # Beside passages ranked by meaning, a passage in a language the embedder does not read keeps the
        # keyword score that compares across languages (the share of the question it holds, about): one that
        # shares a single product name with the question is not lifted to the top of the seeds.
        keyword = [c.model_copy(update={"score": min(c.score, 1.0)}) for c in found]
        # A corpus in two languages: the embedder's closest among the passages it reads, BM25's among the others.
        keyword = [c for c in keyword if not self.vector.reads_passage(c)]
        return sorted(dense + keyword, key=lambda c: (-c.score, c.chunk_id))[:n]

    def walk(
        self,
        question: str,
        embedding: list[float],
        linked: list[EntityRef],
        filters: list[MetadataFilter] | None = None,
        *,
        named: AbstractSet[str],
        asked: Language,
    ) -> tuple[Neighbourhood, dict[str, float], dict[str, float], float]:
        """The neighbourhood, the walk's visit shares, each seed passage's similarity, and the walk's weight
        in the ranking: 1 where a linked entity is an anchor (`anchors`), else 0. `named`: the ids the
        question writes as names (`link`)."""
        dense = self.closest_passages(question, embedding, filters, asked=asked)
        hood = fetch_neighbourhood(
            self.store,
            [e.id for e in linked],
            [c.chunk_id for c in dense],
            embedding,
            self.settings.search.ppr_chunks_per_entity,
            self.settings.search.ppr_hub_mentions,
        )
        seeds = self.seeds(linked, dense, hood.mentions)
        mass = personalized_pagerank(hood.graph, seeds, self.settings.search.ppr_damping, engine=self.algorithms)
        # Measured both ways on 2wiki-101: tempering the walk by similarity wherever a name is linked took
        # local's R@5 from 90.1 to 74.5; so the walk ranks alone where it has an anchor, and not at all elsewhere.
        weight = 1.0 if self.anchors(linked, hood, seeds, dense, named) else 0.0
        return hood, mass, {c.chunk_id: c.score for c in dense}, weight

    def anchors(
        self,
        linked: list[EntityRef],
        hood: Neighbourhood,
        seeds: dict[str, float],
        dense: list[RetrievedChunk],
        named: AbstractSet[str],
    ) -> list[EntityRef]:
        """The entities the walk may rank passages from. Each is linked exactly and written in the question as
        a name (not a word that merely equals one: "Give a response", "any board member"; in a script without
        spaces, a name the question holds whole counts however the words were cut: `named`); specific (named
        in at most `ppr_hub_mentions` passages: a walk from the company every page of its filing names says
        nothing about which page); and mentioned by one of the question's closest passages, so the graph and
        similarity agree on where the question's evidence starts. A name the question uses in passing ("in USD
        millions") is in none of them: a walk from its few pages elsewhere would rank those first."""
        hub = self.settings.search.ppr_hub_mentions
        close = {CHUNK + c.chunk_id for c in dense}
        touching = {b if a in close else a for a, b in hood.graph.edges if a in close or b in close}
        # A close passage that mentions a longer name holding this one agrees too: "Lisbet Palme" for "Palme".
        agreeing = [f" {normalize_key(e.name)} " for e in linked if ENTITY + e.id in touching]
        return [
            e
            for e in linked
            if e.id in named
            and ENTITY + e.id in seeds
            and hood.mentions.get(e.id, 0) <= hub
            and any(f" {normalize_key(e.name)} " in name for name in agreeing)
        ]

    def text_units(
        self,
        hood: Neighbourhood,
        mass: dict[str, float],
        similarity: dict[str, float],
        limit: int,
        embedding: list[float],
        walk_weight: float = 1.0,
        filters: list[MetadataFilter] | None = None,
    ) -> list[RetrievedChunk]:
        """The passages by their fused score: similarity and visit share, each over its best among the
        candidates (the walk's most visited and the closest seeds), the walk weighing `walk_weight`."""
        by_walk = sorted(hood.chunks, key=lambda c: (-mass.get(CHUNK + c, 0.0), c))[: limit * _CANDIDATES]
        candidates = list(dict.fromkeys([*by_walk, *similarity]))
        close = dict(similarity)
        missing = [c for c in candidates if c not in close]
        if missing and walk_weight < 1.0:
            found = self.store.retrieval.passage_similarities(missing, embedding, read_languages(self.vector.embedder))
            close.update({c: self.vector.similarity(cosine(score)) for c, score in found.items()})
        best_mass = max((mass.get(CHUNK + c, 0.0) for c in candidates), default=0.0) or 1.0
        best_close = max((max(v, 0.0) for v in close.values()), default=0.0) or 1.0

        def fused(chunk_id: str) -> float:
            walked = mass.get(CHUNK + chunk_id, 0.0) / best_mass
            near = max(close.get(chunk_id, 0.0), 0.0) / best_close
            return walk_weight * walked + (1.0 - walk_weight) * near

        ordered = sorted(candidates, key=lambda c: (-fused(c), c))
        rows = self.store.retrieval.chunks_with_ids(ordered[: limit * _CANDIDATES if filters else limit])
        if filters:
            allowed = self.store.retrieval.documents_passing(list({r["document_id"] for r in rows}), filters)
            rows = [r for r in rows if r["document_id"] in allowed]
        chunks = []
        for rank, row in enumerate(rows[:limit], start=1):
            score = fused(row["chunk_id"])
            scores = {"ppr": mass.get(CHUNK + row["chunk_id"], 0.0), "walk_weight": walk_weight}
            if row["chunk_id"] in similarity:
                scores["similarity"] = similarity[row["chunk_id"]]
            chunks.append(chunk_from_row(row, score, rank, scores))
        return chunks

    def reached(self, hood: Neighbourhood, mass: dict[str, float], linked: list[EntityRef]) -> list[EntityRef]:
        """The entities the walk visits most, besides the linked ones; one it barely reaches (under 1% of
        the best one's share) is not about the question."""
        skip = {e.id for e in linked}
        top = sorted((e for e in hood.entities if e not in skip), key=lambda e: (-mass.get(ENTITY + e, 0.0), e))
        floor = _REACHED_FLOOR * mass.get(ENTITY + top[0], 0.0) if top else 0.0
        top = [e for e in top if mass.get(ENTITY + e, 0.0) > floor]
        return [
            EntityRef(
                id=row["id"],
                name=row["name"],
                type=row["type"],
                description=row["description"],
                score=mass.get(ENTITY + row["id"], 0.0),
                how="walk",
            )
            for row in self.store.graph.entities_with_ids(top[: self.settings.search.local_neighbours])
        ]

    def search(
        self,
        question: str,
        embedding: list[float],
        k: int,
        carried: Sequence[EntityRef] = (),
        filters: list[MetadataFilter] | None = None,
        asked: Language | None = None,
    ) -> Retrieval:
        """`carried`: entities a follow-up took from its conversation (score = weight), linked after the
        question's own with `_CARRIED_WEIGHT` of it. `asked`: the question's language, where the caller has it."""
        asked = asked or detect(question)
        linked, named, notes = self.link(question, embedding, asked)
        position = {e.id: i for i, e in enumerate(linked)}
        for entity in carried:  # a carried entity outweighs a fuzzy guess at it, never an exact name
            ref = entity.model_copy(update={"score": _CARRIED_WEIGHT * entity.score})
            if entity.how == "exact":
                named.add(entity.id)  # the conversation named it
            if entity.id not in position:
                linked.append(ref)
            elif linked[position[entity.id]].how != "exact" and linked[position[entity.id]].score < ref.score:
                linked[position[entity.id]] = ref
        hood, mass, similarity, weight = self.walk(question, embedding, linked, filters, named=named, asked=asked)
        notes.append(
            f"walked {len(hood.chunks)} passages and {len(hood.entities)} entities; passages ranked by "
            + ("the walk (the question names graph entities)" if weight else "similarity (it names no graph entity)")
        )
        # k passages, as in every mode: in the evidence, the offline answer and the LLM's context alike; where the
        # walk does not rank, they are the closest passages themselves (as `vector` ranks them, by BM25 for a
        # question the embedder does not read), the walk's entities and relations still given beside them
        if weight:
            chunks = self.text_units(hood, mass, similarity, k, embedding, weight, filters)
        else:
            seeds_n = max(k, self.settings.search.ppr_seed_passages)
            closest = self.closest_passages(question, embedding, filters, seeds_n, asked=asked)
            chunks = [
                c.model_copy(update={"rank": r, "scores": {**c.scores, "similarity": c.score, "walk_weight": 0.0}})
                for r, c in enumerate(closest[:k], start=1)
            ]
        entities = linked + self.reached(hood, mass, linked)
        ids = [e.id for e in entities]
        seeds = [e.id for e in linked]
        relations = relation_refs(self.store.graph.relations_among(ids, seeds, _RELATIONS)) if len(ids) > 1 else []
        communities = [
            community_ref(r, float(r["hits"])) for r in self.store.communities.entity_communities(seeds, _COMMUNITIES)
        ]
        sections = pack_sections(
            {
                "entities": [entity_item(e) for e in entities],
                "relations": [relation_item(r) for r in relations],
                "text_units": [chunk_item(c) for c in chunks],
                "communities": [community_item(c) for c in communities],
            },
            self.shares,
            self.settings.search.context_tokens,
        )
        return Retrieval(
            entities=entities,
            relations=relations,
            chunks=chunks,
            communities=communities,
            context=sections,
            notes=notes,
        )


class LocalMode(GraphMode):
    name = "local"
    filterable = True
    ranks_passages = True
    summary = "the named entities' neighbourhood: entities, relations, passages and their communities"
    routable = True
    route_when = "about named things and what surrounds them"
    tool = ToolSpec("local_search", "Entities named in the query, their neighbours, relations and passages.")

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        searcher = LocalSearch(ctx.store, VectorRetriever(ctx.store, ctx.embedder), ctx.settings)
        return searcher.search(
            query.question, query.vector(), query.k, query.carried, query.filters or None, asked=query.language
        )
