"""The extractor interface the pipeline uses (extraction/registry.py builds one by name)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from graphwright.graph_schema import GraphSchema
from graphwright.models import ChunkExtraction, ExtractionExample

if TYPE_CHECKING:
    from graphwright.extraction.relation_prior import Evidence, RelationPrior

# The reason a chunk extracted past a time budget carries: its `fallback` starts with it
TIME_BUDGET = "time budget"


class Extractor(Protocol):
    name: str

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        """(chunk id, text) pairs -> one ChunkExtraction each, in order; failures carry `error`.
        `on_done(n)` is told how many are finished as they finish (for live progress)."""
        ...

    def usage(self) -> dict[str, float]: ...


@runtime_checkable
class Summarizer(Protocol):
    """An extractor that can merge the descriptions an entity gathered from several chunks (the LLM's);
    without one, resolution keeps the descriptions joined."""

    def summarize(self, name: str, descriptions: list[str]) -> str: ...


@runtime_checkable
class Versioned(Protocol):
    """An extractor whose output depends on more than its name (a model, a rule set): `version` joins the
    content hash, so a graph extracted another way is extracted again on the next ingest."""

    version: str


@runtime_checkable
class SchemaAware(Protocol):
    """An extractor that can be told the graph schema before it runs (the LLM's prompt states it). Every
    extractor's output is checked against the schema afterwards either way."""

    def use_schema(self, schema: GraphSchema) -> None: ...


@runtime_checkable
class LearnsFromExamples(Protocol):
    """An extractor that can take worked examples before it runs (the LLM as few-shot prompts)."""

    def use_examples(self, examples: list[ExtractionExample]) -> None: ...


@runtime_checkable
class UsesRelationPrior(Protocol):
    """An extractor that writes the schema's relations its examples never show by a prior fitted on other
    ontologies (`relation_prior.py`); given one, it uses that instead of the packaged one."""

    def use_relation_prior(self, prior: RelationPrior | None) -> None: ...

    def evidence(self) -> Evidence | None:
        """What its examples teach a prior fitted on many ontologies (None before it learned)."""
        ...


@runtime_checkable
class Prefetching(Protocol):
    """An extractor whose work runs elsewhere (a cluster's workers): told a wave's chunks at once, it starts
    on all of them, and `extract_many` then waits only for what is not done yet."""

    def prefetch(self, chunks: list[tuple[str, str]]) -> None: ...


@runtime_checkable
class TimeBudgeted(Protocol):
    """An extractor that calls a model for each chunk (seconds a chunk, where a transaction costs
    milliseconds): the pipeline writes each of its documents as soon as its chunks are extracted, so a stop
    keeps everything finished, and it takes a deadline after which the chunks left get the offline graph."""

    def set_deadline(self, deadline: float | None) -> None:
        """`time.monotonic()` after which no new model call starts (None: no deadline)."""
        ...
