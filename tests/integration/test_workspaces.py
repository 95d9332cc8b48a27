"""Workspaces on the real Neo4j, adversarially: two workspaces with overlapping entity names and near-duplicate
passages, B's holding canaries (a word and names no passage of A has). Every mode, inspection command, route,
MCP tool and the Dify endpoint run in A must never return a canary, nor an id only B holds; the LLM (the
stub) must never be sent one either. Deleting in A leaves B byte-for-byte the same."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from graphwright.errors import InvalidRequestError, NotFoundError, WorkspaceExistsError
from tests.integration.helpers import offline_settings, run
from tests.live_server import LiveServer
from tests.stub_openai import StubOpenAI, chat_reply, tool_call_reply

pytestmark = pytest.mark.integration

A, B = "ws-a", "ws-b"
CANARY = "Zqxcanary"
B_NAMES = ("Ronald Wayne", "Johnny Appleseed", "Freddie Mercury", "Zqxcanary Orchard")
DOCS_A = {
    "apple.md": "# Apple\nApple Inc. was founded by Steve Jobs and Steve Wozniak in Cupertino. Apple designs the "
    "iPhone in California. Tim Cook leads Apple.\n",
    "mercury.md": "# Mercury\nMercury is the smallest planet. NASA sent the Messenger probe to Mercury in 2004. "
    "Messenger was built by the Johns Hopkins laboratory.\n",
}
DOCS_B = {  # the same names, one near-duplicate passage, and canaries in every passage
    "apple.md": "# Apple\nApple Inc. was founded by Steve Jobs and Ronald Wayne in Cupertino. Apple designs the "
    "iPhone in California. Zqxcanary notes that Ronald Wayne left Apple.\n",
    "orchard.md": "# Apple trees\nJohnny Appleseed planted Apple trees in Ohio. The Zqxcanary Orchard grows Apple "
    "trees in Ohio.\n",
    "mercury.md": "# Mercury\nFreddie Mercury sang with Queen in London. Mercury is a Zqxcanary metal in London.\n",
}
KEY_A, KEY_B, ADMIN = "key-for-a-0123456789", "key-for-b-0123456789", "admin-key-0123456789"


def _write(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def ids_of(rag) -> set[str]:
    rows = rag.store.read(
        "CALL () { MATCH (n:Document) RETURN n.id AS id UNION MATCH (n:Chunk) RETURN n.id AS id "
        "UNION MATCH (n:Entity) RETURN n.id AS id UNION MATCH (n:Community) RETURN n.id AS id "
        "UNION MATCH (n:Conversation) RETURN n.id AS id } RETURN collect(id) AS ids"
    )
    return set(rows[0]["ids"])


def snapshot(rag) -> tuple[dict[str, int], str, list[str]]:
    """A workspace as bytes: its counts, a hash of every node (labels, properties) and relation (type, ends,
    properties) it holds, and its index names."""
    prefix = f"{rag.workspace}__"
    root = rag.store.in_workspace("default")
    nodes = root.read(
        "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH $p) RETURN labels(n) AS labels, properties(n) AS props",
        p=prefix,
    )
    rels = root.read(
        "MATCH (a)-[r]->(b) WHERE any(l IN labels(a) WHERE l STARTS WITH $p) "
        "RETURN type(r) AS type, a.id AS a, b.id AS b, properties(r) AS props",
        p=prefix,
    )
    rows = sorted(json.dumps(r, sort_keys=True, default=str) for r in nodes + rels)
    digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    return rag.inspect.stats(), digest, sorted(i["name"] for i in rag.store.admin.indexes())


@pytest.fixture(scope="module")
def pair(neo4j_uri, test_password, embedder, tmp_path_factory):
    """Workspaces A and B side by side (offline NLP graph, communities), a stub LLM, and B's canaries."""
    from graphwright.api import GraphRAG

    home = tmp_path_factory.mktemp("workspaces")
    stub = StubOpenAI().__enter__()
    settings = offline_settings(neo4j_uri, test_password, home)
    root = GraphRAG(settings, embedder=embedder)
    root.store.admin.reset()
    for name in root.store.workspaces.names()[1:]:
        root.workspaces.delete(name, yes=True)
    root.workspaces.create(A)
    root.workspaces.create(B, extractor="nlp")
    a, b = root.in_workspace(A), root.in_workspace(B)
    a.ingest([_write(home / "a", DOCS_A)], base=home / "a", extractor="nlp")
    b.ingest([_write(home / "b", DOCS_B)], base=home / "b", extractor="nlp")
    a.build_communities()
    b.build_communities()
    b.conversations().create("Zqxcanary chat")
    llm = GraphRAG(
        settings.updated(
            **{
                "openai_base_url": stub.base_url,
                "llm_model": "stub-model",
                "llm_max_retries": 1,
                "llm_probe": False,
            }
        ),
        embedder=embedder,
        workspace=A,
    )
    b_only = ids_of(b) - ids_of(a)
    assert b_only and CANARY.lower() in json.dumps(b.store.read("MATCH (c:Chunk) RETURN c.text AS t")).lower()
    yield {"root": root, "a": a, "b": b, "llm": llm, "stub": stub, "b_only": b_only, "home": home}
    llm.close()
    stub.__exit__(None, None, None)
    for name in root.store.workspaces.names()[1:]:
        root.workspaces.delete(name, yes=True)
    root.close()


def assert_clean(value: Any, pair: dict[str, Any], what: str, asked: tuple[str, ...] = ()) -> None:
    """Nothing of B in `value` (anything JSON can hold): no canary word or name, no id only B holds. What the
    caller `asked` with (a B name as a path's endpoint, say) may come back as it was given."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    lowered = text.lower()
    for given in asked:
        lowered = lowered.replace(given.lower(), "")
    assert CANARY.lower() not in lowered, f"{what}: B's canary leaked"
    for name in B_NAMES:
        assert name.lower() not in lowered, f"{what}: B's name {name!r} leaked"
    assert f"{B}__" not in lowered, f"{what}: B's labels leaked"
    for ident in pair["b_only"]:
        assert ident not in text, f"{what}: B's id {ident} leaked"


# Reads of B hidden inside expressions, which the gate read only as operators before issue 43.
HIDDEN = (
    f"RETURN CASE WHEN rand() < 2 THEN COLLECT {{ MATCH (x:`{B}__Chunk`) RETURN x.text }} ELSE [] END AS t",
    "RETURN CASE WHEN rand() < 2 THEN COLLECT { MATCH (x) WHERE x.text CONTAINS 'Zqx' RETURN x.text } END AS t",
    f"MATCH (c:`{A}__Chunk`) WITH c, CASE WHEN rand() < 2 THEN COLLECT {{ MATCH (y:`{B}__Entity`) RETURN y.name }} "
    "END AS t RETURN c.id, t",
    "UNWIND CASE WHEN rand() < 2 THEN COLLECT { MATCH (k:Canary) RETURN k.text } END AS t RETURN t",
)

QUESTIONS = (
    "Who founded Apple with Steve Jobs?",
    "Who planted Apple trees in Ohio?",
    "What is Mercury, and who sang in London?",
)
OFFLINE_MODES = ("vector", "hybrid", "local", "global", "auto")


def test_every_offline_mode_in_a_sees_only_a(pair) -> None:
    a = pair["a"]
    for question in QUESTIONS:
        for mode in OFFLINE_MODES:
            result = a.search(question, mode=mode, k=8)
            assert result.chunks or result.communities, (mode, question)
            assert_clean(result.model_dump(mode="json"), pair, f"{mode}: {question}")
    for source, target in (("Apple", "Cupertino"), ("Apple", "Ronald Wayne"), ("Johnny Appleseed", "Ohio")):
        found = a.search(f"How is {source} tied to {target}?", mode="path", source=source, target=target)
        assert_clean(found.model_dump(mode="json"), pair, f"path {source} -> {target}", (source, target))
    # B, the other way round, finds its canaries: the test can see a leak.
    seen_in_b = pair["b"].search("Who planted Apple trees in Ohio?", mode="hybrid").model_dump_json()
    assert CANARY.lower() in seen_in_b.lower()


def test_llm_modes_in_a_never_send_b_to_the_llm(pair) -> None:
    """corrective, multihop and cypher (the stub is the LLM): neither the answer nor anything sent to the LLM
    (prompts, contexts, the graph schema of Text2Cypher) holds B; hostile Cypher naming B's labels or reading
    every node is refused."""
    stub, llm = pair["stub"], pair["llm"]
    hostile = [
        f"MATCH (c:`{B}__Chunk`) RETURN c.text AS text",
        "MATCH (n) RETURN n.text AS text LIMIT 50",
        "MATCH ()-[r]->() RETURN properties(r) AS p LIMIT 50",
        f"CALL db.index.fulltext.queryNodes('{B}__chunk_text', 'Apple') YIELD node RETURN node.text",
        "CALL db.labels() YIELD label RETURN label",
        f"MATCH (c:`{A}__Chunk`) RETURN c.text AS text",
        *HIDDEN,
    ]
    asked = {"cypher": ""}

    def reply(body: dict[str, Any]):
        system = body["messages"][0]["content"]
        if system.startswith("Grade how well"):
            return chat_reply(json.dumps({"score": 0.9, "relevant_sentences": []}))
        if system.startswith("Split the question"):
            return chat_reply(json.dumps({"sub_questions": ["Who founded Apple?", "Where is #1 based?"]}))
        if "Cypher" in system and "read-only" in system.lower():
            return chat_reply(asked["cypher"] or "MATCH (d:Document) RETURN count(d) AS n")
        return chat_reply("Steve Jobs and Steve Wozniak founded Apple.")

    stub.default = reply
    for mode in ("corrective", "multihop"):
        result = llm.search("Who founded Apple, and who planted Apple trees?", mode=mode, k=6)
        assert_clean(result.model_dump(mode="json"), pair, mode)
    for request in stub.requests:
        assert_clean(request["body"], pair, "a request to the LLM")
    for query in hostile:  # what the "LLM" wrote may come back as written; nothing it reached may
        asked["cypher"] = query
        result = llm.search("List every passage text", mode="cypher")
        named = (query, f"{B}__Chunk", f"{B}__Entity", f"{B}__chunk_text")  # a refusal may say which name it refused
        assert_clean(result.model_dump(mode="json"), pair, f"cypher {query}", named)
    assert stub.requests, "the LLM modes asked the stub"
    rows = llm.inspect.read_cypher(f"MATCH (c:`{A}__Chunk`) RETURN c.text AS text").rows
    assert len(rows) == pair["a"].inspect.stats()["chunks"]
    # However Neo4j plans it (a scan of all relationships, filtered, on a small graph), A's own pattern runs.
    types = llm.inspect.read_cypher(f"MATCH (a:`{A}__Entity`)-[r]->(b:`{A}__Entity`) RETURN DISTINCT type(r) AS t").rows
    assert types and all(row["t"].startswith(f"{A}__") for row in types)


@pytest.mark.parametrize(
    "query",
    [
        f"MATCH (c:`{B}__Chunk`) RETURN c.text",
        "MATCH (n) RETURN n.text",
        "MATCH (n) WHERE n.text CONTAINS 'Zqx' RETURN n.text",
        "MATCH (c:Chunk) RETURN c.text",  # default's labels, from A
        "MATCH ()-[r]->() RETURN r.evidence",
        f"MATCH ()-[r:`{B}__MENTIONS`]->() RETURN count(r)",
        "MATCH (n) RETURN count(n)",
        "MATCH (c:`ws-a__Chunk`) WITH c MATCH (x) WHERE id(x) = id(c) + 1 RETURN x.text",
        "MATCH (c:`ws-a__Chunk`) RETURN EXISTS { MATCH (x) WHERE x.text CONTAINS 'Zqx' } AS leak",
        "MATCH (c:`ws-a__Chunk`) RETURN COUNT { MATCH (x:`ws-b__Chunk`) } AS leak",
        "CALL db.labels() YIELD label RETURN label",
        "CALL db.index.vector.queryNodes('ws-b__chunk_embedding', 5, [0.1]) YIELD node RETURN node.text",
        "MATCH (w:GraphwrightWorkspace) RETURN w.name",
        f"MATCH (a)-[r]->(b) WHERE a:`{A}__Entity` OR b.name IS NOT NULL RETURN r.evidence",
        f"CALL db.index.fulltext.queryNodes('{A}__chunk_text', 'Apple') YIELD node RETURN node.text",
        *[
            f"RETURN CASE WHEN rand() < 2 THEN {read} ELSE [] END AS t"
            for read in (
                f"COLLECT {{ MATCH (x:`{B}__Chunk`) RETURN x.text }}",
                "COLLECT { MATCH (x) WHERE x.text CONTAINS 'Zqx' RETURN x.text }",
                "COLLECT { MATCH (w:GraphwrightWorkspace) RETURN w.name }",
                "COLLECT { MATCH (k:Canary) RETURN k.text }",
            )
        ],
        f"MATCH (c:`{A}__Chunk`) RETURN CASE WHEN rand() < 2 THEN [(c)--(x:`{B}__Entity`) | x.name] END AS t",
    ],
)
def test_raw_cypher_in_a_cannot_reach_outside_it(pair, query) -> None:
    from graphwright.errors import CypherRejectedError

    with pytest.raises(CypherRejectedError):
        pair["a"].inspect.read_cypher(query)


def test_the_default_workspace_is_scoped_too_once_others_exist(pair) -> None:
    from graphwright.errors import CypherRejectedError

    root = pair["root"]
    with pytest.raises(CypherRejectedError, match="AllNodesScan"):
        root.inspect.read_cypher("MATCH (n) RETURN n.text")
    with pytest.raises(CypherRejectedError, match="not a label or type"):
        root.inspect.read_cypher(f"MATCH (c:`{A}__Chunk`) RETURN c.text")
    assert root.inspect.read_cypher("MATCH (c:Chunk) RETURN count(c) AS n").rows == [
        {"n": root.inspect.stats()["chunks"]}
    ]


def test_inspection_in_a_shows_only_a(pair) -> None:
    a = pair["a"]
    assert_clean(a.inspect.graph().model_dump(mode="json"), pair, "inspect")
    assert_clean([d.model_dump() for d in a.inspect.documents()], pair, "documents")
    assert a.inspect.stats()["documents"] == len(DOCS_A)
    assert a.inspect.check() == {}
    for name in ("Apple", "Ronald Wayne", "Johnny Appleseed", "Freddie Mercury"):
        profile = a.inspect.entity(name)
        assert_clean(profile.model_dump(mode="json") if profile else None, pair, f"entity {name}", (name,))
    assert_clean(a.store.graph.schema_text(), pair, "schema text")
    assert_clean(a.store.communities.community_levels(), pair, "community levels")
    assert_clean([c.model_dump() for c in a.conversations().list()], pair, "conversations")
    with pytest.raises(NotFoundError):
        a.conversations().get(pair["b"].conversations().list()[0].id)


def test_cli_in_a_shows_only_a(pair, cli_env, tmp_path) -> None:
    env = {**cli_env, "GRAPHWRIGHT_HOME": str(pair["home"] / "home")}
    for args in (
        ["stats", "--json", "--workspace", A],
        ["--workspace", A, "show", "entity", "Ronald Wayne"],
        ["show", "entity", "Apple", "--json", "--workspace", A],
        ["query", "Who planted Apple trees in Ohio?", "--mode", "local", "--json", "--workspace", A],
        ["conversations", "list", "--workspace", A],
        ["communities", "show", "--workspace", A],
        ["check", "--workspace", A],
        ["browser", "--workspace", A],
        ["schema", "show", "--workspace", A],
    ):
        done = run(args, env, tmp_path)
        assert done.returncode in (0, 1), (args, done.stderr)
        assert_clean(done.stdout + done.stderr, pair, " ".join(args), ("Ronald Wayne",))
    env_scoped = {**env, "GRAPHWRIGHT_WORKSPACE": A}
    stats = json.loads(run(["stats", "--json"], env_scoped, tmp_path).stdout)
    assert stats["counts"]["documents"] == len(DOCS_A)
    listed = json.loads(run(["workspace", "list", "--json"], env, tmp_path).stdout)
    assert [(w["name"], w["documents"]) for w in listed] == [("default", 0), (A, 2), (B, 3)]
    missing = run(["stats", "--workspace", "nope"], env, tmp_path)
    assert missing.returncode == 2 and "no workspace 'nope'" in missing.stderr


@pytest.fixture(scope="module")
def served(pair):
    from graphwright.server.app import create_app

    settings = pair["root"].settings.updated(
        **{
            "api_keys": SecretStr(f"{KEY_A}@{A},{KEY_B}@{B}"),
            "read_api_keys": None,
            "admin_api_keys": SecretStr(ADMIN),
            "tenant_cypher": True,  # the gate itself is what these tests put to the proof
        }
    )
    with LiveServer(create_app(settings, pair["root"])) as server:
        yield server


def test_a_trailing_slash_keeps_the_workspace_on_every_route(pair, served) -> None:
    """Issue 61, reproduction 7: `/w/<A>/v1/search/` was redirected to `/v1/search`, and a client that
    follows redirects was answered from default. No route may redirect out of the prefix now."""
    from fastapi.routing import APIRoute

    app = served.server.config.app
    routes = [r for r in app.routes if isinstance(r, APIRoute) and "{" not in r.path and r.path != "/"]
    assert len(routes) > 15
    headers = {"Authorization": f"Bearer {KEY_A}"}
    with httpx.Client(base_url=served.url, headers=headers, timeout=120, follow_redirects=False) as http:
        for route in routes:
            for method in sorted(route.methods - {"HEAD"}):
                if method != "GET" and route.path != "/v1/search":
                    continue  # writes are covered by their own tests; a GET and the search cover the prefix
                got = http.request(method, f"/w/{A}{route.path}/", json={"question": "Who founded Apple?"})
                assert not 300 <= got.status_code < 400, (method, route.path, got.headers.get("location"))
        found = http.post(f"/w/{A}/v1/search/", json={"question": "Who planted Apple trees in Ohio?", "k": 8})
        assert found.status_code == 200, found.text
        assert_clean(found.json(), pair, "search with a trailing slash")
        assert http.get(f"/w/{A}/v1/stats/").json()["counts"]["documents"] == len(DOCS_A)


def test_cypher_is_off_for_tenant_keys_unless_the_operator_turns_it_on(pair) -> None:
    """Issue 61, item 7: with several workspaces, a key bound to one runs no user Cypher by default (403 over
    HTTP's MCP, a refusal the agent sees); an admin key, the CLI and the Python API still do."""
    from graphwright.server.app import create_app

    settings = pair["root"].settings.updated(
        **{"api_keys": SecretStr(f"{KEY_A}@{A}"), "admin_api_keys": SecretStr(ADMIN), "read_api_keys": None}
    )
    assert settings.search.tenant_cypher is False
    query = f"MATCH (c:`{A}__Chunk`) RETURN count(c) AS n"

    async def ask(key: str) -> str:
        import httpx2
        from mcp.client import Client
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120) as http,
            Client(streamable_http_client(f"{server.url}/w/{A}/mcp", http_client=http)) as client,
        ):
            got = await client.call_tool("cypher", {"query": query})
            return json.dumps([getattr(c, "text", "") for c in got.content])

    with LiveServer(create_app(settings, pair["root"])) as server:
        tenant = asyncio.run(ask(KEY_A))
        admin = asyncio.run(ask(ADMIN))
    assert "GRAPHWRIGHT_TENANT_CYPHER" in tenant and "rows" not in tenant
    assert "GRAPHWRIGHT_TENANT_CYPHER" not in admin and "rows" in admin
    assert pair["a"].inspect.read_cypher(query).rows[0]["n"] > 0  # the owner's API keeps it


def test_routes_in_a_show_only_a_and_keys_stay_in_their_workspace(pair, served) -> None:
    a_headers = {"Authorization": f"Bearer {KEY_A}"}
    with httpx.Client(base_url=f"{served.url}/w/{A}", headers=a_headers, timeout=120) as http:
        for mode in (*OFFLINE_MODES, "path"):
            body: dict[str, Any] = {"question": "Who planted Apple trees in Ohio?", "mode": mode, "k": 8}
            if mode == "path":
                body |= {"source": "Apple", "target": "Ohio"}
            found = http.post("/v1/search", json=body)
            assert found.status_code == 200, found.text
            assert_clean(found.json(), pair, f"/v1/search {mode}")
        stream = http.post("/v1/search/stream", json={"question": "Who founded Apple?", "mode": "local"})
        assert stream.status_code == 200 and f"{A}__Chunk" in stream.text  # the Browser query is A's
        assert_clean(stream.text, pair, "stream")
        for path in ("/v1/stats", "/v1/documents", "/v1/jobs", "/v1/conversations", "/v1/entities/Ronald%20Wayne"):
            got = http.get(path)
            assert got.status_code in (200, 404), (path, got.text)
            assert_clean(got.json(), pair, path, ("Ronald Wayne",))
        assert http.get("/v1/stats").json()["counts"]["documents"] == len(DOCS_A)
        chat = http.post(
            "/v1/chat/completions",
            json={"model": "graphwright-local", "messages": [{"role": "user", "content": "Who planted Apple trees?"}]},
        )
        assert chat.status_code == 200, chat.text
        assert_clean(chat.json(), pair, "chat completions")
        question = [{"role": "user", "content": "Who sang in London?"}]
        ollama = http.post("/api/chat", json={"model": "graphwright", "stream": False, "messages": question})
        assert ollama.status_code == 200, ollama.text
        assert_clean(ollama.json(), pair, "ollama chat")
        conversation = http.post("/v1/conversations", json={"title": "a's"}).json()
        follow = {"question": "Who founded Apple?", "conversation_id": conversation["id"]}
        assert http.post("/v1/search", json=follow).status_code == 200
        page = http.get("/")  # the page under the prefix; its script sends every call under it too
        assert page.status_code == 200 and "/static/app.js" in page.text
        assert f'name="graphwright-workspace" content="{A}"' in page.text  # the page says which one is open
        assert "WORKSPACE_BASE + path" in http.get("/static/api.js").text
        assert http.get("/healthz").json()["ok"] is True
        job = http.post("/v1/documents", files={"files": ("extra.md", b"# Extra\nTim Cook visited Cupertino.\n")})
        assert job.status_code == 202, job.text
        for _ in range(600):
            state = http.get(f"/v1/jobs/{job.json()['id']}").json()
            if state["status"] in ("succeeded", "failed"):
                break
            time.sleep(0.1)
        assert state["status"] == "succeeded" and state["workspace"] == A, state
        assert job.json()["id"] in [j["id"] for j in http.get("/v1/jobs").json()]
    with httpx.Client(base_url=f"{served.url}/w/{B}", headers={"Authorization": f"Bearer {KEY_B}"}) as http:
        assert http.get(f"/v1/jobs/{job.json()['id']}").status_code == 404  # A's job, from B
        assert job.json()["id"] not in [j["id"] for j in http.get("/v1/jobs").json()]
        assert http.get("/v1/stats").json()["counts"]["documents"] == len(DOCS_B)
    with httpx.Client(base_url=served.url, headers=a_headers, timeout=60) as http:
        # A's key in B: refused, whatever the route; B's conversation id from A: not found.
        for path in ("/v1/stats", "/v1/documents", "/v1/jobs", "/v1/conversations"):
            assert http.get(f"/w/{B}{path}").status_code == 403, path
        assert http.post(f"/w/{B}/v1/search", json={"question": "Apple"}).status_code == 403
        assert http.delete(f"/w/{B}/v1/documents/apple.md").status_code == 403
        assert http.get("/v1/stats").status_code == 403  # default is not A's either
        b_conversation = pair["b"].conversations().list()[0].id
        assert http.get(f"/w/{A}/v1/conversations/{b_conversation}").status_code == 404
        assert [w["name"] for w in http.get("/v1/workspaces").json()] == [A]
        assert http.get(f"/v1/workspaces/{B}").status_code == 404
        assert http.post("/v1/workspaces", json={"name": "x"}).status_code == 403
        assert http.delete(f"/v1/workspaces/{B}?yes=true").status_code == 403
        assert http.get("/w/Bad__Name/v1/stats").status_code == 400
        setting = {"top_k": 5, "score_threshold": 0}
        dify = {"knowledge_id": A, "query": "Who planted Apple trees in Ohio?", "retrieval_setting": setting}
        records = http.post("/dify/retrieval", json=dify)
        assert records.status_code == 200 and records.json()["records"]
        assert_clean(records.json(), pair, "dify")
        other = http.post("/dify/retrieval", json={**dify, "knowledge_id": B})
        assert other.status_code == 404 and other.json()["error_code"] == 2001
        unknown = http.post("/dify/retrieval", json={**dify, "knowledge_id": "nope"})
        assert unknown.status_code == 404 and unknown.json()["error_code"] == 2001
    with httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60) as http:
        assert [w["name"] for w in http.get("/v1/workspaces").json()] == ["default", A, B]
        assert http.post("/v1/workspaces", json={"name": A}).status_code == 409
        assert http.post("/v1/workspaces", json={"name": "Bad Name"}).status_code == 400
        assert http.delete("/v1/workspaces/nope").status_code == 404


def test_mcp_tools_in_a_show_only_a(pair, served) -> None:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> list[str]:
        seen = []
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY_A}"}, timeout=120) as http,
            Client(streamable_http_client(f"{served.url}/w/{A}/mcp", http_client=http)) as client,
        ):
            for mode in OFFLINE_MODES:
                got = await client.call_tool("search", {"question": "Who planted Apple trees in Ohio?", "mode": mode})
                seen.append(json.dumps([getattr(c, "text", "") for c in got.content]))
            for name, args in (
                ("show_entity", {"name": "Ronald Wayne"}),
                ("find_paths", {"source": "Apple", "target": "Ohio"}),
                ("cypher", {"query": f"MATCH (c:`{A}__Chunk`) RETURN c.text AS text"}),
                ("cypher", {"query": f"MATCH (c:`{B}__Chunk`) RETURN c.text AS text"}),
                ("cypher", {"query": "MATCH (n) RETURN n.text AS text"}),
                *[("cypher", {"query": query}) for query in HIDDEN],
                ("stats", {}),
            ):
                got = await client.call_tool(name, args)
                seen.append(json.dumps([getattr(c, "text", "") for c in got.content]))
        return seen

    for text in asyncio.run(main()):
        assert_clean(text, pair, "mcp", ("Ronald Wayne", f"{B}__Chunk", f"{B}__Entity"))


@pytest.fixture
def canary_node(pair):
    """A :Canary node of no workspace, holding B's canary word."""
    root = pair["root"].store.connection
    root.write("CREATE (:Canary {id: 'ws-canary', text: $t})", t=f"{CANARY} secret")
    yield
    root.write("MATCH (k:Canary {id: 'ws-canary'}) DELETE k")


def test_hidden_reads_through_every_llm_route_stay_in_a(pair, canary_node) -> None:
    """A key bound to A, a model (the stub) that writes B-reading Cypher hidden in expressions: the agent's
    cypher_read tool, `cypher` mode, chat completions and the Ollama route return nothing of B, and nothing
    of B is sent to the model, even when the model echoes every tool result it is given."""
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    stub = pair["stub"]
    hidden = {"query": HIDDEN[0]}

    def reply(body: dict[str, Any]):
        messages = body["messages"]
        system = messages[0]["content"]
        if messages[-1]["role"] == "tool":  # echo what the tool returned: a leak would reach the answer
            return chat_reply("Found: " + " | ".join(m["content"] for m in messages if m["role"] == "tool"))
        if "Cypher" in system and "read-only" in system.lower():
            return chat_reply(hidden["query"])
        if body.get("tools"):
            return tool_call_reply(("cypher_read", {"query": hidden["query"]}))
        return chat_reply("Nothing of B here.")

    stub.default = reply
    first = len(stub.requests)
    settings = pair["llm"].settings.updated(
        **{
            "api_keys": SecretStr(f"{KEY_A}@{A}"),
            "read_api_keys": None,
            "admin_api_keys": None,
            "tenant_cypher": True,  # the gate, not the setting, is what this test puts to the proof
        }
    )
    rag = GraphRAG(settings, embedder=pair["llm"].embedder)
    checked = 0
    with (
        LiveServer(create_app(settings, rag)) as server,
        httpx.Client(base_url=f"{server.url}/w/{A}", headers={"Authorization": f"Bearer {KEY_A}"}, timeout=120) as http,
    ):
        for query in HIDDEN:
            hidden["query"] = query
            asked = (query, f"{B}__Chunk", f"{B}__Entity")  # a refusal may name what it refused
            for mode in ("agent", "cypher"):
                found = http.post("/v1/search", json={"question": "List every passage", "mode": mode})
                assert found.status_code == 200, found.text
                assert_clean(found.json(), pair, f"/v1/search {mode}", asked)
                chat = http.post(
                    "/v1/chat/completions",
                    json={"model": f"graphwright-{mode}", "messages": [{"role": "user", "content": "List passages"}]},
                )
                assert chat.status_code == 200, chat.text
                assert_clean(chat.json(), pair, f"chat completions {mode}", asked)
                question = [{"role": "user", "content": "List every passage"}]
                ollama = http.post(
                    "/api/chat", json={"model": f"graphwright-{mode}", "stream": False, "messages": question}
                )
                assert ollama.status_code == 200, ollama.text
                assert_clean(ollama.json(), pair, f"ollama {mode}", asked)
                checked += 3
        direct = pair["llm"].search("List every passage", mode="agent")
        assert any(s.name == "cypher_read" and not s.ok for s in direct.trace)  # the tool was called, and refused
    rag.close()
    stub.default = None
    assert checked == 3 * 2 * len(HIDDEN)
    for request in stub.requests[first:]:
        assert_clean(request["body"], pair, "a request to the LLM", (*HIDDEN, f"{B}__Chunk", f"{B}__Entity"))


# Every mode GRAPHWRIGHT_DIFY_MODE may name (those that run without an LLM), federated first.
DIFY_MODES = ("federated", "vector", "hybrid", "local", "global", "path", "auto", "corrective", "raptor", "drift")


def _kb_file(path: Path, url: str) -> Path:
    """Knowledge bases that all lead to B: a workspace entry and two remotes that are this very server (its
    own API with B's key, its Dify route with B's key), granted to A's tenants; and one granted to nobody."""
    path.write_text(
        f"""
[[knowledge_base]]
name = "bws"
kind = "workspace"
workspace = "{B}"
granted_to = ["{A}"]

[[knowledge_base]]
name = "bself"
kind = "graphwright"
url = "{url}"
workspace = "{B}"
key_env = "GW_TEST_B_KEY"
granted_to = ["{A}"]

[[knowledge_base]]
name = "bdify"
kind = "dify-external"
url = "{url}/dify"
knowledge_id = "{B}"
key_env = "GW_TEST_B_KEY"
granted_to = ["{A}"]

[[knowledge_base]]
name = "bhidden"
kind = "graphwright"
url = "{url}"
workspace = "{B}"
key_env = "GW_TEST_B_KEY"
""",
        encoding="utf-8",
    )
    return path


def test_every_route_and_mode_as_a_key_for_a_finds_nothing_of_b(pair, tmp_path, monkeypatch) -> None:
    """Issue 76, findings 1 and 3: one place turns a request into a search. A key bound to A asks on every
    route (search, its stream, OpenAI chat, Ollama, MCP, Dify in each GRAPHWRIGHT_DIFY_MODE) in every mode,
    with knowledge bases that lead to B by every kind (a workspace entry, this server's own API and its Dify
    route with B's key) granted to A, and a model that calls every tool it may: nothing of B comes back, and
    nothing of B reaches the model. An admin key on the same server does reach B through them (the test can
    fail)."""
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    monkeypatch.setenv("GW_TEST_B_KEY", KEY_B)
    stub = pair["stub"]

    def reply(body: dict[str, Any]):
        messages = body["messages"]
        if messages[-1]["role"] == "tool":  # echo what the tools returned: a leak would reach the answer
            return chat_reply("Found: " + " | ".join(m["content"] for m in messages if m["role"] == "tool"))
        if body.get("tools"):
            asked = {"query": "Apple trees in Ohio"}
            return tool_call_reply(
                *[(t["function"]["name"], asked) for t in body["tools"] if t["function"]["name"].startswith("search_")],
                ("search_bws", asked),
                ("search_bhidden", asked),
            )
        if "Cypher" in messages[0]["content"]:
            return chat_reply(f"MATCH (c:`{A}__Chunk`) RETURN c.text AS text LIMIT 3")
        return chat_reply("Nothing of B here.")

    stub.default = reply
    first = len(stub.requests)
    modes = (*OFFLINE_MODES, "federated", "agent", "cypher")
    question = "Who planted Apple trees in Ohio?"
    checked: list[str] = []
    try:
        for dify_mode in DIFY_MODES:
            placeholder = tmp_path / f"kb-{dify_mode}.toml"
            settings = pair["llm"].settings.updated(
                **{
                    "api_keys": SecretStr(f"{KEY_A}@{A},{KEY_B}@{B}"),
                    "read_api_keys": None,
                    "admin_api_keys": SecretStr(ADMIN),
                    "tenant_cypher": True,
                    "knowledge_bases": placeholder,
                    "dify_mode": dify_mode,
                }
            )
            rag = GraphRAG(settings, embedder=pair["llm"].embedder)
            with LiveServer(create_app(settings, rag)) as server:
                _kb_file(placeholder, server.url)  # read at every search: written once the URL is known
                dify = {"knowledge_id": A, "query": question, "retrieval_setting": {"top_k": 8, "score_threshold": 0}}
                with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {KEY_A}"}, timeout=180) as h:
                    got = h.post("/dify/retrieval", json=dify)
                    assert got.status_code == 200, got.text
                    assert_clean(got.json(), pair, f"dify {dify_mode}")
                    checked.append(f"dify {dify_mode}")
                    if dify_mode != "federated":
                        continue
                    for mode in modes:
                        found = h.post(f"/w/{A}/v1/search", json={"question": question, "mode": mode, "k": 8})
                        assert found.status_code == 200, (mode, found.text)
                        assert_clean(found.json(), pair, f"/v1/search {mode}")
                        stream = h.post(f"/w/{A}/v1/search/stream", json={"question": question, "mode": mode})
                        assert stream.status_code == 200, (mode, stream.text)
                        assert_clean(stream.text, pair, f"stream {mode}")
                        user = [{"role": "user", "content": question}]
                        chat = h.post(
                            f"/w/{A}/v1/chat/completions", json={"model": f"graphwright-{mode}", "messages": user}
                        )
                        assert chat.status_code == 200, (mode, chat.text)
                        assert_clean(chat.json(), pair, f"chat {mode}")
                        ollama = h.post(
                            f"/w/{A}/api/chat", json={"model": f"graphwright-{mode}", "stream": False, "messages": user}
                        )
                        assert ollama.status_code == 200, (mode, ollama.text)
                        assert_clean(ollama.json(), pair, f"ollama {mode}")
                        checked += [f"search {mode}", f"stream {mode}", f"chat {mode}", f"ollama {mode}"]

                    async def mcp(key: str) -> list[str]:
                        seen = []
                        async with (
                            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=180) as http,
                            Client(streamable_http_client(f"{server.url}/w/{A}/mcp", http_client=http)) as client,
                        ):
                            for mode in modes:
                                got = await client.call_tool("search", {"question": question, "mode": mode})
                                seen.append(json.dumps([getattr(c, "text", "") for c in got.content]))
                        return seen

                    for mode, text in zip(modes, asyncio.run(mcp(KEY_A)), strict=True):
                        assert_clean(text, pair, f"mcp {mode}")
                        checked.append(f"mcp {mode}")
                    # The same server and file with an admin key: the sources are there and reach B.
                    admin = h.post(
                        f"/w/{A}/v1/search",
                        json={"question": question, "mode": "federated", "k": 8, "generate": False},
                        headers={"Authorization": f"Bearer {ADMIN}"},
                    )
                    assert admin.status_code == 200 and CANARY in json.dumps(admin.json()), admin.text
            rag.close()
    finally:
        stub.default = None
    assert len(checked) == len(DIFY_MODES) + 4 * len(modes) + len(modes)
    for request in stub.requests[first:]:
        assert_clean(request["body"], pair, "a request to the LLM", ("search_bhidden", "search_bws"))


def test_deleting_in_a_leaves_b_byte_for_byte(pair, tmp_path) -> None:
    """Last: deletes a document of A, then the whole of A; B's counts, content hash and indexes stay."""
    a, b, root = pair["a"], pair["b"], pair["root"]
    before = snapshot(b)
    assert before[0]["documents"] == len(DOCS_B) and before[2]
    documents = a.inspect.stats()["documents"]
    assert a.delete_document("apple.md") is not None  # B has an apple.md too
    assert snapshot(b) == before
    with pytest.raises(InvalidRequestError, match="--yes"):
        root.workspaces.delete(A)
    assert a.inspect.stats()["documents"] == documents - 1
    held = root.workspaces.delete(A, yes=True)
    assert held.documents == documents - 1
    assert snapshot(b) == before
    assert A not in root.store.workspaces.names()
    assert not [i for i in root.store.in_workspace(A).admin.indexes()], "A's indexes went with it"
    leftovers = root.store.read(
        "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH $p) RETURN count(n) AS n", p=f"{A}__"
    )
    assert leftovers == [{"n": 0}]
    with pytest.raises(NotFoundError):
        root.in_workspace(A)
    with pytest.raises(NotFoundError):
        root.workspaces.delete(A, yes=True)


def test_bad_workspace_names_and_lifecycle_errors_change_nothing(pair) -> None:
    root = pair["root"]
    # B was made with its own extractor: used where the environment names none.
    assert (pair["b"].settings.extractor, root.settings.extractor) == ("nlp", "auto")
    assert root.workspaces.info(B).settings == {"extractor": "nlp"}
    assert pair["b"].in_workspace("default").settings.extractor == "auto"  # default's own, not B's
    before = root.store.workspaces.names()
    for bad, why in (
        ("", "empty"),
        ("x" * 41, "at most 40"),
        ("Legal", "a-z"),
        ("le gal", "a-z"),
        ("-legal", "starting with"),
        ("a__b", "reserved"),
        ("ünï", "a-z"),
    ):
        with pytest.raises(InvalidRequestError, match=why):
            root.workspaces.create(bad)
    with pytest.raises(WorkspaceExistsError):
        root.workspaces.create(B)
    with pytest.raises(WorkspaceExistsError):
        root.workspaces.create("default")
    with pytest.raises(NotFoundError):
        root.in_workspace("nope")
    with pytest.raises(NotFoundError):
        root.workspaces.info("nope")
    with pytest.raises(InvalidRequestError, match="unknown extractor"):
        root.workspaces.create("fresh", extractor="telepathy")
    assert root.store.workspaces.names() == before


def test_deleting_default_needs_yes_once_it_holds_data(pair, tmp_path, cli_env) -> None:
    root, b = pair["root"], pair["b"]
    root.ingest([_write(tmp_path / "d", {"d.md": "# D\nDefault data about Hubble.\n"})], base=tmp_path / "d")
    held, b_before = root.inspect.stats(), snapshot(b)
    env = {**cli_env, "GRAPHWRIGHT_HOME": str(pair["home"] / "home")}
    refused = run(["workspace", "delete", "default"], env, tmp_path)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert root.inspect.stats() == held
    done = run(["workspace", "delete", "default", "--yes"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert root.inspect.stats()["documents"] == 0 and "default" in root.store.workspaces.names()
    assert snapshot(b) == b_before


def test_a_key_naming_an_unknown_workspace_stops_the_server(pair) -> None:
    from graphwright.errors import ServerConfigError
    from graphwright.server.app import create_app

    settings = pair["root"].settings.updated(**{"api_keys": SecretStr(f"{KEY_A}@nope")})
    with pytest.raises(ServerConfigError, match="nope"):
        create_app(settings, pair["root"])
    settings = pair["root"].settings.updated(**{"api_keys": SecretStr(f"{KEY_A}@Bad__")})
    with pytest.raises(ServerConfigError):
        create_app(settings, pair["root"])
