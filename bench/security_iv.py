"""Security IV (issue 76): the findings that are measured by time or count, against a real `graphwright serve`
(keys bound to workspaces alpha and beta): a Word style bomb uploaded to alpha (how long its job takes, and
whether beta's small upload waits behind it), connections that never finish their headers (how many are still
open after the head deadline), and SIGTERM while a job is mid-file (how long `serve` takes to exit).

    .venv/bin/python -m bench.security_iv [--styles 8000] [--connections 3000] [--record]
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from tests.documents import style_bomb_docx
from tests.serve_process import free_port, start_serve

KEY_A, KEY_B = "bench-key-alpha-0123456789", "bench-key-beta-0123456789"


def _serve(home: Path, port: int, password: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "GRAPHWRIGHT_HOME": str(home), "GRAPHWRIGHT_API_KEYS": f"{KEY_A}@alpha,{KEY_B}@beta"}
    env["NEO4J_PASSWORD"] = password  # the database's, wherever its home is
    env["GRAPHWRIGHT_EXTRACTOR"] = "none"
    return start_serve(env, port)


def _upload(port: int, workspace: str, key: str, name: str, data: bytes) -> str:
    got = httpx.post(
        f"http://127.0.0.1:{port}/w/{workspace}/v1/documents",
        files=[("files", (name, data))],
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    got.raise_for_status()
    return str(got.json()["id"])


def _done(port: int, workspace: str, key: str, job: str, started: float, limit: float = 600) -> tuple[float, str]:
    """Seconds from `started` (its upload) to the job's end, and how it ended."""
    while time.perf_counter() - started < limit:
        state = httpx.get(
            f"http://127.0.0.1:{port}/w/{workspace}/v1/jobs/{job}", headers={"Authorization": f"Bearer {key}"}
        ).json()
        if state["status"] in ("succeeded", "failed", "interrupted"):
            return time.perf_counter() - started, str(state["status"])
        time.sleep(0.1)
    return limit, "still running"


def _slow_clients(port: int, count: int, wait: float) -> int:
    """Open `count` connections that send half a request head; how many are still open after `wait` s."""
    conns = []
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        conns.append(conn)
    time.sleep(wait)
    open_ = 0
    for conn in conns:
        conn.setblocking(False)
        try:
            open_ += conn.recv(1) != b""
        except BlockingIOError:
            open_ += 1
        except OSError:
            pass
        conn.close()
    return open_


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--styles", type=int, default=8000, help="styles and paragraphs of the Word bomb")
    parser.add_argument("--connections", type=int, default=3000)
    args = parse(parser)
    console = Console(record=True, width=120)
    work = Path(tempfile.mkdtemp(prefix="graphwright-security-"))
    from graphwright.api import GraphRAG
    from graphwright.config import Settings

    settings = Settings()  # the database the environment names (its password file in the usual home)
    root = GraphRAG(settings)
    for name in ("alpha", "beta"):
        if name not in root.store.workspaces.names():
            root.workspaces.create(name)
    bomb = style_bomb_docx(work / "bomb.docx", args.styles, args.styles).read_bytes()
    port = free_port()
    server = _serve(work / "home", port, settings.neo4j_password.get_secret_value())
    table = Table(title="Security IV against a real serve")
    table.add_column("what")
    table.add_column("measured", justify="right")
    try:
        sent = time.perf_counter()
        bomb_job = _upload(port, "alpha", KEY_A, "bomb.docx", bomb)
        small_job = _upload(port, "beta", KEY_B, "small.md", b"# Small\nThe Kestrel-2 drone flies.\n")
        small_s, small_status = _done(port, "beta", KEY_B, small_job, sent)
        bomb_s, bomb_status = _done(port, "alpha", KEY_A, bomb_job, sent)
        table.add_row(
            f"Word style bomb ({len(bomb) // 1024} KB) in alpha: done after", f"{bomb_s:.1f} s, {bomb_status}"
        )
        table.add_row("beta's small upload sent right after it: done after", f"{small_s:.1f} s, {small_status}")
        started = time.perf_counter()
        still = _slow_clients(port, args.connections, 12.0)
        table.add_row(
            f"{args.connections} connections sending half a head, open after 12 s",
            f"{still} (of {args.connections}; {time.perf_counter() - started:.0f} s)",
        )
        rows = "".join(f"<p>Paragraph {i} has some words, and <b>bold</b> ones.</p>" for i in range(120_000))
        _upload(port, "alpha", KEY_A, "slow.html", f"<html><body>{rows}</body></html>".encode())
        time.sleep(3)
        asked = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(60)
            stopped = f"{time.perf_counter() - asked:.1f} s"
        except subprocess.TimeoutExpired:
            stopped = "still running after 60 s"
        table.add_row("SIGTERM while a job is mid-file: serve exits after", stopped)
    finally:
        if server.poll() is None:
            server.kill()
        for name in ("alpha", "beta"):
            root.workspaces.delete(name, yes=True)
        root.close()
    console.print(table)
    if args.record:
        record(
            "Security IV (issue 76): a Word bomb, slow clients and SIGTERM against a real serve",
            "bench.security_iv",
            console,
            headline=f"Word bomb job {bomb_s:.1f} s ({bomb_status}); beta beside it {small_s:.1f} s; "
            f"{still} of {args.connections} half-head connections open after 12 s",
        )


if __name__ == "__main__":
    main()
