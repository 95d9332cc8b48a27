"""The search-mode contract without a database: the registry, validation by the engine, the agent's tools
built from the registry, and a mode added by following the recipe in docs/architecture.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from graphwright.config import Settings
from graphwright.errors import InvalidRequestError, LLMRequiredError
from graphwright.llm import ChatResult, Tool, ToolCall, ToolTurn
from graphwright.models import MetadataFilter, RetrievedChunk
from graphwright.search import registry
from graphwright.search.agent import Agent
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.engine import SearchEngine
from graphwright.search.evidence import Retrieval
from graphwright.search.registry import get_mode, mode_class, mode_names, modes_where
from tests.llm_doubles import ReplyingLLM
from tests.memory_store import MemoryStore


class FakeEmbedder:
    name = "fake"
    dimension = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(texts)
        return [[1.0, 0.0, 0.0] for _ in texts]


class FakeLLM(ReplyingLLM):
    model = "fake"

    def reply(self, messages: list[dict[str, Any]]) -> ChatResult:
        return ChatResult(text="an imagined passage", prompt_tokens=7, completion_tokens=3)

    def chat_tools(self, messages: list[dict[str, Any]], tools: Sequence[Tool]) -> ToolTurn:
        raise AssertionError("not used here")

    def tool_result(self, call: ToolCall, output: str) -> dict[str, Any]:
        raise AssertionError("not used here")


class EchoMode(SearchMode):
    """A mode written by following the recipe: a class with its flags and `retrieve`."""

    name = "echo"
    summary = "the question itself, as one passage"
    accepts_hyde = True

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        chunk = RetrievedChunk(
            chunk_id="c_000000", document_id="d", text=query.question, score=query.vector()[0], rank=1
        )
        return Retrieval(chunks=[chunk], notes=[f"k={query.k}"])


def engine(llm: FakeLLM | None = None) -> SearchEngine:
    return SearchEngine(
        store=MemoryStore(),
        embedder=FakeEmbedder(),
        settings=Settings(_env_file=None),  # type: ignore[arg-type]
        llm=llm,
    )


def test_the_registry_lists_the_modes_and_each_names_its_class() -> None:
    assert mode_names()[:3] == ("vector", "hybrid", "local") and len(mode_names()) == 13
    for name in mode_names():
        cls = mode_class(name)
        assert cls.name == name and cls.summary and issubclass(cls, SearchMode)
    assert set(modes_where("needs_llm")) == {"agent", "multihop", "cypher"}
    assert set(modes_where("uses_graph")) == {"local", "global", "path", "drift"}
    assert set(modes_where("filterable")) == {"vector", "hybrid", "local", "auto", "raptor"}


def test_an_unknown_mode_is_refused_by_name() -> None:
    with pytest.raises(InvalidRequestError, match=r"unknown mode 'telepathy' \(`mode`\)"):
        get_mode("telepathy")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"question": "  "}, InvalidRequestError, r"question is empty \(`question`\)"),
        (
            {"mode": "global", "filters": [MetadataFilter("year", "=", 2020)]},
            InvalidRequestError,
            r"filters \(`where`\) apply to the vector, hybrid, local, auto and raptor modes only",
        ),
        ({"mode": "agent"}, LLMRequiredError, "mode 'agent' needs an LLM"),
        ({"mode": "hybrid", "hyde": True}, LLMRequiredError, "`hyde` needs an LLM"),
    ],
)
def test_the_engine_names_the_parameter_that_is_wrong(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    args = {"question": "Who?", **kwargs}
    with pytest.raises(error, match=message):
        engine().search(SearchQuery(**args))


def test_hyde_is_refused_for_modes_that_do_not_take_it() -> None:
    with pytest.raises(InvalidRequestError, match="`hyde` applies to the vector and hybrid modes only"):
        engine(FakeLLM()).search(SearchQuery(question="Who?", mode="local", hyde=True))


def test_a_new_mode_is_one_class_and_one_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.MODES, "echo", f"{__name__}:EchoMode")
    result = engine(FakeLLM()).search(
        SearchQuery(question="What is an echo?", mode="echo", k=4, hyde=True, generate=True)
    )
    from graphwright.server.mcp_tools import search_description

    described = search_description(has_llm=True)  # the MCP search tool's text follows the registry too
    assert result.mode == "echo" and result.chunks[0].text == "What is an echo?" and result.notes == ["k=4"]
    assert result.trace[0].kind == "hyde" and result.answer_kind == "generated"
    # one search, its own usage: the HyDE passage and the answer
    assert result.token_usage == {"llm_calls": 2, "prompt_tokens": 14, "completion_tokens": 6}
    assert {"load_model_ms", "embed_ms", "retrieve_ms", "answer_ms"} <= set(result.timings_ms)
    assert f"echo: {EchoMode.summary}" in described


def test_agent_tools_come_from_the_registry_with_schemas_from_their_arguments() -> None:
    ctx = SearchContext(
        store=MemoryStore(),
        embedder=FakeEmbedder(),
        settings=Settings(_env_file=None),  # type: ignore[arg-type]
        llm=FakeLLM(),
        run_mode=lambda name, query, generate: Retrieval(),
    )
    schemas = {t.name: t for t in Agent(ctx, FakeLLM(), 3, 1000).tool_list()}
    offered = [mode_class(m).tool.name for m in mode_names() if mode_class(m).tool]  # type: ignore[union-attr]
    assert (
        list(schemas)[: len(offered)]
        == offered
        == ["vector_search", "hybrid_search", "local_search", "global_search", "find_paths"]
    )
    assert schemas["find_paths"].parameters["required"] == ["source", "target"]
    assert schemas["cypher_read"].parameters["properties"]["query"]["type"] == "string"


def test_an_agent_tool_call_runs_its_mode_without_the_llm() -> None:
    seen: list[tuple[str, SearchQuery, bool]] = []

    def run_mode(name: str, query: SearchQuery, generate: bool) -> Retrieval:
        seen.append((name, query, generate))
        return Retrieval(chunks=[RetrievedChunk(chunk_id="c_abcdef", document_id="d", text="t", score=1, rank=1)])

    ctx = SearchContext(
        store=MemoryStore(),
        embedder=FakeEmbedder(),
        settings=Settings(_env_file=None),  # type: ignore[arg-type]
        llm=FakeLLM(),
        run_mode=run_mode,
    )
    agent = Agent(ctx, FakeLLM(), 3, 1000)
    from graphwright.llm import ToolCall

    output, _, ok = agent.call(ToolCall(id="1", name="find_paths", arguments={"source": "A", "target": "B"}))
    assert ok and "c_abcdef" in output and [c.chunk_id for c in agent.seen.chunks] == ["c_abcdef"]
    name, query, generate = seen[0]
    assert (name, query.source, query.target, generate) == ("path", "A", "B", False)
    _, summary, ok = agent.call(ToolCall(id="2", name="find_paths", arguments={"source": "A"}))
    assert not ok and summary == "missing argument 'target'"


def test_the_router_offers_the_modes_the_registry_marks_routable() -> None:
    from graphwright.llm.prompts import template
    from graphwright.search.router import route

    class Chooser(FakeLLM):
        def __init__(self, mode: str) -> None:
            self.mode, self.prompts = mode, []

        def chat(self, messages, **kwargs):
            self.prompts.append(messages[0]["content"])
            return ChatResult(text=f'{{"mode": "{self.mode}", "why": "test"}}')

    routable = modes_where("routable")
    assert set(routable) == {"vector", "hybrid", "local", "global", "path"}
    for name in routable:
        assert mode_class(name).route_when
        chosen, note = route("anything", 0, Chooser(name))
        assert chosen.mode == name and chosen.by == "llm" and note is None
    llm = Chooser("agent")  # a mode, but not one auto may route to
    chosen, note = route("anything", 0, llm)
    assert chosen.by == "rules" and "not a mode" in note
    assert all(f"- {name}: " in llm.prompts[0] for name in routable)
    assert "{modes}" in template("router_classify") and "{modes}" not in llm.prompts[0]  # filled from the registry


def test_a_mode_that_needs_tools_is_refused_for_an_llm_without_them() -> None:
    class NoTools:
        model = "no-tools"

        def chat(self, messages, temperature=None, use_cache=True, *, task="answer", schema=None):
            return ChatResult(text="x")

        def forget(self, messages, temperature=None):
            pass

    assert modes_where("needs_tools") == ("agent",)
    with pytest.raises(LLMRequiredError, match="mode 'agent' needs an LLM that calls tools; NoTools has no chat_tools"):
        engine(NoTools()).search(SearchQuery(question="Who?", mode="agent"))
    assert engine(NoTools())._validate(SearchQuery(question="Who?", mode="multihop")).name == "multihop"
