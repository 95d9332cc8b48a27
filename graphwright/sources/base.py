"""The contract of a source kind: scan the place against what the last sync saw, and hand back every item
it holds now, with the changed ones' bytes in a local file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphwright.models import FileFailure, SourceRecord, SyncedItem


@dataclass(frozen=True)
class Item:
    """One file, page or object as the source holds it now."""

    key: str  # its name in the workspace: documents' source and id ("notes/a.md", a URL, s3://bucket/key)
    version: str  # what changes when it changes
    path: Path | None = None  # a local file with its bytes, when it is to be read (new or changed)
    links: tuple[str, ...] = ()  # a web page's same-site links
    depth: int = 0


@dataclass
class Listing:
    """What a scan found. `kept`: items it could not read this time (a timeout, a server error) that must stay
    as they were; only what is in neither `items` nor `kept` is gone from the source."""

    base: Path  # the folder the items' files lie below (a source folder's parent, or the staging folder)
    items: list[Item] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    failures: list[FileFailure] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class Source(Protocol):
    """A place to keep in step with. `id` is how its record is known (an absolute folder, a URL,
    s3://bucket/prefix); `options` what a re-sync must read it with again."""

    kind: str
    id: str
    location: str
    options: dict[str, Any]

    def scan(self, previous: SourceRecord | None, staging: Path) -> Listing:
        """Every item the source holds now. An item new or changed since `previous` comes with `path` (a
        remote one fetched into `staging`); SourceError when the source itself cannot be listed, so that
        nothing is taken for deleted."""


def unchanged(item: Item, previous: SourceRecord | None) -> bool:
    """Whether the last sync read this very version (a version that failed to read is tried again only
    once it changes)."""
    before: SyncedItem | None = previous.items.get(item.key) if previous else None
    return before is not None and before.version == item.version
