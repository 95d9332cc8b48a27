"""A cluster's trust model (issue 76, finding 6), with real processes: `graphwright cluster certs` writes an
owner-only CA and role certificates; `graphwright scheduler` and `graphwright worker` over mutual TLS accept
the client with this cluster's certificate and refuse one without it or with another CA's; every socket they
listen on is loopback; plain TCP off loopback is refused before anything connects."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    return {**env, "GRAPHWRIGHT_HOME": str(home)}


def _graphwright(*args: str, home: Path, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphwright.cli", *args], env=_env(home), capture_output=True, text=True, **kw
    )


def _listening(pid: int) -> list[tuple[str, int]]:
    """The addresses a process (and its children) listen on."""
    found = []
    for process in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
        for conn in process.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                found.append((conn.laddr.ip, conn.laddr.port))
    return found


def test_certificates_are_owner_only_and_a_tls_cluster_admits_only_its_own(tmp_path: Path) -> None:
    from distributed import Client
    from distributed.security import Security

    from graphwright.dask_ingest.trust import security

    home = tmp_path / "home"
    made = _graphwright("cluster", "certs", "--host", "127.0.0.1", home=home, timeout=60)
    assert made.returncode == 0, made.stderr
    folder = home / "cluster-tls"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(
        ["ca.pem", "ca-key.pem", *(f"{r}{s}" for r in ("scheduler", "worker", "client") for s in (".pem", "-key.pem"))]
    )
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir())
    again = _graphwright("cluster", "certs", home=home, timeout=60)
    assert again.returncode != 0 and "--force" in again.stderr

    port = _free_port()
    address = f"tls://127.0.0.1:{port}"
    logs = (tmp_path / "scheduler.log").open("w"), (tmp_path / "worker.log").open("w")
    command = [sys.executable, "-m", "graphwright.cli"]
    scheduler = subprocess.Popen(
        [*command, "scheduler", "--port", str(port), "--protocol", "tls"],
        env=_env(home),
        stdout=logs[0],
        stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen([*command, "worker", address], env=_env(home), stdout=logs[1], stderr=subprocess.STDOUT)
    try:
        with Client(address, security=security(home, "client"), timeout=60, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=120)
            assert client.run(os.getpid)  # this cluster's client runs on its workers
        for stranger in (Security.temporary(), None):  # another CA's certificate; none at all
            with pytest.raises((OSError, TimeoutError)):
                kw = {"security": stranger} if stranger is not None else {}
                target = address if stranger is not None else f"tcp://127.0.0.1:{port}"
                with Client(target, timeout=5, set_as_default=False, **kw) as intruder:
                    intruder.run(os.getpid)
        time.sleep(0.5)
        for process in (scheduler, worker):
            addresses = _listening(process.pid)
            assert addresses and all(ip.startswith("127.") for ip, _ in addresses), addresses
            healthy = 0
            for _, port_ in addresses:  # an HTTP server among them answers its health check, and no metrics
                with contextlib.suppress(httpx.HTTPError):
                    healthy += httpx.get(f"http://127.0.0.1:{port_}/health", timeout=2).status_code == 200
                    metrics = httpx.get(f"http://127.0.0.1:{port_}/metrics", timeout=2)
                    assert metrics.status_code == 404, (port_, metrics.text[:200])
            assert healthy == 1, addresses
    finally:
        for process in (worker, scheduler):
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()


def test_plain_tcp_off_loopback_is_refused_before_connecting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    worker = _graphwright("worker", "tcp://10.255.255.1:8786", home=home, timeout=60)
    assert worker.returncode != 0 and "not on loopback" in worker.stderr
    scheduler = _graphwright("scheduler", "--host", "0.0.0.0", "--protocol", "tcp", home=home, timeout=60)
    assert scheduler.returncode != 0 and "plain TCP" in scheduler.stderr
    no_certs = _graphwright("worker", "tls://127.0.0.1:1", home=home, timeout=60)
    assert no_certs.returncode != 0 and "graphwright cluster certs" in no_certs.stderr

    from graphwright.dask_ingest import Cluster
    from graphwright.errors import ClusterError

    with pytest.raises(ClusterError, match="not on loopback"):
        Cluster("tcp://10.255.255.1:8786", home=home)
