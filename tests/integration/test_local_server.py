"""The local Neo4j launcher: loopback only, auth on, Browser served, data kept across a restart."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError

from graphwright.graph_store.launcher.local_server import LocalServer, LocalServerError, default_project_dir
from tests.conftest import ROOT, TEST_PASSWORD

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(bool(os.environ.get("GRAPHWRIGHT_TEST_NEO4J_URI")), reason="external test server"),
]


@pytest.fixture
def server(neo4j_uri: str) -> LocalServer:
    server = LocalServer(
        project_dir=default_project_dir(),
        home=ROOT / ".graphwright" / "test-neo4j",
        bolt_uri=neo4j_uri,
        http_port=7475,
        user="neo4j",
        password=TEST_PASSWORD,
        heap="768m",
        pagecache="256m",
    )
    if server.pid() is None:
        pytest.skip("the test server on 7688 belongs to another checkout")
    return server


def _listening(port: int) -> set[str]:
    """Local addresses listening on `port`, read from /proc (IPv4 and IPv6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def test_listens_on_loopback_only(server: LocalServer) -> None:
    for port in (server.bolt_port, server.http_port):
        addresses = _listening(port)
        assert addresses, f"nothing listens on {port}"
        # 0100007F is 127.0.0.1 (IPv4, little endian); the IPv6 form is ::ffff:127.0.0.1
        assert addresses <= {"0100007F", "0000000000000000FFFF00000100007F"}, addresses


def test_auth_is_on(server: LocalServer) -> None:
    with (
        GraphDatabase.driver(server.bolt_url, auth=("neo4j", "not-the-password")) as driver,
        pytest.raises((AuthError, ClientError)),
    ):
        driver.verify_connectivity()
    assert server.bolt_state() == "ok"


def test_browser_page_answers(server: LocalServer) -> None:
    with urllib.request.urlopen(server.browser_url, timeout=10) as response:
        assert response.status == 200
        assert b"<title>Neo4j Browser</title>" in response.read()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/", timeout=10) as response:
        assert b"bolt" in response.read()  # discovery document lists the Bolt address


def test_refuses_remote_hosts() -> None:
    with pytest.raises(LocalServerError, match="only manages a server on this machine"):
        LocalServer(
            project_dir=default_project_dir(),
            home=Path("/tmp/x"),
            bolt_uri="bolt://10.1.2.3:7687",
            http_port=7474,
            user="neo4j",
            password="x" * 8,
        )


def test_data_survives_a_restart(server: LocalServer) -> None:
    with GraphDatabase.driver(server.bolt_url, auth=("neo4j", TEST_PASSWORD)) as driver:
        driver.execute_query("MERGE (:RestartProbe {id: 'kept'})")
    assert server.stop() is True
    assert server.pid() is None
    assert server.bolt_state() == "down"
    server.start(timeout=300)
    with GraphDatabase.driver(server.bolt_url, auth=("neo4j", TEST_PASSWORD)) as driver:
        records, _, _ = driver.execute_query("MATCH (p:RestartProbe {id: 'kept'}) RETURN count(p) AS n")
        assert records[0]["n"] == 1
        driver.execute_query("MATCH (p:RestartProbe) DELETE p")


def test_a_fresh_server_gets_a_generated_password(cli_env, tmp_path: Path) -> None:
    """No NEO4J_PASSWORD: `db start` writes a random one once (0600, under the home), says where (never what),
    and every command reads it; the well-known old default is refused."""
    import stat

    from tests.integration.helpers import run

    env = {k: v for k, v in cli_env.items() if k != "NEO4J_PASSWORD"}
    env.update(
        {
            "NEO4J_URI": "bolt://127.0.0.1:7691",
            "GRAPHWRIGHT_HTTP_PORT": "7478",
            "GRAPHWRIGHT_HOME": str(tmp_path / "home"),
            "GRAPHWRIGHT_NEO4J_HEAP": "512m",
            "GRAPHWRIGHT_NEO4J_PAGECACHE": "64m",
        }
    )
    secret = tmp_path / "home" / "neo4j-password"
    # What an older release left readable by others: `db start` tightens it, and says so once.
    old = tmp_path / "home" / "cache" / "llm" / "answer.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    for path, mode in ((old, 0o644), (old.parent, 0o755), (old.parent.parent, 0o755), (tmp_path / "home", 0o755)):
        os.chmod(path, mode)
    try:
        started = run(["db", "start", "--timeout", "240"], env, tmp_path)
        assert started.returncode == 0, started.stdout + started.stderr
        assert "privatetotheirowner" in "".join(started.stdout.split()) and stat.S_IMODE(old.stat().st_mode) == 0o600
        # Everything Neo4j wrote (its store holds every document's text) is its owner's only.
        written = [p for p in (tmp_path / "home").rglob("*") if not p.is_symlink()]
        assert any(p.name.startswith("neostore") for p in written)
        opened = [str(p) for p in written if stat.S_IMODE(p.stat().st_mode) & 0o077]
        assert not opened, opened[:5]
        assert "".join(f"Generated a password for this server once, in {secret}".split()) in "".join(
            started.stdout.split()
        )  # rich wraps long lines anywhere
        password = secret.read_text().strip()
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and len(password) >= 24
        assert password not in started.stdout + started.stderr and password != "graphwright-local"
        with GraphDatabase.driver("bolt://127.0.0.1:7691", auth=("neo4j", password)) as driver:
            driver.verify_connectivity()
        with (
            GraphDatabase.driver("bolt://127.0.0.1:7691", auth=("neo4j", "graphwright-local")) as driver,
            pytest.raises((AuthError, ClientError)),
        ):
            driver.verify_connectivity()
        assert run(["db", "status"], env, tmp_path).returncode == 0
        assert (tmp_path / "home" / "neo4j" / "import").is_dir()
        assert not any((tmp_path / "home" / "neo4j" / "import").iterdir())
        doctor = run(["doctor"], env, tmp_path)
        assert doctor.returncode == 0 and "warn" not in doctor.stdout, doctor.stdout + doctor.stderr
        for limit in ("memory per transaction", "memory of all transactions", "transaction timeout"):
            assert limit in doctor.stdout  # checked, and set: the server bounds every transaction
        again = run(["db", "start"], env, tmp_path)
        assert "already running" in again.stdout and "Generated" not in again.stdout
        assert "private" not in again.stdout  # said once
        assert secret.read_text().strip() == password
    finally:
        run(["db", "stop"], env, tmp_path)
