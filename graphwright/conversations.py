"""Stored conversations, as the API, the CLI and the server use them: one owner's conversations (a key's,
or nobody's when the server has no keys), created, read as the history of the next search, appended to
after each answer, listed, deleted, and forgotten after `conversation_days` untouched."""

from __future__ import annotations

import builtins
import uuid
from typing import TYPE_CHECKING

from graphwright.errors import NotFoundError
from graphwright.models import ChatTurn, Conversation, ConversationInfo, SearchResult

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store import Neo4jStore

MAX_CONVERSATION_ID = 100


class Conversations:
    """The conversations of one `owner`; another owner's are not found, as if they did not exist."""

    def __init__(self, store: Neo4jStore, settings: Settings, owner: str = "") -> None:
        self.store = store
        self.settings = settings
        self.owner = owner

    def create(self, title: str = "") -> ConversationInfo:
        self.store.conversations.expire(self.settings.conversation_days)
        row = self.store.conversations.create(uuid.uuid4().hex, self.owner, " ".join(title.split())[:80])
        return ConversationInfo.model_validate(row)

    def list(self, offset: int = 0, limit: int = 100) -> builtins.list[ConversationInfo]:
        self.store.conversations.expire(self.settings.conversation_days)
        return [ConversationInfo.model_validate(r) for r in self.store.conversations.list(self.owner, offset, limit)]

    def get(self, conversation_id: str) -> Conversation:
        row = self.store.conversations.get(_checked(conversation_id), self.owner) if conversation_id else None
        if row is None:
            raise NotFoundError(f"no conversation {conversation_id!r}")
        return Conversation.model_validate(row)

    def delete(self, conversation_id: str) -> None:
        if not self.store.conversations.delete(_checked(conversation_id), self.owner):
            raise NotFoundError(f"no conversation {conversation_id!r}")

    def history(self, conversation_id: str) -> builtins.list[ChatTurn]:
        return self.get(conversation_id).chat_turns()

    def remember(self, conversation_id: str, result: SearchResult) -> None:
        """Add the search as the conversation's next turn: what it cited, what it named and the question
        as retrieval read it."""
        carried = next((s for s in result.trace if s.kind in ("followup", "rewrite")), None)
        # What the question itself named: carried entities are not its own (a later follow-up finds them
        # in the earlier turns, with the weight of their age).
        entity_ids = [e.id for e in result.entities if e.how == "exact"]
        turn = {
            "question": result.question,
            "answer": result.answer,
            "mode": result.mode,
            "standalone": str(carried.arguments.get("standalone", "")) if carried else "",
            "chunk_ids": [c.id for c in result.citations if c.kind == "chunk"][:50],
            "entity_ids": entity_ids[:50],
        }
        index = self.store.conversations.append(conversation_id, self.owner, turn, self.settings.conversation_turns)
        if index is None:  # deleted while the question was being answered
            raise NotFoundError(f"no conversation {conversation_id!r}")


def _checked(conversation_id: str) -> str:
    if len(conversation_id) > MAX_CONVERSATION_ID:
        raise NotFoundError(f"no conversation {conversation_id[:40]!r}…")
    return conversation_id
