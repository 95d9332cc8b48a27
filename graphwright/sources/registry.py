"""Source kinds by name, and which kind a location is: `s3://...` a bucket, `http(s)://...` a web page or
sitemap, anything else a folder."""

from __future__ import annotations

from typing import Any

from graphwright.config import Settings
from graphwright.registry import Registry
from graphwright.sources.base import Source

SOURCE_KINDS: Registry[Any] = Registry(
    "source kind",
    {
        "folder": "graphwright.sources.folder:FolderSource",
        "web": "graphwright.sources.web:WebSource",
        "s3": "graphwright.sources.s3:BucketSource",
    },
)


def kind_of(location: str) -> str:
    lowered = location.strip().lower()
    if lowered.startswith("s3://"):
        return "s3"
    if lowered.startswith(("http://", "https://")):
        return "web"
    return "folder"


def is_remote(location: str) -> bool:
    return kind_of(location) != "folder"


def open_source(location: str, options: dict[str, Any], settings: Settings, *, kind: str | None = None) -> Source:
    maker = SOURCE_KINDS.load(kind or kind_of(location))
    source: Source = maker(location, options, settings)
    return source
