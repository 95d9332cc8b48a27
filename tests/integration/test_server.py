"""`graphwright serve` over real HTTP (uvicorn in the test process) on the real Neo4j: every endpoint, keys,
uploads good and bad, streaming, the OpenAI-compatible chat API through the real `openai` client."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from tests.documents import make_pdf
from tests.integration.conftest import READ, WRITE
from tests.live_server import canned_http, sse_events

pytestmark = pytest.mark.integration

W = {"Authorization": f"Bearer {WRITE}"}
R = {"Authorization": f"Bearer {READ}"}


def wait_job(url: str, job: dict, seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = httpx.get(f"{url}/v1/jobs/{job['id']}", headers=R).json()
    assert job["status"] in ("succeeded", "failed"), job
    return job


def assert_json_error(response: httpx.Response, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["status"] == status and body["message"] and body["type"]
    assert "Traceback" not in response.text and 'File "' not in response.text
    for word in words:
        assert word.lower() in body["message"].lower(), body["message"]


def test_open_paths_and_docs(live) -> None:
    assert httpx.get(f"{live.url}/healthz").json() == {"ok": True}  # without a key: up or down, nothing more
    health = httpx.get(f"{live.url}/healthz", headers=R)
    assert health.status_code == 200 and health.json()["neo4j"] and health.json()["indexes_online"]
    page = httpx.get(f"{live.url}/")
    assert page.status_code == 200 and "<title>graphwright</title>" in page.text
    assert httpx.get(f"{live.url}/static/app.js").status_code == 200
    assert httpx.get(f"{live.url}/docs").status_code == 200
    spec = httpx.get(f"{live.url}/openapi.json").json()
    for path in (
        "/v1/search",
        "/v1/search/stream",
        "/v1/documents",
        "/v1/jobs/{job_id}",
        "/v1/stats",
        "/v1/entities/{name}",
        "/v1/communities/build",
        "/v1/chat/completions",
        "/healthz",
    ):
        assert path in spec["paths"], path
    assert "CORS" not in str(httpx.options(f"{live.url}/v1/search").headers).upper()
    assert (
        "access-control-allow-origin"
        not in httpx.get(f"{live.url}/healthz", headers={"Origin": "http://evil.example"}).headers
    )


def test_keys_missing_wrong_and_read_only(live, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    missing = httpx.get(f"{live.url}/v1/stats")
    assert_json_error(missing, 401, "missing API key")
    assert missing.headers["www-authenticate"] == "Bearer"
    assert_json_error(httpx.get(f"{live.url}/v1/stats", headers={"Authorization": "Bearer nope"}), 401, "invalid")
    assert_json_error(httpx.get(f"{live.url}/v1/stats", headers={"Authorization": WRITE}), 401)  # no scheme
    assert_json_error(httpx.post(f"{live.url}/mcp", json={}), 401)
    assert httpx.get(f"{live.url}/v1/stats", headers=R).status_code == 200
    assert httpx.post(f"{live.url}/v1/search", json={"question": "Apollo 11"}, headers=R).status_code == 200
    before = live.rag.inspect.stats()
    assert_json_error(
        httpx.post(f"{live.url}/v1/documents", json={"documents": [{"text": "x y z"}]}, headers=R), 403, "read-only"
    )
    assert_json_error(httpx.delete(f"{live.url}/v1/documents/apollo-11.md", headers=R), 403)
    assert_json_error(httpx.post(f"{live.url}/v1/communities/build", headers=R), 403)
    assert live.rag.inspect.stats() == before
    # Keys never come back: not in errors, not in the spec, not in the log.
    assert WRITE not in httpx.get(f"{live.url}/openapi.json").text
    assert not {WRITE, READ, "nope"} & set(caplog.text.split()) and WRITE not in caplog.text


@pytest.mark.parametrize("mode", ["vector", "hybrid", "local", "path"])
def test_search_cites_ids_that_exist(live, mode: str) -> None:
    response = httpx.post(
        f"{live.url}/v1/search",
        headers=R,
        timeout=60,
        json={"question": "Which rocket launched Apollo 11 to the Moon?", "mode": mode, "k": 3},
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["mode"] == mode and result["answer"] and result["answer_kind"] == "retrieval"
    chunk_ids = [c["id"] for c in result["citations"] if c["kind"] == "chunk"]
    assert chunk_ids, result["citations"]
    assert set(live.rag.store.retrieval.chunks_by_id(chunk_ids)) == set(chunk_ids)
    assert result["browser_url"].startswith("http://127.0.0.1:") and "MATCH" in result["browser_cypher"]


def test_search_bad_input_is_a_400(live) -> None:
    url = f"{live.url}/v1/search"
    assert_json_error(httpx.post(url, headers=R, json={"question": ""}), 400, "question")
    assert_json_error(httpx.post(url, headers=R, json={"question": "   "}), 400, "question is empty")
    assert_json_error(httpx.post(url, headers=R, json={"question": "x", "mode": "telepathy"}), 400, "mode")
    assert_json_error(httpx.post(url, headers=R, json={"question": "x", "mode": "agent"}), 400, "needs an LLM")
    assert_json_error(httpx.post(url, headers=R, json={"question": "x", "k": 0}), 400, "k")
    assert_json_error(httpx.post(url, headers=R, json={"question": "x", "colour": "red"}), 400, "colour")
    assert_json_error(
        httpx.post(url, headers=R, json={"question": "x", "mode": "global", "where": ["year>=2000"]}), 400, "where"
    )
    assert_json_error(httpx.post(url, headers={**R, "content-type": "application/json"}, content=b"{not json"), 400)
    assert_json_error(httpx.post(url, headers=R, json=["a list"]), 400)
    assert_json_error(httpx.post(url, headers=R, json={"question": "x" * 3_000_000}), 413, "limit")  # not an upload
    # Hostile text is only ever a parameter: the graph is unchanged.
    before = live.rag.inspect.stats()
    hostile = "x'}) DETACH DELETE n // \" MATCH (m) DETACH DELETE m"
    assert httpx.post(url, headers=R, json={"question": hostile, "mode": "local"}).status_code == 200
    assert live.rag.inspect.stats() == before


def test_stream_sends_retrieval_then_answer_then_result(live) -> None:
    response = httpx.post(
        f"{live.url}/v1/search/stream",
        headers=R,
        timeout=60,
        json={"question": "What did the Hubble Space Telescope observe?", "mode": "hybrid"},
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    names = [name for name, _ in events]
    assert names[0] == "retrieval" and names[-1] == "result" and "token" in names, names
    retrieval, result = events[0][1], events[-1][1]
    assert retrieval["chunks"] and [c["chunk_id"] for c in retrieval["chunks"]] == [
        c["chunk_id"] for c in result["chunks"]
    ]
    assert "".join(d["text"] for n, d in events if n == "token") == result["answer"]
    assert_json_error(
        httpx.post(f"{live.url}/v1/search/stream", headers=R, json={"question": "x", "mode": "nope"}), 400, "mode"
    )


def test_upload_files_job_list_search_delete(live, tmp_path: Path) -> None:
    pdf = make_pdf(
        tmp_path / "z.pdf",
        ["The Zorblat Observatory opened in 1987 on Mount Quill.", "Its first director was Imelda Farquhar."],
    ).read_bytes()
    files = [
        ("files", ("zorblat.pdf", pdf, "application/pdf")),
        ("files", ("../../../escape/notes.md", b"# Notes\n\nPelican Array telescopes watch comets.", "text/md")),
        ("files", ("broken.pdf", b"%PDF-1.7 truncated", "application/pdf")),
        ("files", ("tool.exe", b"MZ\x00\x01", "application/octet-stream")),
    ]
    before = live.rag.inspect.stats()["documents"]
    response = httpx.post(f"{live.url}/v1/documents", headers=W, files=files, data={"extractor": "nlp"})
    assert response.status_code == 202, response.text
    job = wait_job(live.url, response.json())
    assert job["status"] == "succeeded" and job["kind"] == "ingest", job
    report = job["result"]
    assert report["documents_written"] == 2
    # Named as uploaded, never by where the server saved them.
    failed = {f["source"]: f["error"] for f in report["failures"]}
    assert set(failed) == {"broken.pdf"} and "pdf" in failed["broken.pdf"].lower()
    assert report["skipped"] == ["tool.exe"]  # a type we do not read, named
    assert str(live.rag.settings.home) not in json.dumps(job)
    assert job["progress"] and all(p["done"] <= p["total"] or p["total"] == 0 for p in job["progress"].values())
    assert not (tmp_path.parents[2] / "escape").exists()
    listed = {d["id"]: d for d in httpx.get(f"{live.url}/v1/documents?limit=1000", headers=R).json()}
    assert {"zorblat.pdf", "notes.md"} <= set(listed) and len(listed) == before + 2
    assert listed["zorblat.pdf"]["chunks"] >= 1 and listed["zorblat.pdf"]["source"] == "zorblat.pdf"
    found = httpx.post(
        f"{live.url}/v1/search",
        headers=R,
        json={"question": "Who directed the Zorblat Observatory?", "mode": "vector", "k": 1},
    ).json()
    assert found["chunks"][0]["document_id"] == "zorblat.pdf" and found["chunks"][0]["pages"]
    assert any(c["label"].startswith("zorblat.pdf p.") for c in found["citations"] if c["kind"] == "chunk")
    deleted = httpx.delete(f"{live.url}/v1/documents/zorblat.pdf", headers=W).json()
    assert deleted == {"deleted": "zorblat.pdf", "chunks": listed["zorblat.pdf"]["chunks"]}
    assert_json_error(httpx.delete(f"{live.url}/v1/documents/zorblat.pdf", headers=W), 404, "zorblat.pdf")
    assert httpx.delete(f"{live.url}/v1/documents/notes.md", headers=W).status_code == 200
    assert live.rag.inspect.stats()["documents"] == before
    # the job's files are gone, but the failed one's copy, kept for a retry until its row is deleted
    uploads = live.rag.settings.home / "uploads"
    assert [p.name for p in uploads.rglob("*") if p.is_file() and not p.name.startswith(".")] == ["broken.pdf"]
    assert httpx.delete(f"{live.url}/v1/documents/broken.pdf", headers=W).status_code == 200
    assert not any(p.is_file() for p in uploads.rglob("*"))


def test_an_upload_whose_every_file_failed_is_a_failed_job(live) -> None:
    """One empty file: the job says failed (not succeeded with the failure inside), and keeps its report."""
    response = httpx.post(f"{live.url}/v1/documents", headers=W, files=[("files", ("empty.md", b"", "text/md"))])
    assert response.status_code == 202, response.text
    job = wait_job(live.url, response.json())
    assert job["status"] == "failed" and "every file failed (1)" in job["error"], job
    assert [f["source"] for f in job["result"]["failures"]] == ["empty.md"]
    mixed = [("files", ("empty.md", b"", "text/md")), ("files", ("ok.md", b"# Ok\n\nThe Quill Array.", "text/md"))]
    partial = wait_job(live.url, httpx.post(f"{live.url}/v1/documents", headers=W, files=mixed).json())
    assert partial["status"] == "succeeded" and partial["result"]["documents_written"] == 1  # some went in
    assert httpx.delete(f"{live.url}/v1/documents/ok.md", headers=W).status_code == 200


def test_upload_json_records_and_bad_uploads(live) -> None:
    records = {
        "documents": [
            {"id": "memo-1", "title": "Memo", "text": "The Quokka Probe reached Ceres in 2031.", "year": 2031},
            {"text": "An untitled note about the Quokka Probe."},
        ]
    }
    job = wait_job(live.url, httpx.post(f"{live.url}/v1/documents", headers=W, json=records).json())
    assert job["status"] == "succeeded" and job["result"]["documents_written"] == 2
    ids = {d["id"] for d in httpx.get(f"{live.url}/v1/documents?limit=1000", headers=R).json()}
    assert "memo-1" in ids and any(i.startswith("doc-") for i in ids)
    again = wait_job(live.url, httpx.post(f"{live.url}/v1/documents", headers=W, json=records).json())
    assert again["result"]["documents_unchanged"] == 2  # same text, same ids: nothing rewritten
    before = live.rag.inspect.stats()
    assert_json_error(httpx.post(f"{live.url}/v1/documents", headers=W, json={"documents": []}), 400, "documents")
    assert_json_error(
        httpx.post(f"{live.url}/v1/documents", headers=W, json={"documents": [{"title": "x"}]}), 400, "text"
    )
    assert_json_error(
        httpx.post(
            f"{live.url}/v1/documents",
            headers=W,
            content=b"plain",
        ),
        400,
        "multipart",
    )
    assert_json_error(httpx.post(f"{live.url}/v1/documents", headers=W, files={"other": ("a.md", b"x")}), 400, "files")
    big = b"word " * 70_000  # 350 kB, above this server's 300 kB limit
    assert_json_error(httpx.post(f"{live.url}/v1/documents", headers=W, files={"files": ("big.md", big)}), 413, "limit")

    def chunked():  # no Content-Length: the limit is enforced while reading
        for _ in range(40):
            yield b"x" * 10_000

    response = httpx.post(
        f"{live.url}/v1/documents", headers={**W, "content-type": "application/json"}, content=chunked()
    )
    assert_json_error(response, 413, "limit")
    assert live.rag.inspect.stats() == before
    for doc in ("memo-1", *[i for i in ids if i.startswith("doc-")]):
        httpx.delete(f"{live.url}/v1/documents/{doc}", headers=W)


def test_entities_stats_jobs_and_communities(live) -> None:
    profile = httpx.get(f"{live.url}/v1/entities/Apollo 11", headers=R)
    assert profile.status_code == 200 and profile.json()["entity"]["name"].lower().startswith("apollo")
    assert profile.json()["relations"] or profile.json()["sources"]
    assert_json_error(httpx.get(f"{live.url}/v1/entities/Qxzzvbn Wrrpt", headers=R), 404, "no entity")
    assert_json_error(httpx.get(f"{live.url}/v1/jobs/nope", headers=R), 404, "no job")
    stats = httpx.get(f"{live.url}/v1/stats", headers=R).json()
    assert stats["counts"]["documents"] == 12 and stats["counts"]["entities"] > 0
    job = httpx.post(f"{live.url}/v1/communities/build", headers=W)
    assert job.status_code == 202
    done = wait_job(live.url, job.json())
    assert done["status"] == "succeeded" and done["kind"] == "communities"
    stats = httpx.get(f"{live.url}/v1/stats", headers=R).json()
    assert stats["community_levels"] and stats["counts"]["communities"] > 0
    answer = httpx.post(f"{live.url}/v1/search", headers=R, json={"question": "main themes", "mode": "global"}).json()
    assert any(c["kind"] == "community" for c in answer["citations"])


def test_openai_client_chats_with_the_graph(live) -> None:
    import openai

    client = openai.OpenAI(base_url=f"{live.url}/v1", api_key=READ)
    assert "graphwright-local" in [m.id for m in client.models.list().data]
    reply = client.chat.completions.create(
        model="graphwright",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Which rocket launched Apollo 11?"},
        ],
    )
    content = reply.choices[0].message.content
    assert "Sources:" in content and "Saturn V" in content
    streamed = client.chat.completions.create(
        model="graphwright-vector",
        stream=True,
        messages=[{"role": "user", "content": "Which rocket launched Apollo 11?"}],
    )
    pieces = [c.choices[0].delta.content or "" for c in streamed if c.choices]
    assert len(pieces) >= 3 and "Sources:" in "".join(pieces)
    with pytest.raises(openai.BadRequestError, match="unknown model"):
        client.chat.completions.create(model="gpt-4", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{live.url}/v1", api_key="wrong", max_retries=0).models.list()


def test_serve_refuses_a_public_address_without_keys(cli_env, monkeypatch) -> None:
    from click.testing import CliRunner

    from graphwright.cli import main

    for name, value in cli_env.items():
        monkeypatch.setenv(name, value)
    refused = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "8799"])
    assert refused.exit_code == 2 and "refusing to listen on 0.0.0.0 without API keys" in refused.output
    assert "graphwright serve --host 0.0.0.0" in CliRunner().invoke(main, ["serve", "--help"]).output


def test_public_address_needs_keys(settings) -> None:
    from graphwright.server.app import create_app
    from graphwright.server.security import ServerConfigError

    with pytest.raises(ServerConfigError, match="GRAPHWRIGHT_API_KEYS"):
        create_app(settings, host="0.0.0.0")
    create_app(settings, host="127.0.0.1")  # loopback may run open
    create_app(settings.updated(**{"api_keys": SecretStr("k")}), host="0.0.0.0")


def test_cli_query_asks_a_running_server(live, cli_env, monkeypatch) -> None:
    """`graphwright query --server` prints the server's answer; a GRAPHWRIGHT_SERVER_URL where nothing
    answers falls back to searching locally, a --server where nothing answers fails clearly."""
    from click.testing import CliRunner

    from graphwright.cli import main

    for name, value in {**cli_env, "GRAPHWRIGHT_SERVER_KEY": READ}.items():
        monkeypatch.setenv(name, value)
    runner = CliRunner()
    asked = runner.invoke(main, ["query", "Which rocket launched Apollo 11?", "--server", live.url, "--json"])
    assert asked.exit_code == 0, asked.output
    result = json.loads(asked.output)
    assert result["citations"] and result["browser_url"]
    monkeypatch.setenv("GRAPHWRIGHT_SERVER_KEY", "wrong")
    refused = runner.invoke(main, ["query", "Apollo 11", "--server", live.url])
    assert refused.exit_code != 0 and "401" in refused.output and "invalid API key" in refused.output
    bad = runner.invoke(main, ["query", "Apollo 11", "--server", live.url, "--mode", "agent"])
    assert bad.exit_code == 2  # a usage error, as when searching locally
    dead = "http://127.0.0.1:9"  # discard port: nothing listens
    failed = runner.invoke(main, ["query", "Apollo 11", "--server", dead])
    assert failed.exit_code != 0 and "no graphwright server" in failed.output
    monkeypatch.setenv("GRAPHWRIGHT_SERVER_URL", dead)
    local = runner.invoke(main, ["query", "Which rocket launched Apollo 11?", "--json"])
    assert local.exit_code == 0, local.output
    assert "searching locally" in local.output and '"citations"' in local.output


def test_cli_query_finds_the_server_running_from_its_home(live, cli_env, monkeypatch, tmp_path) -> None:
    """With no URL given, `query` asks the `graphwright serve` recorded in its home (alive), says so, and
    searches here when that record is stale or --local is given."""
    from click.testing import CliRunner

    from graphwright.cli import main
    from graphwright.server.running import announce, running_server, withdraw

    home = Path(cli_env["GRAPHWRIGHT_HOME"])
    for name, value in {**cli_env, "GRAPHWRIGHT_SERVER_KEY": READ}.items():
        monkeypatch.setenv(name, value)
    record = announce(home, int(live.url.rsplit(":", 1)[1]))  # this process stands for the server
    assert running_server(home) is None  # a server of another home (another secret) is not this home's
    shutil.copy(live.rag.settings.home / "server-secret", home / "server-secret")  # now it is
    assert running_server(home) == live.url and record.stat().st_mode & 0o077 == 0
    runner = CliRunner()
    asked = runner.invoke(main, ["query", "Which rocket launched Apollo 11?"])
    assert asked.exit_code == 0 and f"answered by the running graphwright serve at {live.url}" in asked.output
    here = runner.invoke(main, ["query", "Which rocket launched Apollo 11?", "--local"])
    assert here.exit_code == 0 and "answered by the running" not in here.output
    monkeypatch.setenv("GRAPHWRIGHT_SERVER_KEY", "wrong")  # a server that refuses: answered here instead
    refused = runner.invoke(main, ["query", "Which rocket launched Apollo 11?"])
    assert refused.exit_code == 0 and "refused" in refused.output and "searching locally" in refused.output
    withdraw(home)
    assert running_server(home) is None and not record.exists()
    record.write_text(json.dumps({"url": live.url, "pid": 2**22 + 7}), encoding="utf-8")  # no such process
    assert running_server(home) is None


def test_questions_of_any_allowed_length_and_script_search(live) -> None:
    """Lucene refuses more than 1024 clauses; a long question (10,000 characters through the library, the
    API's cap of 4,000 over HTTP, Chinese where every character is a term) is cut to its most informative
    terms instead of failing."""
    words = " ".join(f"orbit{i} telescope{i % 7}" for i in range(700))
    english = f"Who built the Hubble Space Telescope mirror? {words}"[:10_000]
    assert len(english) == 10_000
    for mode in ("hybrid", "local", "auto"):
        result = live.rag.search(english, mode=mode, k=5)
        assert result.chunks, mode
    chinese = ("哈勃太空望远镜的主镜是谁制造的？它在一九九零年发射，" * 150)[:3_990]
    mixed = ("Hubble 望远镜 mirror 镜片 " + "".join(chr(0x4E00 + i) for i in range(3_000)))[:3_990]
    for question in (chinese, mixed, english[:3_990]):
        for mode in ("hybrid", "local", "auto"):
            found = httpx.post(
                f"{live.url}/v1/search", json={"question": question, "mode": mode, "k": 5}, headers=W, timeout=120
            )
            assert found.status_code == 200, (mode, found.text[:300])


def test_a_key_goes_only_to_the_server_that_proves_it_is_the_recorded_one(tmp_path) -> None:
    """Issue 61, reproduction 8: a record whose pid is alive (reused) and whose port another process took."""
    from graphwright.server.fingerprints import server_secret
    from graphwright.server.running import running_server

    home = tmp_path / "home"
    server_secret(home)
    with canned_http(json.dumps({"proof": "0" * 64}).encode()) as (url, asked):  # it answers every request
        (home / "serving.json").write_text(json.dumps({"url": url, "pid": os.getpid()}), encoding="utf-8")
        assert running_server(home) is None
    assert len(asked) == 1 and asked[0].startswith("/v1/serving-proof?challenge=")  # asked, never sent a key


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serving_json_is_withdrawn_when_a_signal_stops_the_server(cli_env, tmp_path, signum) -> None:
    from graphwright.server.running import running_server

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = Path(cli_env["GRAPHWRIGHT_HOME"])
    server = subprocess.Popen(
        [sys.executable, "-m", "graphwright.cli", "serve", "--port", str(port), "--workers", "1"],
        env=cli_env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(600):
            if running_server(home) is not None or server.poll() is not None:
                break
            time.sleep(0.2)
        failed = server.stderr.read().decode() if server.poll() is not None and server.stderr else ""
        assert running_server(home) == f"http://127.0.0.1:{port}", failed
        for _ in range(300):  # serving: uvicorn has caught the signals
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            time.sleep(0.2)
        server.send_signal(signum)
        server.wait(60)
    finally:
        if server.poll() is None:
            server.kill()
    assert not (home / "serving.json").exists()
