"""What a route reads of its request (the guard middleware set it), and the responses routes share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse

from graphwright.models import ConversationOwner
from graphwright.server.callers import Caller, caller_from_state
from graphwright.server.errors import error_body
from graphwright.server.security import GRANT_STATE, OWNER_STATE, WORKSPACE_STATE, Grant
from graphwright.server.streaming import in_thread

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.server.state import Server


def workspace_of(request: Request) -> str:
    """The request's workspace: its `/w/<name>` prefix (the guard read it), else `default`."""
    found = getattr(request.state, WORKSPACE_STATE, None)
    return found if isinstance(found, str) else "default"


def graph_of(server: Server, request: Request) -> GraphRAG:
    """The request's workspace's GraphRAG (404 for a workspace that does not exist)."""
    return server.graph(workspace_of(request))


def grant_of(request: Request) -> Grant:
    found = getattr(request.state, GRANT_STATE, None)
    return found if isinstance(found, Grant) else Grant()


def caller_of(request: Request) -> Caller:
    """Who asks, where (server/callers.py): what every search of a route is run as."""
    return caller_from_state(request.scope.get("state", {}))


def owner(request: Request) -> ConversationOwner:
    """Whose conversations this request sees: its key's (the guard set it), or nobody's without keys."""
    found = getattr(request.state, OWNER_STATE, None)
    return found if isinstance(found, ConversationOwner) else ConversationOwner()


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse(error_body(status, message), status_code=status)


def event_stream(first: bytes, rest: Iterator[bytes], media_type: str = "text/event-stream") -> StreamingResponse:
    def frames() -> Iterator[bytes]:
        yield first
        yield from rest

    return StreamingResponse(
        in_thread(frames()),
        media_type=media_type,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
