"""The stored conversations of the caller's key."""

from __future__ import annotations

from fastapi import FastAPI, Query, Request

from graphwright.models import Conversation, ConversationInfo
from graphwright.server.requests import graph_of, owner
from graphwright.server.schemas import DeletedConversation, NewConversation
from graphwright.server.state import Server


def add_conversation_routes(app: FastAPI, server: Server) -> None:
    @app.post("/v1/conversations", status_code=201, response_model=ConversationInfo, tags=["conversations"])
    def new_conversation(request: Request, body: NewConversation | None = None) -> ConversationInfo:
        """A stored conversation: search with its `conversation_id` and each answer becomes its next turn."""
        return graph_of(server, request).conversations(owner(request)).create((body or NewConversation()).title)

    @app.get("/v1/conversations", response_model=list[ConversationInfo], tags=["conversations"])
    def conversations(
        request: Request, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=1000)
    ) -> list[ConversationInfo]:
        """This key's conversations, most recently used first."""
        return graph_of(server, request).conversations(owner(request)).list(offset, limit)

    @app.get("/v1/conversations/{conversation_id}", response_model=Conversation, tags=["conversations"])
    def conversation(conversation_id: str, request: Request) -> Conversation:
        """A conversation with its turns: question, answer, mode, and the chunks and entities each cited."""
        return graph_of(server, request).conversations(owner(request)).get(conversation_id)

    @app.delete("/v1/conversations/{conversation_id}", response_model=DeletedConversation, tags=["conversations"])
    def delete_conversation(conversation_id: str, request: Request) -> DeletedConversation:
        """Remove a conversation and its turns (the graph it cited stays)."""
        graph_of(server, request).conversations(owner(request)).delete(conversation_id)
        return DeletedConversation(deleted=conversation_id)
