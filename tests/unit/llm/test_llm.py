"""The LLM layer without an endpoint: prompt files and their checked filling, usage metered per caller,
the answer cache."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from graphwright.llm import ChatResult, MeteredLLM, Tool, ToolCall, ToolTurn, Usage
from graphwright.llm.cache import ResponseCache
from graphwright.llm.prompts import PromptError, placeholders, render
from tests.llm_doubles import ReplyingLLM

PROMPTS = sorted(
    p.name.removesuffix(".md")
    for p in resources.files("graphwright.llm").joinpath("prompts").iterdir()
    if p.name.endswith(".md")
)
PACKAGE = Path(__file__).resolve().parents[3] / "graphwright"


def test_every_prompt_file_is_used_and_no_prompt_is_inline() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    used = set(re.findall(r'render\("([a-z_]+)"', source))
    assert used == set(PROMPTS), f"unused: {set(PROMPTS) - used}, missing: {used - set(PROMPTS)}"
    assert not re.search(r'"role": "system", "content": "', source), "system prompts belong in llm/prompts/"


def test_render_fills_every_placeholder_once_and_leaves_json_alone() -> None:
    assert placeholders("extract_user") == {"text"}
    text = render("extract_user", text="Ada {name} wrote it.")
    assert "Ada {name} wrote it." in text  # a value's braces are not filled again
    assert '{"points": []}' in render("global_map")


def test_render_refuses_missing_and_unknown_values() -> None:
    with pytest.raises(PromptError, match=r"missing \['text'\]"):
        render("extract_user")
    with pytest.raises(PromptError, match=r"unknown \['txt'\]"):
        render("extract_user", text="x", txt="y")
    with pytest.raises(PromptError, match="no prompt named 'nope'"):
        render("nope")


class CountingLLM(ReplyingLLM):
    def reply(self, messages: list[dict[str, Any]]) -> ChatResult:
        return ChatResult(text="x", prompt_tokens=10, completion_tokens=2, cached=messages[0]["content"] == "hit")

    def chat_tools(self, messages: list[dict[str, Any]], tools: Sequence[Tool]) -> ToolTurn:
        return ToolTurn(content="", tool_calls=[], message={}, usage=Usage(1, 20, 5))

    def tool_result(self, call: ToolCall, output: str) -> dict[str, Any]:
        return {"call": call.id, "output": output}


def test_each_meter_counts_only_its_own_calls_even_across_threads() -> None:
    inner = CountingLLM()
    first, second = MeteredLLM(inner), MeteredLLM(inner)
    threads = [
        threading.Thread(target=lambda: [first.chat([{"role": "user", "content": "q"}]) for _ in range(50)])
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    second.chat([{"role": "user", "content": "hit"}])
    second.chat_tools([], [])
    assert first.usage == Usage(calls=200, prompt_tokens=2000, completion_tokens=400)
    assert second.usage == Usage(calls=1, prompt_tokens=20, completion_tokens=5, cached=1)
    assert second.usage.as_dict() == {"llm_calls": 1, "prompt_tokens": 20, "completion_tokens": 5}


def test_the_cache_keys_on_model_messages_and_temperature(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    messages = [{"role": "user", "content": "q"}]
    key = ResponseCache.key("m", messages, 0.0)
    assert key != ResponseCache.key("m", messages, 0.5) != ResponseCache.key("n", messages, 0.0)
    assert cache.get(key) is None
    cache.put(key, ChatResult(text="a", prompt_tokens=3, completion_tokens=1))
    assert cache.get(key) == ChatResult(text="a", prompt_tokens=3, completion_tokens=1)
    assert not list(tmp_path.rglob("*.tmp"))  # written atomically
    cache.forget(key)
    assert cache.get(key) is None


def test_tools_reach_a_backend_in_no_providers_shape_and_results_in_its_own() -> None:
    metered = MeteredLLM(CountingLLM())
    tool = Tool("get_chunk", "One passage by id.", {"type": "object", "properties": {"id": {"type": "string"}}})
    turn = metered.chat_tools([{"role": "user", "content": "q"}], [tool])
    assert turn.usage == Usage(1, 20, 5) and metered.usage == Usage(1, 20, 5)
    assert metered.tool_result(ToolCall(id="t1", name="get_chunk", arguments={}), "text") == {
        "call": "t1",
        "output": "text",
    }
    plain = MeteredLLM(FakeChatOnly())
    with pytest.raises(TypeError, match="cannot call tools"):
        plain.tool_result(ToolCall(id="t1", name="get_chunk", arguments={}), "text")


class FakeChatOnly(ReplyingLLM):
    def reply(self, messages: list[dict[str, Any]]) -> ChatResult:
        return ChatResult(text="x")
