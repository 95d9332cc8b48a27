from __future__ import annotations

import pytest

from graphwright.graph_store.queries.retrieval import filter_clause
from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.search.answer import retrieval_answer
from graphwright.search.filters import parse_filter, parse_value
from graphwright.search.hybrid import convex_fusion
from graphwright.text.lucene import to_lucene


def _chunk(cid: str, rank: int, score: float = 1.0) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=cid, document_id=f"d{cid}", text=f"text {cid}", score=score, rank=rank)


def test_fusion_scales_each_side_by_its_best_and_keeps_side_scores() -> None:
    fused = convex_fusion(
        {
            "fulltext": [_chunk("a", 1, 9.0), _chunk("b", 2, 4.5)],
            "vector": [_chunk("b", 1, 0.8), _chunk("c", 2, 0.4)],
        },
        {"vector": 0.8, "fulltext": 0.2},
    )
    assert [c.chunk_id for c in fused] == ["b", "c", "a"]
    assert fused[0].score == pytest.approx(0.8 * 1.0 + 0.2 * 0.5)
    assert fused[1].score == pytest.approx(0.8 * 0.5)
    assert fused[2].score == pytest.approx(0.2)
    assert fused[0].scores == {
        "fulltext": 4.5,
        "fulltext_rank": 2.0,
        "vector": 0.8,
        "vector_rank": 1.0,
        "fused": pytest.approx(0.9),
    }
    assert [c.rank for c in fused] == [1, 2, 3]


def test_fusion_keeps_a_clear_margin_that_ranks_would_erase() -> None:
    """Rank fusion ties a near-miss on one side with a clear winner on the other; scaled scores do not."""
    fused = convex_fusion(
        {
            "vector": [_chunk("near", 1, 0.90), _chunk("far", 2, 0.30)],
            "fulltext": [_chunk("far", 1, 5.0), _chunk("near", 2, 4.9)],
        },
        {"vector": 0.5, "fulltext": 0.5},
    )
    assert [c.chunk_id for c in fused] == ["near", "far"]


def test_fusion_ties_break_deterministically_and_ignore_an_empty_side() -> None:
    a = convex_fusion({"x": [_chunk("z", 1)], "y": [_chunk("m", 1)], "empty": []}, {"x": 0.5, "y": 0.5})
    assert [c.chunk_id for c in a] == ["m", "z"]


def test_identifiers_mix_letters_and_digits() -> None:
    from graphwright.text.lucene import has_identifier

    assert has_identifier("error QX-7719-ZB?") and has_identifier("in v2.3.1") and has_identifier("FIFA U-20")
    assert not has_identifier("From 1945-1949 he played") and not has_identifier("state-of-the-art")
    assert not has_identifier("Apollo 11 landed")


def test_lucene_escaping() -> None:
    assert to_lucene("QX-7719-ZB") == '"QX-7719-ZB"'  # codes are exact phrases
    assert to_lucene("unit QX-7719-ZB?") == 'unit "QX-7719-ZB"'
    assert to_lucene("state-of-the-art") == r"state\-of\-the\-art"  # no digit: ordinary words
    assert to_lucene('title:"x" AND (y OR z)*') == r"title\:\"x\" and \(y or z\)\*"
    assert to_lucene("   ") == ""
    assert to_lucene("? !") == r"\? \!"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("category=rockets", MetadataFilter("category", "=", "rockets")),
        ("year>=2020", MetadataFilter("year", ">=", 2020)),
        ("score < 0.5", MetadataFilter("score", "<", 0.5)),
        ("draft!=true", MetadataFilter("draft", "!=", True)),
        ("title~Apollo 11", MetadataFilter("title", "~", "Apollo 11")),
        ("code='2020'", MetadataFilter("code", "=", "2020")),
    ],
)
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
    assert [(c.kind, c.id) for c in answer.citations] == [
        ("chunk", "c_1"),
        ("chunk", "c_2"),
        ("document", "dc_1"),
        ("document", "dc_2"),
    ]
    assert retrieval_answer([]).citations == []
