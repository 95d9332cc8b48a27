"""The knowledge-base file (`GRAPHWRIGHT_KNOWLEDGE_BASES`): a TOML list of `[[knowledge_base]]` tables, each
with a `name`, a `kind` (a name in knowledge/registry.py) and that kind's fields. Keys are never written in
the file: `key_env` names the environment variable that holds one, read when the file is loaded, kept as a
secret (its repr is asterisks) and sent only in the Authorization header to the source's own origin.

    [[knowledge_base]]
    name = "hq"
    kind = "graphwright"
    url = "http://10.0.0.5:8000"
    workspace = "legal"
    key_env = "HQ_GRAPHWRIGHT_KEY"
    description = "contracts and policies of the head office"
    granted_to = ["legal", "support"]

A key bound to named workspaces (a tenant) reaches only the entries whose `granted_to` lists the workspace it
searches, nothing by default; an entry that resolves to this database (kind `workspace`, or any remote kind
whose URL this server answers) is another workspace whatever its kind, read only if the key reads that
workspace itself. Admin keys, keys for every workspace and a keyless server reach every entry.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from graphwright.errors import KnowledgeBaseConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the CI runs 3.11
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

NAME_PATTERN = r"^[a-z][a-z0-9_]{0,30}$"  # it becomes part of the agent's tool names
MAX_SOURCES = 20


class KnowledgeBaseSpec(BaseModel):
    """Fields every kind has; each kind's module adds its own (`KnowledgeSource.Spec`)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="a-z, 0-9 and _, at most 31: tools are named after it")
    kind: str
    description: str = Field("", max_length=500, description="what it holds, as the agent is told")
    granted_to: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="the workspaces whose workspace-bound (tenant) keys may search it; none by default",
    )

    def named_workspace(self) -> str | None:
        """The workspace this entry names, should it resolve to this database (None: it names none)."""
        return None


class RemoteSpec(KnowledgeBaseSpec):
    """A source over HTTP: its URL and the environment variable that holds its key."""

    url: str = Field(pattern=r"^https?://[^\s]+$")
    key_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")

    def key(self) -> SecretStr | None:
        if self.key_env is None:
            return None
        value = os.environ.get(self.key_env)
        if not value:
            raise KnowledgeBaseConfigError(
                f"knowledge base {self.name!r}: the environment variable {self.key_env} (key_env) is not set"
            )
        return SecretStr(value)


def read_entries(path: Path) -> list[dict[str, Any]]:
    """The file's `[[knowledge_base]]` tables, checked for what every kind needs."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KnowledgeBaseConfigError(f"knowledge-base file {path}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KnowledgeBaseConfigError(f"knowledge-base file {path} is not TOML: {exc}") from exc
    unknown = set(data) - {"knowledge_base"}
    if unknown:
        raise KnowledgeBaseConfigError(f"knowledge-base file {path}: unknown table(s) {sorted(unknown)}")
    entries = data.get("knowledge_base", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise KnowledgeBaseConfigError(f"knowledge-base file {path}: write each one as a [[knowledge_base]] table")
    if len(entries) > MAX_SOURCES:
        raise KnowledgeBaseConfigError(f"knowledge-base file {path}: {len(entries)} entries, at most {MAX_SOURCES}")
    names = [str(e.get("name")) for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise KnowledgeBaseConfigError(f"knowledge-base file {path}: the name(s) {twice} are used twice")
    for entry in entries:
        if "key" in entry or "api_key" in entry:
            raise KnowledgeBaseConfigError(
                f"knowledge-base file {path}, {entry.get('name')!r}: keys are not written in the file; put the key "
                "in an environment variable and name it with key_env"
            )
    return entries
