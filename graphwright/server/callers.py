"""Who is asking, and where: the one identity every route hands to a search (HTTP, OpenAI chat, Ollama, Dify,
MCP, the page). Built from what the guard middleware read of the request's key, so no route can forget the
tenant, the key's fingerprint or its workspaces: a search without a `Caller` does not exist in the server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphwright.config import DEFAULT_WORKSPACE
from graphwright.models import ConversationOwner
from graphwright.server.security import GRANT_STATE, OWNER_STATE, WORKSPACE_STATE, Grant


@dataclass(frozen=True)
class Caller:
    """A request's identity: the workspace it searches, its key's owner (fingerprint, seal, tenant, the
    workspaces it reads) and its grant. The default is nobody, who may read nothing."""

    workspace: str = DEFAULT_WORKSPACE
    owner: ConversationOwner = field(default_factory=ConversationOwner)
    grant: Grant = field(default_factory=Grant)

    def in_workspace(self, workspace: str) -> Caller:
        """The same key asking in another workspace (Dify names its workspace in the body)."""
        return Caller(workspace, self.owner, self.grant)


def caller_from_state(state: Mapping[str, Any], fallback: str = DEFAULT_WORKSPACE) -> Caller:
    """The caller the guard recorded in an ASGI scope's state (`fallback`: the workspace of a request that
    came without one, such as MCP on stdio)."""
    workspace = state.get(WORKSPACE_STATE)
    owner = state.get(OWNER_STATE)
    grant = state.get(GRANT_STATE)
    return Caller(
        workspace if isinstance(workspace, str) else fallback,
        owner if isinstance(owner, ConversationOwner) else ConversationOwner(),
        grant if isinstance(grant, Grant) else Grant(),
    )
