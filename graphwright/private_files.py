"""Data at rest private to its owner: everything under the graphwright home (Neo4j's store, which holds every
document's text, the job database, the LLM cache, uploads, the secrets) is created owner-only (umask 077 for
the CLI and the Neo4j it starts), and `tighten` takes group and other access off what an older release left
readable."""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077


def private_umask() -> int:
    """Make files this process creates owner-only; the previous umask."""
    return os.umask(PRIVATE_UMASK)


def tighten(home: Path) -> list[Path]:
    """Remove group and other permissions from `home` and everything under it (symbolic links are not
    followed); the entries changed."""
    if not home.exists():
        return []
    changed: list[Path] = []
    for path in [home, *home.rglob("*")]:
        try:
            info = path.lstat()
        except OSError:
            continue  # gone while we walked (a running server rotates its files)
        if stat.S_ISLNK(info.st_mode) or not info.st_mode & 0o077:
            continue
        try:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o077)
            changed.append(path)
        except OSError:
            continue
    return changed
