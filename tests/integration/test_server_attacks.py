"""`graphwright serve` under hostile requests (issue 25), each over real HTTP against the real Neo4j: a web page
driving a keyless loopback server (cross-site posts, DNS rebinding), a costly answer graph, zip bombs and other
crafted files, a flooded job queue, leftover upload folders, big JSON bodies, long questions, a leaky health
check, a redirect that would carry the key away, and upload names that collided."""

from __future__ import annotations

import http.server
import json
import threading
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.documents import make_docx
from tests.integration.helpers import offline_settings
from tests.live_server import LiveServer

pytestmark = pytest.mark.integration

EVIL = "http://evil.example"
DOCS = {
    "ada.md": "# Ada Lovelace\n\nAda Lovelace wrote the first program for the Analytical Engine of Charles Babbage.",
    "grace.md": "# Grace Hopper\n\nGrace Hopper built the first compiler at Remington Rand in 1952.",
}


def wait_job(url: str, job: dict, headers: dict | None = None, seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while job["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = httpx.get(f"{url}/v1/jobs/{job['id']}", headers=headers or {}).json()
    assert job["status"] in ("succeeded", "failed"), job
    return job


def _error(response: httpx.Response, status: int, *words: str) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]["message"]
    for word in words:
        assert word.lower() in message.lower(), message
    return message


@pytest.fixture(scope="module")
def open_server(neo4j_uri, test_password, embedder, tmp_path_factory):
    """A keyless server on loopback (the default `graphwright serve`) over two small documents."""
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    home = tmp_path_factory.mktemp("open-serve")
    corpus = home / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    settings = offline_settings(
        neo4j_uri,
        test_password,
        home,
        max_upload_bytes=5_000_000,
        max_unpacked_bytes=20 * 1024 * 1024,
        max_json_bytes=200_000,
        max_queued_jobs_per_workspace=8,  # the queue test fills the whole queue from one workspace
    )
    rag = GraphRAG(settings, embedder=embedder)
    rag.store.admin.reset()
    rag.init()
    rag.ingest([corpus], base=corpus, extractor="nlp")
    app = create_app(settings, rag)
    with LiveServer(app) as server:
        server.rag, server.app, server.settings = rag, app, settings
        yield server
    rag.close()


# --- a web page the user visits ------------------------------------------------------------------------
def test_a_cross_site_page_cannot_upload_build_or_delete(open_server) -> None:
    url, rag = open_server.url, open_server.rag
    before = rag.inspect.stats()
    # What a <form method=post enctype=multipart/form-data> on another site sends: no preflight, an Origin.
    upload = httpx.post(
        f"{url}/v1/documents",
        headers={"Origin": EVIL},
        files={"files": ("planted.md", b"# Planted\n\nThe attacker planted this text.")},
    )
    _error(upload, 403, "cross-origin")
    _error(httpx.post(f"{url}/v1/communities/build", headers={"Origin": EVIL}), 403, "cross-origin")
    _error(httpx.delete(f"{url}/v1/documents/ada.md", headers={"Origin": "null"}), 403)
    _error(httpx.post(f"{url}/v1/search", json={"question": "Ada"}, headers={"Sec-Fetch-Site": "cross-site"}), 403)
    time.sleep(0.5)
    assert rag.inspect.stats() == before
    # The server's own page (same origin) and clients that send no Origin (curl, SDKs) still work.
    own = httpx.post(f"{url}/v1/search", json={"question": "Who wrote the first program?"}, headers={"Origin": url})
    assert own.status_code == 200 and own.json()["chunks"]
    assert httpx.post(f"{url}/v1/search", json={"question": "compiler"}).status_code == 200


def test_dns_rebinding_gets_nothing(open_server) -> None:
    """A page at evil.example whose name now resolves to 127.0.0.1: the browser sends Host: evil.example."""
    url, rag = open_server.url, open_server.rag
    before = rag.inspect.stats()
    host = {"Host": f"evil.example:{open_server.port}"}
    for response in (
        httpx.get(f"{url}/v1/stats", headers=host),
        httpx.get(f"{url}/v1/documents", headers=host),
        httpx.delete(f"{url}/v1/documents/ada.md", headers=host),
        httpx.post(f"{url}/v1/search", json={"question": "Ada"}, headers=host),
        httpx.post(f"{url}/mcp", json={}, headers=host),
    ):
        _error(response, 400, "does not answer for the host")
        assert "Ada" not in response.text
    assert rag.inspect.stats() == before
    for name in ("localhost", "127.0.0.1"):
        assert httpx.get(f"{url}/v1/stats", headers={"Host": f"{name}:{open_server.port}"}).status_code == 200


def test_configured_hosts_and_origins_are_answered(settings) -> None:
    from graphwright.server.security import HostPolicy

    policy = HostPolicy.build("127.0.0.1", "graph.internal", "https://app.example", keyed=False)
    assert policy.host_refusal("graph.internal:8000") is None and policy.host_refusal("[::1]:8000") is None
    assert policy.host_refusal("evil.example") and policy.host_refusal(None)
    assert policy.origin_refusal("POST", {"origin": "https://app.example", "host": "x"}) is None
    assert policy.origin_refusal("POST", {"origin": "http://127.0.0.1:8000", "host": "127.0.0.1:8000"}) is None
    assert policy.origin_refusal("POST", {"origin": "http://127.0.0.1:9999", "host": "127.0.0.1:8000"})
    assert policy.origin_refusal("GET", {"origin": EVIL, "host": "127.0.0.1:8000"}) is None
    keyed = HostPolicy.build("0.0.0.0", "", "", keyed=True)  # behind a proxy: the key is the lock
    assert keyed.host_refusal("graph.example.com") is None
    assert HostPolicy.build("0.0.0.0", "graph.example.com", "", keyed=True).host_refusal("other.example")


# --- costly requests -----------------------------------------------------------------------------------
def _big_result(relations: int, paths: int) -> dict:
    names = [f"Entity {i}" for i in range(200)]
    return {
        "question": "q",
        "mode": "path",
        "answer": "a",
        "answer_kind": "retrieval",
        "relations": [
            {
                "source_id": f"e{i % 200}",
                "source": names[i % 200],
                "type": "LINKS",
                "target_id": f"e{(i + 1) % 200}",
                "target": names[(i + 1) % 200],
            }
            for i in range(relations)
        ],
        "graph_paths": [" -[LINKS]-> ".join(names[j % 200] for j in range(i, i + 20)) for i in range(paths)],
    }


def test_answer_graph_input_is_bounded(open_server) -> None:
    url = open_server.url
    body = json.dumps(_big_result(9000, 1500))
    assert len(body) > 1_000_000  # about the 2 MiB a request may hold
    _error(
        httpx.post(f"{url}/v1/answer-graph", content=body, headers={"Content-Type": "application/json"}, timeout=60),
        400,
        "relations",
    )
    most = httpx.post(f"{url}/v1/answer-graph", json=_big_result(2000, 200), timeout=60)
    assert most.status_code == 200 and most.text.count('stroke="#d62728"') > 0  # path edges highlighted


def test_questions_are_capped_on_every_way_in(open_server) -> None:
    url = open_server.url
    long = "Who wrote the first program? " * 200  # 5,800 characters
    _error(httpx.post(f"{url}/v1/search", json={"question": long}), 400, "question")
    _error(
        httpx.post(f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": long}]}),
        400,
        "above the limit of 4000",
    )
    _error(
        httpx.post(
            f"{url}/v1/chat/completions", json={"stream": True, "messages": [{"role": "user", "content": long}]}
        ),
        400,
    )
    page = httpx.get(f"{url}/").text
    assert 'maxlength="4000"' in page
    from graphwright.documents.file_types import supported_suffixes

    assert f'accept="{",".join(supported_suffixes())}"' in page  # the loaders' table, not a copy


# --- crafted files -------------------------------------------------------------------------------------
def _zip_bomb_docx(path: Path, inflated: int) -> Path:
    """A real Word file with one more part: `inflated` zero bytes that pack to a few KB."""
    make_docx(path, [("h1", "Quarterly report"), ("p", "Nothing to see here.")])
    with (
        zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("word/media/padding.bin", "w", force_zip64=True) as part,
    ):
        block = bytes(1024 * 1024)
        for _ in range(inflated // len(block)):
            part.write(block)
    return path


def test_a_zip_bomb_upload_fails_by_name_and_loses_nothing(open_server, tmp_path: Path) -> None:
    url, rag = open_server.url, open_server.rag
    bomb = _zip_bomb_docx(tmp_path / "report.docx", 40 * 1024 * 1024)  # 40 MiB inflated, above the 20 of the test
    assert bomb.stat().st_size < 200_000
    good = b"# Katherine Johnson\n\nKatherine Johnson computed the trajectory of Freedom 7 in 1961."
    response = httpx.post(
        f"{url}/v1/documents", files=[("files", ("report.docx", bomb.read_bytes())), ("files", ("katherine.md", good))]
    )
    assert response.status_code == 202, response.text
    report = wait_job(url, response.json())["result"]
    failures = {f["source"]: f["error"] for f in report["failures"]}
    assert "zip bomb" in failures["report.docx"] and "GRAPHWRIGHT_MAX_UNPACKED_BYTES" in failures["report.docx"]
    assert "katherine.md" in {d.id for d in rag.inspect.documents(0, 100)}


def test_word_pdf_and_html_limits_are_named_failures(tmp_path: Path) -> None:
    from graphwright.documents.formats import FileLimits, FormatError, read_docx, read_html, read_pdf
    from tests.documents import make_pdf

    ratio = _zip_bomb_docx(tmp_path / "ratio.docx", 12 * 1024 * 1024)  # under the total, far above the ratio
    with pytest.raises(FormatError, match="MAX_UNPACK_RATIO"):
        read_docx(ratio.read_bytes(), FileLimits())
    with pytest.raises(FormatError, match="MAX_UNPACKED_BYTES"):
        read_docx(ratio.read_bytes(), FileLimits(max_unpacked_bytes=5 * 1024 * 1024))
    pdf = make_pdf(tmp_path / "long.pdf", [f"Page {i} of a long report." for i in range(6)]).read_bytes()
    assert len(read_pdf(pdf, FileLimits(max_pdf_pages=6)).parts) == 6
    with pytest.raises(FormatError, match="6 pages, above the limit of 5"):
        read_pdf(pdf, FileLimits(max_pdf_pages=5))
    with pytest.raises(FormatError, match="MAX_PDF_SECONDS"):
        read_pdf(pdf, FileLimits(max_pdf_seconds=1e-9))
    page = "<html><body><article><p>" + "Ada Lovelace wrote programs. " * 2000 + "</p></article></body></html>"
    assert read_html(page, FileLimits()).parts
    with pytest.raises(FormatError, match="MAX_HTML_BYTES"):
        read_html(page, FileLimits(max_html_bytes=10_000))


# --- the job queue and upload folders ------------------------------------------------------------------
def test_a_full_job_queue_answers_429_with_retry_after(open_server) -> None:
    url, server = open_server.url, open_server.app.state.server
    limit = server.settings.max_queued_jobs
    accepted = []
    with server.jobs.write_lock("default"):  # the running job waits for the lock: the queue fills behind it
        for i in range(limit):
            response = httpx.post(f"{url}/v1/documents", json={"documents": [{"id": f"q{i}", "text": f"Queue {i}."}]})
            assert response.status_code == 202, response.text
            accepted.append(response.json())
        refused = httpx.post(f"{url}/v1/documents", json={"documents": [{"id": "one-more", "text": "Too many."}]})
        _error(refused, 429, "GRAPHWRIGHT_MAX_QUEUED_JOBS")
        assert int(refused.headers["Retry-After"]) > 0
        assert len(list(server.uploads.iterdir())) == limit  # the refused upload left no folder
    for job in accepted:
        assert wait_job(url, job)["status"] == "succeeded"
    assert httpx.post(f"{url}/v1/documents", json={"documents": [{"id": "later", "text": "Later."}]}).status_code == 202


def test_upload_folders_are_swept_at_start_and_shutdown(settings, embedder) -> None:
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    uploads = settings.home / "uploads"
    for name in ("server-999999", "1a2b3c4d-legacy"):  # a crashed server's folder, an older version's
        (uploads / name / "job").mkdir(parents=True)
        (uploads / name / "job" / "left.md").write_text("left behind", encoding="utf-8")
    rag = GraphRAG(settings, embedder=embedder)
    app = create_app(settings, rag)
    with LiveServer(app) as live:
        assert sorted(p.name for p in uploads.iterdir()) == []
        server = app.state.server
        server.new_upload_folder()  # a job's folder that shutdown must take
        assert list(uploads.iterdir()) == [server.uploads]
        assert httpx.get(f"{live.url}/healthz").status_code == 200
    assert list(uploads.iterdir()) == []
    rag.close()


# --- bodies --------------------------------------------------------------------------------------------
def test_ndjson_records_stream_and_big_json_is_refused(open_server) -> None:
    url, rag = open_server.url, open_server.rag
    lines = "\n".join(
        json.dumps({"id": f"nd-{i}", "title": f"Record {i}", "text": f"Streamed record {i} about Ada Lovelace."})
        for i in range(50)
    )

    def chunks():
        for i in range(0, len(lines), 700):  # arrives in pieces that cut records in the middle
            yield lines[i : i + 700].encode()

    response = httpx.post(
        f"{url}/v1/documents?extractor=none", content=chunks(), headers={"Content-Type": "application/x-ndjson"}
    )
    assert response.status_code == 202, response.text
    report = wait_job(url, response.json())["result"]
    assert report["documents_written"] == 50, report
    assert {f"nd-{i}" for i in range(50)} <= {d.id for d in rag.inspect.documents(0, 1000)}
    bad = httpx.post(
        f"{url}/v1/documents",
        content=b'{"id": "a", "text": "fine"}\n{"id": "b"}\n',
        headers={"Content-Type": "application/x-ndjson"},
    )
    _error(bad, 400, "record 2", "text")
    big = {"documents": [{"text": "x" * 1000} for _ in range(300)]}  # 300 kB, above the 200 kB of the test
    _error(httpx.post(f"{url}/v1/documents", json=big), 413, "x-ndjson")


# --- leaks ---------------------------------------------------------------------------------------------
def test_health_says_only_up_or_down_without_a_key(settings, embedder) -> None:
    from graphwright.api import GraphRAG
    from graphwright.server.app import create_app

    down = settings.updated(
        **{
            "neo4j_uri": "bolt://127.0.0.1:1",
            "neo4j_retry_seconds": 0.0,
            "api_keys": __import__("pydantic").SecretStr("health-key-123"),
        }
    )
    rag = GraphRAG(down, embedder=embedder)
    with LiveServer(create_app(down, rag)) as live:
        anonymous = httpx.get(f"{live.url}/healthz")
        assert anonymous.status_code == 503 and anonymous.json() == {"ok": False}
        assert "bolt" not in anonymous.text and "127.0.0.1:1" not in anonymous.text
        detailed = httpx.get(f"{live.url}/healthz", headers={"Authorization": "Bearer health-key-123"})
        assert detailed.status_code == 503 and "not reachable" in detailed.json()["detail"]
    rag.close()


class _Recorder(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self._record()

    def do_GET(self) -> None:
        self._record()

    def _record(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Authorization")))  # type: ignore[attr-defined]
        target = self.server.redirect_to  # type: ignore[attr-defined]
        if target and not self.path.startswith("/landed"):
            self.send_response(302)
            self.send_header("Location", target)
            self.end_headers()
            return
        body = b'{"error": {"message": "landed", "type": "x", "status": 404}}'
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _recorder(redirect_to: str | None) -> http.server.HTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen, server.redirect_to = [], redirect_to  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_cli_client_keeps_the_key_at_home_on_a_redirect() -> None:
    from graphwright.server.client import ServerRefusedError, search_remote

    elsewhere = _recorder(None)
    other = f"http://127.0.0.1:{elsewhere.server_address[1]}/landed"
    proxy = _recorder(other)
    with pytest.raises(ServerRefusedError, match="landed"):
        search_remote(f"http://127.0.0.1:{proxy.server_address[1]}", {"question": "q"}, key="secret-key-456")
    assert proxy.seen == [("/v1/search", "Bearer secret-key-456")]
    assert elsewhere.seen == [("/landed", None)]  # another port is another origin: no key
    same = _recorder(None)
    same.redirect_to = f"http://127.0.0.1:{same.server_address[1]}/landed"  # type: ignore[attr-defined]
    with pytest.raises(ServerRefusedError):
        search_remote(f"http://127.0.0.1:{same.server_address[1]}", {"question": "q"}, key="secret-key-456")
    assert same.seen[-1] == ("/landed", "Bearer secret-key-456")  # the same origin keeps it
    for server in (elsewhere, proxy, same):
        server.shutdown()
        server.server_close()


# --- upload names --------------------------------------------------------------------------------------
def test_upload_names_keep_their_extension_and_never_collide(open_server) -> None:
    url, rag = open_server.url, open_server.rag
    for name, text in (
        ("名前.md", "# 名前\n\nThe first note about Ada Lovelace."),
        ("a?.md", "# Question\n\nA note with a question mark in its name."),
        ("a!.md", "# Bang\n\nA note with an exclamation mark in its name."),
    ):
        response = httpx.post(f"{url}/v1/documents", files={"files": (name, text.encode())})
        report = wait_job(url, response.json())["result"]
        assert report["documents_written"] == 1 and not report["skipped"], (name, report)
    ids = {d.id for d in rag.inspect.documents(0, 1000)}
    assert {"名前.md", "a%3F.md", "a!.md"} <= ids
    twice = httpx.post(
        f"{url}/v1/documents",
        files=[("files", ("same.md", b"# One\n\nFirst.")), ("files", ("same.md", b"# Two\n\nSecond."))],
    )
    _error(twice, 400, "named 'same.md'")


def test_safe_upload_names_are_one_to_one() -> None:
    from graphwright.server.uploads import safe_upload_name

    names = [
        "a?.md",
        "a!.md",
        "a_.md",
        "a%3F.md",
        "../../etc/passwd",
        "..",
        ".env",
        "名前.md",
        "x" * 400 + ".pdf",
        "C:\\Users\\me\\report.docx",
        "line\nbreak.txt",
        "",
        "   ",
    ]
    saved = [safe_upload_name(n, i) for i, n in enumerate(names)]
    assert len(set(saved)) == len(saved), saved
    assert saved[0] == "a%3F.md" and saved[1] == "a!.md" and saved[7] == "名前.md"
    assert saved[8].endswith(".pdf") and len(saved[8].encode()) <= 200
    assert saved[9] == "report.docx" and saved[4] == "passwd" and not saved[5].startswith(".")
    assert all("/" not in s and "\\" not in s and "\n" not in s and not s.startswith(".") for s in saved)
