"""Sources without a database: which kind a location is, how a sync names what it stages, what a web page's
version and links are, and a folder's listing (an unreadable folder is an error, never "all deleted")."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from graphwright.config import Settings
from graphwright.documents.loaders import LoadResult
from graphwright.errors import SourceError
from graphwright.models import Document, FileFailure, SourceRecord, SyncedItem
from graphwright.pipeline import Naming
from graphwright.sources.base import Item, unchanged
from graphwright.sources.folder import FolderSource
from graphwright.sources.registry import kind_of
from graphwright.sources.s3 import split_location
from graphwright.sources.web import WebSource, normalized

SETTINGS = Settings(_env_file=None)


def test_a_location_names_its_kind() -> None:
    assert [kind_of(x) for x in ("notes/", "s3://b/p", "HTTPS://x.org", "http://x", "./s3:/x")] == [
        "folder",
        "s3",
        "web",
        "web",
        "folder",
    ]
    assert split_location("s3://reports/2026/q1") == ("reports", "2026/q1")
    with pytest.raises(SourceError):
        split_location("s3:///nothing")
    assert normalized("https://x.org#top") == "https://x.org/"
    with pytest.raises(SourceError, match="not an http"):
        normalized("ftp://x.org/")


def test_naming_gives_staged_files_their_names_and_learns_their_documents() -> None:
    naming = Naming(names={"00001/page.html": "https://x.org/page", "00002/rows.json": "s3://b/rows.json"})
    one = LoadResult(
        documents=[
            Document(id="00001/page.html", source="00001/page.html", title="t", text="x", content_hash="h"),
            Document(id="00002/rows.json#1", source="00002/rows.json", title="t", text="x", content_hash="h"),
            Document(id="own-id", source="00002/rows.json", title="t", text="x", content_hash="h"),
            Document(id="notes/a.md", source="notes/a.md", title="t", text="x", content_hash="h"),
        ],
        failures=[FileFailure(source="00002/rows.json[3]", error="no text")],
    )
    naming.apply(one)
    assert [(d.id, d.source) for d in one.documents] == [
        ("https://x.org/page", "https://x.org/page"),
        ("s3://b/rows.json#1", "s3://b/rows.json"),
        ("own-id", "s3://b/rows.json"),  # a record's own id stands
        ("notes/a.md", "notes/a.md"),  # a file read in place keeps its name
    ]
    assert one.failures[0].source == "s3://b/rows.json[3]"
    assert naming.documents == {
        "https://x.org/page": ["https://x.org/page"],
        "s3://b/rows.json": ["s3://b/rows.json#1", "own-id"],
        "notes/a.md": ["notes/a.md"],
    }


def test_a_folder_lists_what_it_reads_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "deep").mkdir(parents=True)
    (notes / "a.md").write_text("a")
    (notes / "deep" / "b.txt").write_text("b")
    (notes / ".hidden.md").write_text("h")
    (notes / "c.bin").write_bytes(b"\0")
    source = FolderSource(str(notes), {"glob": None}, SETTINGS)
    listing = source.scan(None, tmp_path / "staging")
    assert [i.key for i in listing.items] == ["notes/a.md", "notes/deep/b.txt"] and listing.skipped == ["notes/c.bin"]
    record = SourceRecord(id=source.id, kind="folder", location=source.id)
    record.items["notes/a.md"] = SyncedItem(version=listing.items[0].version)
    assert unchanged(listing.items[0], record) and not unchanged(listing.items[1], record)
    assert not unchanged(Item(key="notes/a.md", version="other"), record)
    with pytest.raises(SourceError, match="no such folder"):
        FolderSource(str(tmp_path / "gone"), {}, SETTINGS).scan(None, tmp_path)


def test_a_page_is_capped_in_bytes_and_a_304_keeps_its_links(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        if request.headers.get("if-none-match") == '"v1"':
            return httpx.Response(304)
        if request.url.path == "/big":
            return httpx.Response(200, headers={"content-type": "text/html"}, content=b"x" * 5000)
        body = b'<html><a href="/big">big</a><a href="https://else.where/">off</a><a href="mailto:a@b">m</a></html>'
        return httpx.Response(200, headers={"content-type": "text/html", "etag": '"v1"'}, content=body)

    settings = SETTINGS.updated(**{"max_html_bytes": 1000})
    web = WebSource("http://site.test/", {"depth": 1}, settings, transport=httpx.MockTransport(answer))
    first = web.scan(None, tmp_path / "one")
    assert [i.key for i in first.items] == ["http://site.test/"] and first.items[0].version == 'etag "v1"'
    assert first.items[0].links == ("http://site.test/big",)
    assert [f.source for f in first.failures] == ["http://site.test/big"] and "limit" in first.failures[0].error
    record = SourceRecord(
        id=web.id,
        kind="web",
        location=web.id,
        items={"http://site.test/": SyncedItem(version='etag "v1"', links=["http://site.test/big"])},
    )
    again = web.scan(record, tmp_path / "two")
    assert again.items[0].path is None and again.items[0].links == ("http://site.test/big",)


def test_without_an_etag_a_page_is_asked_again_by_its_last_modified_time(tmp_path: Path) -> None:
    asked: list[str | None] = []
    stamp = "Tue, 01 Dec 2026 10:00:00 GMT"

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(200, text="User-agent: *\nDisallow: /private\n")
        asked.append(request.headers.get("if-modified-since"))
        if request.headers.get("if-modified-since") == stamp:
            return httpx.Response(304)
        return httpx.Response(200, headers={"content-type": "text/plain", "last-modified": stamp}, content=b"text")

    web = WebSource("http://site.test/notes.txt", {}, SETTINGS, transport=httpx.MockTransport(answer))
    first = web.scan(None, tmp_path / "one")
    assert first.items[0].version == f"modified {stamp}" and first.items[0].path is not None
    known = {web.id: SyncedItem(version=f"modified {stamp}")}
    record = SourceRecord(id=web.id, kind="web", location=web.id, items=known)
    again = web.scan(record, tmp_path / "two")
    assert asked == [None, stamp] and again.items[0].path is None
    with pytest.raises(SourceError, match="robots.txt"):
        private = WebSource("http://site.test/private/x", {}, SETTINGS, transport=httpx.MockTransport(answer))
        private.scan(None, tmp_path)
