"""The gate's first lock, on the text alone: writes, admin procedures and several statements refused; reads
pass; a query above the length cap is refused before any work."""

from __future__ import annotations

import pytest

from graphwright.errors import CypherRejectedError
from graphwright.graph_store.cypher_gate.read_only import MAX_QUERY_CHARS
from graphwright.graph_store.cypher_gate.read_only import check_text as check_read_only

REFUSED = {
    "CREATE (n:Person {name: 'x'})": "CREATE",
    "MATCH (n) MERGE (n)-[:X]->(m)": "MERGE",
    "MATCH (n) DELETE n": "DELETE",
    "MATCH (n) DETACH DELETE n": "DETACH",
    "MATCH (n) SET n.name = 'x'": "SET",
    "MATCH (n) REMOVE n:Person": "REMOVE",
    "DROP INDEX chunk_text": "DROP",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row": "LOAD",
    "CALL dbms.security.createUser('x', 'y')": "CALL dbms.security.createUser",
    "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})": "CALL apoc.periodic.iterate",
    "MATCH (n) RETURN n; MATCH (n) DETACH DELETE n": "one statement",
    "MATCH (n) RETURN n /* harmless */ ; CREATE (m)": "one statement",
    "MATCH (n) CALL (n) { DETACH DELETE n } RETURN 1": "DETACH",
    "MATCH (n) WITH n CALL { WITH n SET n.x = 1 } IN TRANSACTIONS RETURN 1": "SET",
    "FOREACH (x IN [1] | CREATE (:X))": "FOREACH",
    "match (n) detach delete n": "DETACH",
    "MATCH (n)\nCREATE\n(m)": "CREATE",
    "CALL db.createLabel('X')": "CALL db.createLabel",
    "USE system SHOW USERS": "USE",
    "": "empty",
}


@pytest.mark.parametrize(("query", "reason"), REFUSED.items(), ids=list(REFUSED.values()))
def test_write_and_admin_cypher_is_refused(query: str, reason: str) -> None:
    with pytest.raises(CypherRejectedError, match=reason.split()[0] if reason != "one statement" else reason):
        check_read_only(query)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (e:Entity {name: 'Gamma Mining'})-[r]->(x) RETURN x.name AS name LIMIT 10",
        "MATCH (n) WHERE n.name = 'CREATE; DELETE' RETURN n.name",  # the words are inside a string
        "MATCH (n:`DELETE`) RETURN count(n)",  # ... or a quoted identifier
        "MATCH (n) RETURN n.name // SET is only mentioned in a comment",
        "CALL db.index.fulltext.queryNodes('chunk_text', 'apollo') YIELD node RETURN node.id LIMIT 5",
        "MATCH (n) CALL (n) { MATCH (n)--(m) RETURN count(m) AS d } RETURN n.name, d LIMIT 5",
        "MATCH (n) RETURN n LIMIT 1;",
        "MATCH (n) RETURN n.start, n.set LIMIT 1",  # property names, not keywords
        "RETURN 'it\\'s // not a comment' AS a, \"x\" AS b",
    ],
)
def test_read_queries_pass(query: str) -> None:
    assert check_read_only(query) == query.strip().rstrip(";").strip()


def test_a_query_above_the_length_cap_is_refused_before_any_work() -> None:
    assert check_read_only("RETURN 1 AS a" + " " * (MAX_QUERY_CHARS - 20)) == "RETURN 1 AS a"
    with pytest.raises(CypherRejectedError, match=f"above the limit of {MAX_QUERY_CHARS}"):
        check_read_only("RETURN 1 AS a" + " " * MAX_QUERY_CHARS)
