"""What every search mode returns: one shape for all of them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from graphwright.models import Citation, EntityRef, Evidence


class Answer(BaseModel):
    text: str
    kind: Literal["retrieval", "generated"]
    citations: list[Citation] = Field(default_factory=list)


class Retrieval(Evidence):
    """A mode's result: ranked chunks, graph evidence (entities, relations, communities, paths), the context
    sections an answer is written from, notes and trace. A mode that writes its own answer while it
    retrieves (global's map-reduce, the agent, multihop, cypher) sets `answer`; the others leave it to the
    mode's `answer` step. `mode` names the mode that really ran, when one delegated (auto)."""

    answer_set: list[EntityRef] | None = None  # the exact answer of a relational intersection
    answer: Answer | None = Field(default=None, exclude=True)
    mode: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def evidence(self) -> dict[str, object]:
        """The fields a SearchResult shares with it."""
        return {name: getattr(self, name) for name in Evidence.model_fields}
