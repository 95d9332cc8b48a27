"""A local OpenAI-compatible HTTP server for tests: the real `openai` client talks to it over real HTTP.
Each request pops the next scripted reply: (status, json body) or a callable(request_json) -> reply."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, Any]]


def chat_reply(content: str | None, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
    return 200, {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tool_call_reply(*calls: tuple[str, dict[str, Any] | str], content: str | None = None) -> Reply:
    """An assistant turn calling tools; arguments given as a string are sent verbatim (malformed on purpose)."""
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls)
    ]
    return 200, {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": content, "tool_calls": tool_calls},
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


def hang(seconds: float) -> Reply:
    return 0, {"sleep": seconds}


def error_reply(status: int, message: str = "stub error", retry_after: float = 0) -> Reply:
    return status, {"error": {"message": message, "type": "server_error", "code": None}, "_retry_after": retry_after}


def connection_reset() -> Reply:
    """The server drops the connection (TCP RST) without an answer."""
    return -1, {}


def refusal_reply(text: str = "I'm sorry, but I can't help with that request.") -> Reply:
    """A refusal as OpenAI models send it: no content, a `refusal` message."""
    reply = chat_reply(None)
    reply[1]["choices"][0]["message"]["refusal"] = text
    return reply


class StubOpenAI:
    def __init__(self) -> None:
        self.script: list[Reply | Callable[[dict[str, Any]], Reply]] = []
        self.default: Reply | Callable[[dict[str, Any]], Reply] | None = None  # when the script is empty
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.stream_delay = 0.0  # seconds between streamed pieces
        self.streams_broken = 0  # streamed answers whose reader went away before the end
        self.serial = False  # one request at a time, the others held until it ends (a one-slot local server)
        self.in_flight = 0
        self.most_in_flight = 0  # the most requests it was ever handling at once
        self._serial = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                with stub.lock:
                    stub.in_flight += 1
                    stub.most_in_flight = max(stub.most_in_flight, stub.in_flight)
                self.counted = True
                try:
                    if stub.serial:
                        with stub._serial:
                            self.answer()
                    else:
                        self.answer()
                finally:
                    self.leave()

            def leave(self) -> None:
                """Out of the in-flight count: just before the reply's last bytes, after which the client may
                rightly send its next request while this thread still closes the connection."""
                if getattr(self, "counted", False):
                    self.counted = False
                    with stub.lock:
                        stub.in_flight -= 1

            def answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(
                    {"path": self.path, "body": body, "at": time.monotonic(), "auth": self.headers.get("Authorization")}
                )
                with stub.lock:
                    item = stub.script.pop(0) if stub.script else stub.default
                if item is None:
                    item = error_reply(500, "script exhausted")
                status, payload = item(body) if callable(item) else item
                if status == 0:  # a scripted hang: sleep past the client's timeout, then give up
                    time.sleep(payload.get("sleep", 2.0))
                    return
                if status == -1:  # SO_LINGER 0: close() sends a reset, not a clean end of stream
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if body.get("stream") and status == 200 and "choices" in payload:
                    self.stream(payload)
                    return
                retry_after = payload.pop("_retry_after", 0)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", str(retry_after))
                self.end_headers()
                self.leave()
                self.wfile.write(data)

            def stream(self, payload: dict[str, Any]) -> None:
                """A chat completion as OpenAI streams it: the content word by word, then the usage."""
                message = payload["choices"][0]["message"]
                content = message.get("content") or ""
                pieces = [w + " " for w in content.split(" ")]
                pieces[-1] = pieces[-1][:-1]
                pieces = [p for p in pieces if p]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": "stub-model"}
                frames = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
                frames += [{**base, "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
                if message.get("refusal"):  # as OpenAI streams one: in the delta's `refusal`
                    frames.append({**base, "choices": [{"index": 0, "delta": {"refusal": message["refusal"]}}]})
                finish = payload["choices"][0].get("finish_reason", "stop")
                if finish is not None:  # None: the stream ends unfinished, as a server that dropped the reply
                    frames.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                frames.append({**base, "choices": [], "usage": payload.get("usage")})
                try:
                    for frame in frames:
                        self.wfile.write(f"data: {json.dumps(frame)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(stub.stream_delay)
                    self.leave()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except OSError:  # the client closed the stream
                    stub.streams_broken += 1
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> StubOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def embedding_reply(dimension: int = 64) -> Callable[[dict[str, Any]], Reply]:
    """An /v1/embeddings answer for any input: hashed bag-of-words vectors, so texts sharing words are close
    (enough for retrieval to find the passage a question names), with token usage like OpenAI's."""
    import hashlib
    import re

    def vector(text: str) -> list[float]:
        out = [0.0] * dimension
        for word in re.findall(r"\w+", text.lower()):
            out[int(hashlib.md5(word.encode()).hexdigest(), 16) % dimension] += 1.0
        return out if any(out) else [1.0] + [0.0] * (dimension - 1)

    def reply(body: dict[str, Any]) -> Reply:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]
        tokens = sum(len(t.split()) for t in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": body.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    return reply
