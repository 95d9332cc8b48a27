"""Stored conversations: created, appended to turn by turn (trimmed to the newest turns), read, listed,
deleted and expired; always under their owner, so one key never reads another's."""

from __future__ import annotations

import builtins
from typing import Any

from graphwright.graph_store.connection import Role
from graphwright.graph_store.queries import conversations as q


class ConversationStore(Role):
    def create(self, conversation_id: str, owner: str, title: str = "") -> dict[str, Any]:
        return self.connection.write(q.CREATE_CONVERSATION, id=conversation_id, owner=owner, title=title)[0]

    def append(self, conversation_id: str, owner: str, turn: dict[str, Any], max_turns: int, title: str) -> int | None:
        rows = self.connection.write(
            q.APPEND_TURN, id=conversation_id, owner=owner, title=title, max_turns=max_turns, **turn
        )
        return int(rows[0]["index"]) if rows else None

    def get(self, conversation_id: str, owner: str) -> dict[str, Any] | None:
        rows = self.connection.read(q.CONVERSATION, id=conversation_id, owner=owner)
        return rows[0] if rows else None

    def list(self, owner: str, offset: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        return self.connection.read(q.CONVERSATIONS, owner=owner, offset=offset, limit=limit)

    def delete(self, conversation_id: str, owner: str) -> bool:
        return bool(self.connection.write(q.DELETE_CONVERSATION, id=conversation_id, owner=owner)[0]["deleted"])

    def reseal(
        self, conversation_id: str, old: str, owner: str, title: str, turns: builtins.list[dict[str, Any]]
    ) -> int:
        rows = self.connection.write(
            q.RESEAL_CONVERSATION, id=conversation_id, old=old, owner=owner, title=title, turns=turns
        )
        return int(rows[0]["moved"]) if rows else 0

    def expire(self, days: int) -> int:
        return int(self.connection.write(q.EXPIRE_CONVERSATIONS, days=days)[0]["deleted"])
