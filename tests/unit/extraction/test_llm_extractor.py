"""The LLM extractor's reading of a reply, with an in-process model (the endpoint's faults are the stub's,
in tests/integration/test_llm_extraction.py)."""

from __future__ import annotations

import json
from typing import Any

from graphwright.config import Settings
from graphwright.extraction.llm_extractor import LLMExtractor
from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.graph_schema import GraphSchema
from graphwright.llm import ChatResult
from graphwright.models import ExtractionExample, LabelledTriple
from tests.llm_doubles import ReplyingLLM

TEXT = "Jan Duursema and Paul Kupperberg created the comic book character of Arion."


class _Fixed(ReplyingLLM):
    def __init__(self, reply: dict[str, Any]) -> None:
        self.text = json.dumps(reply)

    def reply(self, messages: list[dict[str, Any]]) -> ChatResult:
        return ChatResult(text=self.text)


def test_dbpedia_style_names_are_grounded_by_their_words() -> None:
    # Gemma 3 270M, taught by Text2KGBench's examples, named its ends the examples' way; all were dropped as
    # "not in the text" before, and every sentence scored F1 0.
    reply = {
        "entities": [{"name": "Jan_Duursema"}, {"name": "Arion_(comicsCharacter)"}, {"name": "Neptune_(god)"}],
        "relations": [
            {"source": "Arion_(comicsCharacter)", "type": "creator", "target": "Jan_Duursema"},
            {"source": "Arion_(comicsCharacter)", "type": "creator", "target": "Neptune_(god)"},
        ],
    }
    found = LLMExtractor(_Fixed(reply), Settings()).extract("c1", TEXT)
    assert found.error is None and found.fallback is None
    assert [e.name for e in found.entities] == ["Jan_Duursema", "Arion_(comicsCharacter)"]
    assert [(r.source, r.target) for r in found.relations] == [("Arion_(comicsCharacter)", "Jan_Duursema")]


def test_an_ungrounded_reply_falls_back_to_the_offline_extractor() -> None:
    reply = {"entities": [{"name": "Neptune"}], "relations": []}
    found = LLMExtractor(_Fixed(reply), Settings(), fallback=NLPExtractor()).extract("c1", TEXT)
    assert found.fallback is not None and found.fallback.startswith("ungrounded reply")
    assert "Paul Kupperberg" in {e.name for e in found.entities}


def test_schema_and_examples_reach_the_fallback() -> None:
    seen: list[str] = []

    class _Offline(NLPExtractor):
        def use_schema(self, schema: GraphSchema) -> None:
            seen.append("schema")

        def use_examples(self, examples: list[ExtractionExample]) -> None:
            seen.append(f"{len(examples)} examples")

    extractor = LLMExtractor(_Fixed({}), Settings(), fallback=_Offline())
    extractor.use_schema(GraphSchema())
    extractor.use_examples(
        [ExtractionExample(text="A wrote B.", triples=[LabelledTriple(sub="A", rel="author", obj="B")])]
    )
    assert seen == ["schema", "1 examples"]


def test_a_relations_end_the_reply_did_not_list_is_an_entity() -> None:
    reply = {
        "entities": [{"name": "Arion"}],
        "relations": [{"source": "Arion", "type": "creator", "target": "Paul Kupperberg"}],
    }
    found = LLMExtractor(_Fixed(reply), Settings()).extract("c1", TEXT)
    assert [(e.name, e.type) for e in found.entities] == [("Arion", "CONCEPT"), ("Paul Kupperberg", "CONCEPT")]
    assert [(r.source, r.target) for r in found.relations] == [("Arion", "Paul Kupperberg")]


class _Remembering(ReplyingLLM):
    """A model whose first pass names two things the text names, and whose gleaning finds nothing new; it
    keeps what the extractor learns of it, as the endpoint file does."""

    def __init__(self, first: dict[str, Any]) -> None:
        self.first = json.dumps(first)
        self.asked: list[str] = []
        self.facts: dict[str, Any] = {}

    def chat(self, messages: list[dict[str, Any]], *args: Any, task: str = "answer", **kwargs: Any) -> ChatResult:
        self.asked.append(task)
        return ChatResult(text=self.first)

    def recall(self, fact: str) -> Any:
        return self.facts.get(fact)

    def remember(self, **facts: Any) -> None:
        self.facts.update(facts)


GROUNDED = {"entities": [{"name": "Jan Duursema"}, {"name": "Arion"}], "relations": []}


def test_gleaning_stops_where_it_finds_nothing_and_the_endpoint_remembers() -> None:
    model = _Remembering(GROUNDED)
    extractor = LLMExtractor(model, Settings(llm_gleanings=1))
    for i in range(8):
        extractor.extract(f"c{i}", TEXT)
    # four gleans found nothing new: judged not to pay, so the last four chunks were asked once each
    assert model.asked.count("glean") == 4 and model.asked.count("extract") == 8
    assert model.facts["glean"] is False and "gleaning found 0.00 items/s" in model.facts["glean_note"]
    again = LLMExtractor(model, Settings(llm_gleanings=1))  # the next run: not tried again
    model.asked.clear()
    again.extract("c9", TEXT)
    assert model.asked == ["extract"]


def test_gleaning_is_skipped_where_first_replies_are_mostly_unusable() -> None:
    model = _Remembering({"entities": [{"name": "Neptune"}], "relations": []})  # never in the text
    extractor = LLMExtractor(model, Settings(llm_gleanings=1), fallback=NLPExtractor())
    for i in range(5):
        assert extractor.extract(f"c{i}", TEXT).fallback.startswith("ungrounded reply")
    assert extractor._gleaning() is False and model.facts["glean_note"] == "5 of 5 first replies were unusable"


def test_past_its_deadline_a_chunk_takes_the_offline_graph_without_a_call() -> None:
    import time

    model = _Remembering(GROUNDED)
    extractor = LLMExtractor(model, Settings(llm_gleanings=0), fallback=NLPExtractor())
    extractor.set_deadline(time.monotonic() + 3600)
    assert extractor.extract("c1", TEXT).fallback is None and model.asked == ["extract"]
    extractor.set_deadline(time.monotonic() - 1)
    late = extractor.extract("c2", TEXT)
    assert late.fallback is not None and late.fallback.startswith("time budget")
    assert model.asked == ["extract"] and "Paul Kupperberg" in {e.name for e in late.entities}
