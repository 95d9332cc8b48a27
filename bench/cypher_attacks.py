"""Issue 61's reproductions against a real Neo4j: each attack on the read-only Cypher gate, the workspace
registry and the label space, with what came back and how long it held the database.

    .venv/bin/python -m bench.cypher_attacks --uri bolt://127.0.0.1:7688 --password graphwright-test-pw

It empties the database it is pointed at (use the test server, never your own). Workspaces `alpha` and `beta`
and the default one each hold a canary passage; the attacks run as `alpha` (a key bound to it reaches the
same gate through `inspect.read_cypher`, the MCP `cypher` tool and the agent and `cypher` modes). A row per
attack: `leaked` (another workspace's canary came back), `refused` (the gate said no, before any
transaction), `stopped` (Neo4j's timeout, the query still ran) or `answered`, and seconds until the call
returned. After the regex and string attacks it counts the transactions still running."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

CANARY = "canary-{}-3c1d"
LEAKS = [
    "MATCH (a)-[r]->(b) WHERE (rand() < 0 AND a:`alpha__Chunk` AND rand() < 0) IS NOT NULL RETURN DISTINCT a.text AS t",
    "MATCH (a)-[r]->(b) WHERE CASE WHEN rand() < 0 AND a:`alpha__Chunk` AND rand() < 0 THEN false ELSE true END "
    "RETURN DISTINCT a.text AS t",
    "CYPHER runtime=slotted MATCH (a)-[r]->(b) WHERE (rand() < 0 AND a:`alpha__Chunk` AND rand() < 0) IS NOT NULL "
    "RETURN DISTINCT a.text AS t",
]
SLOW = [
    ("regex, 27 characters", "RETURN '" + "a" * 27 + "!' =~ '((a+)+)+b' AS t"),
    (
        "string work in a comprehension, n=2000",
        "WITH '" + "ab" * 1000 + "' AS s RETURN size([x IN split(s,'') | size(replace(s, x, s))]) AS t",
    ),
    (
        "a string grown by reduce over 10,000 steps",
        "RETURN size(reduce(s = '', x IN range(1, 10000) | s + '" + "a" * 2000 + "')) AS t",
    ),
    ("4,000 nested brackets", "RETURN " + "(" * 4000 + "1" + ")" * 4000 + " AS t"),
    ("2,400-term chain", "RETURN " + "+".join(["rand()"] * 2400) + " AS t"),
]

# Shapes the issue did not name, run against the result (as `alpha`; `leaked` if another canary comes back).
A = "`alpha__Chunk`"
SHAPES = [
    "UNWIND range(1, 100000) AS x WITH collect(x) AS l RETURN size([a IN l WHERE a IN l]) AS t",
    f"MATCH (a:{A}) MATCH (b) WHERE b.id = a.id RETURN b.text AS t",
    f"MATCH (a:{A}), (b) WHERE elementId(b) = elementId(a) RETURN b.text AS t",
    "MATCH (a)-[r:`alpha__NEXT`|`beta__NEXT`]->(b) RETURN b.text AS t",
    f"MATCH (a:{A}|Chunk) RETURN a.text AS t",
    "MATCH (a:!`beta__Chunk`) RETURN a.text AS t",
    f"MATCH (a:{A}) WITH a MATCH (b:`beta__Chunk`) RETURN b.text AS t",
    f"MATCH (a:{A}) RETURN [(a)-[*0..3]-(x) | x.text] AS t",
    f"MATCH (a:{A}) RETURN COLLECT {{ MATCH (x) WHERE x.text STARTS WITH 'canary' RETURN x.text }} AS t",
    f"MATCH (a:{A}) CALL (a) {{ MATCH (x) RETURN x.text AS t LIMIT 1 }} RETURN t",
    f"MATCH (a:{A}) WHERE a.text =~ '(?i)(canary|x)-.*' RETURN a.text AS t",
    f"MATCH (a:{A}) RETURN [x IN split(a.text, '') WHERE a.text CONTAINS x] AS t",
    "RETURN [x IN range(1, 10000) | toString(x) + toString(x)][-1] AS t",
    f"MATCH p = (a:{A})-[*1..2]-(b) RETURN reduce(s = 0, n IN nodes(p) | s + size(n.text)) AS t",
    f"RETURN COUNT {{ MATCH (a:{A}), (b:{A}), (c:{A}), (d:{A}), (e:{A}) }} AS t",
    f"MATCH (a:{A}) RETURN a {{.*, x: [(a)-->(b) | b {{.*}}]}} AS t",
    "RETURN " + "CASE WHEN true THEN " * 19 + "1" + " END" * 19 + " AS t",
    "RETURN 'aaaa' =~ 'a' + '((a+)+)+b' AS t",
    "RETURN {k: db.nameFromElementId('4:x:1')} AS t",
    "WITH '" + "ab" * 1000 + "' AS s RETURN size(replace(s, '', s)) AS t",
    f"MATCH p = (a:{A})-[*]-(b) RETURN reduce(s = '', n IN nodes(p) | s + n.text) AS t",
]


def _attack(graph: Any, query: str) -> tuple[str, float, str]:
    """What `graph`'s read-only Cypher made of `query`: its outcome, the seconds it took, what came back."""
    from graphwright.errors import CypherRejectedError, GraphwrightError

    started = time.perf_counter()
    try:
        rows = graph.inspect.read_cypher(query)
        detail = json.dumps(rows.rows, default=str)[:160]
        kind = "leaked" if "canary-beta" in detail or "canary-default" in detail else "answered"
    except CypherRejectedError as exc:
        kind, detail = "refused", str(exc)[:160]
    except GraphwrightError as exc:
        kind, detail = "stopped", f"{type(exc).__name__}: {str(exc)[:140]}"
    return kind, time.perf_counter() - started, detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default="bolt://127.0.0.1:7688")
    parser.add_argument("--password", default="graphwright-test-pw")
    parser.add_argument("--home", type=Path, default=Path(".graphwright/bench-attacks"))
    parser.add_argument("--skip-slow", action="store_true", help="leave out the regex and string attacks")
    args = parser.parse_args()

    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.errors import GraphwrightError

    settings = Settings(neo4j_uri=args.uri, neo4j_password=args.password, home=args.home, _env_file=None)
    rag = GraphRAG(settings)
    rag.store.admin.reset()
    rag.init()
    for name in ("alpha", "beta"):
        if name in rag.workspaces.names():
            rag.workspaces.delete(name, yes=True)
        rag.workspaces.create(name)
    write = rag.store.connection.write
    write("CREATE (:Chunk {id: 'd', text: $t})-[:NEXT]->(:Chunk {id: 'd2', text: 'x'})", t=CANARY.format("default"))
    for name in ("alpha", "beta"):
        write(
            f"CREATE (:`{name}__Chunk` {{id: $i, text: $t}})-[:`{name}__NEXT`]->(:`{name}__Chunk` {{id: $j}})",
            i=name,
            j=name + "2",
            t=CANARY.format(name),
        )
    alpha = rag.in_workspace("alpha")
    print("| attack | outcome | seconds | detail |\n|---|---|---|---|")
    for query in LEAKS:
        kind, seconds, detail = _attack(alpha, query)
        print(f"| `{query[:70]}...` | {kind} | {seconds:.1f} | {detail[:90]} |")
    if not args.skip_slow:
        for label, query in SLOW:
            kind, seconds, detail = _attack(alpha, query)
            print(f"| {label} | {kind} | {seconds:.1f} | {detail[:90]} |")
        time.sleep(1)
        running = rag.store.read(
            "SHOW TRANSACTIONS YIELD currentQuery, elapsedTime WHERE NOT currentQuery STARTS WITH 'SHOW' "
            "RETURN count(*) AS n"
        )[0]["n"]
        print(f"\ntransactions still running 1 s after the last attack: {running}")
    print("\nShapes the issue did not name:\n\n| shape | outcome | seconds | detail |\n|---|---|---|---|")
    for query in SHAPES:
        kind, seconds, detail = _attack(alpha, query)
        print(f"| `{query[:80]}` | {kind} | {seconds:.1f} | {detail[:80]} |")
    # 6: a type that is the registry's label
    folder = args.home / "doc"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "acme.md").write_text("# Acme\n\nAcme Corp builds rockets in Denver with Falcon Ventures.\n", "utf-8")
    rag.ingest([folder], base=folder)
    victim = rag.store.read("MATCH (e:Entity) RETURN e.name AS name, e.id AS id ORDER BY name LIMIT 1")[0]
    try:
        rag.curation().retype(victim["name"], "GRAPHWRIGHT_WORKSPACE")
        retype = "accepted"
    except GraphwrightError as exc:
        retype = f"refused: {exc}"
    labels = rag.store.read("MATCH (e {id: $id}) RETURN labels(e) AS l", id=victim["id"])[0]["l"]
    try:
        listing = f"answers: {rag.workspaces.names()}"
    except Exception as exc:  # noqa: BLE001 (the point is to show what breaks)
        listing = f"fails: {type(exc).__name__}: {exc}"[:160]
    print(f"\nretype to GRAPHWRIGHT_WORKSPACE: {retype[:120]}; labels now {labels}; workspace list {listing}")
    for name in ("alpha", "beta"):
        rag.workspaces.delete(name, yes=True)
    rag.store.admin.reset()
    rag.close()


if __name__ == "__main__":
    main()
