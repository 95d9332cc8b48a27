"""Where a running `graphwright serve` can be found by `graphwright query` on the same machine: a small file
in the graphwright home (private to its owner, so no other user can point our questions elsewhere), written
when the server starts and removed when it stops. A question then skips the 1.5-2.5 s of loading the model
and the driver that a cold process pays."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from graphwright.server.job_store import process_alive
from graphwright.telemetry import flush_spans

_FILE = "serving.json"


def announce(home: Path, port: int) -> Path:
    """Record this process as the server at 127.0.0.1:`port` (loopback: the address this machine reaches)."""
    path = home / _FILE
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"url": f"http://127.0.0.1:{port}", "pid": os.getpid()}, out)
    return path


def withdraw_on_signals(home: Path) -> None:
    """Withdraw the record when SIGTERM or SIGINT ends the server: uvicorn re-raises the signal after its
    graceful shutdown, which ends the process before any `finally` runs; the signal then comes here, the
    record goes, and the signal does what it always did."""

    def withdraw_then_die(signum: int, frame: object) -> None:
        withdraw(home)
        flush_spans()  # dying by the signal skips atexit, where the exporter would send its last spans
        signal.signal(signum, signal.SIG_DFL if signum != signal.SIGINT else signal.default_int_handler)
        signal.raise_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, withdraw_then_die)


def withdraw(home: Path) -> None:
    """Remove the record if it is this process's (another server may have started since)."""
    path = home / _FILE
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def running_server(home: Path) -> str | None:
    """The URL of the server recorded in `home` if its process is alive and the server there proves it is
    that home's (an HMAC of a fresh challenge under the install's secret); None otherwise, so a key is never
    sent to whatever took the port of a server that is gone."""
    try:
        record = json.loads((home / _FILE).read_text(encoding="utf-8"))
        url, pid = str(record["url"]), int(record["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    from graphwright.serving_proof import existing_secret, proves  # only when a server was recorded

    secret = existing_secret(home)
    if secret is None or not process_alive(pid):
        return None
    return url if proves(url, secret) else None
