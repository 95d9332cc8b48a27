"""Folders kept in step as they change: a sync of each at once (what changed while nobody watched), then one
of a folder whenever something below it changed and it has been still for `quiet_ms` (an editor's save
storm, a copy of many files: one sync). The file system's own notifications (inotify, FSEvents, ...) through
watchfiles; the sync compares the whole folder with its record, so a missed event costs nothing but time."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from graphwright.errors import GraphwrightError

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.models import SyncReport


class Watching(Protocol):
    settings: Settings

    def sync(self, location: str | Path, *, glob: str | None = ..., extractor: str | None = ...) -> SyncReport: ...


log = logging.getLogger(__name__)
_MAX_GROUPING_MS = 10_000  # changes that never stop (a long copy) are synced at least this often


def watch_folders(
    rag: Watching,
    folders: list[str],
    *,
    glob: str | None = None,
    extractor: str | None = None,
    quiet_ms: int | None = None,
    on_sync: Callable[[SyncReport], None] | None = None,
    on_error: Callable[[str, Exception], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Watch until `stop` is set (or Ctrl-C). A sync that fails (a folder gone, Neo4j down) is reported to
    `on_error` and tried again at the next change; nothing is deleted on its account."""
    import watchfiles

    roots = [Path(f).expanduser().absolute() for f in folders]
    quiet = quiet_ms or rag.settings.watch_quiet_ms

    def one(root: Path) -> None:
        try:
            report = rag.sync(root, glob=glob, extractor=extractor)
        except GraphwrightError as exc:
            log.warning("sync of %s failed: %s", root, exc)
            if on_error is not None:
                on_error(str(root), exc)
            return
        if on_sync is not None:
            on_sync(report)

    caught_up = False
    for changes in watchfiles.watch(
        *roots,
        step=quiet,
        debounce=max(quiet, _MAX_GROUPING_MS),
        stop_event=stop,
        raise_interrupt=True,
        yield_on_timeout=True,  # the first (empty) yield says the watcher is running
        rust_timeout=max(quiet, 1000),
    ):
        if not caught_up:  # only now: a change made during this first sync is seen by the running watcher
            for root in roots:
                one(root)
            caught_up = True
        changed = [Path(path) for _, path in changes]
        for root in roots:
            if any(path == root or path.is_relative_to(root) for path in changed):
                one(root)
