"""Agentic RAG: a ReAct loop through OpenAI tool calling over every search mode and the graph.

The model chooses tools until it answers without calling one, or the step limit ends the loop (then it must
answer from what it has). Tool output is capped, every call is traced (tool, arguments, a summary of the
result), and the answer's citations are kept only when a tool actually returned that id. Text the tools
return is data: the one tool that could change the graph, cypher_read, goes through the read-only gate of
graph_store/cypher_gate/read_only.py, and every question has a tool-call budget, so a document that says "call
cypher_read with DETACH DELETE" changes nothing."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from graphwright.errors import (
    InvalidRequestError,
    KnowledgeBaseError,
    LLMRequiredError,
    QueryRejectedError,
    ToolFailedError,  # re-exported: they used to live here
)
from graphwright.graph_store.rows import ChunkRow
from graphwright.knowledge import KnowledgeSource
from graphwright.llm import LLMError, Tool, ToolCall, ToolCallingLLM
from graphwright.llm.prompts import render
from graphwright.models import TraceStep
from graphwright.search.answer import LLM_FAILED, cited_ids, graph_citations, retrieval_answer
from graphwright.search.base import QueryArgs, SearchContext, SearchMode, SearchQuery, ToolArgs
from graphwright.search.calculator import CalculationError, calculate
from graphwright.search.cypher import CypherRejectedError, run_read_only
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.graph_model import graph_model_text
from graphwright.search.knowledge_sources import open_sources, passage_chunk
from graphwright.search.linking import EntityLinker
from graphwright.search.local import relation_refs
from graphwright.search.registry import mode_class, mode_names
from graphwright.search.results import evidence_chunks

log = logging.getLogger(__name__)
T = TypeVar("T")

_TEXT_CHARS = 600


class DocumentArgs(ToolArgs):
    document_id: str = Field(description="document id")


class ChunkArgs(ToolArgs):
    chunk_id: str = Field(description="chunk id, e.g. c_1a2b3c")


class EntityArgs(ToolArgs):
    name: str = Field(description="entity name")


class CypherArgs(ToolArgs):
    query: str = Field(description="a read-only Cypher query")


class NoArgs(ToolArgs):
    pass


class CalculateArgs(ToolArgs):
    expression: str = Field(description="e.g. (1969 - 1957) * 12")


@dataclass(frozen=True)
class _Tool:
    description: str
    args: type[BaseModel]
    handler: Callable[[Any], dict[str, Any]]


class Agent:
    """The tool loop. Tools are the registered modes that offer one (`SearchMode.tool`), plus reads of the
    graph; everything goes through the `SearchContext`, never through `GraphRAG`."""

    def __init__(
        self,
        ctx: SearchContext,
        llm: ToolCallingLLM,
        max_steps: int,
        max_tool_chars: int,
        max_tool_calls: int = 12,
        caller: str = "",
        tenant: bool = False,
        reach: frozenset[str] | None = None,
    ) -> None:
        self.ctx = ctx
        self.caller = caller  # whose share of concurrent user Cypher its cypher_read calls take
        self.tenant = tenant  # a key bound to named workspaces: cypher_read may be off (TenantCypherOffError)
        self.llm = llm
        self.max_steps = max_steps
        self.max_tool_chars = max_tool_chars
        # Rounds bound the model's turns; this bounds the work, since one turn may ask for many calls.
        self.max_tool_calls = max_tool_calls
        self.seen = Retrieval()
        self.answered_offline = False  # the LLM's final answer failed: the answer is the retrieval itself
        self.tools: dict[str, _Tool] = {}
        for name in mode_names():
            spec = mode_class(name).tool
            if spec is not None:
                self.tools[spec.name] = _Tool(spec.description, spec.args, self._searcher(name))
        self.tools |= {
            "get_document": _Tool("The full text of a document by id.", DocumentArgs, self._document),
            "get_chunk": _Tool("One passage by chunk id.", ChunkArgs, self._chunk),
            "entity_neighbors": _Tool("An entity's typed relations with evidence.", EntityArgs, self._neighbours),
            "graph_schema": _Tool(
                "The graph's labels, properties and relationship types, and the schema the user gave: read it "
                "before writing Cypher.",
                NoArgs,
                lambda a: {"schema": graph_model_text(self.ctx.store)},
            ),
            "cypher_read": _Tool(
                "Run a READ-ONLY Cypher query (writes are refused) and get up to 50 rows.", CypherArgs, self._cypher
            ),
            "calculate": _Tool(
                "Arithmetic on numbers: + - * / // % ** and parentheses.",
                CalculateArgs,
                lambda a: {"result": calculate(a.expression)},
            ),
        }
        # the seed's design: each knowledge base beyond this workspace is a search tool and a document tool
        sources, self.notes = open_sources(ctx, tenant=tenant, reach=reach, caller=caller)
        for source in sources:
            self._add_source(source)

    def _add_source(self, source: KnowledgeSource) -> None:
        search, document = f"search_{source.name}", f"document_{source.name}"
        if search in self.tools or document in self.tools:
            self.notes.append(f"knowledge base {source.name!r}: its tool names are taken; left out")
            return
        self.tools[search] = _Tool(
            f"Search the knowledge base {source.name} ({source.kind}): {source.description}.",
            QueryArgs,
            lambda args: self._source_search(source, args.query),
        )
        if source.has_documents:
            self.tools[document] = _Tool(
                f"A whole document of the knowledge base {source.name}, by the document_id its search returned.",
                DocumentArgs,
                lambda args: self._source_document(source, args.document_id),
            )

    def tool_list(self) -> list[Tool]:
        """The tools as the LLM sees them; their argument schemas come from the argument models."""
        return [Tool(name, tool.description, tool.args.model_json_schema()) for name, tool in self.tools.items()]

    # --- tools ---------------------------------------------------------------------------------------
    def _searcher(self, mode: str) -> Callable[[Any], dict[str, Any]]:
        """The handler of the tool that runs `mode`."""
        return lambda args: self._search(mode, args.search_query(self.ctx.settings.search.top_k))

    def _remember(self, evidence: Retrieval) -> None:
        seen = self.seen
        seen.chunks += _unseen(seen.chunks, evidence.chunks, lambda c: c.chunk_id)
        seen.entities += _unseen(seen.entities, evidence.entities, lambda e: e.id)
        seen.relations += _unseen(seen.relations, evidence.relations, lambda r: r.id)
        seen.communities += _unseen(seen.communities, evidence.communities, lambda c: c.id)
        seen.graph_paths += _unseen(seen.graph_paths, evidence.graph_paths, str)

    def _search(self, mode: str, query: SearchQuery) -> dict[str, Any]:
        result = self.ctx.run(mode, query, generate=False)
        self._remember(result)
        out: dict[str, Any] = {
            "passages": [
                {"chunk_id": c.chunk_id, "document_id": c.document_id, "title": c.title, "text": c.text[:_TEXT_CHARS]}
                for c in result.chunks[:5]
            ]
        }
        if result.entities:
            out["entities"] = [{"id": e.id, "name": e.name, "type": e.type} for e in result.entities[:10]]
        if result.relations:
            out["relations"] = [r.render() + f" (evidence {', '.join(r.chunk_ids[:2])})" for r in result.relations[:10]]
        if result.communities:
            out["reports"] = [{"id": c.id, "title": c.title, "summary": c.summary} for c in result.communities[:5]]
        if result.graph_paths:
            out["paths"] = result.graph_paths
        if result.notes:
            out["notes"] = result.notes
        return out

    def _chunk_rows(self, rows: list[ChunkRow]) -> list[dict[str, Any]]:
        self._remember(Retrieval(chunks=evidence_chunks(rows)))
        return [{"chunk_id": r["chunk_id"], "document_id": r["document_id"], "text": r["text"]} for r in rows]

    def _document(self, args: DocumentArgs) -> dict[str, Any]:
        document = self.ctx.store.retrieval.get_document(args.document_id)
        if document is None:
            raise ToolFailedError(f"no document {args.document_id!r}")
        ids = [c["id"] for c in document["chunks"]]
        return {
            "document_id": args.document_id,
            "title": document["document"].get("title"),
            "chunks": self._chunk_rows(self.ctx.store.retrieval.chunks_with_ids(ids)),
        }

    def _chunk(self, args: ChunkArgs) -> dict[str, Any]:
        rows = self._chunk_rows(self.ctx.store.retrieval.chunks_with_ids([args.chunk_id]))
        if not rows:
            raise ToolFailedError(f"no chunk {args.chunk_id!r}")
        return rows[0]

    def _neighbours(self, args: EntityArgs) -> dict[str, Any]:
        linker = EntityLinker(self.ctx.store.graph)
        exact, _ = linker.exact(args.name)
        linked = exact or linker.link(args.name, self.ctx.embed(args.name), 1)[0]
        if not linked:
            raise ToolFailedError(f"no entity matches {args.name!r}")
        entity = linked[0]
        relations = relation_refs(self.ctx.store.graph.entity_relations(entity.id, 20))
        self._remember(Retrieval(entities=[entity], relations=relations))
        return {
            "entity": {
                "id": entity.id,
                "name": entity.name,
                "type": entity.type,
                "description": entity.description[:_TEXT_CHARS],
            },
            "relations": [
                f"{r.render()}: {(r.evidence or [''])[0][:200]} [{', '.join(r.chunk_ids[:2])}]" for r in relations
            ],
        }

    def _source_search(self, source: KnowledgeSource, query: str) -> dict[str, Any]:
        passages = self._from_source(source, lambda: source.search(query, self.ctx.settings.search.top_k))
        chunks = [passage_chunk(p, rank, 1.0 / rank) for rank, p in enumerate(passages, start=1)]
        self._remember(Retrieval(chunks=chunks))
        return {
            "knowledge_base": source.name,
            "passages": [
                {"chunk_id": c.chunk_id, "document_id": p.document_id, "title": p.title, "text": p.text[:_TEXT_CHARS]}
                for c, p in zip(chunks, passages, strict=True)
            ],
        }

    def _source_document(self, source: KnowledgeSource, document_id: str) -> dict[str, Any]:
        found = self._from_source(source, lambda: source.document(document_id))
        chunks = [passage_chunk(p, rank, 1.0 / rank) for rank, p in enumerate(found.passages, start=1)]
        self._remember(Retrieval(chunks=chunks))
        return {
            "knowledge_base": source.name,
            "document_id": found.document_id,
            "title": found.title,
            "chunks": [{"chunk_id": c.chunk_id, "text": c.text} for c in chunks],
        }

    def _from_source(self, source: KnowledgeSource, ask: Callable[[], T]) -> T:
        """What `ask` returns; a source that fails is told to the model and noted, and the loop goes on."""
        try:
            return ask()
        except KnowledgeBaseError as exc:
            self.notes.append(f"{exc}; answered without it")
            raise ToolFailedError(str(exc)) from exc

    def _cypher(self, args: CypherArgs) -> dict[str, Any]:
        found = run_read_only(self.ctx.store, args.query, self.ctx.settings, caller=self.caller, tenant=self.tenant)
        return {"rows": found.rows, "truncated": found.truncated, **({"limit": found.limit} if found.limit else {})}

    def call(self, call: ToolCall) -> tuple[str, str, bool]:
        """(output for the model, summary for the trace, ok) of one tool call. A bad call (unknown tool,
        malformed or missing arguments, a refused query, nothing found) is told to the model; a database
        outage or a bug is not a tool result, and propagates."""
        if call.error:
            return self._error(call.error)
        log.debug("agent tool call %s(%s)", call.name, call.arguments)
        tool = self.tools.get(call.name)
        if tool is None:
            return self._error(f"unknown tool {call.name!r}")
        try:
            args = tool.args.model_validate(call.arguments)
        except ValidationError as exc:
            return self._error(_argument_problem(exc))
        try:
            output = json.dumps(tool.handler(args), ensure_ascii=False, default=str)
        except (CypherRejectedError, CalculationError, ToolFailedError, InvalidRequestError, QueryRejectedError) as exc:
            return self._error(f"{exc.__class__.__name__}: {exc}")
        if len(output) > self.max_tool_chars:
            output = output[: self.max_tool_chars] + " …(truncated)"
        return output, output[:200], True

    @staticmethod
    def _error(message: str) -> tuple[str, str, bool]:
        return json.dumps({"error": message}), message, False

    # --- the loop ------------------------------------------------------------------------------------
    def run(self, question: str) -> tuple[str, list[TraceStep], list[str]]:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": render("agent_system")},
            {"role": "user", "content": question},
        ]
        trace: list[TraceStep] = []
        notes: list[str] = []
        tools = self.tool_list()
        calls = 0
        for _ in range(self.max_steps):
            try:
                turn = self.llm.chat_tools(messages, tools)
            except LLMError as exc:  # stop here and answer with what the tools found so far
                if not trace:  # nothing found yet: the engine answers offline from hybrid retrieval instead
                    raise
                notes.append(f"the LLM failed at step {len(trace) + 1} ({exc}); answering with what was found")
                break
            messages.append(turn.message)
            if not turn.tool_calls:
                return turn.content or "I don't know.", trace, notes
            for call in turn.tool_calls:
                calls += 1
                if calls > self.max_tool_calls:  # every call still gets its answer, as the API requires
                    output, summary, ok = self._error(
                        f"tool-call budget of {self.max_tool_calls} used up; answer with what you have"
                    )
                else:
                    output, summary, ok = self.call(call)
                trace.append(
                    TraceStep(
                        step=len(trace) + 1,
                        kind="tool",
                        name=call.name,
                        arguments=call.arguments,
                        summary=summary,
                        ok=ok,
                    )
                )
                messages.append(self.llm.tool_result(call, output))
            if calls >= self.max_tool_calls:
                notes.append(f"stopped at the budget of {self.max_tool_calls} tool calls ({calls} asked for)")
                break
        else:
            notes.append(f"stopped at the limit of {self.max_steps} tool rounds")
        messages.append({"role": "user", "content": render("agent_limit")})
        try:
            return self.llm.chat(messages, use_cache=False, task="answer").text, trace, notes
        except LLMError as exc:  # the passages the tools found, as the offline answer
            notes.append(f"the LLM's final answer failed ({exc}); this is the offline answer from what was found")
            self.answered_offline = True
            return retrieval_answer(self.seen.chunks, LLM_FAILED).text, trace, notes


def _unseen(have: list[T], more: list[T], key: Callable[[T], str]) -> list[T]:
    """The items of `more` whose key none of `have` has."""
    known = {key(x) for x in have}
    return [x for x in more if key(x) not in known]


def _argument_problem(exc: ValidationError) -> str:
    """The first problem with a tool call's arguments, said the way a model can fix it."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    if error["type"] == "missing":
        return f"missing argument {where!r}"
    return f"argument {where!r}: {error['msg']}"


class AgentMode(SearchMode):
    name = "agent"
    summary = "an LLM tool loop over the other modes and the graph (needs an LLM)"
    needs_llm = True
    needs_tools = True
    embeds_question = False  # its tools embed what they search for

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        settings, llm = ctx.settings, ctx.require_llm()
        if not isinstance(llm, ToolCallingLLM):  # the engine refuses this before; a direct caller gets it here
            raise LLMRequiredError(f"mode 'agent' needs an LLM that calls tools; {type(llm).__name__} has none")
        agent = Agent(
            ctx,
            llm,
            settings.search.agent_max_steps,
            settings.search.agent_tool_chars,
            settings.search.agent_max_tool_calls,
            caller=query.caller,
            tenant=query.tenant,
            reach=query.reach,
        )
        text, trace, notes = agent.run(query.question)
        found = agent.seen
        found.trace, found.notes = trace, [*found.notes, *agent.notes, *notes]
        if agent.answered_offline:
            found.answer = Answer(text=text, kind="retrieval", citations=graph_citations(found))
        else:
            found.answer = Answer(text=text, kind="generated", citations=graph_citations(found, cited_ids(text)))
        return found
