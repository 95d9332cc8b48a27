"""The MCP server through the official SDK's own client: over streamable HTTP under `serve` (with keys) and
over stdio (`graphwright mcp`), every tool, and the Cypher injection attempts repeated through it."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tests.integration.conftest import READ

pytestmark = pytest.mark.integration
TOOLS = {"search", "show_entity", "find_paths", "cypher", "stats"}
# Each must be refused, and the graph must be the same afterwards.
INJECTIONS = [
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.pwned = true RETURN n",
    "CREATE (:Pwned)",
    "MATCH (n) RETURN n; MATCH (m) DETACH DELETE m",
    "CALL dbms.security.listUsers()",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN 1",
    "MATCH (n) /* harmless */ MERGE (x:Pwned) RETURN x",
]


def result_data(result) -> dict:
    """A tool's structured result (or its text, parsed)."""
    if result.structured_content is not None:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(result.content[0].text)


def text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def exercise(client, rag) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    from graphwright.search.registry import mode_class, mode_names

    for name in mode_names():  # every mode this server can run, described by its registered class
        usable = rag.llm is not None or not mode_class(name).needs_llm
        assert (f"{name}: {mode_class(name).summary}" in tools["search"].description) == usable, name
    before = rag.inspect.stats()
    found = result_data(
        await client.call_tool("search", {"question": "Which rocket launched Apollo 11?", "mode": "hybrid", "k": 3})
    )
    chunk_ids = [c["id"] for c in found["citations"] if c["kind"] == "chunk"]
    assert found["answer"] and chunk_ids
    assert set(rag.store.retrieval.chunks_by_id(chunk_ids)) == set(chunk_ids)
    entity = result_data(await client.call_tool("show_entity", {"name": "Apollo 11"}))
    assert entity["entity"]["name"].lower().startswith("apollo")
    missing = await client.call_tool("show_entity", {"name": "Qxzzvbn Wrrpt"})
    assert missing.is_error and "no entity" in text_of(missing)
    paths = result_data(await client.call_tool("find_paths", {"source": "Apollo 11", "target": "NASA"}))
    assert "paths" in paths and (paths["paths"] or paths["notes"])
    rows = result_data(await client.call_tool("cypher", {"query": "MATCH (d:Document) RETURN count(d) AS n"}))
    assert rows["rows"] == [{"n": before["documents"]}]
    # Temporal and spatial values as text (they failed to serialize: "Error executing tool cypher").
    query = "RETURN date('2026-12-03') AS day, duration('PT5M') AS span, point({x: 1.0, y: 2.0}) AS at"
    when = result_data(await client.call_tool("cypher", {"query": query}))
    assert when["rows"] == [{"day": "2026-12-03", "span": "PT5M", "at": "point({srid: 7203, x: 1.0, y: 2.0})"}]
    now = await client.call_tool("cypher", {"query": "RETURN datetime() AS now"})
    assert not now.is_error and result_data(now)["rows"][0]["now"][:2] == "20"
    stats = result_data(await client.call_tool("stats", {}))
    assert stats["counts"]["documents"] == before["documents"]
    long = await client.call_tool("search", {"question": "x" * 5000})  # the question cap of every way in
    assert long.is_error and "above the limit of 4000" in text_of(long)
    name = await client.call_tool("show_entity", {"name": "y" * 1000})
    assert name.is_error and "at most 400" in text_of(name)
    for query in INJECTIONS:
        refused = await client.call_tool("cypher", {"query": query})
        assert refused.is_error, query
    hostile = "x'}) DETACH DELETE n //"
    assert not (await client.call_tool("search", {"question": hostile, "mode": "local"})).is_error
    bad = await client.call_tool("search", {"question": "x", "mode": "telepathy"})
    assert bad.is_error
    assert rag.inspect.stats() == before
    assert rag.inspect.read_cypher("MATCH (n:Pwned) RETURN count(n) AS n").rows == [{"n": 0}]


def test_mcp_over_http_under_serve(live) -> None:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> None:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {READ}"}, timeout=60) as http,
            Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client,
        ):
            await exercise(client, live.rag)

    asyncio.run(main())


def test_mcp_over_stdio(live, cli_env) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**cli_env, "GRAPHWRIGHT_HOME": str(live.rag.settings.home)}

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "graphwright.cli", "mcp"], env=env)
        async with Client(params) as client:
            await exercise(client, live.rag)

    asyncio.run(main())
