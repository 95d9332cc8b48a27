"""Read the JSON object an LLM meant to send: fenced, wrapped in prose, with trailing commas, or cut off."""

from __future__ import annotations

import json
import re
from typing import Any

from graphwright.errors import (
    JSONRepairError,  # re-exported: they used to live here
)

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")


def _close_truncated(text: str) -> str:
    """Append the quotes and brackets a truncated reply never sent (drops a dangling key or comma)."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    out = text + ('"' if in_string else "")
    out = re.sub(r",\s*$", "", out.rstrip())
    out = re.sub(r',\s*"[^"]*"\s*:?\s*$', "", out)  # a key with no value
    out = re.sub(r":\s*$", ": null", out)
    return out + "".join(reversed(stack))


def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`, repaired if needed; JSONRepairError when there is none."""
    if not text or not text.strip():
        raise JSONRepairError("empty reply")
    fenced = _FENCE_RE.search(text)
    body = fenced.group(1) if fenced else text
    start = body.find("{")
    if start < 0:
        raise JSONRepairError("no JSON object in the reply")
    body = body[start:]
    end = body.rfind("}")
    candidates = [body[: end + 1]] if end >= 0 else []
    candidates.append(body)
    last_error = "unreadable"
    for candidate in candidates:
        for attempt in (
            candidate,
            _TRAILING_COMMA_RE.sub(r"\1", candidate),
            _TRAILING_COMMA_RE.sub(r"\1", _close_truncated(candidate)),
        ):
            try:
                value = json.loads(attempt)
            except json.JSONDecodeError as exc:
                last_error = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
                continue
            if isinstance(value, dict):
                return value
            last_error = f"top level is a JSON {type(value).__name__}, not an object"
    raise JSONRepairError(last_error)
