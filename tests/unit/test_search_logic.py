from __future__ import annotations

import pytest

from graphwright.graph_store.queries import MetadataFilter, filter_clause
from graphwright.models import RetrievedChunk
from graphwright.search.answer import retrieval_answer
from graphwright.search.filters import parse_filter, parse_value
from graphwright.search.hybrid import reciprocal_rank_fusion
from graphwright.text.lucene import to_lucene


def _chunk(cid: str, rank: int, score: float = 1.0) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=cid, document_id=f"d{cid}", text=f"text {cid}", score=score, rank=rank)


def test_rrf_rewards_agreement_and_keeps_side_scores() -> None:
    fused = reciprocal_rank_fusion({
        "fulltext": [_chunk("a", 1, 9.0), _chunk("b", 2, 5.0)],
        "vector": [_chunk("b", 1, 0.9), _chunk("c", 2, 0.8)],
    }, k=60)
    assert [c.chunk_id for c in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0].scores == {"fulltext": 5.0, "fulltext_rank": 2.0, "vector": 0.9, "vector_rank": 1.0,
                               "rrf": pytest.approx(1 / 62 + 1 / 61)}
    assert [c.rank for c in fused] == [1, 2, 3]


def test_rrf_ties_break_deterministically() -> None:
    a = reciprocal_rank_fusion({"x": [_chunk("z", 1)], "y": [_chunk("m", 1)]})
    assert [c.chunk_id for c in a] == ["m", "z"]


def test_lucene_escaping() -> None:
    assert to_lucene("QX-7719-ZB") == '"QX-7719-ZB"'  # codes are exact phrases
    assert to_lucene("unit QX-7719-ZB?") == 'unit "QX-7719-ZB"'
    assert to_lucene("state-of-the-art") == r"state\-of\-the\-art"  # no digit: ordinary words
    assert to_lucene('title:"x" AND (y OR z)*') == r'title\:\"x\" and \(y or z\)\*'
    assert to_lucene("   ") == ""
    assert to_lucene("? !") == r"\? \!"


@pytest.mark.parametrize(("text", "expected"), [
    ("category=rockets", MetadataFilter("category", "=", "rockets")),
    ("year>=2020", MetadataFilter("year", ">=", 2020)),
    ("score < 0.5", MetadataFilter("score", "<", 0.5)),
    ("draft!=true", MetadataFilter("draft", "!=", True)),
    ("title~Apollo 11", MetadataFilter("title", "~", "Apollo 11")),
    ("code='2020'", MetadataFilter("code", "=", "2020")),
])
def test_parse_filter(text: str, expected: MetadataFilter) -> None:
    assert parse_filter(text) == expected


@pytest.mark.parametrize("bad", ["year", "=x", ">=3", ""])
def test_parse_filter_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_filter(bad)


def test_parse_value() -> None:
    assert parse_value("12") == 12 and parse_value("1.5") == 1.5 and parse_value("FALSE") is False
    assert parse_value('"12"') == "12" and parse_value("abc") == "abc"


def test_filter_clause_keeps_keys_and_values_as_parameters() -> None:
    clause, params = filter_clause([MetadataFilter("ye`ar}", ">=", 2020), MetadataFilter("t", "~", "x'")])
    assert clause == "WHERE d[$f0_key] >= $f0_value AND d[$f1_key] CONTAINS $f1_value"
    assert params == {"f0_key": "ye`ar}", "f0_value": 2020, "f1_key": "t", "f1_value": "x'"}
    with pytest.raises(ValueError):
        filter_clause([MetadataFilter("a", "; DROP", 1)])


def test_retrieval_answer_lists_passages_with_ids() -> None:
    answer = retrieval_answer([_chunk("c_1", 1, 0.5), _chunk("c_2", 2, 0.4)])
    assert answer.kind == "retrieval"
    assert "c_1" in answer.text and "c_2" in answer.text
    assert [(c.kind, c.id) for c in answer.citations] == [("chunk", "c_1"), ("chunk", "c_2"),
                                                          ("document", "dc_1"), ("document", "dc_2")]
    assert retrieval_answer([]).citations == []
