"""The OpenAI-compatible client against a real HTTP stub: every call carries its task's token cap, a quiet
stream is cut by the idle timeout (and the server sees the reader leave), errors say what happened,
structured output steps down as the endpoint refuses it and remembers where it stopped, tool calling falls
back to a plain-text protocol, a budget stops the next call, and calls are paced to the server's width."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from graphwright.config import Settings
from graphwright.errors import (
    InvalidRequestError,
    LLMBudgetError,
    LLMEchoError,
    LLMStatusError,
    LLMTimeoutError,
    LLMUnreachableError,
)
from graphwright.llm import Tool
from graphwright.llm.client import LLMClient, looping
from graphwright.llm.pacing import Pacer
from graphwright.llm.tasks import MAX_TOKENS, max_tokens, parse_caps
from graphwright.text.tokens import estimate_subword_tokens
from tests.stub_openai import StubOpenAI, chat_reply, error_reply, hang

SCHEMA = {"name": "x", "schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}


def client(stub: StubOpenAI, tmp_path: Path, **overrides: Any) -> LLMClient:
    given = {
        "openai_base_url": stub.base_url,
        "llm_model": "stub-model",
        "llm_max_retries": 1,
        "llm_timeout": 2.0,
        "llm_idle_timeout": 1.0,
        "home": tmp_path,
        "llm_probe": False,  # the probes have their own tests (test_endpoint_probe.py); scripts stay exact
        **overrides,
    }
    settings = Settings(**given)
    return LLMClient(settings)


def ask(llm: LLMClient, text: str = "q", **kwargs: Any) -> Any:
    return llm.chat([{"role": "user", "content": text}], use_cache=False, **kwargs)


def test_every_call_sends_its_tasks_token_cap_and_overrides_apply(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply("fine")
    llm = client(stub, tmp_path, llm_max_tokens="answer=111")
    ask(llm, task="router")
    ask(llm, task="answer")
    ask(llm, task="extract")
    assert [r["body"]["max_tokens"] for r in stub.requests] == [MAX_TOKENS["router"], 111, MAX_TOKENS["extract"]]
    assert all(r["body"]["stream"] is True for r in stub.requests)  # streamed: an idle stream can be cut
    with pytest.raises(InvalidRequestError, match="no task 'anwser'"):
        parse_caps("anwser=5")
    with pytest.raises(InvalidRequestError, match="positive"):
        max_tokens("answer", "answer=0")


def test_a_reply_cut_at_its_cap_says_so(stub: StubOpenAI, tmp_path: Path) -> None:
    def capped(body: dict[str, Any]) -> Any:
        status, payload = chat_reply('{"a": "long')
        payload["choices"][0]["finish_reason"] = "length"
        return status, payload

    stub.default = capped
    result = ask(client(stub, tmp_path), task="router")
    assert result.capped and "64-token cap" in result.cut_note()


def test_an_endpoint_that_ignores_the_cap_is_stopped_by_the_client(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply(" ".join(["word"] * 400))
    result = ask(client(stub, tmp_path), task="router")  # 64 tokens asked, 400 sent
    assert result.capped and len(result.text.split()) <= MAX_TOKENS["router"] + 17


def test_a_quiet_stream_is_cut_by_the_idle_timeout_and_the_server_sees_it(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply("one two three four five")
    stub.stream_delay = 1.5  # the stream opens, then silence longer than the idle timeout (1 s)
    llm = client(stub, tmp_path, llm_max_retries=0)
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError, match=r"no token for 1 s after 0 tokens \(1 attempts\)"):
        ask(llm)
    took = time.monotonic() - started
    assert took < 2.5, took  # cut on silence, not after the whole reply (5 pieces x 1.5 s)
    deadline = time.monotonic() + 8
    while stub.streams_broken == 0 and time.monotonic() < deadline:  # its next writes find the reader gone
        time.sleep(0.1)
    assert stub.streams_broken == 1  # the reader left: a server that checks stops generating


def test_a_slow_but_steady_reply_is_not_cut(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply(" ".join(f"w{i}" for i in range(8)))
    stub.stream_delay = 0.4  # 3.6 s in all: longer than the first-token timeout, never idle 1 s
    assert ask(client(stub, tmp_path)).text.split()[-1] == "w7"


def test_no_first_token_is_a_timeout_that_names_the_wait(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = hang(3.0)
    with pytest.raises(LLMTimeoutError, match=r"no reply within 2 s \(2 attempts\)"):
        ask(client(stub, tmp_path))
    assert len(stub.requests) == 2


def test_errors_name_what_happened(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = error_reply(429, "slow down", retry_after=0)
    with pytest.raises(LLMStatusError, match=r"refused: HTTP 429.*\(2 attempts\)") as caught:
        ask(client(stub, tmp_path))
    assert caught.value.status == 429
    stub.default = error_reply(400, "bad request")
    with pytest.raises(LLMStatusError, match="refused: HTTP 400"):
        ask(client(stub, tmp_path))
    dead = Settings(openai_base_url="http://127.0.0.1:9/v1", llm_max_retries=0, home=tmp_path)
    with pytest.raises(LLMUnreachableError, match="unreachable: http://127.0.0.1:9/v1"):
        ask(LLMClient(dead))


def test_structured_output_steps_down_as_refused_and_remembers(stub: StubOpenAI, tmp_path: Path) -> None:
    def server(body: dict[str, Any]) -> Any:  # takes JSON mode with a schema, as llama-cpp-python's does
        fmt = body.get("response_format")
        if fmt and fmt["type"] == "json_schema":
            return error_reply(500, "Input should be 'text' or 'json_object' (response_format.type)")
        return chat_reply('{"a": "b"}')

    stub.default = server
    llm = client(stub, tmp_path)
    assert json.loads(ask(llm, schema=SCHEMA).text) == {"a": "b"}
    sent = [r["body"].get("response_format", {}).get("type") for r in stub.requests]
    assert sent == ["json_schema", "json_object"]  # the 500 naming the format was not retried
    assert stub.requests[1]["body"]["response_format"]["schema"] == SCHEMA["schema"]
    assert llm.fallbacks == {"structured output: schema refused": 1}
    again = client(stub, tmp_path)  # a new client, a later run: learned, no probe
    ask(again, schema=SCHEMA)
    assert stub.requests[-1]["body"]["response_format"]["type"] == "json_object"
    assert len(stub.requests) == 3


def test_structured_output_ends_at_the_prompt_alone(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = lambda body: (
        error_reply(400, "response_format is not supported") if "response_format" in body else chat_reply('{"a": 1}')
    )
    llm = client(stub, tmp_path)
    assert ask(llm, schema=SCHEMA).text == '{"a": 1}'
    assert len(stub.requests) == 4 and "response_format" not in stub.requests[-1]["body"]
    assert llm.memory.traits.structured == "prompt"
    ask(llm, schema=SCHEMA)
    assert len(stub.requests) == 5


def test_a_transient_500_does_not_downgrade_structured_output(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.script.append(error_reply(500, "out of memory, try again"))
    stub.default = chat_reply('{"a": "b"}')
    llm = client(stub, tmp_path)
    ask(llm, schema=SCHEMA)
    assert [r["body"]["response_format"]["type"] for r in stub.requests] == ["json_schema", "json_schema"]
    assert llm.memory.traits.structured == "schema" and llm.memory.traits.structured_ok


def test_tools_fall_back_to_a_plain_text_protocol(stub: StubOpenAI, tmp_path: Path) -> None:
    replies = iter(
        [
            error_reply(400, "tools are not supported by this model"),
            chat_reply('{"tool": "lookup", "arguments": {"name": "Ada"}}'),
            chat_reply('{"answer": "Ada wrote the first program [1]."}'),
        ]
    )
    stub.default = lambda body: next(replies)
    llm = client(stub, tmp_path)
    tools = [Tool("lookup", "find a name", {"type": "object", "properties": {"name": {"type": "string"}}})]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "who?"}]
    turn = llm.chat_tools(messages, tools)
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("lookup", {"name": "Ada"})]
    assert "tools" not in stub.requests[1]["body"] and '"tool"' in stub.requests[1]["body"]["messages"][-1]["content"]
    messages += [turn.message, llm.tool_result(turn.tool_calls[0], "Ada Lovelace, 1815-1852")]
    assert messages[-1] == {"role": "user", "content": "Result of lookup:\nAda Lovelace, 1815-1852"}
    final = llm.chat_tools(messages, tools)
    assert not final.tool_calls and final.content == "Ada wrote the first program [1]."
    assert llm.memory.traits.tools == "text"
    # Gemma 270M's "answer" was often its instructions continued: named, not returned as the agent's answer.
    system: dict[str, Any] = {"role": "system", "content": "You answer questions about a private document set."}
    stub.default = chat_reply(json.dumps({"answer": system["content"] + " Use the tools."}))
    with pytest.raises(LLMEchoError, match="repeated its instructions"):
        llm.chat_tools([system, *messages], tools)


def test_system_prompts_fold_into_the_first_user_turn_when_asked(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply("ok")
    llm = client(stub, tmp_path, llm_system_role="user")
    llm.chat([{"role": "system", "content": "RULES"}, {"role": "user", "content": "question"}], use_cache=False)
    assert stub.requests[0]["body"]["messages"] == [{"role": "user", "content": "RULES\n\nquestion"}]


def test_the_budget_stops_the_next_call_and_needs_prices(stub: StubOpenAI, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError, match="needs prices"):
        client(stub, tmp_path, llm_max_cost=1.0)
    stub.default = chat_reply("ok", prompt_tokens=1000, completion_tokens=1000)
    llm = client(stub, tmp_path, llm_max_cost=0.003, llm_price_input=1.0, llm_price_output=1.0)
    ask(llm)  # 0.002 spent
    ask(llm)  # 0.004: over, but this call was already allowed
    with pytest.raises(LLMBudgetError, match="resume"):
        ask(llm)
    assert len(stub.requests) == 2


def test_usage_is_counted_when_a_stream_reports_none(stub: StubOpenAI, tmp_path: Path) -> None:
    def no_usage(body: dict[str, Any]) -> Any:
        status, payload = chat_reply("three words here")
        payload["usage"] = None
        return status, payload

    stub.default = no_usage
    result = ask(client(stub, tmp_path))
    assert result.completion_tokens == 3 and result.prompt_tokens > 0


def test_the_pacer_narrows_to_a_one_request_server_and_widens_for_a_wide_one() -> None:
    def run(pacer: Pacer, serve: threading.Semaphore, calls: int) -> int:
        most = 0
        lock = threading.Lock()
        active = 0

        def one() -> None:
            nonlocal most, active
            with pacer.slot() as slot:
                with lock:
                    active += 1
                    most = max(most, active)
                with serve:  # the server: a queue of its width
                    time.sleep(0.02)
                    slot.token()
                    time.sleep(0.08)
                with lock:
                    active -= 1

        threads = [threading.Thread(target=one) for _ in range(calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return most

    narrow = Pacer(most=4, slack=0.02)
    run(narrow, threading.Semaphore(1), 24)
    assert narrow.limit == 1 and narrow.learned_width == 1  # a call queued at 2: the width is 1
    wide = Pacer(most=4, slack=0.02)
    run(wide, threading.Semaphore(4), 40)
    assert wide.limit == 4 and wide.learned_width is None
    assert Pacer(most=4, width=1).limit == 1  # remembered from an earlier run


def test_token_estimate_is_close_on_prose_and_json() -> None:
    # counts from Gemma 3's tokenizer (llama.cpp's /extras/tokenize)
    assert estimate_subword_tokens("Jeff Bezos founded Blue Origin in 2000. It is based in Kent, Washington.") in range(
        17, 23
    )
    assert estimate_subword_tokens('{"entities": [{"name": "x"}]}') in range(8, 14)


def test_a_reply_that_loops_is_stopped_where_it_starts_repeating(stub: StubOpenAI, tmp_path: Path) -> None:
    item = '{"name": "Jeff Bezos", "type": "PERSON"}, '
    stub.default = chat_reply('{"entities": [' + item * 200)
    result = ask(client(stub, tmp_path), task="extract")
    assert result.finish_reason == "repetition" and "repeating itself" in result.cut_note()
    assert result.text.count("Jeff Bezos") < 20  # not the 200 the stream would have sent
    assert not looping("| --- " * 20) and not looping(" " * 300)  # tables and indentation are not loops


def test_a_reply_that_repeats_its_instructions_is_named_not_returned() -> None:
    from graphwright.llm.client import echoes

    system = {"role": "system", "content": "You answer questions using ONLY the numbered context passages given."}
    passage = {"role": "user", "content": "[c_1] Blue Origin was founded by Jeff Bezos in 2000 in Kent, Washington."}
    assert echoes("You answer  questions using only the numbered context passages, so: Jeff.", [system, passage])
    # quoting a passage word for word is an answer; so is a short reply that happens to start the same way
    assert not echoes("Blue Origin was founded by Jeff Bezos in 2000 in Kent, Washington [c_1].", [system, passage])
    assert not echoes("You answer questions.", [system, passage])
    # a phrase the instructions tell it to say is an answer, not an echo
    rules = {
        "role": "system",
        "content": 'Answer from the passages. Else reply exactly: "I do not know: the documents do not say."',
    }
    assert not echoes("I do not know: the documents do not say.", [rules])


def test_a_streamed_answer_carries_its_cap_and_its_usage(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply("SpaceX builds it.", prompt_tokens=30, completion_tokens=4)
    pieces = list(client(stub, tmp_path).chat_stream([{"role": "user", "content": "q"}]))
    assert "".join(p.text for p in pieces) == "SpaceX builds it."
    assert pieces[-1].usage is not None and pieces[-1].usage.prompt_tokens == 30
    assert stub.requests[0]["body"]["max_tokens"] == MAX_TOKENS["answer"]


def test_a_reply_the_server_drops_is_retried_and_narrows_the_pacing(stub: StubOpenAI, tmp_path: Path) -> None:
    def dropped(body: dict[str, Any]) -> Any:
        status, payload = chat_reply("")
        payload["choices"][0]["finish_reason"] = None  # [DONE] with no reason: llama-cpp-python's interrupt
        return status, payload

    stub.script.append(dropped)
    stub.default = chat_reply("fine")
    llm = client(stub, tmp_path)
    assert ask(llm).text == "fine" and len(stub.requests) == 2
    slot_pacer = Pacer(most=4)
    slot_pacer.limit = 3
    # a third call, dropped while the other two ran
    with slot_pacer.slot(), slot_pacer.slot(), pytest.raises(RuntimeError), slot_pacer.slot() as inner:
        inner.cut_short = True
        raise RuntimeError
    assert slot_pacer.ceiling == 2 and slot_pacer.limit == 2  # dropped with 3 in flight: at most 2 at once


def test_reply_lengths_are_remembered_for_the_next_dry_run(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = chat_reply("one two three")
    llm = client(stub, tmp_path)
    for _ in range(3):
        ask(llm, task="router")
    again = client(stub, tmp_path)  # a later run reads what this one measured
    assert again.memory.traits.tasks["router"].calls == 3 and again.memory.traits.tasks["router"].mean == 5
