"""Evaluation datasets and metrics (pure logic)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.evaluation.datasets import DatasetError, load_dataset
from graphwright.evaluation.metrics import (
    all_found_at_k,
    exact_match,
    keyword_recall,
    percentile,
    recall_at_k,
    reciprocal_rank,
    token_f1,
)
from graphwright.evaluation.runner import ranked_keys
from graphwright.models import RetrievedChunk

HOTPOT = Path(__file__).resolve().parents[2] / "data" / "hotpot_mini"


def test_recall_mrr_and_keywords() -> None:
    ranked = ["a", "x", "b", "y"]
    assert recall_at_k(ranked, {"a", "b"}, 2) == 0.5 and recall_at_k(ranked, {"a", "b"}, 3) == 1.0
    assert reciprocal_rank(ranked, {"b"}) == pytest.approx(1 / 3) and reciprocal_rank(ranked, {"z"}) == 0.0
    assert keyword_recall(["Life imprisonment or DEATH"], ["death", "ten years"]) == 0.5
    found = keyword_recall(["故意杀人的，处死刑、无期徒刑"], ["死刑", "无期徒刑", "十年以上有期徒刑"])
    assert found == pytest.approx(2 / 3)


def test_all_evidence_recall_needs_every_gold_passage() -> None:
    ranked = ["a", "x", "b", "y"]
    assert all_found_at_k(ranked, {"a", "b"}, 2) == 0.0 and all_found_at_k(ranked, {"a", "b"}, 3) == 1.0
    assert all_found_at_k(ranked, {"a"}, 1) == 1.0 and all_found_at_k(ranked, set(), 4) == 0.0


def test_squad_style_answer_scores() -> None:
    assert exact_match("The Eiffel Tower.", "eiffel tower") == 1.0
    assert exact_match("Paris", "London") == 0.0
    assert token_f1("the tall Eiffel Tower", "Eiffel Tower") == pytest.approx(0.8)
    assert token_f1("", "") == 1.0 and token_f1("yes", "no") == 0.0


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5, 1, 3, 2, 4], 0.5) == 3 and percentile([1, 2], 0.95) == 2 and percentile([], 0.5) == 0


def test_documents_rank_at_their_best_chunk_by_id_or_title() -> None:
    chunks = [
        RetrievedChunk(chunk_id=f"c{i}", document_id=d, title=t, text="", score=1, rank=i)
        for i, (d, t) in enumerate([("a.md", "A"), ("a.md", "A"), ("b.md", "B")], start=1)
    ]
    assert ranked_keys(chunks, by_title=False) == ["a.md", "b.md"]
    assert ranked_keys(chunks, by_title=True) == ["A", "B"]


def test_jsonl_dataset_and_its_errors(tmp_path: Path) -> None:
    good = tmp_path / "q.jsonl"
    good.write_text(
        json.dumps({"question": "Who?", "gold_doc_ids": ["a.md"], "type": "fact"})
        + "\n\n"
        + json.dumps({"question": "What?", "expected_keywords": ["x"]})
        + "\n",
        encoding="utf-8",
    )
    data = load_dataset(good)
    assert [q.type for q in data.questions] == ["fact", "all"] and data.corpus is None
    cases = {
        '{"question": "Who?"}': r"q\.jsonl:1: .*needs gold_doc_ids",
        '{"question": "", "answer": "x"}': r"q\.jsonl:1: question",
        '{"question": "Who?", "gold_doc_ids": "a.md"}': r"q\.jsonl:1: gold_doc_ids",
        '{"question": "Who?", "answer": "x"': r"q\.jsonl:1: invalid JSON",
        '["a list"]': r"q\.jsonl:1: expected a JSON object",
        "": r"q\.jsonl: no questions",
    }
    for text, message in cases.items():
        good.write_text(text, encoding="utf-8")
        with pytest.raises(DatasetError, match=message):
            load_dataset(good)
    with pytest.raises(DatasetError, match="no such file"):
        load_dataset(tmp_path / "missing.jsonl")
    with pytest.raises(DatasetError, match="needs questions.json"):
        load_dataset(tmp_path)


def test_hotpotqa_folder() -> None:
    data = load_dataset(HOTPOT)
    assert len(data.questions) == 3 and len(data.corpus) == 15
    assert data.types == ["bridge", "comparison"]
    assert all(len(q.gold_titles) == 2 and q.answer for q in data.questions)
    assert load_dataset(HOTPOT / "questions.json").questions[0] == data.questions[0]


def test_malformed_hotpotqa_question_is_named(tmp_path: Path) -> None:
    (tmp_path / "questions.json").write_text(
        json.dumps([{"question": "Q", "supporting_facts": []}, {"question": "Q2"}]), encoding="utf-8"
    )
    with pytest.raises(DatasetError, match=r"question 0: .*needs gold"):
        load_dataset(tmp_path)
