from __future__ import annotations

import pytest

from graphwright.extraction.resolution import EntityIndex, Resolver, initials, merge_descriptions
from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation
from graphwright.text.normalize import (
    entity_id,
    entity_label,
    entity_type,
    normalize_key,
    relation_type,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("invested in", "INVESTED_IN"),
        ("CEO of", "CEO_OF"),
        ("worksFor", "WORKS_FOR"),
        ("", "RELATED_TO"),
        ("x]->() DETACH DELETE n //", "X_DETACH_DELETE_N"),
        ("`; DROP`", "DROP"),
        ("123abc", "RELATED_TO"),
        ("PART_OF", "RELATED_TO"),
        ("mentions", "RELATED_TO"),
        ("über-partner", "UBER_PARTNER"),
        ("合作", "RELATED_TO"),
    ],
)
def test_relation_types_are_identifiers(raw: str, expected: str) -> None:
    assert relation_type(raw) == expected


def test_entity_types_and_labels() -> None:
    assert entity_type("person") == "PERSON" and entity_type("Organisations") == "ORGANIZATION"
    assert entity_type("PERSON`) DELETE n") == "CONCEPT" and entity_type(None) == "CONCEPT"
    assert entity_type("GPE") == "LOCATION"
    assert entity_label("PERSON") == "Person" and entity_label("HUMAN_RESOURCE") == "HumanResource"
    assert entity_label("ENTITY") == "Concept" and entity_label("9LIVES") == "Concept"


def test_keys_ignore_case_accents_punctuation() -> None:
    assert normalize_key("  Chang'e  4 ") == normalize_key("CHANGE 4") == "change 4"
    assert normalize_key("Kármán") == "karman"
    assert normalize_key("S-IVB") == "s ivb"
    assert entity_id("nasa") == entity_id(normalize_key("NASA")) != entity_id("esa")


def test_initials_and_descriptions() -> None:
    assert initials("European Space Agency") == "ESA"
    assert initials("National Aeronautics and Space Administration") == "NASA"
    assert merge_descriptions(["a rocket", "a rocket", "a rocket made by X", "", "fast"]) == "a rocket made by X fast"
    assert len(merge_descriptions(["x" * 2000])) == 1000


def _x(chunk: str, *names: tuple[str, str], rels: list[tuple[str, str, str]] = ()) -> ChunkExtraction:
    return ChunkExtraction(
        chunk_id=chunk,
        entities=[ExtractedEntity(name=n, type=t, description=f"{n} desc") for n, t in names],
        relations=[ExtractedRelation(source=a, target=b, type=t, weight=1.0, evidence=f"{a}-{b}") for a, b, t in rels],
    )


def test_resolution_merges_case_acronyms_and_near_duplicates() -> None:
    extractions = [
        _x(
            "c1",
            ("European Space Agency", "ORGANIZATION"),
            ("Voyager 1", "PRODUCT"),
            rels=[("European Space Agency", "Voyager 1", "operates")],
        ),
        _x(
            "c2",
            ("ESA", "ORGANIZATION"),
            ("Voyager 2", "PRODUCT"),
            ("european space agency", "ORG"),
            rels=[("ESA", "Voyager 2", "operates"), ("ESA", "Voyager 1", "operates")],
        ),
        _x("c3", ("Europaen Space Agency", "ORGANIZATION")),  # a typo, fuzzy-merged
    ]
    entities, relations = Resolver().resolve(extractions)
    by_name = {e.name: e for e in entities}
    assert set(by_name) == {"European Space Agency", "Voyager 1", "Voyager 2"}  # numbers never merge
    esa = by_name["European Space Agency"]
    assert set(esa.aliases) == {"ESA", "european space agency", "Europaen Space Agency"}
    assert esa.mentions == {"c1": 1, "c2": 2, "c3": 1}
    assert esa.label == "Organization"
    op1 = next(r for r in relations if r.target_id == by_name["Voyager 1"].id)
    assert op1.type == "OPERATES" and op1.chunk_ids == ["c1", "c2"] and op1.weight == 2.0


def test_plural_joins_singular_of_the_same_type() -> None:
    entities, _ = Resolver().resolve(
        [_x("c1", ("Maya", "ORGANIZATION"), ("Mayas", "ORGANIZATION"), ("Ross", "PERSON"), ("Ros", "PERSON"))]
    )
    assert sorted(e.name for e in entities) == ["Maya", "Ros", "Ross"]
    plural_first, _ = Resolver().resolve(
        [_x("c1", ("Mayas", "ORGANIZATION")), _x("c2", ("Mayas", "ORGANIZATION")), _x("c3", ("Maya", "ORGANIZATION"))]
    )
    assert [(e.name, e.aliases) for e in plural_first] == [("Mayas", ["Maya"])]


def test_resolution_joins_names_already_in_the_graph() -> None:
    index = EntityIndex.from_rows(
        [
            {
                "id": "e_known",
                "key": "national aeronautics and space administration",
                "name": "National Aeronautics and Space Administration",
                "type": "ORGANIZATION",
            }
        ]
    )
    entities, _ = Resolver().resolve([_x("c9", ("NASA", "ORGANIZATION"))], index)
    assert [(e.id, e.name, e.aliases) for e in entities] == [
        ("e_known", "National Aeronautics and Space Administration", ["NASA"])
    ]
    assert "e_known" in index.embedded


def test_relations_to_unlisted_endpoints_create_concepts_and_skip_self_loops() -> None:
    entities, relations = Resolver().resolve(
        [_x("c1", ("Acme", "ORGANIZATION"), rels=[("Acme", "Widget Corp", "supplies"), ("Acme", "ACME", "is")])]
    )
    assert {e.name: e.type for e in entities} == {"Acme": "ORGANIZATION", "Widget Corp": "CONCEPT"}
    assert [r.type for r in relations] == ["SUPPLIES"]
