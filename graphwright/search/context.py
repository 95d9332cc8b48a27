"""Context sections within a token budget: each section gets a share, and what one leaves unused passes on
to the sections after it, so a question with few relations gets more text instead of a shorter context."""

from __future__ import annotations

from dataclasses import dataclass

from graphwright.models import ContextSection
from graphwright.text.tokens import count_tokens


@dataclass(frozen=True)
class Item:
    """One line of a section: the id it cites and the text the model (or reader) sees."""

    id: str
    text: str


def parse_shares(spec: str) -> dict[str, float]:
    """ "entities=0.15,relations=0.2" -> {"entities": 0.15, "relations": 0.2}; the shares are normalized."""
    shares: dict[str, float] = {}
    for part in spec.split(","):
        if not part.strip():
            continue
        name, _, value = part.partition("=")
        try:
            shares[name.strip()] = float(value)
        except ValueError as exc:
            raise ValueError(f"bad context share {part!r}: expected name=number") from exc
    total = sum(v for v in shares.values() if v > 0)
    if total <= 0:
        raise ValueError(f"context shares {spec!r} must include a positive share")
    return {name: max(value, 0.0) / total for name, value in shares.items()}


def pack_sections(
    candidates: dict[str, list[Item]], shares: dict[str, float], max_tokens: int, titles: dict[str, str] | None = None
) -> list[ContextSection]:
    """Fill sections in the order of `candidates`, each item whole or not at all, each section within its
    share plus what earlier sections left over. Items are expected best first."""
    sections: list[ContextSection] = []
    carry = 0
    for name, items in candidates.items():
        budget = int(max_tokens * shares.get(name, 0.0)) + carry
        title = (titles or {}).get(name, name.replace("_", " ").title())
        lines, ids, used = [f"## {title}"], [], count_tokens(title) + 1
        for item in items:
            cost = count_tokens(item.text) + 1
            if used + cost > budget:
                continue  # a shorter item further down may still fit
            lines.append(item.text)
            ids.append(item.id)
            used += cost
        carry = max(budget - used, 0) if ids else budget
        if ids:
            sections.append(ContextSection(name=name, text="\n".join(lines), ids=ids, tokens=used))
    return sections


def render(sections: list[ContextSection]) -> str:
    return "\n\n".join(s.text for s in sections)
