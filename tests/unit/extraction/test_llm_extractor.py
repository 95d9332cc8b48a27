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
