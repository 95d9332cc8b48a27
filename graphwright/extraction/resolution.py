"""Entity resolution: many extracted names -> one entity each.

Keys ignore case, accents, punctuation and whitespace; an acronym joins the one name whose initials it spells
("ESA" -> "European Space Agency"); names of the same type within `fuzzy_threshold` (rapidfuzz ratio) join
unless their numbers differ ("Voyager 1" never joins "Voyager 2"). Existing graph entities take part, so a
name seen in an earlier ingest resolves to the same node. Descriptions are deduplicated and length-capped,
relation weights added per chunk, chunk ids united.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphwright.errors import GraphwrightError
from graphwright.llm.cache import cached_about
from graphwright.models import MAX_DESCRIPTION, MAX_EVIDENCE, ChunkExtraction, Entity, Relation
from graphwright.text.normalize import (
    DEFAULT_ENTITY_TYPES,
    FALLBACK_TYPE,
    clean_name,
    entity_id,
    entity_label,
    entity_type,
    normalize_key,
    relation_type,
)
from graphwright.text.tokens import singular

_DIGITS = re.compile(r"\d+")
_ACRONYM_SKIP = {"of", "the", "and", "for", "de", "du", "la", "y", "&"}


@dataclass
class KnownEntity:
    id: str
    key: str
    name: str
    type: str


def _is_acronym(name: str) -> bool:
    compact = name.replace(".", "")
    return compact.isupper() and compact.isalpha() and 2 <= len(compact) <= 6


def initials(name: str) -> str:
    words = [w for w in re.split(r"[\s\-]+", name) if w and w.lower() not in _ACRONYM_SKIP]
    return "".join(w[0] for w in words if w[0].isalpha()).upper()


def merge_descriptions(parts: list[str], limit: int = MAX_DESCRIPTION) -> str:
    """Distinct descriptions in first-seen order, a shorter one dropped when a longer one contains it."""
    out: list[str] = []
    for part in (p.strip() for p in parts):
        if not part or any(part in kept for kept in out):
            continue
        out = [kept for kept in out if kept not in part]
        out.append(part)
    return " ".join(out)[:limit]


@dataclass
class EntityIndex:
    """Every entity the resolver can join a name to: the graph's (loaded once) plus this run's."""

    by_key: dict[str, KnownEntity] = field(default_factory=dict)
    by_type_initial: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))
    by_initials: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    embedded: set[str] = field(default_factory=set)  # ids whose node already has an embedding

    def add(self, entity: KnownEntity) -> None:
        if entity.key in self.by_key or not entity.key:
            return
        self.by_key[entity.key] = entity
        self.by_type_initial[(entity.type, entity.key[0])].append(entity.key)
        if " " in entity.key:
            self.by_initials[initials(entity.name)].append(entity.key)

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> EntityIndex:
        index = cls()
        for row in rows:
            index.add(
                KnownEntity(
                    id=row["id"], key=row.get("key") or normalize_key(row["name"]), name=row["name"], type=row["type"]
                )
            )
            index.embedded.add(row["id"])
        return index


@dataclass
class Resolver:
    entity_types: tuple[str, ...] = DEFAULT_ENTITY_TYPES
    fuzzy_threshold: float = 92.0
    # (name, distinct descriptions) -> one description; the LLM's when one is configured
    summarize: Callable[[str, list[str]], str] | None = None

    def describe(self, name: str, parts: list[str]) -> str:
        """One description from several: joined while it fits, else summarized (by the LLM, when there is one)."""
        whole = merge_descriptions(parts, limit=10 * MAX_DESCRIPTION)
        merged = whole[:MAX_DESCRIPTION]
        distinct = list(dict.fromkeys(p.strip() for p in parts if p.strip()))
        # The LLM summarizes only what no longer fits: a merge kept whole loses nothing, and a summary of it
        # would cost a call per entity for a rewording (as LightRAG, which joins until a size is passed).
        if self.summarize is None or len(distinct) < 2 or len(whole) <= MAX_DESCRIPTION:
            return merged
        try:
            return self.summarize(name, distinct)[:MAX_DESCRIPTION] or merged
        except GraphwrightError:  # an LLM failure must not lose the entity; keep the merge
            return merged

    def _described(self, name: str, parts: list[str], chunk_ids: list[str]) -> str:
        """`describe`, its LLM summary filed under the chunks it summarizes (forgotten with any of them)."""
        with cached_about(*chunk_ids):
            return self.describe(name, parts)

    def _canonical(self, key: str, name: str, type_: str, index: EntityIndex) -> str:
        if key in index.by_key:
            return key
        one = singular(key)
        if one and one in index.by_key and index.by_key[one].type == type_:
            return one  # "Mayas" -> "Maya"
        plural = f"{key}s"
        if plural in index.by_key and index.by_key[plural].type == type_:
            return plural  # the plural came first; one node either way
        if _is_acronym(name):
            matches = index.by_initials.get(name.replace(".", ""), [])
            if len(set(matches)) == 1:
                return matches[0]
        if len(key) >= 5 and self.fuzzy_threshold < 100:
            from rapidfuzz import fuzz, process

            candidates = index.by_type_initial.get((type_, key[0]), [])
            if candidates:
                digits = _DIGITS.findall(key)
                best = process.extractOne(key, candidates, scorer=fuzz.ratio, score_cutoff=self.fuzzy_threshold)
                if best is not None and _DIGITS.findall(best[0]) == digits:
                    return best[0]
        return key

    def resolve(
        self, extractions: list[ChunkExtraction], index: EntityIndex | None = None
    ) -> tuple[list[Entity], list[Relation]]:
        index = index if index is not None else EntityIndex()
        names: dict[str, Counter[str]] = defaultdict(Counter)
        types: dict[str, Counter[str]] = defaultdict(Counter)
        descriptions: dict[str, list[str]] = defaultdict(list)
        mentions: dict[str, Counter[str]] = defaultdict(Counter)
        said: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))  # canonical -> chunk -> texts
        called: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # canonical -> chunk -> names
        key_of: dict[tuple[str, str], str] = {}  # (chunk id, raw key) -> canonical key

        # Frequent names first, so they become the canonical form others join; acronyms last, so the
        # names they abbreviate are already known.
        seen: Counter[str] = Counter()
        for extraction in extractions:
            for entity in extraction.entities:
                seen[normalize_key(entity.name)] += max(entity.count, 1)
        ordered = sorted(
            ((x, e) for x in extractions for e in x.entities),
            key=lambda pair: (
                _is_acronym(pair[1].name),
                -seen[normalize_key(pair[1].name)],
                normalize_key(pair[1].name),
            ),
        )
        for extraction, entity in ordered:
            name = clean_name(entity.name)
            key = normalize_key(name)
            if not key:
                continue
            type_ = entity_type(entity.type, self.entity_types)
            canonical = self._canonical(key, name, type_, index)
            if canonical not in index.by_key:
                index.add(KnownEntity(id=entity_id(canonical), key=canonical, name=name, type=type_))
            key_of[(extraction.chunk_id, key)] = canonical
            names[canonical][name] += max(entity.count, 1)
            types[canonical][type_] += 1
            if entity.description:
                descriptions[canonical].append(entity.description)
                said[canonical][extraction.chunk_id].append(entity.description)
            mentions[canonical][extraction.chunk_id] += max(entity.count, 1)
            called[canonical][extraction.chunk_id].add(name)

        relations: dict[tuple[str, str, str], Relation] = {}
        for extraction in extractions:
            for rel in extraction.relations:
                ends = []
                for raw in (rel.source, rel.target):
                    name = clean_name(raw)
                    key = normalize_key(name)
                    if not key:
                        break
                    listed = key_of.get((extraction.chunk_id, key))
                    if listed is not None:
                        canonical = listed
                    else:  # an endpoint the extractor did not list: keep it, as a concept
                        canonical = self._canonical(key, name, FALLBACK_TYPE, index)
                        if canonical not in index.by_key:
                            index.add(
                                KnownEntity(id=entity_id(canonical), key=canonical, name=name, type=FALLBACK_TYPE)
                            )
                        key_of[(extraction.chunk_id, key)] = canonical
                        names[canonical][name] += 1
                        types[canonical][FALLBACK_TYPE] += 1
                        mentions[canonical][extraction.chunk_id] += 1
                        called[canonical][extraction.chunk_id].add(name)
                    ends.append(canonical)
                if len(ends) != 2 or ends[0] == ends[1]:
                    continue
                rtype = relation_type(rel.type)
                source, target = (index.by_key[k].id for k in ends)
                current = relations.setdefault(
                    (source, target, rtype), Relation(source_id=source, target_id=target, type=rtype)
                )
                weight = rel.weight if rel.weight > 0 else 1.0
                if extraction.chunk_id in current.chunk_ids:
                    i = current.chunk_ids.index(extraction.chunk_id)
                    current.chunk_weights[i] += weight
                    current.descriptions[i] = merge_descriptions([current.descriptions[i], rel.description])
                else:
                    current.chunk_ids.append(extraction.chunk_id)
                    current.chunk_weights.append(weight)
                    current.evidence.append(rel.evidence[:MAX_EVIDENCE])
                    current.descriptions.append(rel.description)
                current.description = merge_descriptions([current.description, rel.description])

        entities = []
        for canonical, counter in names.items():
            known = index.by_key[canonical]
            type_ = known.type
            votes = types[canonical]
            if type_ == FALLBACK_TYPE and any(t != FALLBACK_TYPE for t in votes):
                type_ = next(t for t, _ in votes.most_common() if t != FALLBACK_TYPE)
                known.type = type_
            name = known.name
            aliases = sorted(n for n in counter if n != name)
            entities.append(
                Entity(
                    id=known.id,
                    name=name,
                    type=type_,
                    label=entity_label(type_),
                    description=self._described(name, descriptions[canonical], list(mentions[canonical])),
                    aliases=aliases,
                    mentions=dict(mentions[canonical]),
                    described_in={c: merge_descriptions(t) for c, t in said[canonical].items()},
                    named_in={c: sorted(n) for c, n in called[canonical].items()},
                )
            )
        return entities, list(relations.values())
