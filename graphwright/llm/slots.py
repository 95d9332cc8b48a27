"""At most `width` requests to one endpoint at once, across every process of this user that calls it: one
lock file per place the server has, held for the length of a request (`flock`, released by the kernel when a
process dies, so a killed run never leaves a place taken).

A local server that generates for one request at a time either queues a second request (whose first-token
timeout then runs out while it waits) or drops the reply it was writing for it (llama-cpp-python's); two
ingests, or an ingest beside `graphwright serve`, must take turns instead. On a system without `fcntl`
(Windows) only the process's own pacing applies."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

_POLL = 0.05  # seconds between looks for a free place when the endpoint has more than one


class EndpointSlots:
    def __init__(self, folder: Path | None, key: str) -> None:
        self.folder = folder
        self.key = key
        try:
            import fcntl  # noqa: F401
        except ImportError:  # Windows
            self.folder = None

    @contextmanager
    def hold(self, width: int | None) -> Iterator[None]:
        """A place among `width` (None: the width is not known, so nothing is held)."""
        if width is None or self.folder is None:
            yield
            return
        fd = self._take(width)
        if fd is None:  # the folder cannot be written: pacing in this process only
            yield
            return
        try:
            yield
        finally:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _take(self, width: int) -> int | None:
        import fcntl

        assert self.folder is not None
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fds = [os.open(self.folder / f"{self.key}.{i}.lock", os.O_RDWR | os.O_CREAT, 0o600) for i in range(width)]
        except OSError as exc:
            log.warning("cannot share the LLM endpoint's request slots with other processes: %s", exc)
            return None
        if width == 1:  # the common case (a local server): wait in the kernel's queue
            fcntl.flock(fds[0], fcntl.LOCK_EX)
            return fds[0]
        while True:
            for i, fd in enumerate(fds):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                for other in fds[:i] + fds[i + 1 :]:
                    os.close(other)
                return fd
            time.sleep(_POLL)
