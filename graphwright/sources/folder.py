"""A local folder: its supported files, named by their path below the folder's parent (`notes/a.md`, as
`graphwright ingest notes` from there names them), versioned by size and modification time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphwright.config import Settings
from graphwright.documents.loaders import document_id_for, iter_files
from graphwright.errors import SourceError
from graphwright.models import SourceRecord
from graphwright.sources.base import Item, Listing


class FolderSource:
    kind = "folder"

    def __init__(self, location: str, options: dict[str, Any], settings: Settings) -> None:
        self.folder = Path(location).expanduser().absolute()
        self.id = self.location = str(self.folder)
        self.options = {k: v for k, v in options.items() if k == "glob" and v}

    def scan(self, previous: SourceRecord | None, staging: Path) -> Listing:
        # A folder that is gone (an unmounted disk, a typo) is an error, never "every file was deleted".
        if not self.folder.is_dir():
            raise SourceError(f"no such folder: {self.folder}")
        base = self.folder.parent
        listing = Listing(base=base)
        skipped: list[Path] = []
        for path in iter_files([self.folder], self.options.get("glob"), skipped):
            try:
                stat = path.stat()
            except OSError:  # removed between the listing and now: it is gone
                continue
            listing.items.append(
                Item(key=document_id_for(path, base), version=f"{stat.st_size}:{stat.st_mtime_ns}", path=path)
            )
        listing.skipped = [document_id_for(p, base) for p in skipped]
        return listing
