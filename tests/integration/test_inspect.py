"""`graphwright stats`, `show entity` and `browser` on the known small graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwright.graph_store.queries.inspection import BROWSER_QUERIES
from tests.integration.helpers import run
from tests.integration.world import ENTITIES, RELATIONS

pytestmark = pytest.mark.integration


def test_stats_by_type_level_and_index(world, cli_env, tmp_path: Path) -> None:
    out = run(["stats", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["counts"]["entities"] == len(ENTITIES) and stats["counts"]["relations"] == len(RELATIONS)
    assert stats["entity_types"] == {"ORGANIZATION": 10, "LOCATION": 3, "PRODUCT": 1}
    assert stats["relation_types"]["SUPPLIES"] == 3 and stats["relation_types"]["COMPETES_WITH"] == 3
    assert sum(stats["community_levels"].values()) == stats["counts"]["communities"] > 0
    names = {i["name"]: i for i in stats["indexes"]}
    assert names["chunk_embedding"]["state"] == "ONLINE" and names["entity_key"]["type"] == "RANGE"
    table = run(["stats"], cli_env, tmp_path)
    assert "Relations by type" in table.stdout and "COMPETES_WITH" in table.stdout and "Indexes" in table.stdout


def test_show_entity(world, cli_env, tmp_path: Path) -> None:
    out = run(["show", "entity", "borealis steel", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    profile = json.loads(out.stdout)
    assert profile["entity"]["name"] == "Borealis Steel" and profile["entity"]["how"] == "exact"
    assert profile["labels"] == ["Organization"]
    assert {f"{r['source']} -[{r['type']}]-> {r['target']}" for r in profile["relations"]} == {
        "Borealis Steel -[SUPPLIES]-> Acme Corp",
        "Falcon Ventures -[INVESTED_IN]-> Borealis Steel",
        "Borealis Steel -[ACQUIRED]-> Gamma Mining",
    }
    assert {s["document_id"] for s in profile["sources"]} == {"acme.md", "funding.md"}
    assert profile["communities"]
    fuzzy = run(["show", "entity", "Borealis Steal"], cli_env, tmp_path)
    assert fuzzy.returncode == 0 and "closest match" in fuzzy.stdout and "Sources" in fuzzy.stdout
    missing = run(["show", "entity", "!!!"], cli_env, tmp_path)
    assert missing.returncode == 1 and "no entity matches" in missing.stderr


def test_browser_prints_queries_that_run(world, cli_env, tmp_path: Path) -> None:
    out = run(["browser"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "/browser/" in out.stdout and ":param name =>" in out.stdout
    assert "password from NEO4J_PASSWORD" in " ".join(out.stdout.split())  # the tests give it so
    home = tmp_path / "generated"
    home.mkdir()
    (home / "neo4j-password").write_text("from-a-file", encoding="utf-8")
    env = {k: v for k, v in cli_env.items() if k != "NEO4J_PASSWORD"} | {"GRAPHWRIGHT_HOME": str(home)}
    generated = run(["browser"], env, tmp_path)  # no database reachable with it: the line comes first anyway
    assert "password from the file" in " ".join(generated.stdout.split()) and "neo4j-password" in "".join(
        generated.stdout.split()
    )
    for title, cypher in BROWSER_QUERIES:
        assert cypher in out.stdout
        rows = world.store.read(cypher, name="Falcon Ventures", other="Acme Corp")
        assert rows, f"{title} returned nothing on the test graph"


def test_communities_build_quiet_json_and_progress(world, cli_env, tmp_path: Path) -> None:
    out = run(["communities", "build", "-q", "--json"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["kept"] == sum(figures["levels"].values()) and figures["created"] == 0  # nothing changed
    assert out.stderr == ""  # quiet: no progress bars
    shown = run(["communities", "build"], cli_env, tmp_path)
    assert "detect" in shown.stderr and "write" in shown.stderr and "Communities:" in shown.stdout
