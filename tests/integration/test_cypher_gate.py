"""The read-only Cypher gate against the real Neo4j, proven with canaries rather than a list of patterns.

Generated queries (hypothesis) mix attacks (LOAD CSV of a file or a loopback URL, writes to a :Canary node,
subqueries in transactions, admin procedures, SHOW) with the tricks that fooled the old text checks: strings
holding comment markers and quotes, backtick names holding quotes, block comments inside keywords, unicode
escapes, case and whitespace changes, subquery and UNION wrappers. Each goes through `GraphRAG.read_cypher`,
the gate every caller uses. A breach is anything that reaches Neo4j's loader or writer:
- the canary file's token in a result, or Neo4j saying it tried to load a URL;
- a hit on the loopback HTTP canary (server-side request forgery);
- the server's settings in a result (SHOW SETTINGS, dbms.listConfig);
- the :Canary node changed, a node or relationship added or removed, or Neo4j refusing a write in the READ
  transaction (a write got past the text and plan locks).
The same queries are then sent with the text lock switched off, so the plan lock is shown to hold alone."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphwright.errors import CypherRejectedError, QueryRejectedError
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
TOKEN = "canary-7f3a91c2-do-not-leak"


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = f"col\n{TOKEN}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_canary() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Recorder", (_Recorder,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/leak.csv", hits
    server.shutdown()
    server.server_close()


@pytest.fixture
def canaries(rag, tmp_path: Path, http_canary):
    """A file outside the import folder, one in the server's home (the old import folder), the HTTP canary
    and a :Canary node."""
    outside = tmp_path / "secret.csv"
    outside.write_text(f"col\n{TOKEN}\n", encoding="utf-8")
    home = ROOT / ".graphwright" / "test-neo4j"
    in_home = home / "canary.csv"
    in_home.write_text(f"col\n{TOKEN}\n", encoding="utf-8")
    rag.store.connection.write("CREATE (:Canary {id: 'c1', value: 'intact'})")
    url, hits = http_canary
    yield {
        "rag": rag,
        "files": [f"file://{outside}", "file:///canary.csv", f"file://{in_home}", "file:///etc/passwd"],
        "url": url,
        "hits": hits,
    }
    in_home.unlink(missing_ok=True)


def _graph_state(rag) -> tuple:
    row = rag.store.read("MATCH (n) WITH count(n) AS nodes OPTIONAL MATCH ()-[r]->() RETURN nodes, count(r) AS rels")[0]
    canary = rag.store.read("MATCH (c:Canary) RETURN c.id AS id, c.value AS value, labels(c) AS labels")
    return row["nodes"], row["rels"], canary


def _payloads(files: list[str], url: str) -> list[str]:
    loads = [f"LOAD CSV FROM '{u}' AS r RETURN r" for u in [*files, url]]
    return [
        *loads,
        f"LOAD CSV WITH HEADERS FROM '{url}' AS r RETURN r.col AS c",
        "MATCH (c:Canary) SET c.value = 'pwned' RETURN c",
        "MATCH (c:Canary) DETACH DELETE c RETURN 1 AS x",
        "MATCH (c:Canary) REMOVE c:Canary RETURN 1 AS x",
        "CREATE (:Intruder) RETURN 1 AS x",
        "MERGE (:Intruder {id: 1}) RETURN 1 AS x",
        "FOREACH (i IN [1] | CREATE (:Intruder)) RETURN 1 AS x",
        "CALL { CREATE (:Intruder) } IN TRANSACTIONS RETURN 1 AS x",
        f"CALL {{ LOAD CSV FROM '{url}' AS r RETURN r }} IN TRANSACTIONS RETURN r",
        "CALL dbms.listConfig() YIELD name, value RETURN name, value",
        "CALL db.createLabel('Intruder') RETURN 1 AS x",
        "SHOW SETTINGS YIELD name, value RETURN name, value",
        "SHOW USERS",
        "CREATE INDEX intruder IF NOT EXISTS FOR (n:Intruder) ON (n.id)",
    ]


_WRAPPERS = [
    "{q}",
    "WITH '//' AS a\n{q}",  # the bypass: a comment marker inside a string
    'WITH "/*" AS a\n{q}',
    "WITH '\\'' AS a // it's\n{q}",
    "WITH 1 AS `a'b` /* ` */\n{q}",
    "WITH '*/' AS a /* ' */\n{q}",
    "CALL () {{ {q} }} RETURN 1 AS y",
    "MATCH (n) RETURN 1 AS x LIMIT 0 UNION {q}",
    "/* a comment first */ {q}",
]


def _escape(text: str, positions: list[int]) -> str:
    """Some characters as Cypher unicode escapes, which Neo4j decodes anywhere in the query."""
    chosen = set(positions)
    return "".join(f"\\u{ord(c):04x}" if i in chosen and ord(c) < 0x10000 else c for i, c in enumerate(text))


def _respace(text: str, spaces: list[str]) -> str:
    parts = text.split(" ")
    return "".join(p + (spaces[i % len(spaces)] if i < len(parts) - 1 else "") for i, p in enumerate(parts))


def _recase(text: str, flips: list[bool]) -> str:
    return "".join(c.swapcase() if flips[i % len(flips)] else c for i, c in enumerate(text))


def _comment_in_keyword(text: str, at: int) -> str:
    words = text.split(" ")
    index = at % len(words)
    word = words[index]
    if len(word) > 2:
        words[index] = word[: len(word) // 2] + "/**/" + word[len(word) // 2 :]
    return " ".join(words)


@st.composite
def attacks(draw: st.DrawFn, payloads: list[str]) -> str:
    query = draw(st.sampled_from(payloads))
    if draw(st.booleans()):
        query = _recase(query, draw(st.lists(st.booleans(), min_size=1, max_size=8)))
    if draw(st.booleans()):
        query = _respace(
            query,
            draw(
                st.lists(st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028"]), min_size=1, max_size=4)
            ),
        )
    if draw(st.booleans()):
        query = _comment_in_keyword(query, draw(st.integers(0, 50)))
    query = draw(st.sampled_from(_WRAPPERS)).format(q=query)
    if draw(st.booleans()):
        query = _escape(query, draw(st.lists(st.integers(0, len(query) - 1), max_size=6)))
    if draw(st.booleans()):
        query += draw(st.sampled_from([";", " ;", "; MATCH (n) RETURN n", "\n// trailing", "/* open"]))
    return query


def _breached(canaries, outcome: object) -> str | None:
    if canaries["hits"]:
        return f"the HTTP canary was hit: {canaries['hits']}"
    if isinstance(outcome, QueryRejectedError):
        message = str(outcome)
        if "Cannot load from URL" in message or "load" in message.lower() and "blocked" in message:
            return f"the query reached Neo4j's CSV loader: {message[:200]}"
        if "read access mode" in message.lower() or "not allowed in read" in message.lower():
            return f"a write reached the READ transaction: {message[:200]}"
    if outcome is not None and not isinstance(outcome, Exception):
        if TOKEN in repr(outcome):
            return "the canary file's token came back"
        if "dbms.security" in repr(outcome) or "server.directories" in repr(outcome):
            return "the server's configuration came back"
    return None


def _send(rag, query: str) -> object:
    try:
        return rag.read_cypher(query)
    except (CypherRejectedError, QueryRejectedError) as exc:
        return exc


GATE = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def _generated_attacks(canaries) -> None:
    """Hypothesis' queries through the gate; the first breach fails with the query that caused it."""

    @GATE
    @given(query=attacks(_payloads(canaries["files"], canaries["url"])))
    def attack(query: str) -> None:
        breach = _breached(canaries, _send(canaries["rag"], query))
        assert breach is None, f"{breach}\nquery: {query!r}"

    attack()


def test_generated_attacks_never_reach_a_canary(canaries) -> None:
    before = _graph_state(canaries["rag"])
    _generated_attacks(canaries)
    assert _graph_state(canaries["rag"]) == before


def test_the_plan_lock_holds_without_the_text_lock(canaries, monkeypatch) -> None:
    """The text lock switched off: Neo4j's plan alone must refuse every attack that parses."""
    from graphwright.graph_store import read_only

    monkeypatch.setattr(read_only, "check_text", lambda query: query.strip().rstrip(";").strip())
    rag = canaries["rag"]
    before = _graph_state(rag)
    payloads = _payloads(canaries["files"], canaries["url"])
    for query in payloads:  # every attack as written: Neo4j parses it, the plan must refuse it
        outcome = _send(rag, query)
        assert isinstance(outcome, CypherRejectedError), (query, outcome)
        assert _breached(canaries, outcome) is None
    _generated_attacks(canaries)
    assert _graph_state(rag) == before


def test_the_reported_bypass_is_refused(canaries) -> None:
    """The query that read /etc/passwd through the old three-pass regex gate, and its SSRF twin."""
    rag = canaries["rag"]
    for url in ("file:///etc/passwd", canaries["url"]):
        outcome = _send(rag, f"WITH '//' AS a\nLOAD CSV FROM '{url}' AS r RETURN r LIMIT 2")
        assert isinstance(outcome, CypherRejectedError) and "LOAD" in str(outcome)
    outcome = _send(rag, "RETURN 1 AS x \\u002f\\u002f\nLOAD CSV FROM 'file:///etc/passwd' AS r RETURN r")
    assert isinstance(outcome, CypherRejectedError)
    assert canaries["hits"] == []


def test_ordinary_reads_still_answer(world) -> None:
    """Paths, aggregations, index procedures and subqueries pass every lock."""
    reads = [
        "MATCH p = shortestPath((a:Entity {name: 'Falcon Ventures'})-[*..4]-(b:Entity {name: 'Acme Corp'})) "
        "RETURN length(p) AS hops",
        "MATCH (e:Entity) RETURN e.type AS type, count(*) AS n ORDER BY n DESC",
        "CALL db.index.fulltext.queryNodes('chunk_text', 'Acme') YIELD node, score RETURN node.id AS id LIMIT 3",
        "CALL db.labels() YIELD label RETURN collect(label) AS labels",
        "MATCH (e:Entity) CALL (e) { MATCH (e)--(m) RETURN count(m) AS degree } RETURN e.name, degree LIMIT 3",
        "MATCH (e:Entity) WHERE EXISTS { (e)-[:SUPPLIES]->() } RETURN e.name AS name",
        "MATCH (c:Chunk) RETURN c.id AS id ORDER BY id SKIP 1 LIMIT 2 UNION MATCH (d:Document) RETURN d.id AS id",
        "UNWIND [1, 2, 3] AS x WITH x WHERE x > 1 RETURN DISTINCT x",
        "MATCH (n:Entity) OPTIONAL MATCH (n)-[r]->() RETURN n.name, count(r) AS out LIMIT 5",
        "MATCH (a:Entity)-[r*1..2]-(b:Entity) RETURN count(*) AS walks",
    ]
    for query in reads:
        found = world.read_cypher(query)
        assert found.rows, query
    assert (
        world.read_cypher(
            "MATCH p = shortestPath((a:Entity {name: 'Falcon Ventures'})-[*..4]-"
            "(b:Entity {name: 'Acme Corp'})) RETURN length(p) AS hops"
        ).rows[0]["hops"]
        >= 1
    )


def test_results_are_capped_by_bytes_as_well_as_rows(rag) -> None:
    rag.settings.cypher_max_bytes = 10_000
    one = rag.read_cypher("RETURN range(1, 100000) AS big")  # one row, far above the byte cap
    assert one.rows == [] and one.truncated and "bytes" in one.limit
    many = rag.read_cypher("UNWIND range(1, 5000) AS x RETURN x, 'padding padding padding' AS p")
    assert many.truncated and len(many.rows) <= rag.settings.cypher_max_rows
    rag.settings.cypher_max_rows = 10_000
    cut = rag.read_cypher("UNWIND range(1, 5000) AS x RETURN x, 'padding padding padding' AS p")
    assert cut.truncated and "bytes" in cut.limit and 0 < len(cut.rows) < 5000


def test_a_slow_query_is_stopped_by_the_timeout(rag) -> None:
    rag.settings.cypher_timeout = 1.0
    with pytest.raises(QueryRejectedError, match="(?i)terminated|timeout|timed out"):
        rag.read_cypher("UNWIND range(1, 100000000) AS x WITH x WHERE x % 7 = 123 RETURN count(x) AS n")


def test_the_local_server_itself_refuses_file_and_network_loads(rag, http_canary) -> None:
    """Defence in depth: even a LOAD CSV that skipped every lock of ours gets nothing from this Neo4j."""
    url, hits = http_canary
    settings = {
        r["name"]: r["value"]
        for r in rag.store.read(
            "SHOW SETTINGS YIELD name, value WHERE name IN ['dbms.security.allow_csv_import_from_file_urls', "
            "'server.directories.import', 'dbms.security.http_access_control_allow_origin'] RETURN name, value"
        )
    }
    assert settings["dbms.security.allow_csv_import_from_file_urls"] == "false"
    assert settings["server.directories.import"].endswith("/import")
    assert settings["dbms.security.http_access_control_allow_origin"] != "*"
    for source in ("file:///etc/passwd", url):
        with pytest.raises(QueryRejectedError, match="Cannot load from URL"):
            rag.store.read(f"LOAD CSV FROM '{source}' AS r RETURN r LIMIT 1")
    assert hits == []


def test_doctor_reads_the_servers_own_locks(rag, cli_env, tmp_path: Path) -> None:
    from tests.integration.helpers import run

    out = run(["doctor"], cli_env, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    for line in ("LOAD CSV from files", "LOAD CSV from the network", "HTTP API origins"):
        assert line in out.stdout
    assert "warn" not in out.stdout
    assert cli_env["NEO4J_PASSWORD"] not in out.stdout + out.stderr
