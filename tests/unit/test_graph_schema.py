"""The graph schema: neo4j-graphrag's GraphSchema shape from JSON or YAML, strict about what it names, and the
check every extracted triple goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.errors import SchemaFileError
from graphwright.graph_schema import GraphSchema, LiteralProperty, literal_value

SCHEMA = {
    "node_types": [{"label": "Person", "description": "a human"}, "Company", {"label": "City"}],
    "relationship_types": [{"label": "FOUNDED"}, {"label": "LOCATED_IN"}, {"label": "foundingYear"}],
    "patterns": [
        ["Person", "FOUNDED", "Company"],
        ["Company", "LOCATED_IN", "City"],
        ["Company", "foundingYear", "Year"],
    ],
}


def test_a_neo4j_graphrag_schema_loads_with_its_defaults() -> None:
    schema = GraphSchema.model_validate(SCHEMA)
    # as in neo4j-graphrag: a part with entries is closed unless it says otherwise
    assert (schema.additional_node_types, schema.additional_relationship_types, schema.additional_patterns) == (
        False,
        False,
        False,
    )
    assert GraphSchema().additional_patterns is True  # an empty schema allows everything
    assert schema.relation_label("founded") == "FOUNDED" and schema.relation_label("founding year") == "foundingYear"


@pytest.mark.parametrize(
    ("triple", "verdict"),
    [
        (("Person", "FOUNDED", "Company"), "ok"),
        (("person", "founded", "company"), "ok"),  # case, spaces and underscores do not matter
        (("Company", "FOUNDED", "Person"), "reversed pattern"),
        (("Company", "FOUNDED", "City"), "pattern not in schema"),
        (("Person", "ACQUIRED", "Company"), "unknown relation type"),
        (("Planet", "LOCATED_IN", "City"), "unknown entity type"),
        (("Company", "foundingYear", "number"), "ok"),  # a literal end matches any literal
    ],
)
def test_every_triple_is_checked_against_the_patterns(triple: tuple[str, str, str], verdict: str) -> None:
    assert GraphSchema.model_validate(SCHEMA).check(*triple) == verdict


def test_an_open_schema_allows_what_it_does_not_name() -> None:
    schema = GraphSchema.model_validate({**SCHEMA, "additional_relationship_types": True, "additional_patterns": True})
    assert schema.check("Person", "ACQUIRED", "Company") == "ok"
    assert schema.check("Company", "FOUNDED", "City") == "ok"


def test_yaml_and_json_files_give_the_same_schema(tmp_path: Path) -> None:
    yaml_file = tmp_path / "schema.yaml"
    yaml_file.write_text(
        "node_types: [Person, Company, City]\nrelationship_types: [FOUNDED, LOCATED_IN, foundingYear]\n"
        "patterns:\n  - [Person, FOUNDED, Company]\n  - [Company, LOCATED_IN, City]\n"
        "  - [Company, foundingYear, Year]\n",
        encoding="utf-8",
    )
    json_file = tmp_path / "schema.json"
    json_file.write_text(GraphSchema.model_validate(SCHEMA).to_json(), encoding="utf-8")
    assert GraphSchema.from_file(yaml_file).patterns == GraphSchema.from_file(json_file).patterns


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("{not json: [", "neither valid JSON nor valid YAML"),
        ("- a\n- b\n", "a schema is a mapping"),
        (
            '{"node_types": ["Person"], "relationship_types": ["KNOWS"], "patterns": [["Person", "KNOWS", "Robot"]]}',
            "undeclared node type 'Robot'",
        ),
        (
            '{"node_types": ["Person"], "relationship_types": ["KNOWS"], "patterns": [["Person", "LIKES", "Person"]]}',
            "undeclared relationship type 'LIKES'",
        ),
        ('{"node_types": ["Person", "person"]}', "declared twice, differently"),
        ('{"node_types": ["Person", {"label": "Person", "description": "a human"}]}', "declared twice, differently"),
        ('{"patterns": [["Person", "KNOWS"]]}', "a pattern is"),
    ],
)
def test_a_bad_schema_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaFileError, match=message) as caught:
        GraphSchema.from_file(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_type_declared_twice_alike_loads_once_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    text = '{"node_types": ["Person", "Person"], "relationship_types": ["KNOWS", "KNOWS"]}'
    schema = GraphSchema.parse(text)
    assert [t.label for t in schema.node_types] == ["Person"] and [t.label for t in schema.relationship_types] == [
        "KNOWS"
    ]
    assert "declares 'Person' twice" in caplog.text and "declares 'KNOWS' twice" in caplog.text


def test_a_benchmark_schema_with_undeclared_types_loads_only_when_asked() -> None:
    text = '{"node_types": ["Person"], "relationship_types": [], "patterns": [["Person", "birthPlace", "Place"]]}'
    with pytest.raises(SchemaFileError):
        GraphSchema.parse(text)
    schema = GraphSchema.parse(text, declare_missing=True)
    assert schema.node_label("place") == "Place" and schema.check("Person", "birthPlace", "Place") == "ok"


def test_an_oversized_or_binary_schema_or_examples_file_is_refused_unread(tmp_path: Path) -> None:
    from graphwright.extraction.examples import read_examples
    from graphwright.graph_schema import MAX_SCHEMA_BYTES

    huge = tmp_path / "huge.json"
    huge.write_text('{"node_types": ["A"], "x": "' + "a" * MAX_SCHEMA_BYTES + '"}', encoding="utf-8")
    with pytest.raises(SchemaFileError, match="at most 1,048,576 are read"):
        GraphSchema.from_file(huge)
    binary = tmp_path / "examples.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SchemaFileError, match="cannot read the examples file") as caught:
        read_examples(binary)
    assert "\n" not in str(caught.value)


def test_a_literal_is_a_property_where_the_node_type_declares_one_of_its_relations_name() -> None:
    schema = GraphSchema.model_validate(
        {
            "node_types": [
                {
                    "label": "Person",
                    "properties": [{"name": "birth date", "type": "DATE"}, {"name": "height"}, {"name": "name"}],
                },
                "City",
            ],
            "relationship_types": ["birthDate", "birthPlace", "height", "name"],
            "patterns": [
                ["Person", "birthDate", "xsd:date"],
                ["Person", "birthPlace", "City"],
                ["Person", "name", "string"],
            ],
        }
    )
    # birthPlace ends at a node type, height has no pattern, and `name` is graphwright's own (a schema from
    # neo4j-graphrag often declares it): none is a literal property
    assert schema.literal_properties() == [
        LiteralProperty(node_type="Person", relationship="birthDate", key="birth date", kind="DATE")
    ]


def test_a_literal_is_read_in_its_propertys_type_or_kept_as_text() -> None:
    import datetime

    assert literal_value('"1966-08-14"', "DATE") == datetime.date(1966, 8, 14)
    assert literal_value("1966-02-31", "DATE") == "1966-02-31"  # no such day: the text
    assert literal_value("29,000", "INTEGER") == 29000 and literal_value("x", "INTEGER") == "x"
    assert literal_value("4.5", "float") == 4.5 and literal_value("True", "BOOLEAN") is True
    assert literal_value('"Associazione Calcio"', "STRING") == "Associazione Calcio"


def test_an_untyped_entity_takes_the_type_its_relations_patterns_give_it() -> None:
    from graphwright.extraction.schema_check import apply_schema
    from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation

    schema = GraphSchema.parse(
        '{"node_types": ["ComicsCharacter", "Person", "Award"], "relationship_types": ["creator", "award"],'
        ' "patterns": [["ComicsCharacter", "creator", "Person"], ["Person", "award", "Award"],'
        ' ["ComicsCharacter", "award", "Award"]]}'
    )
    assert schema.end_types("CREATOR") == ("ComicsCharacter", "Person")
    assert schema.end_types("award") == (None, "Award")  # two domains: that end is not fixed
    extraction = ChunkExtraction(
        chunk_id="c1",
        entities=[ExtractedEntity(name=n, type=t) for n, t in [("Arion", ""), ("Jan Duursema", ""), ("Rome", "")]],
        relations=[ExtractedRelation(source="Arion", target="Jan Duursema", type="creator")],
    )
    done = apply_schema([extraction], schema)
    assert [(e.name, e.type) for e in extraction.entities] == [
        ("Arion", "COMICS_CHARACTER"),
        ("Jan Duursema", "PERSON"),
    ]
    assert [r.type for r in extraction.relations] == ["creator"]
    assert done["typed entity: by its relations' patterns"] == 2 and done["dropped entity: type not in schema"] == 1
