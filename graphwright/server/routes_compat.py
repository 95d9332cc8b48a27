"""Other products' APIs graphwright answers: Dify's external knowledge, Ollama's and OpenAI's chat."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from graphwright.server.ollama import OllamaChatRequest
from graphwright.server.requests import caller_of, event_stream
from graphwright.server.schemas import ChatRequest
from graphwright.server.state import Server


def add_compat_routes(app: FastAPI, server: Server) -> None:
    @app.post("/dify/retrieval", tags=["dify"])
    async def dify_retrieval(request: Request) -> JSONResponse:
        """Dify's External Knowledge API: register `<this server>/dify` as the endpoint and `default` as the
        knowledge ID; records are passages of the `GRAPHWRIGHT_DIFY_MODE` search (local by default)."""
        from fastapi.concurrency import run_in_threadpool

        from graphwright.server.dify import retrieve

        raw = await request.body()
        return await run_in_threadpool(retrieve, server, raw, caller_of(request))

    @app.get("/api/version", tags=["ollama"])
    def ollama_version() -> dict[str, str]:
        """Ollama's version call: the API version we answer as."""
        from graphwright.server.ollama import OLLAMA_VERSION

        return {"version": OLLAMA_VERSION}

    @app.get("/api/tags", tags=["ollama"])
    def ollama_tags() -> dict[str, Any]:
        """Ollama's model list: graphwright (hybrid) and graphwright-<mode> for each search mode."""
        from graphwright.server.ollama import tags

        return tags()

    @app.post("/api/chat", tags=["ollama"])
    def ollama_chat(body: OllamaChatRequest, request: Request) -> Any:
        """Ollama's chat: the whole `messages` list (a follow-up is searched with its conversation); NDJSON
        lines when `stream` (Ollama's default), else one object."""
        from graphwright.server.ollama import chat, chat_lines

        if body.stream:
            lines = chat_lines(server, body, caller_of(request))
            first = next(lines)
            return event_stream(first, lines, media_type="application/x-ndjson")
        return chat(server, body, caller_of(request))

    @app.get("/v1/models", tags=["openai"])
    def models() -> dict[str, Any]:
        """The chat models /v1/chat/completions accepts: one per search mode."""
        from graphwright.search.registry import mode_names

        names = ["graphwright", *(f"graphwright-{m}" for m in mode_names())]
        return {
            "object": "list",
            "data": [{"id": n, "object": "model", "created": 0, "owned_by": "graphwright"} for n in names],
        }

    @app.post("/v1/chat/completions", tags=["openai"])
    def chat(body: ChatRequest, request: Request) -> Any:
        """OpenAI-compatible: the last user message is the question, answered from the graph with its
        sources listed; `model` "graphwright-<mode>" picks the mode. Streams when `stream` is true."""
        from graphwright.server.chat import chat_completion, chat_stream

        if body.stream:
            frames = chat_stream(server, body, caller_of(request))
            first = next(frames)
            return event_stream(first, frames)
        return chat_completion(server, body, caller_of(request))
