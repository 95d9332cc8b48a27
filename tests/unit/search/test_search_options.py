"""One model of a search's options: the library validates into it, the HTTP schema is it with limits."""

from __future__ import annotations

import pytest

from graphwright import SearchOptions
from graphwright.errors import InvalidRequestError
from graphwright.models import ChatTurn, MetadataFilter
from graphwright.server.schemas import SearchRequest


def test_keywords_override_the_options_given() -> None:
    base = SearchOptions(mode="local", k=3, where=["year>=2020"])
    chosen = SearchOptions.of(base, k=7, hyde=True)
    assert (chosen.mode, chosen.k, chosen.where, chosen.hyde) == ("local", 7, ["year>=2020"], True)
    assert SearchOptions.of(where=None, history=None, k=None) == SearchOptions()  # None: the default
    kept = SearchOptions.of(where=[MetadataFilter("year", ">=", 2020)], history=[ChatTurn(role="user", content="hi")])
    assert isinstance(kept.where[0], MetadataFilter) and isinstance(kept.history[0], ChatTurn)


def test_a_bad_or_unknown_option_is_named() -> None:
    with pytest.raises(InvalidRequestError, match=r"unknown search option `depth`; options: mode, k, where"):
        SearchOptions.of(depth=3)
    with pytest.raises(InvalidRequestError, match=r"\(`k`\)"):
        SearchOptions.of(k="many")


def test_the_http_schema_is_the_options_with_limits() -> None:
    assert issubclass(SearchRequest, SearchOptions)
    assert set(SearchOptions.model_fields) <= set(SearchRequest.model_fields)
    assert set(SearchRequest.model_fields) - set(SearchOptions.model_fields) == {"question"}
    body = SearchRequest(question="Who?", mode="local", k=5, where=["year>=2020"])
    assert body.options() == SearchOptions(mode="local", k=5, where=["year>=2020"])
    with pytest.raises(ValueError, match="unknown mode 'telepathy'"):
        SearchRequest(question="Who?", mode="telepathy")
    with pytest.raises(ValueError):
        SearchRequest(question="Who?", k=1000)
