"""The one OpenAI-compatible client (OpenAI, Azure, Ollama, vLLM, llama.cpp, ...). Nothing else imports
`openai`.

Every call is bounded: its task's token cap goes out as `max_tokens`, and the reply is streamed so a call
stops when no token comes (`watchdog.py`), not after a fixed time for the whole reply. A stream that is cut
tells the server to stop generating, so a retry never queues behind a reply no one will read. Retries (429,
5xx, timeouts, lost connections) are this module's own, with backoff and the server's Retry-After. Structured
output is asked for as the endpoint takes it, learned once (`endpoint.py`); calls are paced to how many the
endpoint serves at once (`pacing.py`); a run's spending can be capped (`llm_max_cost`)."""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from graphwright.config import Settings
from graphwright.errors import (  # re-exported: they used to live here
    InvalidRequestError,
    JSONRepairError,
    LLMBudgetError,
    LLMEchoError,
    LLMEmptyAnswerError,
    LLMError,
    LLMNotConfiguredError,
    LLMStatusError,
    LLMTimeoutError,
    LLMUnreachableError,
)
from graphwright.llm import probe
from graphwright.llm.base import ChatDelta, ChatResult, JSONSchema, Message, Tool, ToolCall, ToolTurn, Usage
from graphwright.llm.cache import ResponseCache, cache_folder
from graphwright.llm.endpoint import STRUCTURED_RUNGS, EndpointMemory, Structured, Timing
from graphwright.llm.pacing import Pacer, Slot
from graphwright.llm.slots import EndpointSlots
from graphwright.llm.tasks import CACHED_TASKS, max_tokens, parse_caps
from graphwright.llm.tokens import estimate_prompt
from graphwright.llm.watchdog import Watchdog
from graphwright.telemetry import detached_span, llm_attributes, set_attributes, span, usage_attributes

log = logging.getLogger(__name__)

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
# How servers name their window when a prompt is past it: llama-cpp-python "exceed context window of 4096",
# llama.cpp "... context size (4096)", vLLM "maximum context length is 4096"
_CONTEXT_RE = re.compile(r"context (?:window of|size \(|length is) ?(\d{3,7})", re.IGNORECASE)
_UNSUPPORTED = (400, 404, 415, 422, 501)  # how servers refuse a parameter they do not take
_T = TypeVar("_T")


@dataclass
class _Reply:
    """A streamed reply as it arrives."""

    pieces: list[str] = field(default_factory=list)
    refusal: str = ""
    finish: str | None = None
    tokens: int = 0  # content pieces: one token each on llama.cpp, Ollama, vLLM and OpenAI streams
    usage: Usage | None = None  # as the endpoint reported it, when it does
    started: float = 0.0  # when the request went out (its slot taken), its first token came, it ended
    first_token: float | None = None
    ended: float | None = None

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass
class LLMClient:
    """The OpenAI-compatible implementation of the `LLM` protocol. Usage comes back with each call."""

    settings: Settings
    cache: ResponseCache | None = None
    spent: Usage = field(default_factory=Usage, init=False)  # every call this client made (cached ones too)
    fallbacks: dict[str, int] = field(default_factory=dict, init=False)  # what was downgraded, by reason

    @staticmethod
    def configured(settings: Settings) -> bool:
        """An endpoint is set: a base URL, or a key for OpenAI's own."""
        return settings.llm.openai_configured

    def __post_init__(self) -> None:
        if self.cache is None and self.settings.llm.cache:
            self.cache = ResponseCache(cache_folder(self.settings.home))
        if not self.configured(self.settings):
            raise LLMNotConfiguredError("no LLM configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL")
        parse_caps(self.settings.llm.max_tokens)  # a typo in a cap is refused now, not at the 500th call
        if self.settings.llm.max_cost is not None and not (
            self.settings.llm.price_input or self.settings.llm.price_output
        ):
            raise InvalidRequestError(
                "--max-cost needs prices: set GRAPHWRIGHT_LLM_PRICE_INPUT and/or GRAPHWRIGHT_LLM_PRICE_OUTPUT "
                "(per million tokens)"
            )
        from openai import OpenAI, Timeout

        key = self.settings.llm.api_key.get_secret_value() if self.settings.llm.api_key else "not-needed"
        first = self.settings.llm.timeout
        self._client = OpenAI(
            api_key=key,
            base_url=self.settings.llm.base_url,
            # read: the wait for the response's headers and between raw reads; the watchdog bounds tokens
            timeout=Timeout(first, connect=min(first, 10.0)),
            max_retries=0,  # ours: a retry must not re-send while the server may still be generating
        )
        memory_file = self.settings.home / "cache" / "llm-endpoints.json" if self.settings.llm.cache else None
        self.memory = EndpointMemory(memory_file, self.settings.llm.base_url, self.settings.llm.model)
        self.pacer = Pacer(self.settings.llm.concurrency, self.memory.traits.width)
        self.slots = EndpointSlots(self.settings.home / "cache" / "llm-slots", self.memory.key)
        self._watchdog = Watchdog()
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()

    # -- the LLM protocol ------------------------------------------------------------------------------------

    @property
    def model(self) -> str:
        return self.settings.llm.model

    def forget(self, messages: list[Message], temperature: float | None = None) -> None:
        """Drop a cached answer the caller found unusable, so the next run asks again."""
        if self.cache is not None:
            self.cache.forget(self.cache_key(messages, temperature))

    def recall(self, fact: str) -> Any:
        return getattr(self.memory.traits, fact, None)

    def remember(self, **facts: Any) -> None:
        self.memory.learn(**facts)

    def is_cached(self, messages: list[Message], temperature: float | None = None) -> bool:
        """Whether `chat` would answer `messages` from the cache (a dry run counts such calls as free)."""
        return self.cache is not None and self.cache.has(self.cache_key(messages, temperature))

    def roles(self, messages: list[Message]) -> list[Message]:
        """The messages as they are sent (system prompts folded in when the endpoint drops them)."""
        return self._roles(messages)

    def cache_key(self, messages: list[Message], temperature: float | None = None) -> str:
        """The key of the answer to `messages` (a reply asked for under a schema is the same answer)."""
        temp = self.settings.llm.temperature if temperature is None else temperature
        return ResponseCache.key(self.settings.llm.model, self._roles(messages), temp)

    def chat(
        self,
        messages: list[Message],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: JSONSchema | None = None,
    ) -> ChatResult:
        model = self.settings.llm.model
        with span(f"chat {model}", {**llm_attributes("chat", model), "graphwright.task": task}) as current:
            if self.settings.trace_content:
                set_attributes(current, {"gen_ai.input.messages": json.dumps(messages, ensure_ascii=False)})
            result = self._chat(messages, temperature, use_cache, task=task, schema=schema)
            set_attributes(current, usage_attributes(result.prompt_tokens, result.completion_tokens))
            cap = result.max_tokens
            set_attributes(current, {"graphwright.cached": result.cached, "gen_ai.request.max_tokens": cap})
            if self.settings.trace_content:
                set_attributes(current, {"gen_ai.output.messages": result.text})
            return result

    def _chat(
        self,
        messages: list[Message],
        temperature: float | None,
        use_cache: bool,
        *,
        task: str,
        schema: JSONSchema | None,
    ) -> ChatResult:
        temp = self.settings.llm.temperature if temperature is None else temperature
        if self.settings.llm.structured == "off":
            schema = None
        self.probe_once()
        cache = self.cache if use_cache and task in CACHED_TASKS else None
        key = self.cache_key(messages, temp)
        if cache is not None:
            cached = cache.get(key)
            if cached is not None:
                cache.file_under_current(key)
                cached.cached = True
                self._count(Usage(cached=1))
                return cached
        sent = self._roles(messages)
        cap, sample = self._cap(task, sent)
        reply = self._generate(sent, temp, cap, task, schema, sample)
        usage = reply.usage or Usage(1)
        # Reasoning models (DeepSeek-R1, Qwen3 ...) wrap their thinking in tags; keep only the answer.
        text = _THINK_RE.sub("", reply.text).strip()
        if reply.refusal or not text or echoes(text, messages):  # said plainly, never cached: asked again
            error = (
                LLMError(f"LLM refused: {reply.refusal[:200]}")
                if reply.refusal
                else LLMEmptyAnswerError("LLM returned an empty answer")
                if not text
                else LLMEchoError(ECHOED)
            )
            error.usage = usage  # paid for all the same: the caller's meter counts it
            raise error
        result = ChatResult(
            text=text,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            finish_reason=reply.finish,
            max_tokens=cap,
        )
        if cache is not None:
            cache.put(key, result)
            cache.file_under_current(key)
        return result

    def chat_stream(
        self, messages: list[Message], temperature: float | None = None, *, task: str = "answer"
    ) -> Iterator[ChatDelta]:
        """The answer as the endpoint generates it, never cached; the last delta carries the usage. Reasoning
        tags are dropped as they pass. Not retried once text was sent (it cannot be taken back)."""
        model = self.settings.llm.model
        stream = self._chat_stream(messages, temperature, task)
        with detached_span(f"chat {model}", {**llm_attributes("chat", model), "graphwright.task": task}) as current:
            try:
                for delta in stream:
                    if delta.usage is not None:
                        usage = delta.usage
                        set_attributes(current, usage_attributes(usage.prompt_tokens, usage.completion_tokens))
                    yield delta
            finally:
                stream.close()  # a reader that left ends the call now (its slot freed), not at garbage collection

    def _chat_stream(self, messages: list[Message], temperature: float | None, task: str) -> Generator[ChatDelta]:
        temp = self.settings.llm.temperature if temperature is None else temperature
        self.probe_once()
        sent = self._roles(messages)
        cap, sample = self._cap(task, sent)
        kwargs = {"messages": sent, "temperature": temp, "max_tokens": cap}
        self._check_budget()
        thinking, checked = False, False
        held: list[str] = []
        with self.pacer.slot() as slot, self.slots.hold(self.memory.traits.width):
            reply = _Reply()
            for piece in self._stream(kwargs, cap, slot, reply):
                text, thinking = _drop_thinking(piece, thinking)
                if not text:
                    continue
                if checked:
                    yield ChatDelta(text=text)
                    continue
                # The start is held back until it shows it is not the prompt repeated, then sent piece by piece.
                held.append(text)
                if len("".join(held).strip()) >= _ECHO_CHARS:
                    if echoes("".join(held), messages):
                        self._settle(reply, kwargs, task, sample)
                        raise LLMEchoError(ECHOED)
                    checked = True
                    yield from (ChatDelta(text=t) for t in held)
        self._settle(reply, kwargs, task, sample)
        if not checked:  # a short reply: all of it was held
            if not "".join(held).strip():
                raise LLMEmptyAnswerError("LLM returned an empty answer")
            yield from (ChatDelta(text=t) for t in held)
        yield ChatDelta(usage=reply.usage)

    def chat_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn:
        """One turn with tool calling; never cached (each turn depends on live tool results). An endpoint
        without tool calling gets a plain-text protocol: a JSON object naming the tool, or the answer."""
        model = self.settings.llm.model
        with span(f"chat {model}", {**llm_attributes("chat", model), "graphwright.task": "agent_step"}) as current:
            turn = self._chat_tools(messages, tools)
            set_attributes(current, usage_attributes(turn.usage.prompt_tokens, turn.usage.completion_tokens))
            set_attributes(current, {"graphwright.tool_calls": len(turn.tool_calls)})
            return turn

    def _chat_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn:
        self.probe_once()
        if self.settings.llm.tools == "text" or self.memory.traits.tools == "text":
            return self._text_tools(messages, tools)
        schemas = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools
        ]
        cap = max_tokens("agent_step", self.settings.llm.max_tokens)
        kwargs = {"messages": self._roles(messages), "tools": schemas, "temperature": self.settings.llm.temperature}
        try:
            response = self._retrying(lambda slot: self._create(kwargs | {"max_tokens": cap}))
        except LLMStatusError as exc:
            if exc.status not in _UNSUPPORTED:
                raise
            self.memory.learn(tools="text")
            self._fell_back("tools: plain-text protocol")
            return self._text_tools(messages, tools)
        if not response.choices:
            raise LLMError("LLM returned no choices")
        message = response.choices[0].message
        calls = []
        for call in message.tool_calls or []:
            try:
                arguments = json.loads(call.function.arguments or "{}")
                error = None if isinstance(arguments, dict) else "arguments are not a JSON object"
            except json.JSONDecodeError as exc:
                arguments, error = {}, f"arguments are not valid JSON: {exc.msg}"
            calls.append(
                ToolCall(id=call.id, name=call.function.name, arguments=arguments if not error else {}, error=error)
            )
        content = _THINK_RE.sub("", message.content or "").strip()
        if not calls and echoes(content, messages):  # a final answer that is its instructions, said again
            raise LLMEchoError(ECHOED)
        kept: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            kept["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in message.tool_calls
            ]
        usage = _usage(response)
        self._count(usage)
        return ToolTurn(content=content, tool_calls=calls, message=kept, usage=usage)

    def tool_result(self, call: ToolCall, output: str) -> Message:
        if call.id.startswith("text_"):  # the plain-text protocol: the result is the next user turn
            return {"role": "user", "content": f"Result of {call.name}:\n{output}"}
        return {"role": "tool", "tool_call_id": call.id, "content": output}

    # -- bounded, structured, paced calls --------------------------------------------------------------------

    def _generate(
        self,
        messages: list[Message],
        temperature: float,
        cap: int,
        task: str,
        schema: JSONSchema | None,
        sample: bool = False,
    ) -> _Reply:
        while True:
            rung = self.memory.traits.structured if schema is not None else "prompt"
            kwargs: dict[str, Any] = {"messages": messages, "temperature": temperature, "max_tokens": cap}
            fmt = _response_format(rung, schema)
            if fmt is not None:
                kwargs["response_format"] = fmt
            # Until a structured call succeeds, an error naming the format is the format refused (llama-cpp-
            # python's server answers a json_schema it does not know with HTTP 500): no retry, the next rung.
            probing = fmt is not None and not self.memory.traits.structured_ok
            try:
                reply = self._retrying(
                    partial(self._collect, kwargs, cap), give_up=_refuses_format if probing else None
                )
            except LLMStatusError as exc:
                self._learn_context(exc)
                if fmt is None or not (exc.status in _UNSUPPORTED or (probing and _refuses_format(exc))):
                    raise
                if self.memory.traits.structured != rung:  # another call learned it meanwhile
                    continue
                lower = STRUCTURED_RUNGS[STRUCTURED_RUNGS.index(rung) + 1]
                log.info("LLM endpoint refused response_format %s (HTTP %s); trying %s", rung, exc.status, lower)
                self.memory.learn(structured=lower)
                self._fell_back(f"structured output: {rung} refused")
                continue
            if probing:
                self.memory.learn(structured_ok=True)
            self._settle(reply, kwargs, task, sample)
            return reply

    def _collect(self, kwargs: dict[str, Any], cap: int, slot: Slot) -> _Reply:
        reply = _Reply()
        for _ in self._stream(kwargs, cap, slot, reply):
            pass
        return reply

    def _stream(self, kwargs: dict[str, Any], cap: int, slot: Slot, reply: _Reply) -> Iterator[str]:
        """The reply's text pieces as they come, `reply` filled as they do; a quiet stream is stopped."""
        extra = {"stream_options": {"include_usage": True}} if self.memory.traits.stream_options else {}
        watch = self._watchdog.watch(self.settings.llm.timeout, self.settings.llm.idle_timeout)
        reply.started = time.monotonic()
        try:
            try:
                stream = self._create(kwargs | extra, stream=True)
            except LLMStatusError as exc:
                named = self._learn_context(exc)  # a prompt past the window is no refused stream_options
                if named or not extra or exc.status not in _UNSUPPORTED or "response_format" in kwargs:
                    raise
                self.memory.learn(stream_options=False)  # then its usage is counted here
                stream = self._create(kwargs, stream=True)
            watch.attach(stream.response)
            try:
                for chunk in stream:
                    watch.tick(token=False)
                    if chunk.usage is not None:
                        reply.usage = _usage(chunk)
                    for choice in chunk.choices or []:
                        delta = choice.delta
                        piece = (delta.content or "") if delta else ""
                        refusal = getattr(delta, "refusal", None) if delta else None
                        if refusal:
                            reply.refusal += refusal
                        if choice.finish_reason:
                            reply.finish = choice.finish_reason
                        if piece:
                            if reply.first_token is None:
                                reply.first_token = time.monotonic()
                            reply.tokens += 1
                            watch.tick()
                            slot.token()
                            reply.pieces.append(piece)
                            yield piece
                    if reply.tokens > cap + 16:  # an endpoint that ignores max_tokens is stopped here
                        reply.finish = "length"
                        break
                    if reply.tokens % 16 == 0 and looping(reply.text):  # a small model stuck in a loop
                        reply.finish = "repetition"
                        break
            except Exception as exc:  # openai's, or its HTTP library's (httpx or httpx2 by version): the wire broke
                if watch.expired:
                    raise LLMTimeoutError(watch.expired) from exc
                raise LLMUnreachableError(
                    f"the reply broke off after {reply.tokens} tokens: {exc.__class__.__name__}"
                ) from exc
            finally:
                stream.close()  # a reader that went away stops the generation upstream too
                reply.ended = time.monotonic()
            if watch.expired:
                raise LLMTimeoutError(watch.expired)
            crowded = max(slot.crowd, slot.in_flight()) > 1
            if reply.finish is None and not reply.refusal and not reply.pieces and not crowded:
                # Alone, and ended with nothing: a server whose generation failed after the stream began (a
                # prompt past its context window, on llama-cpp-python's) tells why only to a plain request.
                yield from self._unstreamed(kwargs, reply)
                return
            if reply.finish is None and not reply.refusal and (crowded or not reply.pieces):
                # Every server ends a finished reply with a reason; one that stops without, while another call
                # ran or with nothing said, was dropped (llama-cpp-python's ends a reply for a newer request).
                slot.cut_short = True
                beside = " while another call ran" if crowded else ""
                raise LLMUnreachableError(f"the server ended the reply unfinished after {reply.tokens} tokens{beside}")
        finally:
            self._watchdog.done(watch)

    def _unstreamed(self, kwargs: dict[str, Any], reply: _Reply) -> Iterator[str]:
        """The same request, not streamed: its reply, or the server's reason as an error not worth retrying."""
        try:
            try:
                response = self._create(kwargs)
            except LLMUnreachableError:  # the pooled connection died with the stream: a fresh one
                response = self._create(kwargs)
        except LLMStatusError as exc:
            raise LLMError(f"the server ended the reply with nothing; asked again unstreamed, it {exc}") from exc
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        reply.finish = (choice.finish_reason if choice else None) or "stop"
        reply.usage = _usage(response)
        if text:
            reply.tokens += reply.usage.completion_tokens or 1
            reply.pieces.append(text)
            yield text

    def _create(self, kwargs: dict[str, Any], stream: bool = False) -> Any:  # openai's ChatCompletion or Stream
        """One request; the endpoint's answer as an error of ours that says what happened."""
        import openai

        try:
            log.debug("LLM call: %d messages to %s", len(kwargs.get("messages", [])), self.settings.llm.model)
            return self._client.chat.completions.create(model=self.settings.llm.model, stream=stream, **kwargs)
        except openai.APIStatusError as exc:
            error = LLMStatusError(f"refused: HTTP {exc.status_code}: {str(exc.message)[:300]}", exc.status_code)
            error.retry_after = _retry_after(exc.response)  # type: ignore[attr-defined]
            raise error from exc
        except openai.APITimeoutError as exc:
            raise LLMTimeoutError(f"no reply within {self.settings.llm.timeout:.0f} s") from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise LLMUnreachableError(
                f"unreachable: {self.settings.llm.base_url or 'api.openai.com'}: {cause.__class__.__name__}"
            ) from exc

    def _retrying(self, call: Callable[[Slot], _T], *, give_up: Callable[[LLMStatusError], bool] | None = None) -> _T:
        """`call` in a paced slot, again after a 429, a 5xx, a timeout or a lost connection (with backoff, the
        server's Retry-After first); the last error says how many attempts were made. An HTTP error `give_up`
        accepts is raised at once."""
        attempts = self.settings.llm.max_retries + 1
        last: LLMError | None = None
        for attempt in range(attempts):
            self._check_budget()
            try:
                with self.pacer.slot() as slot, self.slots.hold(self.memory.traits.width):
                    result = call(slot)
                self._remember_width()
                return result
            except (LLMTimeoutError, LLMUnreachableError) as exc:
                last = exc
                wait = 0.5 * 2**attempt
            except LLMStatusError as exc:
                if exc.status != 429 and (exc.status < 500 or (give_up is not None and give_up(exc))):
                    raise
                last = exc
                wait = getattr(exc, "retry_after", None) or 0.5 * 2**attempt
            log.warning("LLM call failed (%s), attempt %d of %d", last, attempt + 1, attempts)
            if attempt + 1 < attempts:
                # Jitter only lengthens the wait: a server's Retry-After is a floor, and retries must not align.
                time.sleep(min(wait, 30.0) * (1.0 + 0.3 * random.random()))
        assert last is not None
        again = type(last)(f"{last} ({attempts} attempts)", last.status) if isinstance(last, LLMStatusError) else None
        raise again or type(last)(f"{last} ({attempts} attempts)")

    def _settle(self, reply: _Reply, kwargs: dict[str, Any], task: str, sample: bool = False) -> None:
        """Usage of a finished reply: the endpoint's, else counted here (the pieces; the prompt estimated);
        remembered with its timing, and (a reply that ended by itself under the task's full cap) its length
        as a sample of what the task's replies need."""
        if reply.usage is None or not (reply.usage.prompt_tokens or reply.usage.completion_tokens):
            reply.usage = Usage(1, estimate_prompt(kwargs["messages"]), reply.tokens)
        timing = None
        if reply.ended is not None and reply.started:
            first = reply.first_token - reply.started if reply.first_token is not None else None
            timing = Timing(reply.ended - reply.started, first, reply.usage.prompt_tokens)
        self.memory.record(task, reply.usage.completion_tokens, sample=sample and reply.finish == "stop", timing=timing)
        self._count(reply.usage)

    def _cap(self, task: str, messages: list[Message]) -> tuple[int, bool]:
        """The reply cap of `task`, and whether it is the task's full one (its replies then sample what the
        task needs). A cap the settings give stands; else the one learned from this endpoint's finished
        replies, else the task's default; never more than the server's context leaves after the prompt."""
        overrides = parse_caps(self.settings.llm.max_tokens)
        full = overrides.get(task) or max_tokens(task)
        stats = self.memory.traits.tasks.get(task)
        learned = stats.learned_cap(full) if stats is not None and task not in overrides else None
        cap = learned or full
        context = self.memory.traits.context
        if context:
            prompt = estimate_prompt(messages)
            room = context - prompt - 16  # the template's own tokens, roughly
            if room < min(cap, 32):
                raise LLMError(
                    f"the prompt (about {prompt:,} tokens) leaves no room for a reply in the server's "
                    f"{context:,}-token context window"
                )
            cap = min(cap, room)
        return cap, cap == full

    def probe_once(self) -> None:
        """Once per endpoint, before its first call (then remembered): its system role, width and context, and
        a first measure of its speed (a dry run asks for it: the time estimate and the prompts' size need it)."""
        if not self.settings.llm.probe or self.memory.traits.probed:
            return
        with self._probe_lock:
            if self.memory.traits.probed:
                return
            sample = None
            try:
                role = probe.system_role(self._create)
                width, sample = probe.width(self._create)
                sample = sample or probe.speed(self._create)
            except (LLMTimeoutError, LLMUnreachableError):  # down: the call says so, the probe waits for later
                return
            except LLMError as exc:  # it refused a probe: nothing learned, and not asked again
                log.info("LLM endpoint probe refused (%s); the settings stand", exc)
                role = width = None
            if sample is not None:
                self.memory.timed(
                    sample.prompt_tokens, sample.first_token, sample.completion_tokens, sample.completion_seconds
                )
            context = probe.context_window(self.settings.llm.base_url)
            self.memory.learn(
                probed=True,
                system_role=role,
                width=width or self.memory.traits.width,
                context=context or self.memory.traits.context,
            )
            if width is not None:
                self.pacer.narrow(width)

    def _learn_context(self, error: LLMStatusError) -> bool:
        """A server that refused a prompt past its context window says the window's size: remembered."""
        found = _CONTEXT_RE.search(str(error))
        if found:
            self.memory.learn(context=int(found.group(1)))
        return found is not None

    def _count(self, usage: Usage) -> None:
        with self._lock:
            self.spent += usage

    def _check_budget(self) -> None:
        budget = self.settings.llm.max_cost
        if budget is None:
            return
        cost = self.spent.report(self.settings.llm.price_input, self.settings.llm.price_output).get("cost", 0.0)
        if cost >= budget:
            raise LLMBudgetError(
                f"--max-cost {budget:g} reached ({cost:.4f} spent): stopped before the next call; run the same "
                "command again to resume (the answers paid for come from the cache)"
            )

    def _remember_width(self) -> None:
        width = self.pacer.learned_width
        if width is not None and width != self.memory.traits.width:
            self.memory.learn(width=width)

    def _fell_back(self, reason: str) -> None:
        with self._lock:
            self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1

    def _roles(self, messages: list[Message]) -> list[Message]:
        """System prompts folded into the first user turn when the endpoint's template drops them (as the
        settings say, or as the probe found)."""
        keeps = self.settings.llm.system_role == "system" and self.memory.traits.system_role != "user"
        if keeps or not any(m.get("role") == "system" for m in messages):
            return messages
        system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
        rest = [m for m in messages if m.get("role") != "system"]
        for i, message in enumerate(rest):
            if message.get("role") == "user":
                folded = {**message, "content": f"{system}\n\n{message.get('content') or ''}"}
                return [*rest[:i], folded, *rest[i + 1 :]]
        return [{"role": "user", "content": system}, *rest]

    def _text_tools(self, messages: list[Message], tools: Sequence[Tool]) -> ToolTurn:
        from graphwright.llm.json_repair import parse_json_object
        from graphwright.llm.prompts import render

        listing = "\n".join(f"- {t.name}: {t.description} Arguments: {json.dumps(t.parameters)}" for t in tools)
        asked = [*messages, {"role": "system", "content": render("tools_text", tools=listing)}]
        schema = {
            "name": "agent_step",
            "schema": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": [t.name for t in tools]},
                    "arguments": {"type": "object"},
                    "answer": {"type": "string"},
                },
            },
        }
        result = self.chat(asked, use_cache=False, task="agent_step", schema=schema)
        kept = {"role": "assistant", "content": result.text}
        try:
            data = parse_json_object(result.text)
        except JSONRepairError:
            data = {"answer": result.text}
        name = data.get("tool")
        if isinstance(name, str) and name in {t.name for t in tools}:
            arguments = data.get("arguments")
            call = ToolCall(
                id=f"text_{len(messages)}",
                name=name,
                arguments=arguments if isinstance(arguments, dict) else {},
                error=None if isinstance(arguments, dict) else "arguments are not a JSON object",
            )
            return ToolTurn(content="", tool_calls=[call], message=kept, usage=result.usage)
        answer = data.get("answer")
        content = answer if isinstance(answer, str) and answer.strip() else result.text
        if echoes(content, asked):  # the echo inside the JSON's answer, which chat() cannot see
            error = LLMEchoError(ECHOED)
            error.usage = result.usage
            raise error
        return ToolTurn(
            content=content,
            tool_calls=[],
            message=kept,
            usage=result.usage,
        )


def _response_format(rung: Structured, schema: JSONSchema | None) -> dict[str, Any] | None:
    if schema is None or rung == "prompt":
        return None
    if rung == "schema":
        return {"type": "json_schema", "json_schema": {"name": schema["name"], "schema": schema["schema"]}}
    if rung == "json+schema":
        return {"type": "json_object", "schema": schema["schema"]}
    return {"type": "json_object"}


_ECHO_CHARS = 40  # a reply whose first this many characters open its instructions repeats them
ECHOED = "the model repeated its instructions instead of answering"


def echoes(text: str, messages: Sequence[Message]) -> bool:
    """Whether `text` begins as a system message begins (small models continue the prompt they were given,
    from its first word). Only the instructions' opening counts: an answer may rightly quote a passage of
    its context, or say a phrase the instructions give it ("I don't know: ...")."""
    start = " ".join(text.split())[:_ECHO_CHARS].lower()
    if len(start) < _ECHO_CHARS:
        return False
    return any(
        " ".join(str(m.get("content") or "").split()).lower().startswith(start)
        for m in messages
        if m.get("role") == "system"
    )


_LOOP_PERIODS = range(6, 241)  # characters in the repeated unit: a word or two, up to a whole JSON item
_LOOP_REPEATS = 4


def looping(text: str) -> bool:
    """Whether `text` ends in one unit said over and over (4 times running, exactly): a reply that only
    repeats itself adds nothing, so it is stopped there, as a cap would stop it, instead of running on to
    the cap (small local models loop inside JSON arrays)."""
    tail = text[-_LOOP_REPEATS * _LOOP_PERIODS.stop :]
    for period in _LOOP_PERIODS:
        if len(tail) < _LOOP_REPEATS * period:
            break
        unit = tail[-period:]
        if period * _LOOP_REPEATS < 60 or not any(c.isalnum() for c in unit):  # rules, tables, indentation
            continue
        if all(tail[-(i + 1) * period : len(tail) - i * period] == unit for i in range(1, _LOOP_REPEATS)):
            return True
    return False


def _refuses_format(error: LLMStatusError) -> bool:
    """An error that names the structured-output parameter: the endpoint does not take that format."""
    text = str(error).lower()
    return error.status in _UNSUPPORTED or any(w in text for w in ("response_format", "json_schema", "json_object"))


def _retry_after(response: Any) -> float | None:
    try:
        value = float(response.headers.get("retry-after", ""))
    except (AttributeError, TypeError, ValueError):
        return None
    return value if value >= 0 else None


def _drop_thinking(piece: str, thinking: bool) -> tuple[str, bool]:
    """The visible part of a streamed piece, and whether a <think> block is still open after it."""
    out: list[str] = []
    while piece:
        if thinking:
            end = piece.lower().find("</think>")
            if end < 0:
                return "".join(out), True
            piece, thinking = piece[end + len("</think>") :], False
        else:
            start = piece.lower().find("<think>")
            if start < 0:
                out.append(piece)
                break
            out.append(piece[:start])
            piece, thinking = piece[start + len("<think>") :], True
    return "".join(out), thinking


def _usage(response: Any) -> Usage:  # openai's ChatCompletion
    """One call's tokens, as the endpoint reported them (zero when it did not)."""
    usage = response.usage
    return Usage(1, (usage.prompt_tokens or 0) if usage else 0, (usage.completion_tokens or 0) if usage else 0)
