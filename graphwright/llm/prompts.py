"""Every prompt is a file in `llm/prompts/`, filled by `render`, which refuses a missing or unknown value:
a typo in a placeholder fails loudly instead of sending "{text}" to the model."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from graphwright.errors import (
    PromptError,  # re-exported: they used to live here
)

# `{name}` only: JSON examples inside prompts ({"points": []}) are left alone.
_PLACEHOLDER_RE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@cache
def template(name: str) -> str:
    """The raw text of prompt `name` (`llm/prompts/<name>.md`)."""
    path = resources.files("graphwright.llm").joinpath("prompts").joinpath(f"{name}.md")
    if not path.is_file():
        raise PromptError(f"no prompt named {name!r}")
    return path.read_text(encoding="utf-8")


def placeholders(name: str) -> set[str]:
    return set(_PLACEHOLDER_RE.findall(template(name)))


def render(name: str, /, **values: object) -> str:
    """Prompt `name` with each `{placeholder}` replaced by its value; every placeholder must be given and
    every value must have a placeholder."""
    wanted = placeholders(name)
    missing, unknown = wanted - values.keys(), values.keys() - wanted
    if missing or unknown:
        raise PromptError(f"prompt {name!r}: missing {sorted(missing)}, unknown {sorted(unknown)}")
    return _PLACEHOLDER_RE.sub(lambda m: str(values[m.group(1)]), template(name))
