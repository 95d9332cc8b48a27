"""Planted-partition entity graphs with known groups, for tests and benchmarks of community detection."""

from __future__ import annotations

import random

from graphwright.models import Entity, Relation
from graphwright.text.normalize import entity_id, normalize_key


def planted_partition(
    groups: int, size: int, chunk_id: str, intra_degree: float = 5.0, inter_degree: float = 0.2, seed: int = 7
) -> tuple[list[Entity], list[Relation], dict[str, int]]:
    """`groups` x `size` entities; each has about `intra_degree` relations inside its group and
    `inter_degree` outside. Returns entities, relations (all supported by `chunk_id`) and entity -> group."""
    rng = random.Random(seed)
    names = [f"G{g:04d} Member {i:04d}" for g in range(groups) for i in range(size)]
    ids = [entity_id(normalize_key(n)) for n in names]
    truth = {ids[k]: k // size for k in range(len(ids))}
    entities = [
        Entity(id=ids[k], name=names[k], type="CONCEPT", label="Concept", mentions={chunk_id: 1})
        for k in range(len(ids))
    ]
    pairs: set[tuple[int, int]] = set()
    n = len(ids)
    for k in range(n):
        g = k // size
        for _ in range(int(intra_degree / 2 + rng.random())):
            other = g * size + rng.randrange(size)
            if other != k:
                pairs.add((min(k, other), max(k, other)))
        if rng.random() < inter_degree / 2:
            other = rng.randrange(n)
            if other // size != g:
                pairs.add((min(k, other), max(k, other)))
    relations = [
        Relation(
            source_id=ids[a],
            target_id=ids[b],
            type="RELATED_TO",
            chunk_ids=[chunk_id],
            chunk_weights=[1.0],
            evidence=[f"{names[a]} and {names[b]}"],
        )
        for a, b in sorted(pairs)
    ]
    return entities, relations, truth
