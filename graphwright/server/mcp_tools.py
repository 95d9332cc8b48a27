"""The MCP server: graphwright's graph as tools for agents (search, show entity, find paths, read-only
Cypher, stats), on stdio (`graphwright mcp`) or streamable HTTP under `graphwright serve` at /mcp. Built
with the official `mcp` SDK; every tool goes through the same `GraphRAG` methods as the HTTP API."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

# At module level: the SDK finds the Context parameter of a tool by resolving its annotations here.
from mcp.server.mcpserver import Context
from pydantic import Field

from graphwright.errors import GraphwrightError, InvalidRequestError
from graphwright.models import ConversationOwner
from graphwright.search.options import SearchOptions
from graphwright.server.schemas import MAX_NAME_CHARS, SearchRequest, check_question

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from graphwright.api import GraphRAG
    from graphwright.models import SearchResult
    from graphwright.server.state import Server

INSTRUCTIONS = (
    "graphwright answers questions from a knowledge graph in Neo4j built from the user's documents. "
    "Use `search` first (mode hybrid for facts, local for an entity's neighbourhood, global for themes, "
    "path to connect two named entities); cite chunk ids from its result. `show_entity` and "
    "`find_paths` explore the graph; `cypher` runs read-only Cypher (writes are refused)."
)


F = TypeVar("F", bound=Callable[..., Any])

# The options the `search` tool offers an agent: fields of the HTTP API's `SearchRequest`, each with its type,
# limits, default and description from there (a new option is offered by adding its name). Not offered:
# `history` (an agent keeps a stored conversation, `conversation_id`), `generate` (the tool answers when it
# can), `hyde`, and `source`/`target` (the `find_paths` tool).
MCP_SEARCH_OPTIONS = ("mode", "k", "where", "level", "conversation_id")


def with_search_options(names: tuple[str, ...]) -> Callable[[F], F]:
    """A tool `fn(question, ctx, **options)` whose signature, as the SDK reads it to build the tool's input
    schema, also lists `names` as `SearchRequest` declares them."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        fixed = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        offered = []
        for name in names:
            field = SearchRequest.model_fields[name]
            parts = (field.annotation, *field.metadata, Field(description=field.description))
            annotation: Any = Annotated.__class_getitem__(parts)  # type: ignore[attr-defined]
            offered.append(
                inspect.Parameter(
                    name,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=annotation,
                    default=field.get_default(call_default_factory=True),
                )
            )
        fn.__signature__ = signature.replace(parameters=[*fixed, *offered])  # type: ignore[attr-defined]
        fn.__annotations__ = {**fn.__annotations__, **{p.name: p.annotation for p in offered}}
        return fn

    return decorate


def _as_tool_errors(fn: F) -> F:
    """Our errors reach the agent with their message (a refused query says which lock refused it); anything
    else stays a crash whose text the SDK keeps on the server."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GraphwrightError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def _compact(result: Any) -> dict[str, Any]:
    """A search result an agent can read in one go: the answer, citations and passages, without the raw
    context sections (already in the answer's passages)."""
    data: dict[str, Any] = result.model_dump(mode="json", exclude={"context", "timings_ms"})
    for chunk in data.get("chunks", []):
        chunk.pop("scores", None)
    return data


def _check_name(name: str) -> None:
    if len(name) > MAX_NAME_CHARS:
        raise InvalidRequestError(f"an entity name is at most {MAX_NAME_CHARS} characters")


def search_description(has_llm: bool) -> str:
    """The `search` tool's description, from the mode registry: each mode this server can run, in its own
    words, and which modes take `where`. A new mode appears here by its registration alone."""
    from graphwright.search.registry import mode_class, mode_names, modes_where

    usable = [name for name in mode_names() if has_llm or not mode_class(name).needs_llm]
    modes = "; ".join(f"{name}: {mode_class(name).summary}" for name in usable)
    filterable = ", ".join(name for name in modes_where("filterable") if name in usable)
    return (
        "Answer a question from the graph with cited passages, entities and relations. "
        f'`mode` (default hybrid): {modes}. `where` filters documents by metadata, e.g. ["year>=2020"] '
        f"({filterable}). `conversation_id` (a stored conversation) searches a follow-up question with the "
        "turns before it and keeps this one as its next turn."
    )


def _owner(ctx: Context) -> ConversationOwner:
    """Whose conversations a tool call sees: the HTTP request's key (the server's guard named it), or
    nobody's on stdio."""
    from graphwright.server.security import OWNER_STATE

    found = _request_state(ctx).get(OWNER_STATE)
    return found if isinstance(found, ConversationOwner) else ConversationOwner()


def _request_state(ctx: Context) -> dict[str, Any]:
    request = getattr(ctx.request_context, "request", None)
    state = getattr(request, "scope", {}).get("state", {}) if request is not None else {}
    return state if isinstance(state, dict) else {}


def request_workspace(ctx: Context, fallback: str) -> str:
    """The workspace of a tool call: the HTTP request's `/w/<name>` prefix (the guard read it), else
    `fallback` (stdio: GRAPHWRIGHT_WORKSPACE)."""
    from graphwright.server.security import WORKSPACE_STATE

    found = _request_state(ctx).get(WORKSPACE_STATE)
    return found if isinstance(found, str) else fallback


def build_mcp(rag: GraphRAG, host: Server | None = None) -> MCPServer:
    """The tools over `rag`; under `serve`, `host` gives each call its workspace's GraphRAG (by the URL's
    `/w/<name>` prefix) and runs its searches as the request's caller (server/callers.py)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    server: MCPServer = MCPServer("graphwright", instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

    def of(ctx: Context) -> GraphRAG:
        return host.graph(request_workspace(ctx, rag.workspace)) if host is not None else rag

    def run_search(ctx: Context, question: str, options: SearchOptions) -> SearchResult:
        if host is None:  # stdio: the local user, who owns the graph
            return rag.search(question, options)
        from graphwright.server.callers import caller_from_state

        return host.search(question, options, caller=caller_from_state(_request_state(ctx), rag.workspace))

    @server.tool(annotations=read_only, description=search_description(rag.llm is not None))
    @_as_tool_errors
    @with_search_options(MCP_SEARCH_OPTIONS)
    def search(question: str, ctx: Context, **options: Any) -> dict[str, Any]:
        check_question(question)
        return _compact(run_search(ctx, question, SearchOptions.of(**options)))

    @server.tool(annotations=read_only)
    @_as_tool_errors
    def show_entity(name: str, ctx: Context) -> dict[str, Any]:
        """An entity (exact name first, else the closest name) with its relations, sources and communities."""
        _check_name(name)
        profile = of(ctx).inspect.entity(name)
        if profile is None:
            raise ToolError(f"no entity is named like {name!r}")
        return profile.model_dump(mode="json")

    @server.tool(annotations=read_only)
    @_as_tool_errors
    def find_paths(source: str, target: str, ctx: Context) -> dict[str, Any]:
        """Shortest paths between two entities, each relation with the passage that supports it."""
        _check_name(source)
        _check_name(target)
        result = run_search(
            ctx,
            f"How is {source} connected to {target}?",
            SearchOptions(mode="path", source=source, target=target, generate=False),
        )
        return {
            "paths": result.graph_paths,
            "notes": result.notes,
            "relations": [r.model_dump(mode="json") for r in result.relations],
            "chunks": [{"chunk_id": c.chunk_id, "title": c.title, "text": c.text} for c in result.chunks],
        }

    @server.tool(annotations=read_only)
    @_as_tool_errors
    def cypher(query: str, ctx: Context) -> dict[str, Any]:
        """Run a read-only Cypher query (writes, admin commands and unknown procedures are refused; rows and
        time are limited). Labels: Document, Chunk, Entity, Community; in a workspace other than default each
        carries its prefix, `legal__Chunk`, and a query must start from such labels."""
        who = _owner(ctx)
        return of(ctx).inspect.read_cypher(query, caller=who.name, tenant=who.tenant).model_dump(mode="json")

    @server.tool(annotations=read_only)
    @_as_tool_errors
    def stats(ctx: Context) -> dict[str, Any]:
        """Counts of documents, chunks, entities, relations and communities; entity and relation types."""
        info = of(ctx).inspect.graph()
        return info.model_dump(mode="json", exclude={"indexes"})

    return server
