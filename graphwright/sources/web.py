"""A web page, or a site from it: the page (`depth` 0), and same-site links up to `depth` clicks away, or
the pages a sitemap lists. robots.txt is obeyed (for our user agent), every response is capped in bytes and
time, at most `max_pages` pages are fetched, and a re-sync asks with If-None-Match / If-Modified-Since, so a
page that did not change costs a 304 and no reading."""

from __future__ import annotations

import hashlib
import time
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.robotparser import RobotFileParser
from xml.etree import ElementTree

from graphwright.config import Settings
from graphwright.documents.file_types import LOADERS
from graphwright.errors import SourceError
from graphwright.models import FileFailure, SourceRecord
from graphwright.sources.base import Item, Listing
from graphwright.sources.staging import staged_path

if TYPE_CHECKING:
    import httpx


USER_AGENT = "graphwright-sync"
# What a response's type reads as; a type not here is read by the URL's suffix, when it has one we read.
_TYPES = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "application/json": ".json",
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}
_SITEMAP_TYPES = {"application/xml", "text/xml"}
_GONE = {404, 410}  # the page is gone: its documents go; any other failure keeps what the last sync read
_MAX_REDIRECTS = 5
_MAX_SITEMAPS = 20


def normalized(url: str) -> str:
    """A URL as a record knows it: no fragment, a path at least `/`."""
    url = urldefrag(url.strip())[0]
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise SourceError(f"{url[:200]!r} is not an http(s) URL")
    return url if parts.path else url + "/"


class WebSource:
    kind = "web"

    def __init__(
        self, location: str, options: dict[str, Any], settings: Settings, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.id = self.location = normalized(location)
        self.depth = int(options.get("depth") or 0)
        self.max_pages = int(options.get("max_pages") or settings.sync_max_pages)
        self.options = {"depth": self.depth, "max_pages": self.max_pages}
        self.max_bytes = min(settings.max_file_bytes, settings.max_html_bytes)
        self.seconds = settings.sync_http_seconds
        self.transport = transport  # tests inject one; the default is the network
        self._robots: dict[str, RobotFileParser] = {}

    def scan(self, previous: SourceRecord | None, staging: Path) -> Listing:
        import httpx

        listing = Listing(base=staging)
        with httpx.Client(
            timeout=self.seconds,
            follow_redirects=True,
            max_redirects=_MAX_REDIRECTS,
            headers={"User-Agent": USER_AGENT},
            transport=self.transport,
        ) as client:
            start = self._first(client, previous, staging, listing)
            queue: deque[tuple[str, int]] = deque((url, 0) for url in start)
            seen = set(start)
            while queue:
                url, depth = queue.popleft()
                if len(listing.items) + len(listing.kept) >= self.max_pages:
                    rest = [url, *(u for u, _ in queue)]
                    listing.skipped.extend(f"{u} (past max_pages {self.max_pages})" for u in rest)
                    break
                item = self._page(client, url, depth, previous, staging, listing)
                if item is None:
                    continue
                listing.items.append(item)
                if depth < self.depth:
                    for link in item.links:
                        if link not in seen:
                            seen.add(link)
                            queue.append((link, depth + 1))
        return listing

    def _first(self, client: httpx.Client, previous: SourceRecord | None, staging: Path, listing: Listing) -> list[str]:
        """The pages to start from: the URL itself, or what it lists when it is a sitemap. The start URL
        failing to answer at all fails the sync (nothing is taken for deleted)."""
        if not self._allowed(client, self.location):
            raise SourceError(f"{self.location}: robots.txt does not allow {USER_AGENT} to read it")
        if not urlsplit(self.location).path.lower().endswith(".xml"):
            return [self.location]
        pages: list[str] = []
        sitemaps, read = deque([self.location]), 0
        while sitemaps and read < _MAX_SITEMAPS:
            url = sitemaps.popleft()
            read += 1
            body = self._get(client, url)
            try:  # expat: no external entities, and entity expansion bounded (Python >= 3.11.4)
                root = ElementTree.fromstring(body)
            except ElementTree.ParseError as exc:
                raise SourceError(f"{url}: not a sitemap ({exc})") from exc
            locs = [str(e.text).strip() for e in root.iter() if str(e.tag).endswith("loc") and e.text]
            if str(root.tag).endswith("sitemapindex"):
                sitemaps.extend(locs)
            else:
                pages.extend(self._same_site(locs))
        return list(dict.fromkeys(pages))

    def _get(self, client: httpx.Client, url: str) -> bytes:
        """A sitemap's body; any failure fails the sync (a sitemap that cannot be read lists nothing)."""
        import httpx

        try:
            with client.stream("GET", url) as response:
                if response.status_code >= 400:
                    raise SourceError(f"{url}: HTTP {response.status_code}")
                return _capped(response, self.max_bytes, time.monotonic() + self.seconds)
        except httpx.HTTPError as exc:
            raise SourceError(f"{url}: no answer ({type(exc).__name__})") from exc
        except PageFailedError as exc:
            raise SourceError(f"{url}: {exc}") from exc

    def _page(
        self,
        client: httpx.Client,
        url: str,
        depth: int,
        previous: SourceRecord | None,
        staging: Path,
        listing: Listing,
    ) -> Item | None:
        import httpx

        if not self._allowed(client, url):
            listing.skipped.append(f"{url} (robots.txt)")
            return None
        before = previous.items.get(url) if previous else None
        headers = _conditional(before.version) if before and not before.failed else {}
        try:
            with client.stream("GET", url, headers=headers) as response:
                if response.status_code == 304 and before is not None:
                    return Item(key=url, version=before.version, links=tuple(before.links), depth=depth)
                if response.status_code in _GONE:
                    if url == self.location:
                        raise SourceError(f"{url}: HTTP {response.status_code}")
                    return None
                if response.status_code >= 400:
                    raise PageFailedError(f"HTTP {response.status_code}")
                if str(response.url) != url and not self._same_site([str(response.url)]):
                    raise PageFailedError(f"redirected off the site, to {urlsplit(str(response.url)).netloc}")
                suffix = _suffix(response.headers.get("content-type", ""), url)
                if suffix is None:
                    listing.skipped.append(f"{url} (a type we do not read: {response.headers.get('content-type')})")
                    return None
                body = _capped(response, self.max_bytes, time.monotonic() + self.seconds)
                version = _version(response, body)
        except PageFailedError as exc:
            return self._failed(url, str(exc), before, listing)
        except httpx.HTTPError as exc:
            if url == self.location and before is None:
                raise SourceError(f"{url}: no answer ({type(exc).__name__})") from exc
            return self._failed(url, f"no answer ({type(exc).__name__})", before, listing)
        links = tuple(self._links(url, body)) if suffix == ".html" else ()
        path = staged_path(staging, len(listing.items) + len(listing.kept), urlsplit(url).path, suffix)
        path.write_bytes(body)
        return Item(key=url, version=version, path=path, links=links, depth=depth)

    @staticmethod
    def _failed(url: str, error: str, before: Any, listing: Listing) -> None:
        """A page that failed this time: it keeps what the last sync read of it, and says why."""
        listing.failures.append(FileFailure(source=url, error=error))
        if before is not None:
            listing.kept.add(url)
        return None

    def _allowed(self, client: httpx.Client, url: str) -> bool:
        import httpx

        parts = urlsplit(url)
        site = f"{parts.scheme}://{parts.netloc}"
        robots = self._robots.get(site)
        if robots is None:
            robots = RobotFileParser()
            try:
                response = client.get(site + "/robots.txt")
                status = response.status_code
                lines = response.text.splitlines() if status < 400 else []
            except httpx.HTTPError as exc:
                if url == self.location:  # the site does not answer at all: say so, not "robots.txt forbids"
                    raise SourceError(f"{url}: no answer ({type(exc).__name__})") from exc
                status, lines = 0, []
            # As robotparser reads them: 401/403 forbid everything, a missing file allows everything, and a
            # server error or no answer forbids (the site may be saying "not now").
            if status in (401, 403) or status >= 500 or status == 0:
                lines = ["User-agent: *", "Disallow: /"]
            robots.parse(lines)
            self._robots[site] = robots
        return robots.can_fetch(USER_AGENT, url)

    def _same_site(self, urls: list[str]) -> list[str]:
        home = urlsplit(self.location)
        found = []
        for url in urls:
            try:
                url = normalized(url)
            except SourceError:
                continue
            parts = urlsplit(url)
            if parts.scheme == home.scheme and parts.netloc == home.netloc:
                found.append(url)
        return found

    def _links(self, url: str, body: bytes) -> list[str]:
        found = _Links()
        found.feed(body.decode("utf-8", errors="replace"))
        found.close()
        return list(dict.fromkeys(self._same_site([urljoin(url, h) for h in found.hrefs])))


class PageFailedError(Exception):
    """One page could not be read this time; the others go on."""


class _Links(HTMLParser):
    """The targets of a page's <a href>: the standard library's tolerant parser, nothing fetched."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(v for k, v in attrs if k == "href" and v)


def _conditional(version: str) -> dict[str, str]:
    kind, _, value = version.partition(" ")
    if kind == "etag":
        return {"If-None-Match": value}
    if kind == "modified":
        return {"If-Modified-Since": value}
    return {}


def _version(response: httpx.Response, body: bytes) -> str:
    if etag := response.headers.get("etag"):
        return f"etag {etag}"
    if modified := response.headers.get("last-modified"):
        return f"modified {modified}"
    return "sha256 " + hashlib.sha256(body).hexdigest()


def _suffix(content_type: str, url: str) -> str | None:
    kind = content_type.split(";")[0].strip().lower()
    if kind in _TYPES:
        return _TYPES[kind]
    suffix = Path(urlsplit(url).path).suffix.lower()
    return suffix if suffix in LOADERS and kind not in _SITEMAP_TYPES else None


def _capped(response: httpx.Response, limit: int, deadline: float) -> bytes:
    """The body, within `limit` bytes and by `deadline` (a server that drips a byte at a time is cut off:
    the client's timeout is per read, not per page)."""
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PageFailedError(f"the page is {declared} bytes, above the limit of {limit}")
    body = bytearray()
    for part in response.iter_bytes():
        body.extend(part)
        if len(body) > limit:
            raise PageFailedError(f"the page is above the limit of {limit} bytes")
        if time.monotonic() > deadline:
            raise PageFailedError("the page took longer than GRAPHWRIGHT_SYNC_HTTP_SECONDS to arrive")
    return bytes(body)
