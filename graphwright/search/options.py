"""Every option of a search, in one model: `GraphRAG.search(question, options, **overrides)` validates into
it, and the HTTP schema (`server/schemas.SearchRequest`) is it with the limits a public server adds. A new
option is one field here (and what reads it in `SearchQuery`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphwright.errors import InvalidRequestError
from graphwright.models import ChatTurn, MetadataFilter


class SearchOptions(BaseModel):
    """`mode`: a registered mode (`search.registry`); `k`: passages (default the settings' top_k); `where`:
    metadata filters ("year>=2020" or MetadataFilter; vector and hybrid); `generate`: let a configured LLM
    write the answer; `level`: global's community level; `source`, `target`: path's endpoints; `hyde`: also
    search with a hypothetical answer's embedding (vector and hybrid, needs an LLM); `history`: the
    conversation before the question, oldest first; `conversation_id`: a stored conversation instead."""

    model_config = ConfigDict(extra="forbid")

    mode: str = "hybrid"
    k: int | None = None
    where: list[str | MetadataFilter] = Field(default_factory=list)
    generate: bool = True
    level: int | None = None
    source: str | None = None
    target: str | None = None
    hyde: bool = False
    history: list[ChatTurn | dict[str, Any]] = Field(default_factory=list)
    conversation_id: str | None = None

    @classmethod
    def of(cls, options: SearchOptions | None = None, **overrides: Any) -> SearchOptions:
        """`options` (default: the defaults) with `overrides` applied, validated; a bad or unknown option is
        an InvalidRequestError naming it (a ValueError), as every other bad parameter of a search."""
        given = {name: getattr(options, name) for name in options.model_fields_set} if options is not None else {}
        values = {**given, **overrides}
        values = {key: value for key, value in values.items() if value is not None or key in _NULLABLE}
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problem = exc.errors()[0]
            name = str(problem["loc"][0]) if problem["loc"] else "options"
            if problem["type"] == "extra_forbidden":
                known = ", ".join(cls.model_fields)
                raise InvalidRequestError(f"unknown search option `{name}`; options: {known}") from None
            raise InvalidRequestError(f"{problem['msg']} (`{name}`)") from None


# Options whose None means something of its own (the defaults' None); the others' None means "the default".
_NULLABLE = frozenset({"k", "level", "source", "target", "conversation_id"})
