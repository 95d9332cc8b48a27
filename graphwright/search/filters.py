"""Parse `--where` metadata filters such as `category=rockets`, `year>=2020`, `title~Apollo`."""

from __future__ import annotations

import re

from graphwright.errors import InvalidRequestError
from graphwright.models import FILTER_OPERATORS, MetadataFilter

_FILTER_RE = re.compile(r"^\s*([^=!<>~\s][^=!<>~]*?)\s*(>=|<=|!=|=|>|<|~)\s*(.*?)\s*$", re.DOTALL)


def parse_value(raw: str) -> str | int | float | bool:
    """Numbers and booleans compare as such (year>=2020); quote a value to keep it a string."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    lowered = raw.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


def parse_filter(text: str) -> MetadataFilter:
    match = _FILTER_RE.match(text)
    if not match or not match.group(1).strip():
        ops = " ".join(FILTER_OPERATORS)
        raise InvalidRequestError(f"cannot read filter {text!r} (`where`): use KEY OP VALUE with OP one of {ops}")
    key, op, raw = match.group(1).strip(), match.group(2), match.group(3)
    return MetadataFilter(key=key, op=op, value=parse_value(raw))


def parse_filters(texts: list[str] | tuple[str, ...] | None) -> list[MetadataFilter]:
    return [parse_filter(t) for t in texts or []]
