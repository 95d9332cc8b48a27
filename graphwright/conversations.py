"""Stored conversations, as the API, the CLI and the server use them: one owner's conversations (a key's,
or nobody's when the server has no keys), created, read as the history of the next search, appended to
after each answer, listed, deleted, and forgotten after `conversation_days` untouched.

A key's conversations are sealed: their titles, questions and answers are stored AES-GCM-encrypted under a
key derived from the API key itself (never stored), bound to the conversation's id. Neo4j Community has no
per-user read rights, so this is what keeps one key's conversations from another key's read-only Cypher;
the chunks and entities a turn cited stay plain links, so its evidence still opens in Browser."""

from __future__ import annotations

import base64
import builtins
import os
import uuid
from typing import TYPE_CHECKING, Any

from graphwright.errors import NotFoundError
from graphwright.models import ChatTurn, Conversation, ConversationInfo, ConversationOwner, SearchResult

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.graph_store.contracts import GraphStore

MAX_CONVERSATION_ID = 100
_SEALED = "gw1:"
_TITLE_CHARS = 80


class Conversations:
    """The conversations of one `owner`; another owner's are not found, as if they did not exist."""

    def __init__(self, store: GraphStore, settings: Settings, owner: str | ConversationOwner = "") -> None:
        self.store = store
        self.settings = settings
        self.owner = owner if isinstance(owner, ConversationOwner) else ConversationOwner(owner)

    def create(self, title: str = "") -> ConversationInfo:
        self.store.conversations.expire(self.settings.conversation_days)
        ident = uuid.uuid4().hex
        row = self.store.conversations.create(ident, self.owner.name, self._seal(ident, _title(title)))
        return self._info(row)

    def list(self, offset: int = 0, limit: int = 100) -> builtins.list[ConversationInfo]:
        self.store.conversations.expire(self.settings.conversation_days)
        return [self._info(r) for r in self.store.conversations.list(self.owner.name, offset, limit)]

    def get(self, conversation_id: str) -> Conversation:
        found = self.store.conversations.get(_checked(conversation_id), self.owner.name) if conversation_id else None
        if found is None:
            raise NotFoundError(f"no conversation {conversation_id!r}")
        row = dict(found)
        ident = row["id"]
        row["title"] = self._open(ident, row["title"])
        cited = [c for turn in row["history"] for c in turn.get("chunk_ids") or []]
        present = set(self.store.retrieval.chunks_by_id(cited)) if cited else set()
        row["history"] = [
            {
                **turn,
                **{k: self._open(ident, turn[k] or "") for k in ("question", "answer", "standalone")},
                "stale": [c for c in turn.get("chunk_ids") or [] if c not in present],
            }
            for turn in row["history"]
        ]
        return Conversation.model_validate(row)

    def delete(self, conversation_id: str) -> None:
        if not self.store.conversations.delete(_checked(conversation_id), self.owner.name):
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
        standalone = str(carried.arguments.get("standalone", "")) if carried else ""
        turn = {
            "question": self._seal(conversation_id, result.question),
            "answer": self._seal(conversation_id, result.answer),
            "mode": result.mode,
            "standalone": self._seal(conversation_id, standalone),
            "chunk_ids": [c.id for c in result.citations if c.kind == "chunk"][:50],
            "entity_ids": entity_ids[:50],
        }
        title = self._seal(conversation_id, _title(result.question))
        index = self.store.conversations.append(
            conversation_id, self.owner.name, turn, self.settings.conversation_turns, title
        )
        if index is None:  # deleted while the question was being answered
            raise NotFoundError(f"no conversation {conversation_id!r}")

    def adopt(self, previous: ConversationOwner) -> int:
        """Move `previous`'s conversations to this owner, their texts re-sealed under this owner's key; how many
        moved. Each move applies only while the conversation is still `previous`'s."""
        if not previous.name or previous.name == self.owner.name:
            return 0
        old = Conversations(self.store, self.settings, previous)
        moved = 0
        while rows := self.store.conversations.list(previous.name, 0, 100):
            for row in rows:
                found = old.get(row["id"])
                ident = found.id
                turns = [
                    {
                        "index": t.index,
                        "question": self._seal(ident, t.question),
                        "answer": self._seal(ident, t.answer),
                        "standalone": self._seal(ident, t.standalone or ""),
                    }
                    for t in found.history
                ]
                moved += self.store.conversations.reseal(
                    ident, previous.name, self.owner.name, self._seal(ident, found.title), turns
                )
        return moved

    def _info(self, row: dict[str, Any]) -> ConversationInfo:
        return ConversationInfo.model_validate({**row, "title": self._open(row["id"], row["title"])})

    def _seal(self, conversation_id: str, text: str) -> str:
        """`text` encrypted for this owner (plain when the owner has no key, or for an empty text)."""
        if self.owner.key is None or not text:
            return text
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(12)
        sealed = AESGCM(self.owner.key).encrypt(nonce, text.encode(), conversation_id.encode())
        return _SEALED + base64.urlsafe_b64encode(nonce + sealed).decode()

    def _open(self, conversation_id: str, text: str) -> str:
        if not text.startswith(_SEALED):
            return text
        if self.owner.key is None:
            return "[sealed]"
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        raw = base64.urlsafe_b64decode(text[len(_SEALED) :])
        try:
            return AESGCM(self.owner.key).decrypt(raw[:12], raw[12:], conversation_id.encode()).decode()
        except InvalidTag:  # not this key's, or altered in the database
            return "[sealed]"


def _title(text: str) -> str:
    return " ".join(text.split())[:_TITLE_CHARS]


def _checked(conversation_id: str) -> str:
    if len(conversation_id) > MAX_CONVERSATION_ID:
        raise NotFoundError(f"no conversation {conversation_id[:40]!r}…")
    return conversation_id
