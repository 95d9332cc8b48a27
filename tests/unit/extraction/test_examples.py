"""Choosing the worked examples an LLM prompt carries for a chunk: the ones most like it."""

from __future__ import annotations

from graphwright.extraction.examples import SimilarExamples
from graphwright.models import ExtractionExample, LabelledTriple


def example(text: str) -> ExtractionExample:
    return ExtractionExample(text=text, triples=[LabelledTriple(sub="a", rel="r", obj="b")])


def test_the_examples_most_like_the_text_lead_and_ties_keep_the_files_order() -> None:
    examples = [example(t) for t in ("The cat sat.", "Rome is in Italy.", "Paris is in France.", "Ada programmed it.")]
    chosen = SimilarExamples(examples).top("Lyon is in France.", 2)
    assert [e.text for e in chosen] == ["Paris is in France.", "Rome is in Italy."]
    assert SimilarExamples(examples[:2]).top("anything", 4) == examples[:2]  # fewer than asked: all, as given
