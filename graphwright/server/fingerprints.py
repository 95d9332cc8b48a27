"""What is stored per API key, under names that reveal nothing of it: an HMAC of the key under a per-install
server secret (a 0600 file under the home, made once), so neither a conversation's owner name nor its seal
can be checked against a guessed key without that file. Conversations stored under the old names (a bare
SHA-256 of the key, sealed under a key derived without a secret) move to the new ones at the next start."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from graphwright.models import ConversationOwner
from graphwright.serving_proof import (  # re-exported: they used to live here
    SECRET_FILE,
)

if TYPE_CHECKING:
    from graphwright.api import GraphRAG

log = logging.getLogger(__name__)
_SECRET_BYTES = 32


def server_secret(home: Path) -> bytes:
    """The install's secret, created on first use (0600, written whole before it appears under its name, so a
    second process starting at the same moment reads either nothing yet or all of it, and keeps the first)."""
    path = home / SECRET_FILE
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        scratch = home / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secrets.token_hex(_SECRET_BYTES) + "\n")
        try:
            os.link(scratch, path)  # fails if another process made it first: theirs is kept
        except FileExistsError:
            pass
        finally:
            scratch.unlink(missing_ok=True)
    os.chmod(path, 0o600)
    return bytes.fromhex(path.read_text(encoding="utf-8").strip())


def owner_of(token: str, secret: bytes) -> ConversationOwner:
    """Whose conversations a key's are: a stored name and a sealing key, two HMACs of the key under the server
    secret with different labels, so the name gives nothing of the sealing key nor, without the secret, of
    the API key."""
    name = "key-" + hmac.new(secret, b"owner\x00" + token.encode(), hashlib.sha256).hexdigest()[:32]
    seal = hmac.new(secret, b"seal\x00" + token.encode(), hashlib.sha256).digest()
    return ConversationOwner(name, seal)


def legacy_owner_of(token: str) -> ConversationOwner:
    """The names of releases before the server secret (kept only to move their conversations)."""
    name = "key-" + hashlib.sha256(token.encode()).hexdigest()[:24]
    seal = hmac.new(b"graphwright conversation seal", token.encode(), hashlib.sha256).digest()
    return ConversationOwner(name, seal)


def move_legacy_conversations(graphs: Iterable[GraphRAG], tokens: Iterable[str], secret: bytes) -> int:
    """Re-seal every conversation stored under a configured key's old name to its new name, in each workspace;
    how many moved. Idempotent, and safe beside another worker doing the same (a move is conditional on
    the old owner)."""
    keys = sorted(set(tokens))
    moved = 0
    for graph in graphs:
        for token in keys:
            moved += graph.conversations(owner_of(token, secret)).adopt(legacy_owner_of(token))
    if moved:
        log.info("moved %d conversations to owner names keyed by the server secret", moved)
    return moved
