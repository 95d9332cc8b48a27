"""A workspace's names: rendering the package's Cypher, who owns a name, and the workspace lock of the
read-only gate on plans shaped as Neo4j reports them."""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

import pytest

from graphwright.errors import CypherRejectedError
from graphwright.graph_store import queries
from graphwright.graph_store.cypher_gate.read_only import check_scope
from graphwright.graph_store.queries import schema as q
from graphwright.graph_store.queries.admin import DELETE_DEFAULT_BATCH
from graphwright.graph_store.queries.documents import COUNTS
from graphwright.graph_store.queries.inspection import (
    BROWSER_QUERIES,
    ENTITY_PROFILE,
    INTEGRITY_CHECKS,
    RELATION_TYPE_COUNTS,
)
from graphwright.graph_store.workspace_names import INDEXES, LABELS, TYPES, Workspace, owner_of

LEGAL = Workspace("le-gal")
_BARE = re.compile(rf":({'|'.join(LABELS + TYPES)})\b")


def _query_modules() -> list[ModuleType]:
    return [importlib.import_module(f"{queries.__name__}.{m.name}") for m in pkgutil.iter_modules(queries.__path__)]


def _queries() -> list[str]:
    found: list[str] = []
    for module in _query_modules():  # every role's module, so a new one is covered without a change here
        found += [v for k, v in vars(module).items() if k.isupper() and isinstance(v, str)]
        found += [
            v
            for k, v in vars(module).items()
            if k.isupper() and isinstance(v, (list, tuple))
            for v in v
            if isinstance(v, str)
        ]
    found += list(INTEGRITY_CHECKS.values()) + [c for _, c in BROWSER_QUERIES]
    found += [q.vector_index(n, 8) for n in q.VECTOR_INDEXES] + q.fulltext_indexes("standard")
    found += [
        f(label) for label in q.EMBEDDING_LABELS for f in (q.embedding_page, q.swap_embeddings, q.clear_next_embeddings)
    ]
    return found


def test_every_query_renders_to_the_workspaces_names_only() -> None:
    for query in _queries():
        rendered = LEGAL.render(query)
        assert not _BARE.search(rendered), rendered
        assert "$(" not in rendered or "$('le-gal__' + " in rendered, rendered
        for index in INDEXES:  # every index graphwright names, the Chinese terms' one included
            assert f"'{index}'" not in rendered
    assert Workspace().render(COUNTS) is COUNTS  # the default workspace runs the text itself


def test_schema_statements_name_the_workspaces_indexes() -> None:
    rendered = LEGAL.render(q.CONSTRAINTS[0])
    assert rendered.startswith("CREATE CONSTRAINT `le-gal__document_id` IF NOT EXISTS FOR (n:`le-gal__Document`)")
    assert "n.id IS UNIQUE" in rendered  # properties keep their names
    assert "`le-gal__chunk_embedding`" in LEGAL.render(q.vector_index(q.CHUNK_VECTOR_INDEX, 384))


def test_types_and_labels_read_back_without_the_prefix() -> None:
    rendered = LEGAL.render(ENTITY_PROFILE)
    assert "substring(_l, 8)" in rendered and "l <> 'Entity'" in rendered
    assert "substring(type(r), 8)" in LEGAL.render(RELATION_TYPE_COUNTS)


def test_only_the_package_of_fixed_queries_reads_without_a_label() -> None:
    unlabelled = re.compile(r"MATCH \((\w*)\)(?![-<])")  # a node pattern alone, not one end of a path
    assert [query for query in _queries() if unlabelled.search(query)] == [DELETE_DEFAULT_BATCH]


@pytest.mark.parametrize(
    ("name", "owner"),
    [
        ("Chunk", "default"),
        ("FOUNDED", "default"),
        ("__Entity__", "default"),  # neo4j-graphrag's labels stay the default's
        ("chunk_embedding", "default"),
        ("le-gal__Chunk", "le-gal"),
        ("le-gal__chunk_embedding", "le-gal"),
        ("a__b__Chunk", "default"),  # `__` cannot be in a workspace name: nobody's but the default's
        ("a___Chunk", "a_"),  # the workspace `a_`
    ],
)
def test_who_owns_a_name(name: str, owner: str) -> None:
    assert owner_of(name) == owner


def test_the_registry_belongs_to_no_workspace() -> None:
    assert not Workspace().owns("GraphwrightWorkspace") and not LEGAL.owns("GraphwrightWorkspace")


def _plan(*chain: tuple[str, str]) -> dict:
    """A plan of one operator above another, leaf last."""
    node: dict | None = None
    for operator, details in reversed(chain):
        node = {"operatorType": f"{operator}@neo4j", "args": {"Details": details}, "children": [node] if node else []}
    assert node is not None
    return node


@pytest.mark.parametrize(
    "plan",
    [
        _plan(("ProduceResults", "n"), ("AllNodesScan", "n")),
        _plan(("ProduceResults", "n"), ("NodeByIdSeek", "n WHERE id(n) = $autoint_0")),
        _plan(("ProduceResults", "c"), ("NodeByLabelScan", "c:Chunk")),
        _plan(("ProduceResults", "c"), ("NodeByLabelScan", "c:`other__Chunk`")),
        _plan(("ProduceResults", "c"), ("UnionNodeByLabelsScan", "c:`le-gal__Chunk`|other__Chunk")),
        _plan(("ProduceResults", "c"), ("NodeCountFromCountStore", "count( (n) ) AS n")),
        _plan(("ProduceResults", "r"), ("DirectedAllRelationshipsScan", "(a)-[r]->(b)")),
        _plan(("Filter", "a:`le-gal__Entity` OR b.x IS NULL"), ("DirectedAllRelationshipsScan", "(a)-[r]->(b)")),
        _plan(("Filter", "x:`le-gal__Entity`"), ("DirectedAllRelationshipsScan", "(a)-[r]->(b)")),
        # issue 61: a Filter above a scan of every relationship no longer binds it, whatever it holds
        _plan(("Filter", "a:le-gal__Entity AND b:le-gal__Entity"), ("DirectedAllRelationshipsScan", "(a)-[r]->(b)")),
        _plan(
            ("Filter", "(rand() < 0 AND a:`le-gal__Entity` AND rand() < 0) IS NOT NULL"),
            ("DirectedAllRelationshipsScan", "(a)-[r]->(b)"),
        ),
        _plan(("ProduceResults", "c"), ("NodeIndexSeek", "RANGE INDEX c:other-ws__Chunk(id) WHERE id = $x")),
        _plan(("ProduceResults", "r"), ("DirectedRelationshipTypeScan", "(a)-[r:FOUNDED]->(b)")),
        _plan(("ProduceResults", "l"), ("ProcedureCall", "db.labels() :: (label :: STRING)")),
        _plan(("Apply", ""), ("NodeByLabelScan", "c:`le-gal__Chunk`"), ("AllNodesScan", "x")),
    ],
)
def test_the_workspace_lock_refuses_plans_that_can_reach_outside(plan: dict) -> None:
    with pytest.raises(CypherRejectedError):
        check_scope(plan, LEGAL)


@pytest.mark.parametrize(
    "plan",
    [
        _plan(("ProduceResults", "c"), ("NodeByLabelScan", "c:`le-gal__Chunk`")),
        _plan(("ProduceResults", "c"), ("NodeIndexSeek", "RANGE INDEX c:le-gal__Chunk(id) WHERE id = $x")),
        _plan(("Expand(All)", "(c)-[r]->(d)"), ("NodeByLabelScan", "c:`le-gal__Chunk`")),
        _plan(("ProduceResults", "r"), ("DirectedRelationshipTypeScan", "(a)-[r:le-gal__FOUNDED]->(b)")),
    ],
)
def test_the_workspace_lock_passes_plans_that_start_inside(plan: dict) -> None:
    check_scope(plan, LEGAL)


def test_no_type_becomes_a_label_graphwright_keeps_for_itself() -> None:
    """Issue 61: a retype to GRAPHWRIGHT_WORKSPACE made an entity pass for a workspace and broke every
    listing. Every internal label, as a type in any spelling, is shown as Concept instead."""
    import re

    from graphwright.graph_store.workspace_names import GLOBAL_LABELS, LABELS
    from graphwright.text.normalize import INTERNAL_LABELS, entity_label, is_internal_label

    assert (set(LABELS) - {"Concept"}) | GLOBAL_LABELS == INTERNAL_LABELS
    for label in INTERNAL_LABELS:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", label)
        for spelling in (snake.upper(), snake.lower(), snake.replace("_", " ")):
            assert entity_label(spelling) == "Concept" and is_internal_label(spelling), spelling
        assert entity_label(label) not in INTERNAL_LABELS  # "CurationChange" reads as Curationchange: another label
    assert entity_label("PERSON") == "Person" and not is_internal_label("workspace")
