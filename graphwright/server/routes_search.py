"""The search routes: /v1/search, its SSE stream, and the answer graph's drawing."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, StreamingResponse

from graphwright.errors import GraphwrightError
from graphwright.models import AnswerDelta, Evidence, SearchResult
from graphwright.server.callers import Caller
from graphwright.server.errors import error_body, status_of
from graphwright.server.requests import caller_of, event_stream
from graphwright.server.schemas import SearchRequest, ServedResult, check_drawable
from graphwright.server.state import Server
from graphwright.server.streaming import sse


def _search_events(server: Server, body: SearchRequest, caller: Caller) -> Iterator[bytes]:
    """The SSE frames of one search; an error after the first frame is an `error` event."""
    events = server.search_stream(body.question, body.options(), caller=caller)
    started = False
    try:
        for event in events:
            if isinstance(event, SearchResult):
                yield sse("result", server.served(event, caller.workspace).model_dump(mode="json"))
            elif isinstance(event, AnswerDelta):
                yield sse("token", {"text": event.text})
            elif isinstance(event, Evidence):
                yield sse("retrieval", event.model_dump(mode="json"))
            started = True
    except GraphwrightError as exc:
        if not started:  # nothing sent yet: a plain JSON error with its status
            raise
        yield sse("error", error_body(status_of(exc), str(exc)))
    finally:
        events.close()  # type: ignore[attr-defined]


def add_search_routes(app: FastAPI, server: Server) -> None:
    @app.post("/v1/search", response_model=ServedResult, tags=["search"])
    def search(body: SearchRequest, request: Request) -> ServedResult:
        """Search with any mode; the answer cites chunk, entity, relation and community ids. With `history`
        (or a stored `conversation_id`) a follow-up question is searched with what it refers to."""
        caller = caller_of(request)
        result = server.search(body.question, body.options(), caller=caller)
        return server.served(result, caller.workspace)

    @app.post(
        "/v1/search/stream",
        tags=["search"],
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    def search_stream(body: SearchRequest, request: Request) -> StreamingResponse:
        """Server-sent events: `retrieval` (the evidence), `token` (answer text as it is written), then
        `result` (the SearchResult with its Browser link); `error` if the search fails midway."""
        frames = _search_events(server, body, caller_of(request))
        first = next(frames)  # bad parameters fail here, as a plain 400, before the stream starts
        return event_stream(first, frames)

    @app.post("/v1/answer-graph", response_class=HTMLResponse, tags=["search"])
    def answer_graph(result: SearchResult) -> HTMLResponse:
        """The self-contained SVG view of a SearchResult's entities, relations and passages."""
        from graphwright.answer_graph import answer_graph_html

        check_drawable(result)
        return HTMLResponse(answer_graph_html(result))
