"""Files are read in a child process with a time and a memory budget, so a crafted file (a Word file whose
styles make the parser quadratic, a bomb, a parser that loops or crashes) fails alone, by name, and costs at
most its budget: the ingest, the server and every other workspace go on.

One child serves a whole ingest (started once, about 0.3 s), reads one file at a time and sends back its
`LoadResult`. A file past its time is stopped by killing the child; a child killed by the memory limit (an
address-space rlimit set in the child, Linux and macOS) or by a crash is seen as a closed pipe. Either way the
file gets a named failure and the next file a new child. Where a child cannot be started at all the files are
read in this process, with a warning: the per-format limits (FileLimits) still hold there."""

from __future__ import annotations

import contextlib
import logging
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from graphwright.models import FileFailure

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.documents.formats import FileLimits
    from graphwright.documents.loaders import LoadResult

log = logging.getLogger(__name__)
# A PDF is stopped by its own check between pages (max_pdf_seconds); the hard stop comes this much later.
_PDF_GRACE_SECONDS = 30.0
_FRAME = struct.Struct(">Q")  # each pickle on the pipes is led by its length
# A child left idle this long exits by itself (an instance never closed does not keep one for ever); the
# parent starts a new one after a shorter idle time, so it never sends a file to a child about to leave.
IDLE_EXIT_SECONDS = 300.0
_IDLE_RESTART_SECONDS = 240.0


@dataclass(frozen=True)
class ParseBudget:
    """What reading one file may cost: wall-clock seconds (a PDF: `pdf_seconds` + a grace) and the child's
    address space in MiB (0: no memory limit)."""

    seconds: float = 120.0
    memory_mb: int = 4096
    pdf_seconds: float = 300.0

    def seconds_for(self, path: Path) -> float:
        if path.suffix.lower() == ".pdf":
            return max(self.seconds, self.pdf_seconds + _PDF_GRACE_SECONDS)
        return self.seconds


def parse_budget(settings: Settings) -> ParseBudget:
    return ParseBudget(settings.max_parse_seconds, settings.max_parse_memory_mb, settings.max_pdf_seconds)


class ParseWorker:
    """Reads files in a child process within a `ParseBudget`. Use as a context manager; thread-safe (one file
    at a time). The child is `python -m graphwright.documents.parse_worker`, not a multiprocessing spawn,
    which would run the caller's main script again in the child."""

    def __init__(self, budget: ParseBudget) -> None:
        self.budget = budget
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._in_process = False  # a child could not be started here
        self._used = 0.0  # when the child last answered (time.monotonic)

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(
        self,
        path: Path,
        base: Path,
        metadata: dict[str, Any],
        text_field: str | None,
        max_bytes: int,
        relative_source: bool,
        limits: FileLimits | None,
    ) -> LoadResult:
        from graphwright.documents.loaders import LoadResult, load_file, source_of

        args = (path, base, metadata, text_field, max_bytes, relative_source, limits)
        with self._lock:
            process = self._child()
            if process is None:
                return load_file(*args)
            seconds = self.budget.seconds_for(path)
            try:
                _send(process, args)
                found = _receive(process, seconds)
                self._used = time.monotonic()
                if isinstance(found, LoadResult):
                    return found
                why = str(found) if found is not None else _too_long(path, seconds)
            except (EOFError, OSError, pickle.UnpicklingError):
                why = self._death(process)
            self._stop()
        source = source_of(path, base, relative_source)
        log.warning("skipped %s: %s", source, why)
        return LoadResult(failures=[FileFailure(source=source, error=why)])

    def _death(self, process: subprocess.Popen[bytes]) -> str:
        try:
            code: int | None = process.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        limit = self.budget.memory_mb
        memory = f"it may need more than {limit} MiB (GRAPHWRIGHT_MAX_PARSE_MEMORY_MB)" if limit else "it crashed"
        return f"its parser stopped (exit code {code}): {memory}"

    def _child(self) -> subprocess.Popen[bytes] | None:
        if self._in_process:
            return None
        fresh = time.monotonic() - self._used < _IDLE_RESTART_SECONDS
        if self._process is not None and self._process.poll() is None and fresh:
            return self._process
        self._stop()
        command = [sys.executable, "-m", "graphwright.documents.parse_worker", str(self.budget.memory_mb)]
        try:
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, close_fds=True
            )
        except OSError as exc:  # a sandbox without processes: read here, with FileLimits
            log.warning("files are read in this process (no child process could start: %s)", exc)
            self._in_process = True
            return None
        self._used = time.monotonic()
        weakref.finalize(self, _end, self._process)  # a worker dropped unclosed takes its child with it
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        _end(process)

    def close(self) -> None:
        with self._lock:
            self._stop()


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)


def _too_long(path: Path, seconds: float) -> str:
    pdf = ", GRAPHWRIGHT_MAX_PDF_SECONDS" if path.suffix.lower() == ".pdf" else ""
    return f"reading it took more than {seconds:g} s (GRAPHWRIGHT_MAX_PARSE_SECONDS{pdf}): stopped"


def _send(process: subprocess.Popen[bytes], value: Any) -> None:
    assert process.stdin is not None
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    process.stdin.write(_FRAME.pack(len(data)) + data)
    process.stdin.flush()


def _receive(process: subprocess.Popen[bytes], seconds: float) -> Any:
    """The child's answer, or None when none began within `seconds` (EOFError: the child is gone)."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    if not ready:
        return None
    return _read_frame(process.stdout)


def _read_frame(stream: IO[bytes]) -> Any:
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        raise EOFError("the pipe closed")
    (size,) = _FRAME.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the pipe closed")
    return pickle.loads(data)


def _die_with_parent() -> None:
    """Linux: killed when the thread that started this child ends (a server stopping mid-file does not leave
    a parser running on)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def serve(memory_mb: int) -> None:
    """The child: read each file it is sent on stdin, send back its LoadResult on stdout, until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a read stops
    _die_with_parent()
    if memory_mb > 0 and sys.platform != "win32":
        import resource

        limit = memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError) as exc:
            log.warning("no memory limit for reading files here: %s", exc)
    from graphwright.documents.loaders import load_file

    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a parser that prints must not write into the answers
    while True:
        ready, _, _ = select.select([requests], [], [], IDLE_EXIT_SECONDS)
        if not ready:
            return  # idle: the parent starts a new child when it needs one
        try:
            args = _read_frame(requests)
        except EOFError:
            return
        try:
            result: Any = load_file(*args)
        except MemoryError:
            result = "its parser ran out of memory"
        except Exception as exc:  # noqa: BLE001 - load_file turns parser errors into failures; this is the rest
            result = f"its parser failed: {type(exc).__name__}"
        try:
            data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            data = pickle.dumps("its result did not fit in the memory limit")
        answers.write(_FRAME.pack(len(data)) + data)
        answers.flush()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
