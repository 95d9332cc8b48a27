"""What hand curation leaves standing for later writes: a merged-away or renamed name links to its entity, a
retyped entity keeps its type, a description written by hand stays as written, a deleted entity or relation
is not created again, a retyped relation keeps its new type. Each curation change carries its part of these
rules; the rules of the changes not undone, folded in order, are stored with the workspace and applied to
every entity graph written after (ingest, re-extraction, imports) in `writes._write_graph`, so no extractor
needs to know about curation.

Pure data and functions: no Cypher here. An uncurated graph has no rules and writes exactly as before."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from graphwright.models import MAX_DESCRIPTION, Entity, Relation
from graphwright.text.normalize import entity_label, normalize_key


class Redirect(BaseModel):
    """Names (as keys) and ids that now mean entity `to` (a merge, or the old name of a rename)."""

    keys: list[str] = Field(default_factory=list)
    ids: list[str] = Field(default_factory=list)
    to: str
    name: str  # the survivor's name when the rule was made: the name it is created with if it is gone


class CurationRules(BaseModel):
    redirects: list[Redirect] = Field(default_factory=list)
    names: dict[str, str] = Field(default_factory=dict)  # entity id -> its curated name
    types: dict[str, str] = Field(default_factory=dict)  # entity id -> its pinned type
    blocked_ids: list[str] = Field(default_factory=list)
    blocked_keys: list[str] = Field(default_factory=list)
    blocked_relations: list[tuple[str, str, str]] = Field(default_factory=list)  # (source id, type, target id)
    relation_types: list[tuple[str, str, str, str]] = Field(default_factory=list)  # (source, type, target, new)
    described: list[str] = Field(default_factory=list)  # entity ids whose description a person wrote

    @property
    def empty(self) -> bool:
        return not (
            self.redirects
            or self.names
            or self.types
            or self.blocked_ids
            or self.blocked_keys
            or self.blocked_relations
            or self.relation_types
            or self.described
        )

    @classmethod
    def from_json(cls, text: str | None) -> CurationRules:
        return cls.model_validate_json(text) if text else cls()

    @classmethod
    def folded(cls, parts: Iterable[CurationRules]) -> CurationRules:
        """The rules of several changes, oldest first: later ones win where they disagree."""
        whole = cls()
        for part in parts:
            whole.redirects += part.redirects
            whole.names.update(part.names)
            whole.types.update(part.types)
            whole.blocked_ids += part.blocked_ids
            whole.blocked_keys += part.blocked_keys
            whole.blocked_relations += part.blocked_relations
            whole.relation_types += part.relation_types
            whole.described += part.described
        return whole

    def final_id(self, entity_id: str) -> str:
        """Where an id leads after every merge (a chain A -> B -> C ends at C)."""
        forward = {old: r.to for r in self.redirects for old in r.ids}
        seen = {entity_id}
        while entity_id in forward and forward[entity_id] not in seen:
            entity_id = forward[entity_id]
            seen.add(entity_id)
        return entity_id

    def apply(self, entities: list[Entity], relations: list[Relation]) -> tuple[list[Entity], list[Relation]]:
        """The entity graph about to be written, with the curation applied."""
        if self.empty:
            return entities, relations
        by_key = {key: r for r in self.redirects for key in r.keys}
        name_of = {r.to: r.name for r in self.redirects} | self.names
        blocked_ids, blocked_keys = set(self.blocked_ids), set(self.blocked_keys)
        described = set(self.described)

        merged: dict[str, Entity] = {}
        id_map: dict[str, str | None] = {}  # written id -> curated id (None: not written)
        for entity in entities:
            key = normalize_key(entity.name)
            redirect = by_key.get(key)
            target = self.final_id(redirect.to if redirect else entity.id)
            if target in blocked_ids or (target == entity.id and key in blocked_keys):
                id_map[entity.id] = None
                continue
            id_map[entity.id] = target
            current = entity.model_copy(deep=True)
            if target != entity.id:
                # The survivor keeps its own embedding: this one is of the merged-away name.
                current.id, current.embedding = target, None
            curated_name = name_of.get(target)
            if curated_name and curated_name != current.name:
                current.aliases = sorted({*current.aliases, current.name} - {curated_name})
                current.name = curated_name
            if target in self.types:
                current.type = self.types[target]
                current.label = entity_label(current.type)
            if target in described:  # a person's description stands: a write adds nothing to it
                current.description, current.replace_description = "", False
            merged[target] = _joined(merged[target], current) if target in merged else current

        retype = {(s, t, o): new for s, t, o, new in self.relation_types}
        blocked = set(self.blocked_relations)
        kept: dict[tuple[str, str, str], Relation] = {}
        for relation in relations:
            ends: list[str | None] = []
            for written in (relation.source_id, relation.target_id):
                mapped = id_map[written] if written in id_map else self.final_id(written)
                ends.append(None if mapped in blocked_ids else mapped)
            start, end = ends
            if start is None or end is None or start == end:
                continue
            type_ = retype.get((start, relation.type, end), relation.type)
            key3 = (start, type_, end)
            if key3 in blocked:
                continue
            moved = relation.model_copy(deep=True, update={"source_id": start, "target_id": end, "type": type_})
            kept[key3] = _joined_relation(kept[key3], moved) if key3 in kept else moved
        return list(merged.values()), list(kept.values())


def joined_description(kept: str, extra: str) -> str:
    """Two entities' descriptions made one: the other's appended unless the kept one holds it already."""
    if extra and extra not in kept:
        return (kept + " " + extra).strip()[:MAX_DESCRIPTION]
    return kept


def _joined(one: Entity, other: Entity) -> Entity:
    """Two written entities that curation made one."""
    mentions = dict(one.mentions)
    for chunk, n in other.mentions.items():
        mentions[chunk] = mentions.get(chunk, 0) + n
    aliases = sorted({*one.aliases, *other.aliases, other.name} - {one.name})
    description = joined_description(one.description, other.description)
    described_in = {**other.described_in, **one.described_in}
    for chunk, said in other.described_in.items():
        described_in[chunk] = joined_description(one.described_in.get(chunk, ""), said)
    chunks = {*one.named_in, *other.named_in}
    named_in = {c: sorted({*one.named_in.get(c, []), *other.named_in.get(c, [])}) for c in chunks}
    return one.model_copy(
        update={
            "mentions": mentions,
            "aliases": aliases,
            "description": description,
            "described_in": described_in,
            "named_in": named_in,
        }
    )


def _joined_relation(one: Relation, other: Relation) -> Relation:
    ids, weights, evidence = list(one.chunk_ids), list(one.chunk_weights), list(one.evidence)
    said = aligned_descriptions(one)
    theirs = zip(other.chunk_ids, other.chunk_weights, other.evidence, aligned_descriptions(other))
    for chunk, weight, sentence, text in theirs:
        if chunk in ids:
            weights[ids.index(chunk)] += weight
            said[ids.index(chunk)] = joined_description(said[ids.index(chunk)], text)
        else:
            ids.append(chunk)
            weights.append(weight)
            evidence.append(sentence)
            said.append(text)
    return one.model_copy(
        update={"chunk_ids": ids, "chunk_weights": weights, "evidence": evidence, "descriptions": said}
    )


def aligned_descriptions(relation: Relation) -> list[str]:
    """What each supporting chunk said of a relation, one per chunk id ('' where nothing was kept: a
    relation imported or made before descriptions were kept per chunk)."""
    given = relation.descriptions
    return [given[i] if i < len(given) else "" for i in range(len(relation.chunk_ids))]
