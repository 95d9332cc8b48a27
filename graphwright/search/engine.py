"""One path for every question: validate -> embed (and HyDE) -> run the registered mode -> answer."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from graphwright.embeddings import embed_questions
from graphwright.errors import InvalidRequestError, LLMError, LLMRequiredError
from graphwright.llm import MeteredLLM, ToolCallingLLM
from graphwright.llm.prompts import render
from graphwright.models import AnswerDelta, Evidence, SearchEvent, SearchResult, TraceStep, check_history_size
from graphwright.search import followup
from graphwright.search.answer import LLM_FAILED, LLM_FAILED_RETRIEVING
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.diversity import crowded, deeper, one_per_page_first
from graphwright.search.document_focus import (
    Focus,
    find_focus,
    focus_filter,
    focused_first,
    partitioned,
    split_by_focus,
)
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.headings import by_headings, has_headings
from graphwright.search.linking import EntityLinker
from graphwright.search.registry import get_mode, mode_names, modes_where
from graphwright.search.relevance import named_in_first, no_answer_floor, no_answer_line, verdict, with_relevance
from graphwright.search.window import fitted
from graphwright.telemetry import detached_span, set_attributes, span, usage_attributes

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.embeddings import Embedder
    from graphwright.graph_store.contracts import GraphStore
    from graphwright.llm import LLM

log = logging.getLogger(__name__)


class SearchEngine:
    """Runs registered modes against one store, embedder and (optional) LLM. Holds no per-search state,
    so one engine serves concurrent searches."""

    def __init__(self, store: GraphStore, embedder: Embedder, settings: Settings, llm: LLM | None) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.llm = llm

    def search(self, query: SearchQuery) -> SearchResult:
        """Run `query` to its SearchResult."""
        chosen = self._validate(query)
        with span(f"search {query.mode}", self._span_attributes(query)) as current:
            for event in self._run_search(chosen, query, stream=False):
                if isinstance(event, SearchResult):
                    _result_attributes(current, event)
                    return event
        raise AssertionError("a search always ends with its result")

    def _span_attributes(self, query: SearchQuery) -> dict[str, object]:
        attributes: dict[str, object] = {
            "graphwright.workspace": self.settings.workspace,
            "graphwright.search.mode": query.mode,
            "graphwright.search.k": query.k,
            "graphwright.search.generate": query.generate,
        }
        if self.settings.trace_content:
            attributes["graphwright.search.question"] = query.question
        return attributes

    def stream(self, query: SearchQuery) -> Iterator[SearchEvent]:
        """The search as it happens: its Evidence once retrieval is done, then the answer's text in pieces
        (AnswerDelta) as the LLM writes it, then the SearchResult. Validation errors raise here, before the
        first event. Offline, or for modes that write their answer while retrieving, the answer is one piece."""
        chosen = self._validate(query)
        return self._traced_stream(chosen, query)

    def _traced_stream(self, chosen: SearchMode, query: SearchQuery) -> Iterator[SearchEvent]:
        # not the current span: a stream's steps may run in other threads (the server's SSE)
        with detached_span(f"search {query.mode}", self._span_attributes(query)) as current:
            for event in self._run_search(chosen, query, stream=True):
                if isinstance(event, SearchResult):
                    _result_attributes(current, event)
                yield event

    def _run_search(self, chosen: SearchMode, query: SearchQuery, stream: bool) -> Iterator[SearchEvent]:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        _ = self.embedder.dimension  # loads the model once; timed apart from the query
        timings["load_model_ms"] = _ms(started)
        meter = MeteredLLM(self.llm) if query.generate and self.llm is not None else None
        query = query.model_copy()  # the caller's query stays as it was given (no embedding added)
        asked = query.question
        trace: list[TraceStep] = []
        notes: list[str] = []
        if query.history:
            started = time.perf_counter()
            notes, step = self._follow_up(query, meter)
            trace.append(step)
            timings["followup_ms"] = _ms(started)
        if chosen.embeds_question:
            started = time.perf_counter()
            query.embedding = embed_questions(self.embedder, [query.text])[0]
            timings["embed_ms"] = _ms(started)
            if query.hyde and meter is not None:
                query.embedding, step = self._hyde(query.question, query.embedding, meter)
                trace.append(step)
        ctx = self._context(meter)
        started = time.perf_counter()
        # the documents the question names, for the modes that rank passages (the others read no focus)
        focus = None
        if chosen.ranks_passages and not query.filters:
            focus = find_focus(query.text, self.store.retrieval.document_profiles())
        try:
            found = self._retrieve(chosen, query, ctx, focus)
            if chosen.ranks_passages and (crowded(found.chunks) or has_headings(found.chunks)):
                # Passages of long documents (two of one page, or under headings): asked again deeper, the
                # headings the question names first, then one passage per page, cut to k.
                found = self._retrieve(chosen, query.model_copy(update={"k": deeper(query.k)}), ctx, focus)
                groups = split_by_focus(found.chunks, focus)  # the focus's passages stay first
                ranked = [c for group in groups for c in by_headings(self.store, query.text, group)]
                found.chunks = one_per_page_first(ranked)[: query.k]
        except LLMError as exc:  # degrade, never fail: the offline retrieval answers, and says why
            found = self._offline(query, exc)
        floor = no_answer_floor(self.settings.search.no_answer_below, self.embedder)
        if chosen.ranks_passages and query.embedding is not None and found.chunks:  # a verdict on passages
            found.chunks = with_relevance(self.store, self.embedder, found.chunks, query.embedding)
            found.relevance, found.no_answer = verdict(found.chunks[: query.k], floor)
        timings["retrieve_ms"] = _ms(started)
        log.debug("%s search: %d chunks in %.0f ms", query.mode, len(found.chunks), timings["retrieve_ms"])
        evidence = found.evidence()
        evidence["trace"] = [*trace, *found.trace]
        answer_notes: list[str] = [*notes, *found.notes]  # the answer's own notes join as it is written
        evidence["notes"] = answer_notes
        lead = ""
        if found.no_answer:
            named = named_in_first(query.text, found.chunks, [e.name for e in found.entities])
            lead = no_answer_line(found.relevance, floor, named) + "\n\n"
        if stream:
            yield Evidence.model_validate(evidence)
            if lead:
                yield AnswerDelta(text=lead)
        started = time.perf_counter()
        prompt = chosen.answer_prompt(query, found) if stream and meter is not None and found.answer is None else None
        if prompt is not None and meter is not None:
            pieces: list[str] = []
            try:
                for delta in meter.chat_stream(prompt.with_history(query.history).messages):
                    if delta.text:
                        pieces.append(delta.text)
                        yield AnswerDelta(text=delta.text)
                answer = prompt.finish("".join(pieces).strip())
            except LLMError as exc:
                if pieces:  # what was sent stands; the reader is told it is cut short
                    answer_notes.append(f"the LLM's answer broke off: {exc}")
                    answer = prompt.finish("".join(pieces).strip())
                else:
                    answer = self._offline_answer(chosen, query, found, exc, answer_notes)
                    yield AnswerDelta(text=answer.text)
        else:
            try:
                answer = found.answer or chosen.answer(query, found, ctx)
            except LLMError as exc:
                answer = self._offline_answer(chosen, query, found, exc, answer_notes)
            if stream:
                yield AnswerDelta(text=answer.text)
        timings["answer_ms"] = _ms(started)
        yield SearchResult(
            question=asked,
            mode=found.mode or query.mode,
            answer=lead + answer.text,
            answer_kind=answer.kind,
            citations=answer.citations,
            timings_ms={**found.timings_ms, **timings},
            token_usage=meter.usage.as_dict() if meter else {},
            **evidence,
        )

    def _retrieve(self, chosen: SearchMode, query: SearchQuery, ctx: SearchContext, focus: Focus | None) -> Retrieval:
        with span(f"retrieve {chosen.name}", {"graphwright.search.k": query.k}) as current:
            found = chosen.retrieve(query, ctx)
            found = found if focus is None else self._focused(chosen, query, ctx, found, focus)
            set_attributes(
                current, {"graphwright.search.chunks": len(found.chunks), "graphwright.focused": bool(focus)}
            )
            return found

    @staticmethod
    def _focused(
        chosen: SearchMode, query: SearchQuery, ctx: SearchContext, found: Retrieval, focus: Focus
    ) -> Retrieval:
        """The retrieval with the passages of the documents the question names first: a mode that takes
        filters searches them again restricted to those documents; another has its own passages reordered."""
        if chosen.filterable:
            inside = chosen.retrieve(query.model_copy(update={"filters": [focus_filter(focus)], "focused": True}), ctx)
            found.chunks = focused_first(inside.chunks, found.chunks, query.k)
        else:
            found.chunks = partitioned(found.chunks, focus)
        found.notes.append(f"focused on the documents the question names: {focus.describe()}")
        return found

    def _offline(self, query: SearchQuery, error: LLMError) -> Retrieval:
        """Hybrid retrieval and its offline answer, for a mode whose LLM failed while it retrieved."""
        mode = get_mode("hybrid")
        if query.embedding is None:
            query.embedding = embed_questions(self.embedder, [query.text])[0]
        ctx = self._context(None)
        found = mode.retrieve(query, ctx)
        found.answer = mode.offline_answer(query, found, LLM_FAILED_RETRIEVING)
        found.mode = "hybrid"
        found.notes.append(f"the LLM failed ({error}); answered offline from hybrid retrieval")
        return found

    @staticmethod
    def _offline_answer(
        mode: SearchMode, query: SearchQuery, found: Retrieval, error: LLMError, notes: list[str]
    ) -> Answer:
        notes.append(f"the LLM's answer failed ({error}); this is the offline answer from the retrieval")
        return mode.offline_answer(query, found, LLM_FAILED)

    def _follow_up(self, query: SearchQuery, llm: LLM | None) -> tuple[list[str], TraceStep]:
        """Read the conversation into `query` once, for every mode: with an LLM, the question rewritten to
        stand alone; offline (or when the rewrite is unusable), the entities a follow-up carries."""
        if llm is not None:
            standalone = followup.rewrite(llm, query.question, query.history)
            if standalone is not None:
                step = TraceStep(
                    step=0,
                    kind="rewrite",
                    name="standalone question",
                    summary=standalone,
                    arguments={"standalone": standalone},
                )
                note = (
                    f"follow-up rewritten: {standalone}" if standalone != query.question else "follow-up: stands alone"
                )
                query.question = standalone
                return [note], step
        found = followup.resolve(EntityLinker(self.store.graph), query.question, query.history, query.language)
        query.carried, query.carried_names = found.entities, found.names
        step = TraceStep(
            step=0,
            kind="followup",
            name="carried from the conversation" if found.depends else "stands alone",
            arguments={
                "entities": [e.name for e in found.entities],
                "entity_ids": [e.id for e in found.entities],
                "answered": found.answered,
                "standalone": query.text,
            },
            summary=found.note(),
        )
        return [found.note()], step

    def _validate(self, query: SearchQuery) -> SearchMode:
        """The mode, or InvalidRequestError naming the parameter that is wrong."""
        if not query.question.strip():
            raise InvalidRequestError("the question is empty (`question`)")
        check_history_size(len(query.history))
        for number, turn in enumerate(query.history):
            if not turn.content.strip():
                raise InvalidRequestError(f"`history[{number}].content` is empty")
        chosen = get_mode(query.mode)  # InvalidRequestError naming `mode` when none is registered by that name
        if query.filters and not chosen.filterable:
            raise InvalidRequestError(
                f"metadata filters (`where`) apply to the {_names(modes_where('filterable'))} modes only"
            )
        if (chosen.needs_llm or query.hyde) and (self.llm is None or not query.generate):
            what = "`hyde`" if query.hyde and not chosen.needs_llm else f"mode {query.mode!r}"
            offline = ", ".join(m for m in mode_names() if m not in modes_where("needs_llm"))
            raise LLMRequiredError(
                f"{what} needs an LLM: set OPENAI_BASE_URL and/or OPENAI_API_KEY (offline, use {offline})"
            )
        if chosen.needs_tools and self.llm is not None and not isinstance(self.llm, ToolCallingLLM):
            raise LLMRequiredError(
                f"mode {query.mode!r} needs an LLM that calls tools; {type(self.llm).__name__} has no chat_tools"
            )
        if query.hyde and not chosen.accepts_hyde:
            raise InvalidRequestError(f"`hyde` applies to the {_names(modes_where('accepts_hyde'))} modes only")
        return chosen

    def context(self) -> SearchContext:
        """What a mode would get, without an LLM: for reads beside a search (a knowledge-base check)."""
        return self._context(None)

    def _context(self, llm: LLM | None) -> SearchContext:
        return SearchContext(
            store=self.store,
            embedder=self.embedder,
            settings=fitted(self.settings, llm),
            llm=llm,
            run_mode=lambda name, query, generate: self._run(name, query, llm if generate else None),
        )

    def _run(self, name: str, query: SearchQuery, llm: LLM | None) -> Retrieval:
        """A mode called by another (auto, the agent's tools): retrieval and answer in one Retrieval."""
        mode = get_mode(name)
        if mode.needs_llm and llm is None:
            raise LLMRequiredError(f"mode {name!r} needs an LLM")
        if mode.embeds_question and query.embedding is None:
            query = query.model_copy(update={"embedding": embed_questions(self.embedder, [query.text])[0]})
        ctx = self._context(llm)
        found = mode.retrieve(query, ctx)
        if found.answer is None:
            found.answer = mode.answer(query, found, ctx)
        found.mode = found.mode or name
        return found

    def _hyde(self, question: str, embedding: list[float], llm: LLM) -> tuple[list[float], TraceStep]:
        """HyDE: embed a passage the LLM imagines as the answer, averaged with the question's own vector,
        so the search looks for text shaped like an answer without forgetting what was asked."""
        messages = [{"role": "system", "content": render("hyde")}, {"role": "user", "content": question}]
        try:
            passage = llm.chat(messages, task="hyde").text
        except LLMError as exc:  # the question's own vector searches alone
            return embedding, TraceStep(step=0, kind="hyde", name="hyde", summary=f"skipped: {exc}", ok=False)
        imagined = self.embedder.embed([passage])[0]
        mixed = [a + b for a, b in zip(embedding, imagined)]
        norm = sum(x * x for x in mixed) ** 0.5 or 1.0
        return [x / norm for x in mixed], TraceStep(
            step=1, kind="hyde", name="hypothetical passage", summary=passage[:300]
        )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _names(names: tuple[str, ...]) -> str:
    """ "a, b and c"."""
    return " and ".join(filter(None, [", ".join(names[:-1]), names[-1] if names else ""]))


def _result_attributes(current: Any, result: SearchResult) -> None:
    set_attributes(current, {"graphwright.search.chunks": len(result.chunks)})
    set_attributes(current, {"graphwright.search.no_answer": result.no_answer})
    usage = result.token_usage
    set_attributes(current, usage_attributes(usage.get("prompt_tokens"), usage.get("completion_tokens")))
