"""Every extracted triple checked against the graph schema, whichever extractor made it: a relation the
schema does not allow is dropped, a reversed one turned around, names of types spelled as the schema spells
them; the ingest report counts each by reason."""

from __future__ import annotations

from collections import Counter

from graphwright.graph_schema import GraphSchema, is_literal
from graphwright.models import ChunkExtraction
from graphwright.text.normalize import FALLBACK_TYPE, normalize_key, relation_type


def schema_entity_types(schema: GraphSchema) -> tuple[str, ...]:
    """The schema's node types as entity types ("EthnicGroup" -> ETHNIC_GROUP; its Neo4j label stays
    EthnicGroup); CONCEPT too when other types are allowed."""
    types = tuple(relation_type(t.label) for t in schema.node_types)
    return (*types, FALLBACK_TYPE) if schema.additional_node_types else types


def _types_by_relation(extraction: ChunkExtraction, schema: GraphSchema) -> dict[str, str]:
    """What the schema says an entity is from the relations it is an end of (their patterns' domain and
    range), where they agree: an extractor that named "Jan Duursema" as the creator of a comics character
    but gave no type has still said, under this schema, that he is a Person."""
    said: dict[str, set[str]] = {}
    for relation in extraction.relations:
        for name, type_ in zip((relation.source, relation.target), schema.end_types(relation.type)):
            if type_ is not None:
                said.setdefault(normalize_key(name), set()).add(type_)
    return {name: next(iter(types)) for name, types in said.items() if len(types) == 1}


def apply_schema(extractions: list[ChunkExtraction], schema: GraphSchema) -> Counter[str]:
    """Prune and repair the extractions in place; returns what was done, by reason."""
    done: Counter[str] = Counter()
    for extraction in extractions:
        if extraction.error is not None:
            continue
        implied = _types_by_relation(extraction, schema)
        kept_entities = []
        for entity in extraction.entities:
            label = schema.node_label(entity.type)
            if label is None and not is_literal(entity.type) and normalize_key(entity.name) in implied:
                # an entity of no type the schema knows takes the one its relations give it
                entity.type = implied[normalize_key(entity.name)]
                label = schema.node_label(entity.type)
                done["typed entity: by its relations' patterns"] += 1
            if label is None and not schema.additional_node_types and not is_literal(entity.type):
                done["dropped entity: type not in schema"] += 1
                continue
            entity.type = relation_type(label) if label else entity.type
            kept_entities.append(entity)
        extraction.entities = kept_entities
        types = {normalize_key(e.name): e.type for e in kept_entities}
        kept_relations = []
        for relation in extraction.relations:
            source_type = types.get(normalize_key(relation.source))
            target_type = types.get(normalize_key(relation.target))
            if source_type is None or target_type is None:
                done["dropped relation: an end is not an entity kept"] += 1
                continue
            verdict = schema.check(source_type, relation.type, target_type)
            if verdict == "reversed pattern":
                relation.source, relation.target = relation.target, relation.source
                done["repaired relation: reversed to the schema's direction"] += 1
            elif verdict != "ok":
                done[f"dropped relation: {verdict}"] += 1
                continue
            relation.type = schema.relation_label(relation.type) or relation.type
            kept_relations.append(relation)
        extraction.relations = kept_relations
    return done
