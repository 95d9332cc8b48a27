"""LLM backends by name, and the one place a client is built from the settings. Adding a backend = a module
with a class that satisfies `LLM` (and `StreamingLLM` if it streams), taking `Settings`, plus one line in
`_BACKENDS`. Classes are imported only when a client is made."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from graphwright.errors import InvalidRequestError

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.llm.base import LLM

_BACKENDS: dict[str, str] = {
    "openai": "graphwright.llm.client:LLMClient",  # any OpenAI-compatible endpoint
}
BACKEND_NAMES: tuple[str, ...] = tuple(_BACKENDS)


def make_llm(settings: Settings, backend: str = "openai") -> LLM | None:
    """The client of `backend` for `settings`; None when no LLM is configured (offline)."""
    if not settings.llm_configured:
        return None
    if backend not in _BACKENDS:
        raise InvalidRequestError(f"unknown LLM backend {backend!r}; available: {', '.join(BACKEND_NAMES)}")
    module, _, attribute = _BACKENDS[backend].partition(":")
    llm: LLM = getattr(import_module(module), attribute)(settings)
    return llm
