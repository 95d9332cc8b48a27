"""Entities and typed relations from an LLM, one call per chunk (plus gleaning passes), in parallel.

The reply is asked for under a JSON schema where the endpoint takes one (structured output); without one
it is parsed leniently (prose, fences, think-tags, trailing commas, cut-off output), validated with pydantic
and re-asked once when unreadable. A chunk whose reply stays unusable gets the offline extractor's graph,
counted as a fallback; one the endpoint could not answer (down, refused, out of budget) is a failed chunk,
and its document is retried by the next ingest. Answers are cached on disk by the client, so re-indexing
unchanged text makes no calls.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, ValidationError, field_validator

from graphwright.config import Settings
from graphwright.errors import UngroundedReplyError
from graphwright.extraction.base import TIME_BUDGET, Extractor, LearnsFromExamples, SchemaAware
from graphwright.extraction.examples import SimilarExamples
from graphwright.graph_schema import GraphSchema
from graphwright.llm import LLM, LLMEmptyAnswerError, LLMError, MeteredLLM
from graphwright.llm.cache import cached_about
from graphwright.llm.json_repair import JSONRepairError, parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import ChunkExtraction, ExtractedEntity, ExtractedRelation, ExtractionExample
from graphwright.text.normalize import FALLBACK_TYPE, normalize_key
from graphwright.text.sentences import split_sentences


class _LLMEntity(ExtractedEntity):
    """An entity as the model sends it: the shared record, read leniently."""

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty name")
        return value.strip()

    @field_validator("type", "description", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)


class _LLMRelation(ExtractedRelation):
    """A relation as the model sends it; its `strength` is our weight."""

    weight: float = Field(1.0, validation_alias=AliasChoices("strength", "weight"))

    @field_validator("type", "description", "source", "target", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("weight", mode="before")
    @classmethod
    def _number(cls, value: Any) -> float:
        try:
            return max(float(value), 0.1)
        except (TypeError, ValueError):
            return 1.0


class _LLMGraph(BaseModel):
    entities: list[_LLMEntity] = Field(default_factory=list)
    relations: list[_LLMRelation] = Field(default_factory=list)


# Words without underscores: a model taught by DBpedia-style examples names "Jan_Duursema" or
# "Arion_(comicsCharacter)", and those are grounded by "Jan Duursema" and "Arion" in the text.
_WORD_RE = re.compile(r"[^\W_]+")


def _grounded(graph: _LLMGraph, text: str) -> tuple[_LLMGraph, int]:
    """The items whose names the text mentions (a name, or one of its words, found in it), and how many were
    dropped. Lenient on purpose: "Bezos" grounds "Jeff Bezos", so a model's fuller name is kept."""
    lowered = " ".join(text.lower().split())
    words = set(_WORD_RE.findall(lowered))

    def mentioned(name: str) -> bool:
        name = " ".join(name.lower().replace("_", " ").split())
        return bool(name) and (name in lowered or any(w in words for w in _WORD_RE.findall(name) if len(w) > 1))

    entities = [e for e in graph.entities if mentioned(e.name)]
    relations = [r for r in graph.relations if mentioned(r.source) and mentioned(r.target)]
    dropped = len(graph.entities) - len(entities) + len(graph.relations) - len(relations)
    return _LLMGraph(entities=entities, relations=relations), dropped


def _validate(data: dict[str, Any]) -> _LLMGraph:
    """Keep the valid items of a reply; one bad entity does not void the rest."""
    entities, relations = [], []
    for raw in data.get("entities") or []:
        try:
            entities.append(_LLMEntity.model_validate(raw))
        except ValidationError:
            continue
    for raw in data.get("relations") or data.get("relationships") or []:
        if isinstance(raw, dict):
            raw = {**raw, "type": raw.get("type") or raw.get("relationship") or raw.get("relation") or "RELATED_TO"}
        try:
            relation = _LLMRelation.model_validate(raw)
        except ValidationError:
            continue
        if relation.source.strip() and relation.target.strip():
            relations.append(relation)
    return _LLMGraph(entities=entities, relations=relations)


_MAX_SHOTS = 4

# What a reply must look like, for endpoints with structured output (the prompt asks for the same)
_STRING = {"type": "string"}
GRAPH_SCHEMA = {
    "name": "entity_graph",
    "schema": {
        "type": "object",
        "properties": {
            "entities": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": _STRING, "type": _STRING, "description": _STRING},
                    "required": ["name", "type"],
                },
            },
            "relations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "source": _STRING,
                        "type": _STRING,
                        "target": _STRING,
                        "description": _STRING,
                        "strength": {"type": "number"},
                    },
                    "required": ["source", "type", "target"],
                },
            },
        },
        "required": ["entities", "relations"],
    },
}


log = logging.getLogger(__name__)

_JUDGED_AFTER = 4  # first passes (or gleans) seen before gleaning is judged
# Gleaning stays while it finds at least this share of what a first pass finds per second: below it, the
# same seconds spent on first passes (of this run's chunks, or the next run's) find more.
_GLEAN_YIELD = 0.25


@dataclass
class _Yield:
    """Calls of one kind in this run: how many, how many replies were unusable, items found, seconds."""

    calls: int = 0
    unusable: int = 0
    items: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.items / self.seconds if self.seconds > 0 else 0.0


class LLMExtractor:
    name = "llm"

    def __init__(self, llm: LLM, settings: Settings, fallback: Extractor | None = None) -> None:
        self.llm = MeteredLLM(llm)  # this extractor's calls and tokens, for progress and the report
        self.settings = settings
        self.fallback = fallback  # the offline extractor, for a chunk whose reply stays unusable
        self.system = render(
            "extract_system", entity_types=", ".join(t.lower() for t in settings.entity_type_list), schema=""
        )
        self.examples = SimilarExamples([])  # worked examples, from use_examples
        self.deadline: float | None = None  # no model call starts after it (TimeBudgeted)
        self._first = _Yield()
        self._glean = _Yield()
        self._judge = threading.Lock()

    def set_deadline(self, deadline: float | None) -> None:
        self.deadline = deadline

    def _past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _gleaning(self) -> bool:
        """Whether to ask for what the first pass missed: not where it was measured not to pay (on this
        endpoint, remembered), judged again as this run goes."""
        if self.settings.llm.gleanings == 0 or self.llm.recall("glean") is False:
            return False
        with self._judge:
            first, glean = self._first, self._glean
            why = ""
            if first.calls >= _JUDGED_AFTER and first.unusable * 2 > first.calls:
                why = f"{first.unusable} of {first.calls} first replies were unusable"
            elif glean.calls >= _JUDGED_AFTER and glean.rate < _GLEAN_YIELD * first.rate:
                why = (
                    f"gleaning found {glean.rate:.2f} items/s against the first pass's {first.rate:.2f} "
                    f"({glean.calls} gleans, {first.calls} first passes)"
                )
            if not why:
                return True
        log.info("LLM extraction: gleaning skipped from now on for this endpoint: %s", why)
        self.llm.remember(glean=False, glean_note=why)
        return False

    def use_examples(self, examples: list[ExtractionExample]) -> None:
        """Worked examples as few-shot turns before each chunk: the few most like the chunk (they cost prompt
        tokens on every call)."""
        self.examples = SimilarExamples(examples)
        if isinstance(self.fallback, LearnsFromExamples):  # a chunk that falls back keeps what was taught
            self.fallback.use_examples(examples)

    def _shots(self, text: str) -> list[dict[str, str]]:
        shots = []
        for example in self.examples.top(text, _MAX_SHOTS):
            facts = [{"source": t.sub, "type": t.rel, "target": t.obj} for t in example.triples]
            names = sorted({t.sub for t in example.triples} | {t.obj for t in example.triples})
            reply = {"entities": [{"name": n, "type": "", "description": ""} for n in names], "relations": facts}
            shots += [
                {"role": "user", "content": render("extract_user", text=example.text)},
                {"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)},
            ]
        return shots

    def use_schema(self, schema: GraphSchema) -> None:
        """State the graph schema in the prompt: its types replace the configured ones, its patterns and
        descriptions guide the relations (what still breaks it is pruned after extraction)."""
        types = [t.label for t in schema.node_types] or [t.lower() for t in self.settings.entity_type_list]
        rules = render("extract_schema", schema=schema.describe())
        self.system = render("extract_system", entity_types=", ".join(types), schema=rules)
        if isinstance(self.fallback, SchemaAware):
            self.fallback.use_schema(schema)

    def usage(self) -> dict[str, float]:
        return self.llm.usage.report(self.settings.llm.price_input, self.settings.llm.price_output)

    def summarize(self, name: str, descriptions: list[str]) -> str:
        """One description from several (resolution calls this when an entity has more than one)."""
        body = render("summarize", name=name, descriptions="\n".join(f"- {d}" for d in descriptions))
        return self.llm.chat([{"role": "user", "content": body}], task="summarize").text.strip()

    def extract_many(
        self, chunks: list[tuple[str, str]], on_done: Callable[[int], None] | None = None
    ) -> list[ChunkExtraction]:
        finished = 0
        lock = threading.Lock()

        def one(pair: tuple[str, str]) -> ChunkExtraction:
            nonlocal finished
            result = self.extract(*pair)
            if on_done is not None:
                with lock:  # the progress bar is told from one thread at a time, in order
                    finished += 1
                    on_done(finished)
            return result

        # An LLMBudgetError (not an LLMError) leaves here and stops the run between groups; the answers
        # paid for are cached, so the next run resumes without paying twice.
        with ThreadPoolExecutor(max_workers=self.settings.llm.concurrency) as pool:
            return list(pool.map(one, chunks))

    def _ask(self, messages: list[dict[str, str]], task: str) -> tuple[_LLMGraph, str]:
        """One question; an unreadable reply is re-asked once with the parse error."""
        reply = ""
        try:
            result = self.llm.chat(messages, task=task, schema=GRAPH_SCHEMA)
            reply = result.text
            try:
                return _validate(parse_json_object(reply)), reply
            except JSONRepairError as exc:
                raise JSONRepairError(f"{exc}{result.cut_note()}") from exc
        except (JSONRepairError, LLMError) as first:
            if isinstance(first, LLMError) and not isinstance(first, LLMEmptyAnswerError):
                raise
            self.llm.forget(messages)  # an unusable answer must not be replayed from the cache
            retry = [
                *messages,
                {"role": "assistant", "content": reply or "(empty)"},
                {"role": "user", "content": render("repair", error=first)},
            ]
            result = self.llm.chat(retry, task="repair", schema=GRAPH_SCHEMA)
            try:
                return _validate(parse_json_object(result.text)), result.text
            except JSONRepairError as exc:
                self.llm.forget(retry)
                raise JSONRepairError(f"{exc}{result.cut_note()}") from exc

    def extract(self, chunk_id: str, text: str) -> ChunkExtraction:
        if self._past_deadline() and self.fallback is not None:
            found = self.fallback.extract_many([(chunk_id, text)])[0]
            return found.model_copy(update={"fallback": f"{TIME_BUDGET}: the LLM's time ran out"})
        try:
            with cached_about(chunk_id):  # deleting the chunk forgets what the model was told of it
                return self._extract(chunk_id, text)
        except (JSONRepairError, LLMEmptyAnswerError, UngroundedReplyError) as exc:  # the model's reply: fall back
            with self._judge:
                self._first.unusable += 1
            reason = (
                "unreadable reply"
                if isinstance(exc, JSONRepairError)
                else "empty reply"
                if isinstance(exc, LLMEmptyAnswerError)
                else "ungrounded reply"
            )
            if self.fallback is None:
                return ChunkExtraction(chunk_id=chunk_id, error=f"{type(exc).__name__}: {exc}")
            found = self.fallback.extract_many([(chunk_id, text)])[0]
            return found.model_copy(update={"fallback": f"{reason}: {exc}"[:300]})
        except LLMError as exc:
            return ChunkExtraction(chunk_id=chunk_id, error=f"{type(exc).__name__}: {exc}")

    def prompt(self, text: str) -> list[dict[str, str]]:
        """The first question asked of a chunk (a dry run counts these)."""
        return [
            {"role": "system", "content": self.system},
            *self._shots(text),
            {"role": "user", "content": render("extract_user", text=text)},
        ]

    def _extract(self, chunk_id: str, text: str) -> ChunkExtraction:
        messages = self.prompt(text)
        started = time.monotonic()
        with self._judge:
            self._first.calls += 1
        graph, reply = self._ask(messages, "extract")
        graph, dropped = _grounded(graph, text)
        with self._judge:
            self._first.items += len(graph.entities) + len(graph.relations)
            self._first.seconds += time.monotonic() - started
        if dropped and not graph.entities and not graph.relations:
            raise UngroundedReplyError(f"none of its {dropped} entities and relations is named in the text")
        for _ in range(self.settings.llm.gleanings):
            if self._past_deadline() or not self._gleaning():
                break
            messages = [
                *messages,
                {"role": "assistant", "content": reply},
                {"role": "user", "content": render("glean")},
            ]
            started = time.monotonic()
            found = 0
            try:
                more, reply = self._ask(messages, "glean")
                more, _ = _grounded(more, text)
                before = len(graph.entities) + len(graph.relations)
                graph = _merge(graph, more)
                found = len(graph.entities) + len(graph.relations) - before
            except (JSONRepairError, LLMEmptyAnswerError):  # the first pass stands
                more = _LLMGraph()
            finally:
                with self._judge:
                    self._glean.calls += 1
                    self._glean.items += found
                    self._glean.seconds += time.monotonic() - started
            if not more.entities and not more.relations:
                break
        # A relation names its ends: one the reply did not list as an entity is one, untyped (the schema's
        # patterns may type it), rather than a reason to drop the relation.
        listed = {normalize_key(e.name) for e in graph.entities}
        ends = [n for r in graph.relations for n in (r.source, r.target)]
        missing = [n for n in dict.fromkeys(ends) if normalize_key(n) not in listed]
        entities = [(e.name, e.type, e.description) for e in graph.entities] + [(n, FALLBACK_TYPE, "") for n in missing]
        return ChunkExtraction(
            chunk_id=chunk_id,
            entities=[
                ExtractedEntity(
                    name=name,
                    type=type_,
                    description=description,
                    count=max(text.lower().count(name.lower()), 1),
                )
                for name, type_, description in entities
            ],
            relations=[
                ExtractedRelation(
                    source=r.source,
                    target=r.target,
                    type=r.type,
                    description=r.description,
                    weight=r.weight,
                    evidence=_evidence(text, r),
                )
                for r in graph.relations
            ],
        )


def _evidence(text: str, relation: _LLMRelation) -> str:
    """The sentence naming both ends, else the source, else the target, else the model's description."""
    source, target = relation.source.lower(), relation.target.lower()
    sentences = split_sentences(" ".join(text.split()))
    for test in (lambda s: source in s and target in s, lambda s: source in s, lambda s: target in s):
        for sentence in sentences:
            if test(sentence.lower()):
                return sentence[:500]
    return relation.description[:500]


def _merge(first: _LLMGraph, second: _LLMGraph) -> _LLMGraph:
    """Gleaned items join the first pass; repeats (same name, same triple) are dropped."""
    names = {normalize_key(e.name) for e in first.entities}
    triples = {(normalize_key(r.source), normalize_key(r.target), r.type.upper()) for r in first.relations}
    entities = first.entities + [e for e in second.entities if normalize_key(e.name) not in names]
    relations = first.relations + [
        r for r in second.relations if (normalize_key(r.source), normalize_key(r.target), r.type.upper()) not in triples
    ]
    return _LLMGraph(entities=entities, relations=relations)
