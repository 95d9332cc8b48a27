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

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphwright.errors import CypherRejectedError, QueryRejectedError
from tests.conftest import ROOT
from tests.live_server import canned_http

pytestmark = pytest.mark.integration
TOKEN = "canary-7f3a91c2-do-not-leak"


@pytest.fixture
def http_canary() -> Iterator[tuple[str, list[str]]]:
    with canned_http(f"col\n{TOKEN}\n".encode()) as (url, hits):
        yield f"{url}/leak.csv", hits


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
        return rag.inspect.read_cypher(query)
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
    from graphwright.graph_store.cypher_gate import read_only

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
        found = world.inspect.read_cypher(query)
        assert found.rows, query
    assert (
        world.inspect.read_cypher(
            "MATCH p = shortestPath((a:Entity {name: 'Falcon Ventures'})-[*..4]-"
            "(b:Entity {name: 'Acme Corp'})) RETURN length(p) AS hops"
        ).rows[0]["hops"]
        >= 1
    )


def test_results_are_capped_by_bytes_as_well_as_rows(rag) -> None:
    rag.settings.search.cypher_max_bytes = 10_000
    one = rag.inspect.read_cypher("RETURN range(1, 10000) AS big")  # one row, far above the byte cap
    assert one.rows == [] and one.truncated and "bytes" in one.limit
    many = rag.inspect.read_cypher("UNWIND range(1, 5000) AS x RETURN x, 'padding padding padding' AS p")
    assert many.truncated and len(many.rows) <= rag.settings.search.cypher_max_rows
    rag.settings.search.cypher_max_rows = 10_000
    cut = rag.inspect.read_cypher("UNWIND range(1, 5000) AS x RETURN x, 'padding padding padding' AS p")
    assert cut.truncated and "bytes" in cut.limit and 0 < len(cut.rows) < 5000


def test_a_slow_query_is_stopped_by_the_timeout(rag) -> None:
    rag.settings.search.cypher_timeout = 1.0
    with pytest.raises(QueryRejectedError, match="(?i)terminated|timeout|timed out"):
        rag.inspect.read_cypher("UNWIND range(1, 100000000) AS x WITH x WHERE x % 7 = 123 RETURN count(x) AS n")


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
    for line in (
        "LOAD CSV from files",
        "LOAD CSV from the network",
        "HTTP API origins",
        "tenant Cypher",
        "workspace registry",
    ):
        assert line in out.stdout
    assert "warn" not in out.stdout
    assert cli_env["NEO4J_PASSWORD"] not in out.stdout + out.stderr


# --- queries hidden inside expressions (issue 43) ------------------------------------------------------------
# A subquery the planner cannot lift into operators (a conditional one, say) is planned inside the expression
# that holds it; the gate must judge it all the same, in every place an expression can stand.
SECRET = "canary-b-2f71d0aa-secret"
HIDDEN_READS = [
    "COLLECT { MATCH (x:`gate-b__Chunk`) RETURN x.text }",  # another workspace's passage
    "COLLECT { MATCH (x:Canary) RETURN x.value }",  # a label of no workspace
    "COLLECT { MATCH (x) RETURN x.text }",  # every node
    "COLLECT { MATCH (x) WHERE x.text STARTS WITH 'canary' RETURN x.text }",
    "COLLECT { MATCH (x:!`gate-a__Chunk`) RETURN x.text }",  # everything but the workspace's label
    "COLLECT { MATCH (x:%) RETURN x.text }",
    "COLLECT { MATCH (x:`gate-a__Chunk`|`gate-b__Chunk`) RETURN x.text }",
    "COLLECT { MATCH (x) WHERE rand() < 2 OR x:`gate-a__Chunk` RETURN x.text }",
    "COLLECT { MATCH (x)-[:`gate-a__NEXT`*0..1]-(y) RETURN x.text }",  # zero hops: no relationship pins x
    "COLLECT { MATCH (a:`gate-a__Chunk`) CALL () { MATCH (x) RETURN x.text AS t } RETURN t }",
    "COLLECT { MATCH (w:GraphwrightWorkspace) RETURN w.name }",
    "COLLECT { CALL db.labels() YIELD label RETURN label }",
    "[(x:`gate-b__Chunk`)--() | x.text]",
    "[(x)--() WHERE x.text STARTS WITH 'canary' | x.text]",
    "COUNT { MATCH (x:`gate-b__Chunk`) WHERE x.text STARTS WITH 'canary' }",
    "EXISTS { MATCH (x) WHERE x.text STARTS WITH 'canary' }",
]
# Every place an expression stands: RETURN, WITH, WHERE, ORDER BY, UNWIND, map and list literals, CASE and
# function arguments.
EXPRESSION_PLACES = [
    "RETURN {e} AS t",
    "WITH {e} AS t RETURN t",
    "MATCH (c:`gate-a__Chunk`) WHERE {e} IS NOT NULL RETURN c.id AS t",
    "MATCH (c:`gate-a__Chunk`) RETURN c.id AS t ORDER BY {e}",
    "UNWIND {e} AS t RETURN t",
    "RETURN {{k: {e}}} AS t",
    "RETURN [1, {e}] AS t",
    "RETURN CASE WHEN rand() < 2 THEN {e} ELSE null END AS t",
    "RETURN coalesce({e}, 0) AS t",
    "RETURN toString({e}) AS t",
    "MATCH (c:`gate-a__Chunk`) WITH c, {e} AS t RETURN c.id, t",
]


@pytest.fixture
def scoped(rag, canaries):
    """Workspace gate-a (the attacker's, one passage), another's secret passage and a :Canary holding the
    secret, as the database owner wrote them."""
    connection = rag.store.connection
    if "gate-a" in rag.store.workspaces.names():  # left by a run that was killed
        rag.workspaces.delete("gate-a", yes=True)
    connection.write("MATCH (n:`gate-b__Chunk`) DELETE n")
    rag.workspaces.create("gate-a")
    connection.write("CREATE (:`gate-a__Chunk` {id: 'a1', text: 'alpha passage'})")
    connection.write("CREATE (:`gate-b__Chunk` {id: 'b1', text: $t})", t=SECRET)
    connection.write("MATCH (c:Canary) SET c.value = $t, c.text = $t", t=SECRET)
    yield rag.in_workspace("gate-a")
    rag.workspaces.delete("gate-a", yes=True)  # the registry outlives a reset: other tests expect none
    connection.write("MATCH (n:`gate-b__Chunk`) DELETE n")


def _hidden_breach(outcome: object) -> str | None:
    if not isinstance(outcome, Exception):
        return f"a hidden read ran: {str(outcome)[:300]}"
    if SECRET in str(outcome):
        return "the secret came back in an error"
    return None


@st.composite
def hidden_attacks(draw: st.DrawFn) -> str:
    read = draw(st.sampled_from(HIDDEN_READS))
    if draw(st.booleans()):  # conditional: the planner cannot lift it into operators
        read = f"CASE WHEN rand() < {draw(st.integers(2, 9))} THEN {read} ELSE null END"
    query = draw(st.sampled_from(EXPRESSION_PLACES)).format(e=read)
    if draw(st.booleans()):
        query = _recase(query, draw(st.lists(st.booleans(), min_size=1, max_size=8)))
    return query


def _generated_hidden_attacks(graph) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(query=hidden_attacks())
    def attack(query: str) -> None:
        breach = _hidden_breach(_send(graph, query))
        assert breach is None, f"{breach}\nquery: {query!r}"

    attack()


def test_the_reported_hidden_subquery_is_refused(scoped) -> None:
    """The issue's query, which returned workspace B's passage to a key bound to A, and its twins."""
    for read in HIDDEN_READS:
        query = f"RETURN CASE WHEN rand() < 2 THEN {read} ELSE [] END AS t"
        outcome = _send(scoped, query)
        assert isinstance(outcome, CypherRejectedError), (query, outcome)
        assert SECRET not in str(outcome)


def test_generated_hidden_reads_are_refused_in_every_expression_place(scoped) -> None:
    _generated_hidden_attacks(scoped)


def test_the_plan_sees_hidden_reads_without_the_text_lock(scoped, canaries, monkeypatch) -> None:
    """Lock 1 off: the plan's reading of nested queries must refuse each alone, LOAD CSV included."""
    from graphwright.graph_store.cypher_gate import read_only

    monkeypatch.setattr(read_only, "check_text", lambda query: query.strip().rstrip(";").strip())
    _generated_hidden_attacks(scoped)
    for source in [*canaries["files"], canaries["url"]]:
        query = f"RETURN CASE WHEN rand() < 2 THEN COLLECT {{ LOAD CSV FROM '{source}' AS r RETURN r }} END AS t"
        outcome = _send(scoped, query)
        assert isinstance(outcome, CypherRejectedError) and "LOAD CSV" in str(outcome), (query, outcome)
        assert _breached(canaries, outcome) is None


def test_nested_reads_of_the_workspace_itself_still_answer(scoped) -> None:
    """What a nested query may do: read from the workspace's own labels, however Neo4j plans it."""
    reads = {
        "RETURN CASE WHEN rand() < 2 THEN COLLECT { MATCH (x:`gate-a__Chunk`) RETURN x.text } END AS t": [
            ["alpha passage"]
        ],
        "MATCH (c:`gate-a__Chunk`) RETURN CASE WHEN rand() < 2 THEN "
        "[(c)-[:`gate-a__NEXT`*0..1]-(x:`gate-a__Chunk`) | x.id] END AS t": [["a1"]],
        "MATCH (c:`gate-a__Chunk`) RETURN COUNT { (c)--(:`gate-a__Chunk`) } AS t": [0],
        "RETURN CASE WHEN rand() < 2 THEN COUNT { MATCH (x:`gate-a__Chunk`) WHERE x.id = 'a1' } END AS t": [1],
        "MATCH (c:`gate-a__Chunk`) WHERE CASE WHEN rand() < 2 THEN EXISTS { MATCH (y) WHERE y:`gate-a__Chunk` "
        "AND y.id = c.id } END RETURN c.id AS t": ["a1"],
    }
    for query, expected in reads.items():
        assert [row["t"] for row in scoped.inspect.read_cypher(query).rows] == expected, query


def test_one_row_that_would_loop_for_hours_is_refused_before_it_runs(rag) -> None:
    """Neo4j checks its timeout between rows: one expression looping inside a row must not start."""
    loops = [
        "RETURN size(reduce(s = '', x IN range(1, 2000000) | s + 'aaaaaaaaaaaaaaaa')) AS n",
        "WITH range(1, 2000000) AS l RETURN size([x IN l | x]) AS n",
        "UNWIND range(1, 1000) AS x WITH collect(toString(x)) AS l RETURN reduce(s = '', t IN l | s + t) AS n",
        "UNWIND range(1, 1000) AS x WITH collect(x) AS l RETURN size([a IN l WHERE any(b IN l WHERE a = b)]) AS n",
        "RETURN [a IN range(1, 1000) | [b IN range(1, 1000) | a * b]] AS n",
        "RETURN range(1, toInteger('2000000')) AS n",
    ]
    for query in loops:
        with pytest.raises(CypherRejectedError, match=r"range\(\)|reduce\(\)|iteration"):
            rag.inspect.read_cypher(query)
    running = rag.store.read(
        "SHOW TRANSACTIONS YIELD currentQuery WHERE currentQuery CONTAINS 'reduce' AND NOT currentQuery STARTS WITH "
        "'SHOW' RETURN count(*) AS n"
    )
    assert running == [{"n": 0}]
    rag.store.connection.write("CREATE (:Chunk {id: 'c1'})-[:NEXT]->(:Chunk {id: 'c2'})")
    ordinary = [
        "MATCH p = (c:Chunk {id: 'c1'})-[*0..2]-() RETURN reduce(w = 0, r IN relationships(p) | w + 1) AS n",
        "RETURN reduce(w = 0, x IN range(1, 10) | w + x) AS n",
        "RETURN [x IN range(1, 100) | x * 2][-1] AS n",
        "UNWIND range(1, 100000) AS x RETURN count(x) AS n",
    ]
    for query in ordinary:
        assert rag.inspect.read_cypher(query).rows, query


def test_temporal_and_spatial_values_come_back_as_text(rag) -> None:
    rows = rag.inspect.read_cypher(
        "RETURN datetime('2026-12-03T10:00:00Z') AS at, date('2026-12-03') AS day, duration('P3D') AS span, "
        "point({longitude: 1.5, latitude: 2.5}) AS where"
    ).rows
    assert rows == [
        {
            "at": "2026-12-03T10:00:00.000000000+00:00",
            "day": "2026-12-03",
            "span": "P3D",
            "where": "point({srid: 4326, longitude: 1.5, latitude: 2.5})",
        }
    ]


def test_user_cypher_runs_only_so_many_at_once_per_caller(rag) -> None:
    """A query Neo4j cannot interrupt holds a core: past the cap, a caller (a key's fingerprint) is told to
    come back (429 over HTTP) while another caller still runs; the slot is free again once the query ends."""

    from graphwright.errors import BusyError

    rag.settings.search.cypher_max_concurrent = 1
    rag.settings.search.cypher_timeout = 3.0
    slow = "UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 123 RETURN count(x) AS n"
    outcome: list[object] = []

    def hold() -> None:
        try:
            outcome.append(rag.inspect.read_cypher(slow, caller="key-a"))
        except (CypherRejectedError, QueryRejectedError) as exc:
            outcome.append(exc)

    worker = threading.Thread(target=hold)
    worker.start()
    time.sleep(1.0)  # the slow query holds key-a's one slot
    with pytest.raises(BusyError, match="already running"):
        rag.inspect.read_cypher("RETURN 1 AS x", caller="key-a")
    assert rag.inspect.read_cypher("RETURN 2 AS x", caller="key-b").rows == [{"x": 2}]  # another key is not held up
    worker.join(30)
    assert isinstance(outcome[0], QueryRejectedError)  # stopped by the timeout, between rows
    assert rag.inspect.read_cypher("RETURN 1 AS x", caller="key-a").rows == [{"x": 1}]
