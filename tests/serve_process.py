"""`graphwright serve` as a process of its own, as a user starts it: a free loopback port, the command, and the
wait for its health check (tests and bench/ scripts that need a real server process)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_serve(
    env: dict[str, str], port: int, cwd: Path | None = None, seconds: float = 120
) -> subprocess.Popen[bytes]:
    """`graphwright serve --port PORT --workers 1` with `env`, once `/healthz` answers 200; its stderr is kept
    (read it after the process ends). Raises AssertionError with that stderr if it exits first."""
    server = subprocess.Popen(
        [sys.executable, "-m", "graphwright.cli", "serve", "--port", str(port), "--workers", "1"],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return server
        if server.poll() is not None:
            raise AssertionError(server.stderr.read().decode() if server.stderr else "serve exited")
        time.sleep(0.2)
    server.kill()
    raise AssertionError("serve did not start")


def wait_job(url: str, job_id: str, headers: dict[str, str] | None = None, seconds: float = 240) -> dict:
    """A job's state once it has ended (succeeded, failed, interrupted), polled at `url`/v1/jobs/<id>."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = httpx.get(f"{url}/v1/jobs/{job_id}", headers=headers, timeout=10).json()
        if state["status"] in ("succeeded", "failed", "interrupted"):
            return dict(state)
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not end within {seconds:g} s")
