"""The optional statistical NER extractor (`graphwright[ner]`, installed with the dev extras)."""

from __future__ import annotations

import pytest

from graphwright.config import Settings
from graphwright.extraction.ner_extractor import NERExtractor, ner_available
from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.extraction.registry import make_extractor

pytestmark = pytest.mark.skipif(not ner_available(), reason="graphwright[ner] not installed")

TEXT = (
    "Microsoft invested about 13 billion dollars in OpenAI. Sam Altman is the CEO of OpenAI. "
    "Google acquired DeepMind in 2014."
)


def test_the_model_finds_what_capitalisation_rules_miss_and_types_it() -> None:
    rules = {e.name: e.type for e in NLPExtractor().extract("c", TEXT).entities}
    assert not {"Microsoft", "Google"} & set(rules)  # one-word names opening a sentence
    model = {e.name: e.type for e in NERExtractor(with_rules=False).extract_many([("c", TEXT)])[0].entities}
    assert model["Microsoft"] == model["Google"] == model["DeepMind"] == "ORGANIZATION"
    assert model["Sam Altman"] == "PERSON"
    assert "CEO of OpenAI" not in model and "2014" not in model  # dates and amounts are not entities


def test_relations_stay_sentence_cooccurrence_and_rules_can_add_names() -> None:
    both = NERExtractor().extract_many([("c1", TEXT), ("c2", "Ada Lovelace wrote notes on the engine.")])
    assert [x.chunk_id for x in both] == ["c1", "c2"]
    pairs = {frozenset((r.source, r.target)): r for r in both[0].relations}
    assert pairs[frozenset(("Google", "DeepMind"))].evidence == "Google acquired DeepMind in 2014."
    assert "Ada Lovelace" in {e.name for e in both[1].entities}


def test_chosen_by_name() -> None:
    assert isinstance(make_extractor(Settings(), "ner"), NERExtractor)
    assert make_extractor(Settings(), "ner-only").name == "ner-only"  # its own content hash: re-extracts
