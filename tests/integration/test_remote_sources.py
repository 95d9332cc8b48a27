"""Web pages and an S3-compatible bucket as sources, against the real Neo4j, a real local HTTP server
(robots.txt, links, caps, ETags and 304s, a sitemap) and a real local S3 server (moto's, in a subprocess;
the client is boto3, never a mock)."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from graphwright.errors import SourceError
from tests.integration.helpers import run, workspace_texts

ALPHA = "Margaret Hamilton led the team that wrote the Apollo guidance software at the MIT Instrumentation Lab."
BETA = "The Saturn V rocket carried Apollo 11 from the Kennedy Space Center in July 1969."
GAMMA = "Valentina Tereshkova flew Vostok 6 in June 1963, the first woman in space."
SECRET = "Zebulon Quartermain keeps the private ledger of the observatory."


def page(title: str, body: str, *links: str) -> str:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1><p>{body}</p>"
        f"<p>{body} This paragraph is here so the page reads as an article.</p><ul>{anchors}</ul></article>"
        "</body></html>"
    )


class Site:
    """Pages by path; every request recorded as (path, If-None-Match sent, status answered)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, str]] = {
            "/robots.txt": ("text/plain", "User-agent: *\nDisallow: /private/\n"),
            "/guide/": (
                "text/html",
                page(
                    "Guide",
                    "An index of the guide.",
                    "a.html",
                    "b.html",
                    "/private/secret.html",
                    "https://elsewhere.example/x",
                    "#top",
                    "huge.html",
                ),
            ),
            "/guide/a.html": ("text/html", page("Hamilton", ALPHA, "deep.html")),
            "/guide/b.html": ("text/html", page("Saturn", BETA)),
            "/guide/deep.html": ("text/html", page("Tereshkova", GAMMA)),
            "/guide/huge.html": ("text/html", page("Huge", "word " * 20_000)),
            "/private/secret.html": ("text/html", page("Secret", SECRET)),
        }
        self.requests: list[tuple[str, str | None, int]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                found = site.pages.get(self.path)
                if found is None:
                    return self._answer(404, b"", "text/plain")
                kind, text = found
                body = text.encode()
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    return self._answer(304, b"", kind, etag)
                return self._answer(200, body, kind, etag)

            def _answer(self, status: int, body: bytes, kind: str, etag: str | None = None) -> None:
                site.requests.append((self.path, self.headers.get("If-None-Match"), status))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                if etag:
                    self.send_header("ETag", etag)
                if status != 304:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def fetched(self) -> list[str]:
        return [path for path, _, status in self.requests if status == 200 and path != "/robots.txt"]


@pytest.fixture
def site() -> Iterator[Site]:
    served = Site()
    yield served
    served.server.shutdown()


@pytest.fixture
def web_rag(settings, embedder):
    from graphwright.api import GraphRAG

    graph = GraphRAG(settings.updated(**{"max_html_bytes": 50_000}), embedder=embedder)
    graph.store.admin.reset()
    graph.init()
    yield graph
    graph.close()


def documents(rag) -> set[str]:
    return {row["id"] for row in rag.store.read("MATCH (d:Document) RETURN d.id AS id")}


def test_a_site_is_read_to_its_depth_within_robots_and_caps_then_resynced_by_etag(web_rag, site: Site) -> None:
    guide = site.url + "/guide/"
    first = web_rag.sync(guide, depth=1)
    a, b, deep, huge = (f"{guide}{name}" for name in ("a.html", "b.html", "deep.html", "huge.html"))
    assert sorted(first.added) == sorted([guide, a, b])
    assert [f.source for f in first.failures] == [huge] and "limit" in first.failures[0].error
    assert any("private/secret.html (robots.txt)" in s for s in first.skipped)
    assert "/private/secret.html" not in [p for p, _, _ in site.requests], "robots.txt is obeyed"
    assert deep not in documents(web_rag), "depth 1 stops one click away"
    assert documents(web_rag) == {guide, a, b}
    result = web_rag.search("Who wrote the Apollo guidance software?", mode="hybrid", k=3)
    assert result.chunks[0].document_id == a and result.chunks[0].source == a
    assert SECRET.split()[1] not in str(web_rag.store.read("MATCH (c:Chunk) RETURN c.text AS t"))

    site.requests.clear()
    again = web_rag.sync(guide)  # the remembered depth
    assert (again.added, again.changed, again.removed) == ([], [], []) and again.ingest is None
    asked = {path: tag for path, tag, status in site.requests if status == 304}
    assert set(asked) == {"/guide/", "/guide/a.html", "/guide/b.html"}, "each known page asked with its ETag"
    assert all(asked.values())

    site.pages["/guide/b.html"] = ("text/html", page("Saturn", "The Saturn V first flew on Apollo 4 in 1967."))
    del site.pages["/guide/a.html"]
    third = web_rag.sync(guide)
    assert third.changed == [b] and third.removed == [a]
    assert documents(web_rag) == {guide, b}
    stored = str(web_rag.store.read("MATCH (c:Chunk) RETURN c.text AS t"))
    assert "Kennedy Space Center" not in stored and "Instrumentation Lab" not in stored
    assert web_rag.sources()[0].options == {"depth": 1, "max_pages": 100}


def test_page_count_cap_sitemap_and_an_unreachable_site(web_rag, site: Site) -> None:
    capped = web_rag.sync(site.url + "/guide/", depth=3, max_pages=2)
    assert len(capped.added) == 2 and any("past max_pages 2" in s for s in capped.skipped)

    site.pages["/sitemap.xml"] = (
        "application/xml",
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site.url}/guide/deep.html</loc></url><url><loc>{site.url}/guide/b.html</loc></url>"
        "<url><loc>https://elsewhere.example/off-site</loc></url></urlset>",
    )
    listed = web_rag.sync(site.url + "/sitemap.xml")
    assert sorted(listed.added) == sorted([f"{site.url}/guide/deep.html", f"{site.url}/guide/b.html"])

    site.server.shutdown()
    site.server.server_close()
    kept = documents(web_rag)
    with pytest.raises(SourceError, match="no answer"):
        web_rag.sync(site.url + "/sitemap.xml")
    assert documents(web_rag) == kept, "a site that does not answer deletes nothing"


def test_ingest_url_from_the_cli(rag, site: Site, cli_env: dict[str, str], tmp_path: Path) -> None:
    env = {**cli_env, "GRAPHWRIGHT_MAX_HTML_BYTES": "50000"}
    done = run(["ingest", site.url + "/guide/", "--depth", "1", "--extractor", "none"], env, tmp_path)
    assert done.returncode == 1, done.stderr  # the huge page failed, by name
    assert "3 added" in done.stdout and "huge.html" in done.stdout
    listed = run(["sources"], env, tmp_path)
    assert listed.returncode == 0 and "127.0.0.1" in listed.stdout and "web" in listed.stdout
    question = "Who led the team that wrote the Apollo guidance software?"
    asked = run(["query", question, "--local", "--json"], env, tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["chunks"][0]["source"] == site.url + "/guide/a.html"


# --- an S3-compatible bucket: moto's server, a real HTTP endpoint on loopback ------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def s3_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    pytest.importorskip("boto3")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    for name, value in {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing-secret-canary",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    yield endpoint
    server.terminate()
    server.wait(10)


def test_a_bucket_is_kept_in_step_by_etag(rag, s3_endpoint: str) -> None:
    import boto3

    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="reports")
    s3.put_object(Bucket="reports", Key="2026/alpha.md", Body=f"# Hamilton\n\n{ALPHA}\n".encode())
    s3.put_object(Bucket="reports", Key="2026/beta.txt", Body=BETA.encode())
    s3.put_object(Bucket="reports", Key="2026/photo.jpg", Body=b"\xff\xd8\xff")
    s3.put_object(Bucket="reports", Key="2025/old.txt", Body=GAMMA.encode())

    first = rag.sync("s3://reports/2026/")
    assert sorted(first.added) == ["s3://reports/2026/alpha.md", "s3://reports/2026/beta.txt"]
    assert first.skipped == ["s3://reports/2026/photo.jpg"]
    assert documents(rag) == {"s3://reports/2026/alpha.md", "s3://reports/2026/beta.txt"}
    hit = rag.search("Who wrote the Apollo guidance software?", mode="hybrid", k=1).chunks[0]
    assert hit.source == "s3://reports/2026/alpha.md"

    again = rag.sync("s3://reports/2026/")
    assert again.unchanged == 2 and again.ingest is None

    s3.put_object(Bucket="reports", Key="2026/beta.txt", Body=b"The Saturn V first flew on Apollo 4 in 1967.")
    s3.delete_object(Bucket="reports", Key="2026/alpha.md")
    third = rag.sync("s3://reports/2026/")
    assert third.changed == ["s3://reports/2026/beta.txt"] and third.removed == ["s3://reports/2026/alpha.md"]
    stored = workspace_texts(rag)
    assert "Instrumentation Lab" not in stored and "Kennedy Space Center" not in stored

    with pytest.raises(SourceError) as refused:
        rag.sync("s3://no-such-bucket/")
    assert "NoSuchBucket" in str(refused.value) and "canary" not in str(refused.value)
