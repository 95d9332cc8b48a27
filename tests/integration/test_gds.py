"""Neo4j Graph Data Science on a real server (`graphwright db start --gds`, OpenGDS fetched with Maven): it
starts and answers, user Cypher still cannot reach it, and communities and the walk computed in it agree
with the client's: the same walk scores, communities of the same modularity, the same search results."""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.helpers import offline_settings, run

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "gds-test-password"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def gds_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Path]]:
    """One server with GDS for the module, started by the CLI as a user would."""
    folder = tmp_path_factory.mktemp("gds")
    bolt = f"bolt://127.0.0.1:{_free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GRAPHWRIGHT_", "NEO4J_"))}
    env.update(
        {
            "NEO4J_URI": bolt,
            "NEO4J_PASSWORD": PASSWORD,
            "GRAPHWRIGHT_HTTP_PORT": str(_free_port()),
            "GRAPHWRIGHT_HOME": str(folder / "home"),
        }
    )
    started = run(["db", "start", "--gds", "--timeout", "300"], env, folder)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert "GDS:      2.13.9" in started.stdout
        yield bolt, env, folder
    finally:
        run(["db", "stop"], env, folder)


def _projections(bolt: str) -> list[str]:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(bolt, auth=("neo4j", PASSWORD)) as driver:
        records, _, _ = driver.execute_query("CALL gds.graph.list() YIELD graphName RETURN graphName")
    return [r["graphName"] for r in records]


@pytest.fixture
def gds_rag(gds_server, embedder, tmp_path: Path):
    from graphwright.api import GraphRAG

    bolt, _, _ = gds_server
    rag = GraphRAG(offline_settings(bolt, PASSWORD, tmp_path, graph_algorithms="gds"), embedder=embedder)
    rag.store.admin.reset()
    rag.init()
    yield rag
    rag.close()


def test_db_start_with_gds(gds_server, tmp_path: Path) -> None:
    bolt, env, folder = gds_server
    from neo4j import GraphDatabase

    with GraphDatabase.driver(bolt, auth=("neo4j", PASSWORD)) as driver:
        records, _, _ = driver.execute_query("RETURN gds.version() AS v")
        assert records[0]["v"] == "2.13.9"
        records, _, _ = driver.execute_query("CALL gds.list() YIELD name RETURN count(name) AS n")
        assert records[0]["n"] > 100  # the algorithms are registered, not only the version function

    doctor = run(["doctor"], env, folder)
    assert "Graph Data Science" in doctor.stdout and "2.13.9" in doctor.stdout, doctor.stdout
    assert "gds.*" in doctor.stdout  # unrestricted for GDS alone, and judged ok
    assert doctor.returncode == 0, doctor.stdout

    from graphwright.api import GraphRAG
    from graphwright.errors import CypherRejectedError

    with GraphRAG(offline_settings(bolt, PASSWORD, tmp_path)) as rag:
        for hostile in ("CALL gds.graph.list() YIELD graphName RETURN graphName", "RETURN gds.version() AS v"):
            with pytest.raises(CypherRejectedError, match="not allowed"):
                rag.inspect.read_cypher(hostile)


def test_the_walk_in_gds_scores_as_the_client(gds_rag) -> None:
    """A cut neighbourhood (nodes whose full degree is larger than their edges here, a node without edges),
    weighted seeds, one outside the graph: the same visit shares to 1e-9, and no projection left behind."""
    from graphwright.algorithms import ClientAlgorithms, graph_algorithms
    from graphwright.search.ppr import WalkGraph, personalized_pagerank

    engine = graph_algorithms(gds_rag.settings, gds_rag.store, whole_graph=False)
    assert engine.name == "gds"
    auto = gds_rag.settings.updated(**{"graph_algorithms": "auto"})  # the default
    assert graph_algorithms(auto, gds_rag.store).name == "gds"  # communities in GDS
    assert graph_algorithms(auto, gds_rag.store, whole_graph=False).name == "client"  # the walk's small cut here
    rng = random.Random(7)
    graph = WalkGraph()
    for _ in range(400):
        graph.connect(f"n{rng.randrange(90)}", f"n{rng.randrange(90)}", rng.choice([1.0, 2.0]))
    for i in range(0, 90, 4):
        graph.degree[f"n{i}"] = 60.0  # a hub whose other edges were not fetched
    graph.degree["alone"] = 3.0
    seeds = {"n1": 0.9, "n5": 0.3, "n8": 0.5, "outside": 0.2}
    here = personalized_pagerank(graph, seeds, 0.7, engine=ClientAlgorithms())
    there = personalized_pagerank(graph, seeds, 0.7, engine=engine)
    assert set(here) == set(there)
    assert max(abs(here[n] - there[n]) for n in here) < 1e-9
    assert sorted(here, key=lambda n: (-here[n], n))[:20] == sorted(there, key=lambda n: (-there[n], n))[:20]
    assert here["outside"] == pytest.approx(0.3 * 0.2 / 1.9) and here.get("alone", 0.0) == 0.0
    assert _projections(gds_rag.settings.neo4j_uri) == []


def test_leiden_problems_in_one_gds_run_are_solved_each_at_its_own_resolution(gds_rag) -> None:
    """Two copies of one graph (four cliques in a ring), one at resolution 1 and one at 0.02, projected
    together: each answer is the one the client gives for that problem alone."""
    from graphwright.algorithms import ClientAlgorithms, LeidenProblem, graph_algorithms

    def ring(tag: str) -> list[tuple[str, str, float]]:
        edges = []
        for clique in range(4):
            members = [f"{tag}{clique}-{i}" for i in range(5)]
            edges += [(a, b, 1.0) for i, a in enumerate(members) for b in members[i + 1 :]]
            edges.append((f"{tag}{clique}-0", f"{tag}{(clique + 1) % 4}-1", 1.0))
        return edges

    problems = [
        LeidenProblem(edges, {n: i for i, n in enumerate(sorted({x for e in edges for x in e[:2]}))}, resolution)
        for edges, resolution in ((ring("a"), 1.0), (ring("b"), 0.02))
    ]
    engine = graph_algorithms(gds_rag.settings, gds_rag.store)
    for here, there in zip(ClientAlgorithms().leiden(problems, seed=3), engine.leiden(problems, seed=3)):
        assert _groups(here) == _groups(there)
    assert len(_groups(there)) == 1 and len(_groups(engine.leiden(problems[:1], seed=3)[0])) == 4


def _groups(labels: dict[str, int]) -> set[frozenset[str]]:
    by: dict[int, set[str]] = {}
    for node, label in labels.items():
        by.setdefault(label, set()).add(node)
    return {frozenset(g) for g in by.values()}


def test_communities_in_gds_match_the_client_and_stay_stable(gds_rag, tmp_path: Path) -> None:
    """The bundled sample's graph: hierarchical communities detected in GDS reach the client's modularity
    within 2%; after a new document, untouched communities keep their ids (the incremental update)."""
    import shutil

    from graphwright.communities.leiden import detect, modularity

    rag = gds_rag
    corpus = tmp_path / "space"
    shutil.copytree(ROOT / "examples" / "space", corpus)
    extra = corpus / "zz-extra.md"
    extra.unlink(missing_ok=True)
    rag.ingest([corpus], base=tmp_path, extractor="nlp", update_communities=False)
    run = rag.build_communities(max_cluster_size=6, seed=42)
    assert run.engine == "gds" and max(run.levels) >= 1, run

    edges = rag.store.communities.entity_edges()
    client = detect(edges, 6, 42)
    client_q = modularity(edges, {m: c.id for c in client if c.level == 0 for m in c.members})
    assert run.modularity >= 0.98 * client_q, (run.modularity, client_q)
    stored = rag.store.communities.community_catalog()
    assert sum(run.levels.values()) == len(stored)
    children = {r["parent"] for r in stored if r["parent"]}
    assert all(len(r["members"]) <= 6 or r["id"] not in children for r in stored if r["level"] == max(run.levels))

    extra.write_text("# Vesta\n\nThe Dawn probe orbited Vesta before it went on to Ceres.", encoding="utf-8")
    rag.ingest([extra], base=tmp_path, extractor="nlp", update_communities=False)
    again = rag.build_communities(max_cluster_size=6, seed=42)
    assert again.engine == "gds" and again.kept > 0, again
    assert {r["id"] for r in rag.store.communities.community_catalog()} & {r["id"] for r in stored}
    assert _projections(rag.settings.neo4j_uri) == []


def test_search_ranks_the_same_with_gds_and_in_the_client(gds_rag, embedder, tmp_path: Path) -> None:
    from graphwright.api import GraphRAG

    rag = gds_rag
    rag.ingest([ROOT / "examples" / "space"], base=ROOT, extractor="nlp")
    questions = [
        "Which rocket launched the Apollo 11 crew?",
        "Who walked on the Moon with Neil Armstrong?",
        "What did the Hubble telescope observe?",
    ]
    client_settings = rag.settings.updated(**{"graph_algorithms": "client"})
    with GraphRAG(client_settings, embedder=embedder) as here:
        for question in questions:
            for mode in ("local", "hybrid"):
                a = rag.search(question, mode=mode, generate=False)
                b = here.search(question, mode=mode, generate=False)
                assert [c.chunk_id for c in a.chunks] == [c.chunk_id for c in b.chunks], (question, mode)
                assert [round(c.score, 6) for c in a.chunks] == [round(c.score, 6) for c in b.chunks]
    assert rag.search(questions[0], mode="local", generate=False).chunks


def test_asking_for_gds_where_there_is_none_is_a_clear_error(rag) -> None:
    """The ordinary test server has no GDS: `gds` names the way to get it; `auto` computes in the client."""
    from graphwright.algorithms import graph_algorithms
    from graphwright.errors import GdsUnavailableError

    with pytest.raises(GdsUnavailableError, match="db start --gds"):
        graph_algorithms(rag.settings.updated(**{"graph_algorithms": "gds"}), rag.store)
    assert graph_algorithms(rag.settings, rag.store).name == "client"
