"""Read-only paths run in READ transactions (the server itself refuses writes there), and secrets never
reach output, logs or files. Parameters-only Cypher is fuzzed in test_fuzz.py; loopback and auth of the
local server are in test_local_server.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j.exceptions import ClientError

from graphwright.errors import QueryRejectedError
from tests.integration.helpers import run

pytestmark = pytest.mark.integration


def test_read_transactions_refuse_writes_at_the_server(rag) -> None:
    with pytest.raises(QueryRejectedError, match="read access mode") as refused:
        rag.store.read("CREATE (:Intruder) RETURN 1")
    assert isinstance(refused.value.__cause__, ClientError)  # the server's own refusal
    with pytest.raises(QueryRejectedError, match="read access mode"):  # the read-only gate's transaction
        rag.store.connection.read_once(lambda tx: list(tx.run("MERGE (:Intruder {id: 1}) RETURN 1")), 5.0)
    assert rag.store.read("MATCH (n:Intruder) RETURN count(n) AS n") == [{"n": 0}]


def test_every_offline_read_path_works_without_write_access(world, monkeypatch) -> None:
    """With every write entry point of the store disabled, search, inspection and checks still work: they
    read only, through READ transactions."""

    def forbidden(*args, **kwargs):
        raise AssertionError("a read path tried to write")

    # every way the store can write: the connection's write paths and each role's writing methods
    for role, name in (
        ("connection", "write"),
        ("connection", "execute_write"),
        ("writes", "write_documents"),
        ("writes", "write_graph"),
        ("writes", "delete_document"),
        ("writes", "stage_chunks"),
        ("writes", "commit_staged"),
        ("writes", "clear_staged"),
        ("communities", "write_communities"),
        ("admin", "reset"),
        ("admin", "ensure_schema"),
        ("admin", "set_graph_schema"),
    ):
        monkeypatch.setattr(getattr(world.store, role), name, forbidden)
    questions = {
        "vector": "Who supplies Acme Corp?",
        "hybrid": "Who supplies Acme Corp?",
        "local": "What does Gamma Mining operate?",
        "global": "What are the main themes?",
        "path": "How is Falcon Ventures connected to Acme Corp?",
        "auto": "Who supplies Acme Corp?",
    }
    for mode, question in questions.items():
        result = world.search(question, mode=mode, k=3)
        assert result.chunks or result.communities, mode
    assert world.inspect.graph().counts["entities"] > 0
    assert world.inspect.entity("Acme Corp") is not None
    assert world.inspect.check() == {}
    assert world.inspect.stats()["documents"] > 0


def test_secrets_never_reach_output_logs_or_files(rag, stub, cli_env, test_password: str, tmp_path: Path) -> None:
    api_key = "sk-live-0123456789-do-not-print"
    env = {
        **cli_env,
        "OPENAI_BASE_URL": stub.base_url,
        "GRAPHWRIGHT_LLM_PROBE": "false",
        "OPENAI_API_KEY": api_key,
        "GRAPHWRIGHT_LLM_MODEL": "m",
        "GRAPHWRIGHT_LLM_MAX_RETRIES": "0",
    }
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("Ada Lovelace wrote programs for the Analytical Engine.", encoding="utf-8")
    outputs = [
        run(["ingest", str(folder), "--extractor", "llm"], env, tmp_path),  # the LLM fails: errors are printed
        run(["query", "Who wrote programs?", "--mode", "hybrid", "--verbose"], env, tmp_path),
        run(["stats"], {**env, "NEO4J_PASSWORD": "wrong-" + test_password}, tmp_path),  # refused credentials
        run(["stats"], {**env, "NEO4J_URI": "bolt://127.0.0.1:7999"}, tmp_path),  # not running
        run(["browser"], env, tmp_path),
        run(["db", "status"], env, tmp_path),
    ]
    assert stub.requests and stub.requests[0]["auth"] == f"Bearer {api_key}"  # it was used, only on the wire
    for out in outputs:
        text = out.stdout + out.stderr
        assert api_key not in text and test_password not in text, text[-500:]
    for path in Path(env["GRAPHWRIGHT_HOME"]).rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert api_key.encode() not in content and test_password.encode() not in content, path
    from graphwright.config import Settings
    from tests.conftest import ROOT

    # The local server is given the password through its environment; its files and logs never hold it.
    for path in (ROOT / ".graphwright" / "test-neo4j").glob("*/*"):
        if path.is_file() and path.stat().st_size < 50_000_000:
            assert test_password.encode() not in path.read_bytes(), path
    settings = Settings(neo4j_password=test_password, openai_api_key=api_key, _env_file=None)
    assert test_password not in repr(settings) + str(settings.model_dump())
    assert api_key not in repr(settings) + str(settings.model_dump())
