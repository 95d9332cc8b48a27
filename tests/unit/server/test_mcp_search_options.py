"""The MCP `search` tool's options are derived from the HTTP API's `SearchRequest`: the same names, types,
limits and descriptions, and offering another option is adding its name."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graphwright.server import mcp_tools
from graphwright.server.schemas import SearchRequest


class _Graph:
    llm = None
    workspace = "default"


def search_schema() -> dict[str, Any]:
    tools = asyncio.run(mcp_tools.build_mcp(_Graph()).list_tools())  # type: ignore[arg-type]
    return next(t.input_schema for t in tools if t.name == "search")


def test_the_search_tool_offers_search_request_fields_with_their_limits() -> None:
    schema = search_schema()
    assert list(schema["properties"]) == ["question", *mcp_tools.MCP_SEARCH_OPTIONS]
    assert schema["required"] == ["question"]
    k = schema["properties"]["k"]["anyOf"][0]
    assert (k["minimum"], k["maximum"]) == (1, 100), "the limits SearchRequest puts on k"
    where = schema["properties"]["where"]
    assert where["maxItems"] == 20 and where["description"] == SearchRequest.model_fields["where"].description


def test_offering_another_option_is_adding_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_tools, "MCP_SEARCH_OPTIONS", (*mcp_tools.MCP_SEARCH_OPTIONS, "hyde"))
    hyde = search_schema()["properties"]["hyde"]
    assert (hyde["type"], hyde["default"]) == ("boolean", False)


def test_every_search_option_reaches_the_cli_or_is_left_out_on_purpose() -> None:
    import click

    from graphwright.cli.query import query
    from graphwright.search.options import SearchOptions

    flags = {param.name for param in query.get_params(click.Context(query))} | {
        "generate"
    }  # --no-llm sets generate=False
    left_out = {"history", "conversation_id"}  # a terminal asks one question; `graphwright chat` keeps history
    assert set(SearchOptions.model_fields) - left_out <= flags


def test_the_cli_flags_take_their_range_and_help_from_search_request() -> None:
    import click

    from graphwright.cli.query import query

    params = {param.name: param for param in query.get_params(click.Context(query))}
    k = params["k"]
    assert isinstance(k.type, click.IntRange) and (k.type.min, k.type.max) == (1, 100)
    level = params["level"]
    assert isinstance(level.type, click.IntRange) and (level.type.min, level.type.max) == (0, None)
    source = params["source"]
    assert isinstance(source, click.Option) and source.help is not None
    assert source.help.lower().startswith(str(SearchRequest.model_fields["source"].description).lower())
    where, hyde = params["where"], params["hyde"]
    assert isinstance(where, click.Option) and where.multiple and where.help and where.help.endswith("(repeatable).")
    assert isinstance(hyde, click.Option) and hyde.is_flag
