"""The verdicts of `graphwright doctor` from a server's settings and its answers to the LOAD CSV probes."""

from __future__ import annotations

from graphwright.graph_store.launcher.posture import judge

LOCKED_FILE = (
    "Neo4j refused the query: Cannot load from URL 'file:///x.csv': configuration property "
    "'dbms.security.allow_csv_import_from_file_urls' is false ()"
)
LOCKED_NET = (
    "Neo4j refused the query: Cannot load from URL 'http://127.0.0.1:1/x.csv': access to /127.0.0.1 is "
    "blocked via the configuration property internal.dbms.cypher_ip_blocklist ()"
)
OPEN_NET = "Neo4j refused the query: Couldn't load the external resource at: http://127.0.0.1:1/x.csv"


def test_a_locked_server_passes() -> None:
    settings = {
        "dbms.security.http_access_control_allow_origin": "http://127.0.0.1:7474",
        "dbms.security.procedures.unrestricted": "",
        "server.default_listen_address": "127.0.0.1",
        "db.memory.transaction.max": "536870912B",
        "db.memory.transaction.total.max": "751619276B",
        "db.transaction.timeout": "5m",
    }
    assert all(c.ok for c in judge(settings, LOCKED_FILE, LOCKED_NET))


def test_an_open_server_is_warned_about_with_what_to_set() -> None:
    settings = {
        "dbms.security.http_access_control_allow_origin": "*",
        "dbms.security.procedures.unrestricted": "apoc.*",
        "server.default_listen_address": "0.0.0.0",
        "db.memory.transaction.max": "0B",
        "db.memory.transaction.total.max": "0B",
        "db.transaction.timeout": "0s",
    }
    checks = {c.name: c for c in judge(settings, "loaded", OPEN_NET)}
    assert not any(c.ok for c in checks.values())
    assert "allow_csv_import_from_file_urls=false" in checks["LOAD CSV from files"].advice
    assert "cypher_ip_blocklist" in checks["LOAD CSV from the network"].advice
    assert "DENY LOAD" in checks["LOAD CSV from the network"].advice
    assert "db.transaction.timeout" in checks["transaction timeout"].advice
    assert "half the heap" in checks["memory per transaction"].advice
    assert "db.memory.transaction.total.max" in checks["memory of all transactions"].advice


def test_hidden_settings_are_judged_by_the_probes_alone() -> None:
    checks = judge({}, LOCKED_FILE, OPEN_NET)
    assert [(c.name, c.ok) for c in checks] == [("LOAD CSV from files", True), ("LOAD CSV from the network", False)]


def test_gds_unrestricted_is_what_gds_needs_but_wider_grants_are_warned() -> None:
    def verdict(unrestricted: str) -> bool:
        checks = {
            c.name: c for c in judge({"dbms.security.procedures.unrestricted": unrestricted}, LOCKED_FILE, LOCKED_NET)
        }
        return checks["unrestricted procedures"].ok

    assert verdict("gds.*")  # what `db start --gds` sets; the read-only gate refuses gds.* in user Cypher
    assert not verdict("gds.*,apoc.*") and not verdict("gds.graph.*") and not verdict("*")
