"""The one place an LLM client is built from the settings: the backend GRAPHWRIGHT_LLM_BACKEND names in
`LLM_BACKENDS` (default "openai", any OpenAI-compatible endpoint). Adding a backend = a module with a
class keeping `LLMBackend` (llm/base.py), plus one line in that table or `LLM_BACKENDS.register(name, target)`.
Classes are imported only when a client is made or the settings are asked whether one is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from graphwright.registry import Registry

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.llm.base import LLM, LLMBackend


# LLM backends (GRAPHWRIGHT_LLM_BACKEND): a class keeping llm/base.py's `LLMBackend` (built from the settings,
# and saying whether the settings configure it).
LLM_BACKENDS: Registry[Any] = Registry(
    "LLM backend",
    {"openai": "graphwright.llm.client:LLMClient"},  # any OpenAI-compatible endpoint
    parameter="GRAPHWRIGHT_LLM_BACKEND",
)


def backend(settings: Settings, name: str | None = None) -> LLMBackend:
    """The backend class `name` (default: the settings') names; InvalidRequestError for an unknown one."""
    return cast("LLMBackend", LLM_BACKENDS.load(name or settings.llm.backend))


def make_llm(settings: Settings, name: str | None = None) -> LLM | None:
    """The client of backend `name` (default: the settings') for `settings`; None when the settings do not
    configure it (offline)."""
    chosen = backend(settings, name)
    if not chosen.configured(settings):
        return None
    return chosen(settings)


def llm_configured(settings: Settings) -> bool:
    """Whether the chosen LLM backend has what it needs in these settings (OpenAI's: a base URL or a key)."""
    return bool(backend(settings).configured(settings))
