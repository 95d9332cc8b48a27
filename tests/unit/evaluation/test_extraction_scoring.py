"""Text2KGBench's scoring rules (evaluation/extraction.py): names compared without case, spaces or
underscores; predictions with a relation the sentence's gold never uses left out of precision; conformance
and hallucination against the schema and the sentence; gold files without ids or triples refused by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.errors import GraphwrightError
from graphwright.evaluation.extraction import GoldSentence, average, read_gold, score_sentence
from graphwright.graph_schema import GraphSchema
from graphwright.models import LabelledTriple

SCHEMA = GraphSchema.model_validate(
    {
        "node_types": [{"label": "University"}, {"label": "Country"}],
        "relationship_types": [{"label": "country"}, {"label": "established"}],
        "patterns": [["University", "country", "Country"], ["University", "established", "number"]],
    }
)
GOLD = GoldSentence(
    id="s1",
    text="The AWH Engineering College was established in India in 2001.",
    triples=[
        LabelledTriple(sub="AWH_Engineering_College", rel="country", obj="India"),
        LabelledTriple(sub="AWH_Engineering_College", rel="established", obj="2001"),
    ],
)


def test_a_match_ignores_case_spaces_and_underscores() -> None:
    score = score_sentence(GOLD, [("awh engineering college", "country", "INDIA")], SCHEMA)
    assert (score.precision, score.recall) == (1.0, 0.5)
    assert score.f1 == pytest.approx(2 / 3)


def test_relations_the_gold_does_not_use_leave_precision_alone_but_count_as_hallucinated() -> None:
    predicted = [("AWH Engineering College", "country", "India"), ("AWH Engineering College", "motto", "Hope")]
    score = score_sentence(GOLD, predicted, SCHEMA)
    assert score.precision == 1.0  # "motto" is in no gold triple of the sentence: filtered, as the benchmark does
    assert score.conformance == 0.5 and score.relation_hallucination == 0.5
    assert score.object_hallucination == 0.5  # "Hope" is not in the sentence


def test_a_sentence_with_no_prediction_scores_zero_and_averages_count_it() -> None:
    empty = score_sentence(GOLD, [], SCHEMA)
    full = score_sentence(
        GOLD,
        [("AWH Engineering College", "country", "India"), ("AWH Engineering College", "established", "2001")],
        SCHEMA,
    )
    assert (empty.f1, full.f1) == (0.0, 1.0)
    from graphwright.evaluation.extraction import _figures

    assert average([_figures([empty, full])]).f1 == 0.5


def test_the_benchmarks_own_gold_reads_as_it_is(tmp_path: Path) -> None:
    """Text2KGBench's files: "sent" for the text, and sentences whose gold holds no triple. Such a sentence
    scores 0 for everyone (as `run_eval.py` scores it); predicting there costs conformance and hallucination."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"id": "a", "sent": "Nothing here.", "triples": []}\n'
        '{"id": "b", "text": "AWH Engineering College is in India.", '
        '"triples": [{"sub": "AWH_Engineering_College", "rel": "country", "obj": "India"}]}\n',
        encoding="utf-8",
    )
    first, second = read_gold(gold)
    assert (first.text, first.triples, second.id) == ("Nothing here.", [], "b")
    quiet = score_sentence(first, [], SCHEMA)
    talky = score_sentence(first, [("Nothing", "madeUp", "here")], SCHEMA)
    assert (quiet.f1, quiet.conformance, quiet.relation_hallucination) == (0.0, 1.0, 0.0)
    assert (talky.f1, talky.conformance, talky.relation_hallucination) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"text": "A sentence.", "triples": [{"sub": "a", "rel": "b", "obj": "c"}]}', "line 1"),
        ('{"id": "x", "text": "A sentence."}', "line 1"),
        ("not json", "line 1"),
    ],
)
def test_a_gold_file_without_ids_or_triples_is_refused_by_line(tmp_path: Path, line: str, said: str) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(GraphwrightError) as raised:
        read_gold(gold)
    assert "gold.jsonl" in str(raised.value) and said in str(raised.value) and "\n" not in str(raised.value)
