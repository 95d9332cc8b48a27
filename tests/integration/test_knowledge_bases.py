"""Knowledge bases beyond this workspace, against real servers: a second `graphwright serve` (a subprocess on
the test Neo4j, its own workspace and key) is a remote knowledge base through both its own API and its
Dify-compatible endpoint; a Dify dataset is the stub of tests/dify_stub.py, which follows Dify's published
shapes (graphwright was not tested against Dify itself). Keys are canaries: none may reach a result or a log."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from graphwright.errors import KnowledgeBaseConfigError
from graphwright.search.knowledge_sources import citable_id
from tests.dify_stub import DifyDatasetStub
from tests.integration.helpers import offline_settings, write_files
from tests.serve_process import start_serve
from tests.stub_openai import chat_reply, tool_call_reply

pytestmark = pytest.mark.integration

REMOTE = "kbremote"
REMOTE_KEY = "remote-canary-key-5c1e9a77d0"
DIFY_KEY = "dataset-canary-key-0b8f3e2a61"
FACT = "The Zephyr-9 tidal turbine was designed by Marta Ilves at the Tartu Marine Works in 2019."
QUESTION = "Who designed the Zephyr-9 tidal turbine?"
DIFY_DOCS = {
    "doc-ops": ("operations.txt", ["Night shifts at the Narvik depot start at 22:00.", "Badges are renewed in May."]),
    "doc-hr": ("holidays.txt", ["Staff take 25 days of holiday a year.", "Holidays are booked in the HR portal."]),
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def remote(neo4j_uri, test_password, embedder, tmp_path_factory):
    """A second graphwright server, serving workspace `kbremote` (which holds the only copy of FACT)."""
    from graphwright.api import GraphRAG

    home = tmp_path_factory.mktemp("kb-remote")
    root = GraphRAG(offline_settings(neo4j_uri, test_password, home), embedder=embedder)
    if REMOTE in root.store.workspaces.names():
        root.workspaces.delete(REMOTE, yes=True)
    root.workspaces.create(REMOTE)
    folder = write_files(home / "docs", {"zephyr.md": f"# Zephyr-9\n\n{FACT}", "tides.md": "Tides turn twice a day."})
    with root.in_workspace(REMOTE) as kb:
        kb.ingest([folder], base=folder, extractor="none")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    env |= {
        "NEO4J_URI": neo4j_uri,
        "NEO4J_PASSWORD": test_password,
        "GRAPHWRIGHT_HOME": str(home / "serve-home"),
        "GRAPHWRIGHT_API_KEYS": REMOTE_KEY,
    }
    server = start_serve(env, port, home)
    url = f"http://127.0.0.1:{port}"
    try:
        yield url
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        root.workspaces.delete(REMOTE, yes=True)
        root.close()


@pytest.fixture
def dify():
    with DifyDatasetStub(DIFY_KEY, "ds-1", DIFY_DOCS) as stub:
        yield stub


def _bases(tmp_path: Path, remote_url: str, dify_url: str) -> Path:
    path = tmp_path / "knowledge.toml"
    path.write_text(
        f"""
[[knowledge_base]]
name = "hq"
kind = "graphwright"
url = "{remote_url}"
workspace = "{REMOTE}"
key_env = "HQ_KEY"
description = "engineering notes of the head office"

[[knowledge_base]]
name = "support"
kind = "dify"
url = "{dify_url}"
dataset = "ds-1"
key_env = "SUPPORT_KEY"

[[knowledge_base]]
name = "wiki"
kind = "dify-external"
url = "{remote_url}/dify"
knowledge_id = "{REMOTE}"
key_env = "HQ_KEY"
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("HQ_KEY", REMOTE_KEY)
    monkeypatch.setenv("SUPPORT_KEY", DIFY_KEY)


def _graph(settings, embedder, **update):
    from graphwright.api import GraphRAG

    return GraphRAG(settings.updated(**update), embedder=embedder)


def _no_key_in(*texts: str) -> None:
    for text in texts:
        assert REMOTE_KEY not in text and DIFY_KEY not in text


def test_federated_fuses_this_workspace_a_second_server_and_a_dify_dataset(
    world, remote, dify, keys, settings, embedder, tmp_path, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    with _graph(settings, embedder, knowledge_bases=_bases(tmp_path, remote, dify.url)) as rag:
        result = rag.search(QUESTION, mode="federated", k=5)
        mine = rag.search("Which mine does Gamma Mining operate?", mode="federated", k=5)
    top = result.chunks[0]
    # the only copy is on the second server, found through its API and its Dify endpoint: fused, it leads
    assert "Marta Ilves" in top.text and top.knowledge_base in {"hq", "wiki"}
    assert top.score == 1.0  # first in its source; first of the firsts by its closeness to the question
    assert top.relevance is not None and top.relevance > 0.3
    label = next(c.label for c in result.citations if c.id == top.chunk_id)
    assert label is not None and label.startswith(f"{top.knowledge_base}: ")
    assert {c.knowledge_base for c in result.chunks} >= {None, top.knowledge_base}  # this workspace's too
    assert all(c.relevance is not None for c in result.chunks) and result.relevance == max(
        c.relevance for c in result.chunks
    )
    assert not result.no_answer
    assert any(n.startswith("passages found: this workspace 5, hq ") and "support" in n for n in result.notes)
    # a question this workspace answers keeps its own passage first
    assert mine.chunks[0].knowledge_base is None and "Kiruna" in mine.chunks[0].text
    # Dify's request as its API documents it, the key only in the header
    asked = dify.requests[0]
    assert asked["method"] == "POST" and asked["path"] == "/v1/datasets/ds-1/retrieve"
    assert (
        asked["body"]["query"] == QUESTION and asked["body"]["retrieval_model"]["top_k"] == 10
    )  # at least 10 asked of each source
    assert asked["headers"]["Authorization"] == f"Bearer {DIFY_KEY}"
    _no_key_in(result.model_dump_json(), mine.model_dump_json(), caplog.text)


def test_sources_down_or_hanging_are_left_out_with_a_note_in_bounded_time(
    world, dify, keys, settings, embedder, tmp_path
) -> None:
    dify.hang = 20.0
    closed = f"http://127.0.0.1:{_free_port()}"
    with _graph(settings, embedder, knowledge_bases=_bases(tmp_path, closed, dify.url), knowledge_timeout=1.0) as rag:
        started = time.monotonic()
        result = rag.search(QUESTION, mode="federated", k=3)
        elapsed = time.monotonic() - started
    assert elapsed < 15  # the hanging source is not waited for (it would take 20 s)
    assert [c.knowledge_base for c in result.chunks] == [None, None, None]
    notes = " | ".join(result.notes)
    assert f"knowledge base 'hq' is not reachable at {closed}" in notes
    assert "support: " in notes and ("no answer within 1 s" in notes or "did not answer within 1 s" in notes)
    _no_key_in(result.model_dump_json())


def test_agent_answers_from_a_second_server_citing_it_and_reads_its_document(
    world, remote, dify, keys, stub, llm_rag_factory, tmp_path
) -> None:
    hit = httpx.post(
        f"{remote}/w/{REMOTE}/v1/search",
        json={"question": QUESTION, "mode": "hybrid", "k": 1, "generate": False},
        headers={"Authorization": f"Bearer {REMOTE_KEY}"},
        timeout=60,
    ).json()["chunks"][0]
    cited = citable_id("hq", hit["chunk_id"])
    stub.script = [
        tool_call_reply(("search_hq", {"query": "Zephyr-9 turbine designer"})),
        tool_call_reply(("document_hq", {"document_id": hit["document_id"]}), ("search_support", {"query": "holiday"})),
        chat_reply(f"Marta Ilves designed the Zephyr-9 [{cited}]."),
    ]
    rag = llm_rag_factory(knowledge_bases=_bases(tmp_path, remote, dify.url))
    result = rag.search(QUESTION, mode="agent")
    tools = [t["function"]["name"] for t in stub.requests[0]["body"]["tools"]]
    assert {"search_hq", "document_hq", "search_support", "document_support", "search_wiki"} <= set(tools)
    assert "document_wiki" not in tools  # Dify's external API has no whole-document call
    assert [(s.name, s.ok) for s in result.trace] == [
        ("search_hq", True),
        ("document_hq", True),
        ("search_support", True),
    ], result.trace[1].summary
    document = [m for m in stub.requests[2]["body"]["messages"] if m["role"] == "tool"][1]["content"]
    assert "Marta Ilves" in document and '"knowledge_base": "hq"' in document
    chunk = next(c for c in result.citations if c.kind == "chunk")
    assert chunk.id == cited and chunk.label is not None and chunk.label.startswith("hq: ")
    _no_key_in(result.model_dump_json(), *(str(r) for r in stub.requests))


def test_agent_with_the_second_server_down_degrades_with_a_note(world, keys, stub, llm_rag_factory, tmp_path) -> None:
    closed = f"http://127.0.0.1:{_free_port()}"
    stub.script = [
        tool_call_reply(("search_hq", {"query": "Zephyr-9 turbine designer"})),
        chat_reply("The head office's notes could not be reached, so I do not know."),
    ]
    rag = llm_rag_factory(knowledge_bases=_bases(tmp_path, closed, closed + "/v1"), knowledge_timeout=2.0)
    started = time.monotonic()
    result = rag.search(QUESTION, mode="agent")
    assert time.monotonic() - started < 30
    assert [(s.name, s.ok) for s in result.trace] == [("search_hq", False)]
    assert "not reachable" in result.trace[0].summary
    assert any("knowledge base 'hq' is not reachable" in n and "answered without it" in n for n in result.notes)
    assert result.answer.startswith("The head office's notes could not be reached")


def test_the_document_endpoint_a_remote_reads(remote) -> None:
    auth = {"Authorization": f"Bearer {REMOTE_KEY}"}
    found = httpx.get(f"{remote}/w/{REMOTE}/v1/document", params={"id": "zephyr.md"}, headers=auth, timeout=30)
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["document_id"] == "zephyr.md" and "Marta Ilves" in " ".join(c["text"] for c in body["chunks"])
    assert httpx.get(f"{remote}/w/{REMOTE}/v1/document", params={"id": "nope.md"}, headers=auth).status_code == 404
    assert httpx.get(f"{remote}/w/{REMOTE}/v1/document", params={"id": "zephyr.md"}).status_code == 401
    # the default workspace of that server does not hold it: a workspace's documents stay in it
    assert httpx.get(f"{remote}/v1/document", params={"id": "zephyr.md"}, headers=auth).status_code == 404


def test_a_tenant_key_reaches_only_granted_sources_and_no_other_workspace(world, settings, embedder, tmp_path) -> None:
    """Sources by grant, not by kind (issue 76): a tenant reaches nothing by default; a source granted to its
    workspace; a granted source that is another workspace only if the key reads that workspace itself."""
    from graphwright.search.base import SearchQuery

    path = tmp_path / "kb.toml"
    entry = '[[knowledge_base]]\nname = "other"\nkind = "workspace"\nworkspace = "default"\n'
    path.write_text(entry, encoding="utf-8")
    question = SearchQuery(question="Gamma Mining", mode="federated", k=3)

    def used(result) -> bool:
        return "other" in " ".join(n for n in result.notes if n.startswith("passages found"))

    with _graph(settings, embedder, knowledge_bases=path) as rag:
        here = rag.workspace
        engine = rag.engine
        owner = engine.search(question)
        ungranted = engine.search(question.model_copy(update={"tenant": True, "reach": frozenset({here})}))
        path.write_text(entry + f'granted_to = ["{here}"]\n', encoding="utf-8")
        narrow = engine.search(question.model_copy(update={"tenant": True, "reach": frozenset({"elsewhere"})}))
        wide = engine.search(question.model_copy(update={"tenant": True, "reach": frozenset({"default", here})}))
    assert used(owner) and not used(ungranted) and "other" not in " ".join(ungranted.notes)
    assert not used(narrow) and any("which this key does not read" in n for n in narrow.notes)
    assert used(wide)


def test_a_broken_knowledge_base_file_is_a_clear_error(world, settings, embedder, tmp_path) -> None:
    path = tmp_path / "kb.toml"
    path.write_text('[[knowledge_base]]\nname = "hq"\nkind = "graphwright"\nurl = "http://x"\nkey = "s3cret"\n')
    with _graph(settings, embedder, knowledge_bases=path) as rag, pytest.raises(KnowledgeBaseConfigError) as caught:
        rag.search(QUESTION, mode="federated")
    assert "key_env" in str(caught.value) and "s3cret" not in str(caught.value)


def test_knowledge_check_names_each_source_and_what_is_wrong(remote, dify, cli_env, tmp_path) -> None:
    from tests.integration.helpers import run

    closed = f"http://127.0.0.1:{_free_port()}"
    path = _bases(tmp_path, remote, dify.url)
    path.write_text(
        path.read_text(encoding="utf-8")
        + f'\n[[knowledge_base]]\nname = "gone"\nkind = "graphwright"\nurl = "{closed}"\n',
        encoding="utf-8",
    )
    env = {**cli_env, "GRAPHWRIGHT_KNOWLEDGE_BASES": str(path), "HQ_KEY": REMOTE_KEY, "SUPPORT_KEY": DIFY_KEY}
    shown = run(["knowledge", "check", "--json"], env, tmp_path)
    assert shown.returncode == 1, shown.stderr  # one does not answer
    checks = {c["name"]: c for c in json.loads(shown.stdout)}
    assert [checks[n]["ok"] for n in ("hq", "support", "wiki", "gone")] == [True, True, True, False]
    assert checks["wiki"]["documents"] is False and "not reachable" in checks["gone"]["error"]
    _no_key_in(shown.stdout, shown.stderr)
    unset = run(["knowledge", "check"], cli_env, tmp_path)
    assert unset.returncode == 2 and "GRAPHWRIGHT_KNOWLEDGE_BASES" in unset.stderr
    # with no file it prints one that works with this database: saved as it is, it checks clean
    assert "[[knowledge_base]]" in unset.stdout and 'kind = "workspace"' in unset.stdout
    example = tmp_path / "example.toml"
    example.write_text(unset.stdout, encoding="utf-8")
    works = run(["knowledge", "check"], {**cli_env, "GRAPHWRIGHT_KNOWLEDGE_BASES": str(example)}, tmp_path)
    assert works.returncode == 0, works.stdout + works.stderr
    assert "1 knowledge bases" in works.stdout
