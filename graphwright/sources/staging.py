"""Remote items' bytes, written where the file readers can read them: one folder per item below the sync's
private staging folder, the file named after the item's last path segment (so a PDF's title falls back to
its name, not to a number) with the suffix its type reads by."""

from __future__ import annotations

import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def staged_path(staging: Path, index: int, name: str, suffix: str) -> Path:
    stem = _UNSAFE.sub("-", Path(name).stem).strip("-.")[:80] or "index"
    folder = staging / f"{index:05d}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{stem}{suffix}"
