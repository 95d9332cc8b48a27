from __future__ import annotations

import pytest

from graphwright.extraction.llm_extractor import _validate
from graphwright.llm.json_repair import JSONRepairError, parse_json_object


def test_plain_fenced_and_prose_wrapped() -> None:
    assert parse_json_object('{"a": 1}') == {"a": 1}
    assert parse_json_object('Here:\n```json\n{"a": [1, 2,]}\n```\nDone.') == {"a": [1, 2]}
    assert parse_json_object('Sure, the answer is {"a": {"b": 2}} as requested.') == {"a": {"b": 2}}


@pytest.mark.parametrize(
    ("cut", "expected"),
    [
        ('{"entities": [{"name": "A"}, {"name": "B', {"entities": [{"name": "A"}]}),
        ('{"entities": [{"name": "A", "type": ', {"entities": [{"name": "A"}]}),
        ('{"entities": [{"name": "A"}], "relations": [{"source": "A",', {"entities": [{"name": "A"}]}),
        ('{"entities": [{"name": "A \\"quoted', {"entities": [{"name": 'A "quoted'}]}),
    ],
)
def test_truncated_replies_keep_what_arrived(cut: str, expected: dict) -> None:
    assert parse_json_object(cut) == expected


@pytest.mark.parametrize("bad", ["", "   ", "no json at all", "[1, 2, 3]", "{{{{"])
def test_unreadable_replies_raise(bad: str) -> None:
    with pytest.raises(JSONRepairError):
        parse_json_object(bad)


def test_validation_keeps_good_items_and_reads_synonyms() -> None:
    graph = _validate(
        {
            "entities": [{"name": "A", "type": "person"}, {"name": ""}, "junk", {"name": "B", "description": None}],
            "relationships": [
                {"source": "A", "target": "B", "relationship": "knows", "strength": "8"},
                {"source": "A", "target": ""},
                {"source": "A", "target": "B", "strength": "high"},
            ],
        }
    )
    assert [e.name for e in graph.entities] == ["A", "B"] and graph.entities[1].description == ""
    assert [(r.type, r.weight) for r in graph.relations] == [("knows", 8.0), ("RELATED_TO", 1.0)]
