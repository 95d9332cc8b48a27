"""Every read of the store's roles, called on the known world, returns rows with exactly the keys of the
TypedDict it is typed as (the `cast`s in graph_store/ are checked here, not trusted). A new role method that
returns rows must be added to CALLS, or the coverage test fails."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

from graphwright.graph_store import communities, graph_reads, retrieval

pytestmark = pytest.mark.integration
ROLES = {
    "retrieval": retrieval.RetrievalReads,
    "graph": graph_reads.GraphReads,
    "communities": communities.CommunityStore,
}


def _row_type(annotation: Any) -> type | None:
    """The TypedDict a method's rows are typed as: `list[Row]` or `Row | None`; None for anything else."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if typing.is_typeddict(candidate):
            return candidate
        for inner in typing.get_args(candidate):
            if typing.is_typeddict(inner):
                return inner
    return None


def _typed_methods() -> dict[str, type]:
    found = {}
    for role, cls in ROLES.items():
        for name, function in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("_"):
                continue
            row = _row_type(typing.get_type_hints(function).get("return"))
            if row is not None:
                found[f"{role}.{name}"] = row
    return found


def _check(row: dict[str, Any], row_type: type, where: str) -> None:
    hints = typing.get_type_hints(row_type)
    required = set(getattr(row_type, "__required_keys__", hints))
    assert required <= row.keys() <= set(hints), (
        f"{where}: keys {sorted(row)} against {row_type.__name__} (required {sorted(required)}, "
        f"allowed {sorted(hints)})"
    )
    for key, value in row.items():  # nested rows (a path's nodes, a neighbour's relations) too
        inner = _row_type(hints[key])
        if inner is not None and isinstance(value, list):
            for item in value:
                _check(item, inner, f"{where}.{key}")


def _with_chinese_terms(store, terms: str) -> bool:
    """One chunk of the (English) world given the search terms a Chinese chunk has, so the terms index holds it."""
    store.connection.write("MATCH (c:Chunk) WITH c ORDER BY c.id LIMIT 1 SET c.terms = $terms", terms=terms)
    return True


def _with_profile(store) -> bool:
    """One document of the world profiled as ingest profiles a filing (its issuer and period)."""
    store.connection.write(
        "MATCH (d:Document {id: 'acme.md'}) SET d.issuer = 'Acme Corp', d.fiscal_year = 2021, d.doc_kind = '10-K'"
    )
    return True


def _calls(world) -> dict[str, Any]:
    store = world.store
    ids = {r["name"]: r["id"] for r in store.read("MATCH (e:Entity) RETURN e.name AS name, e.id AS id")}
    acme, borealis, falcon, gamma = ids["Acme Corp"], ids["Borealis Steel"], ids["Falcon Ventures"], ids["Gamma Mining"]
    chunk_ids = [r["id"] for r in store.read("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id")]
    community = store.read("MATCH (c:Community) RETURN c.level AS level LIMIT 1")[0]["level"]
    vector = world.embedder.embed(["steel suppliers"])[0]
    r, g, c = store.retrieval, store.graph, store.communities
    return {
        "retrieval.vector_search": lambda: r.vector_search(vector, 3),
        "retrieval.fulltext_search": lambda: (
            r.fulltext_search("steel", 3)
            + (_with_chinese_terms(store, "钢铁 供应商 steel") and r.fulltext_search("钢铁", 3, terms=True))
        ),
        "retrieval.co_mentions": lambda: r.co_mentions(acme, borealis, 5),
        "retrieval.chunks_with_ids": lambda: r.chunks_with_ids(chunk_ids[:3]),
        "retrieval.all_chunks": r.all_chunks,
        "retrieval.get_document": lambda: r.get_document("acme.md"),
        "retrieval.document_profiles": lambda: _with_profile(store) and r.document_profiles(),
        "retrieval.list_documents": r.list_documents,
        "graph.entities_by_key": lambda: g.entities_by_key(["acme corp", "gamma mining"]),
        "graph.entity_name_search": lambda: g.entity_name_search("Acme", 3),
        "graph.entity_vector_search": lambda: g.entity_vector_search(vector, 3),
        "graph.entities_with_ids": lambda: g.entities_with_ids([acme, gamma]),
        "graph.entity_catalog": g.entity_catalog,
        "graph.entity_lookup": lambda: g.entity_lookup("acme", 5),
        "graph.neighbourhood": lambda: g.neighbourhood([acme, gamma], chunk_ids[:2], vector, 3, 50),
        "graph.relations_among": lambda: g.relations_among([acme, borealis, gamma], [acme], 10),
        "graph.shortest_paths": lambda: g.shortest_paths(falcon, acme, 3),
        "graph.common_neighbours": lambda: g.common_neighbours(acme, ["SUPPLIES"], gamma, ["ACQUIRED"]),
        "graph.entity_relations": lambda: g.entity_relations(borealis, 10),
        "graph.top_entities": g.top_entities,
        "graph.list_entities": lambda: g.list_entities(search="acme", type="organization"),
        "graph.overview": lambda: g.overview(10),
        "graph.export_entities": lambda: list(g.export_entities()),
        "graph.export_relations": lambda: list(g.export_relations([acme, borealis, gamma])),
        "graph.entity_profile": lambda: g.entity_profile(acme),
        "graph.entity_sources": lambda: g.entity_sources(acme),
        "communities.community_catalog": c.community_catalog,
        "communities.community_context": lambda: list(
            c.community_context([{"id": "x1", "members": [acme, borealis]}]).values()
        ),
        "communities.communities": c.communities,
        "communities.community_levels": c.community_levels,
        "communities.entity_communities": lambda: c.entity_communities([acme, gamma], 5),
        "communities.community_vector_search": lambda: c.community_vector_search(vector, 3, None),
        "communities.communities_at_level": lambda: c.communities_at_level(community, vector),
    }


def test_every_row_method_is_exercised(world) -> None:
    missing = set(_typed_methods()) - set(_calls(world))
    assert not missing, f"add these to CALLS in {__name__}: {sorted(missing)}"


def test_rows_have_the_keys_of_their_typed_dict(world) -> None:
    types = _typed_methods()
    for name, call in _calls(world).items():
        found = call()
        rows = found if isinstance(found, list) else [found]
        assert rows and all(row is not None for row in rows), f"{name} returned nothing on the world"
        for row in rows:
            _check(row, types[name], name)
