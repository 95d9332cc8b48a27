"""local, global and path search on a small graph whose answers are known, against the real Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.stub_openai import chat_reply

pytestmark = pytest.mark.integration


def _assert_citations_exist(rag, result) -> None:
    assert result.citations, "an answer must cite something"
    for c in result.citations:
        if c.kind == "relation":
            source, type_, target = c.id.split(":")
            found = rag.store.read(
                "MATCH (:Entity {id: $a})-[r]->(:Entity {id: $b}) WHERE type(r) = $t RETURN count(r) AS n",
                a=source,
                b=target,
                t=type_,
            )[0]["n"]
        else:
            label = {"chunk": "Chunk", "document": "Document", "entity": "Entity", "community": "Community"}[c.kind]
            found = rag.store.read(f"MATCH (n:{label} {{id: $id}}) RETURN count(n) AS n", id=c.id)[0]["n"]
        assert found == 1, f"{c.kind} {c.id} cited but not in the graph"


def test_local_finds_the_named_entity_its_neighbourhood_and_its_passage(world) -> None:
    result = world.search("Where does Gamma Mining operate a mine?", mode="local", k=3)
    by_name = {e.name: e for e in result.entities}
    assert by_name["Gamma Mining"].how == "exact"
    # The walk from Gamma Mining visits its neighbours most, then what is two steps away, then the rest.
    walked = [e.name for e in result.entities if e.how == "walk"]
    assert set(walked[:3]) == {"Kiruna", "Narvik", "Borealis Steel"}
    assert walked[3] == "Falcon Ventures"  # Gamma <- Borealis <- Falcon
    assert "Orion Rockets" not in walked[:6]
    assert result.chunks[0].document_id == "gamma.md"
    assert {"Gamma Mining -[OPERATES]-> Kiruna", "Borealis Steel -[ACQUIRED]-> Gamma Mining"} <= {
        r.render() for r in result.relations
    }
    names = [s.name for s in result.context]
    assert names[:3] == ["entities", "relations", "text_units"] and "communities" in names
    assert sum(s.tokens for s in result.context) <= world.settings.search.context_tokens
    assert "Kiruna" in result.answer and result.answer_kind == "retrieval"
    assert any(c.kind == "community" for c in result.citations)
    _assert_citations_exist(world, result)


def test_local_ranks_only_what_the_question_is_about_first(world) -> None:
    result = world.search("What does Orion Rockets build?", mode="local", k=5)
    assert result.chunks[0].document_id == "space.md"
    assert result.entities[0].name == "Orion Rockets"
    assert "Vega launcher" in {e.name for e in result.entities}
    walked = [e.name for e in result.entities if e.how == "walk"]
    assert set(walked[:3]) == {"Astra Agency", "Vega launcher", "Kourou Spaceport"}
    assert not {"Acme Corp", "Zenith Motors"} & set(walked[:5])


def test_path_returns_the_known_two_hop_path_with_evidence(world) -> None:
    result = world.search("How is Falcon Ventures connected to Acme Corp?", mode="path")
    assert result.graph_paths == ["Falcon Ventures -[INVESTED_IN]-> Borealis Steel -[SUPPLIES]-> Acme Corp"]
    assert {c.document_id for c in result.chunks} == {"funding.md", "acme.md"}
    assert {r.render() for r in result.relations} == {
        "Falcon Ventures -[INVESTED_IN]-> Borealis Steel",
        "Borealis Steel -[SUPPLIES]-> Acme Corp",
    }
    assert "Falcon Ventures -[INVESTED_IN]-> Borealis Steel -[SUPPLIES]-> Acme Corp" in result.answer
    _assert_citations_exist(world, result)


def test_path_direction_is_shown_and_endpoints_can_be_given(world) -> None:
    result = world.search("anything", mode="path", source="Kiruna", target="Falcon Ventures")
    assert result.graph_paths == [
        "Kiruna <-[OPERATES]- Gamma Mining <-[ACQUIRED]- Borealis Steel <-[INVESTED_IN]- Falcon Ventures"
    ]


def test_path_without_a_connection_says_so(world) -> None:
    result = world.search("How is Narvik connected to Kourou Spaceport?", mode="path")
    assert result.graph_paths == []
    assert any("no path" in n for n in result.notes)


def test_intersection_is_answered_from_typed_relations(world) -> None:
    result = world.search("Which of Acme Corp's suppliers are also Zenith Motors' competitors?", mode="path")
    answer_set = {e.name for e in result.entities if e.how == "intersection"}
    assert answer_set == {"Cobalt Semiconductors", "Delta Cells"}  # not Borealis (no rival), not Echo (no supplier)
    assert "Answer set (2): Cobalt Semiconductors, Delta Cells" in result.answer
    assert any("SUPPLIES" in n and "COMPETES_WITH" in n for n in result.notes)
    assert sorted(result.graph_paths) == [
        "Acme Corp <-[SUPPLIES]- Cobalt Semiconductors <-[COMPETES_WITH]- Zenith Motors",
        "Acme Corp <-[SUPPLIES]- Delta Cells <-[COMPETES_WITH]- Zenith Motors",
    ]
    _assert_citations_exist(world, result)


def test_global_offline_returns_the_communities_of_the_asked_theme(world) -> None:
    space = {"Orion Rockets", "Vega launcher", "Kourou Spaceport", "Astra Agency"}
    result = world.search("Which rockets, launchers and spaceports are described?", mode="global")
    top = result.communities[0]
    members = {
        r["name"]
        for r in world.store.read(
            "MATCH (e:Entity)-[:IN_COMMUNITY]->(:Community {id: $id}) RETURN e.name AS name", id=top.id
        )
    }
    assert members <= space and members
    assert result.answer.startswith("Graph context") and top.title in result.answer
    assert {c.document_id for c in result.chunks} >= {"space.md"}  # the report's evidence passages
    _assert_citations_exist(world, result)


def test_global_thematic_question_covers_the_corpus(world) -> None:
    result = world.search("What are the main themes of these documents?", mode="global")
    assert any("thematic" in n for n in result.notes)
    covered = set()
    for community in result.communities:
        covered |= {
            r["name"]
            for r in world.store.read(
                "MATCH (e:Entity)-[:IN_COMMUNITY]->(:Community {id: $id}) RETURN e.name AS name", id=community.id
            )
        }
    assert {"Acme Corp", "Orion Rockets"} <= covered  # both themes of the corpus are in the answer


def test_global_at_a_level_and_without_communities(world, rag) -> None:
    result = world.search("space", mode="global", level=0)
    assert result.communities and all(c.level == 0 for c in result.communities)
    world.store.connection.write("MATCH (c:Community) DETACH DELETE c")
    empty = world.search("space", mode="global")
    assert empty.communities == [] and "communities build" in " ".join(empty.notes)


def test_filters_narrow_local_and_are_refused_by_the_other_graph_modes(world) -> None:
    from graphwright.errors import InvalidRequestError

    with pytest.raises(
        InvalidRequestError, match=r"\(`where`\) apply to the vector, hybrid, local, auto and raptor modes"
    ):
        world.search("Gamma Mining", mode="global", where=["year=2021"])
    everywhere = world.search("Who acquired Gamma Mining?", mode="local", k=5, generate=False)
    assert {"funding.md", "gamma.md"} <= {c.document_id for c in everywhere.chunks}
    narrowed = world.search("Who acquired Gamma Mining?", mode="local", k=5, where=["id=gamma.md"], generate=False)
    assert narrowed.chunks and {c.document_id for c in narrowed.chunks} == {"gamma.md"}


def test_local_ranks_by_similarity_where_the_question_names_no_entity(world) -> None:
    """The graph never hurts: a question naming no entity of the graph has its passages ranked as `vector`
    ranks them; one naming its entities keeps the walk."""
    question = "Which rail line carries iron ore to a northern port?"
    local = world.search(question, mode="local", k=3, generate=False)
    vector = world.search(question, mode="vector", k=3, generate=False)
    assert {c.scores["walk_weight"] for c in local.chunks} == {0.0}
    assert [c.chunk_id for c in local.chunks] == [c.chunk_id for c in vector.chunks]
    named = world.search("Who acquired Gamma Mining?", mode="local", k=3, generate=False)
    assert named.chunks[0].scores["walk_weight"] == 1.0


def test_local_with_an_llm_cites_only_known_ids(world, llm_rag_factory, stub) -> None:
    rag = llm_rag_factory()
    gamma_chunk = world.store.retrieval.get_document("gamma.md")["chunks"][0]["id"]
    stub.default = lambda body: chat_reply(
        f"Gamma Mining operates the Kiruna mine [{gamma_chunk}] and ships to Narvik [c_deadbeef00]."
    )
    result = rag.search("Where does Gamma Mining operate a mine?", mode="local")
    assert result.answer_kind == "generated"
    assert [c.id for c in result.citations if c.kind == "chunk"] == [gamma_chunk]
    prompt = stub.requests[-1]["body"]["messages"][1]["content"]
    assert "## Entities" in prompt and "## Relations" in prompt and gamma_chunk in prompt
    assert result.token_usage["prompt_tokens"] == 10


def test_global_map_reduce_with_an_llm(world, llm_rag_factory, stub) -> None:
    rag = llm_rag_factory(llm_concurrency=2, global_batch_tokens=200)
    ids = [r["id"] for r in world.store.read("MATCH (c:Community) RETURN c.id AS id")]
    space: list[str] = []

    def reply(body):
        content = body["messages"][1]["content"]
        if content.startswith("Key points"):
            return chat_reply(f"Two themes: a space programme [{space[0]}] and more.")
        if "Orion" in content:
            space.extend(i for i in ids if f"[{i}]" in content and i not in space)
            return chat_reply(
                json.dumps(
                    {
                        "points": [
                            {"description": "A space programme", "score": 80, "reports": space[:1] + ["L9-notareport"]}
                        ]
                    }
                )
            )
        return chat_reply("not json at all")

    stub.default = reply
    result = rag.search("What are the main themes?", mode="global")
    assert result.answer.startswith("Two themes") and result.answer_kind == "generated"
    assert [s.name for s in result.context][0] == "points"
    assert "A space programme" in result.context[0].text and "L9-notareport" not in result.context[0].text
    assert any(n.startswith("map:") for n in result.notes)
    assert any("failed" in n for n in result.notes)  # the batches answered with prose are reported, not fatal
    batches = len([r for r in stub.requests if not r["body"]["messages"][1]["content"].startswith("Key points")])
    failed = sum(1 for n in result.notes if n.startswith("map batch"))
    summary = next(n for n in result.notes if n.startswith("map:"))
    assert summary.endswith(f"; {failed} of {batches} batches failed") and 0 < failed < batches, result.notes
    assert len([r for r in stub.requests if r["body"]["messages"][1]["content"].startswith("Key points")]) == 1
    assert [c.id for c in result.citations if c.kind == "community"] == space[:1]


def test_cli_graph_modes(world, cli_env, tmp_path: Path) -> None:
    from tests.integration.helpers import run

    out = run(
        ["query", "How is Falcon Ventures connected to Acme Corp?", "--mode", "path", "--json"], cli_env, tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["graph_paths"] == [
        "Falcon Ventures -[INVESTED_IN]-> Borealis Steel -[SUPPLIES]-> Acme Corp"
    ]
    question = ["query", "Where does Gamma Mining operate a mine?", "--mode", "local", "--k", "3"]
    compact = run(question, cli_env, tmp_path)
    assert compact.returncode == 0, compact.stderr
    # the answer first and little else: no evidence table, Browser link or Cypher unless asked for
    assert "Gamma Mining" in compact.stdout and "--explain" in compact.stdout
    assert "Evidence passages" not in compact.stdout and "browser/?cmd" not in compact.stdout
    assert "MATCH" not in compact.stdout
    out = run([*question, "--show-context", "--explain"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "context: relations" in out.stdout and "Gamma Mining -[OPERATES]-> Kiruna" in out.stdout
    assert "Cited graph elements" in out.stdout and "Evidence passages" in out.stdout
    assert "browser/?cmd=edit" in out.stdout and "MATCH (n)" in out.stdout
    assert len(compact.stdout.splitlines()) < len(out.stdout.splitlines()) / 2
    out = run(["query", "main themes", "--mode", "global", "--level", "0"], cli_env, tmp_path)
    assert out.returncode == 0 and "Community reports most relevant" in out.stdout
    out = run(["query", "x", "--mode", "global", "--where", "a=b"], cli_env, tmp_path)
    assert out.returncode == 2 and "--where" in out.stderr and "vector, hybrid, local, auto and raptor" in out.stderr
    out = run(["query", "x", "--mode", "path", "--source", "Acme Corp"], cli_env, tmp_path)
    assert out.returncode == 2 and "--target" in out.stderr


def test_a_misspelt_name_still_links(world) -> None:
    result = world.search("Where does Gama Minning ship its ore?", mode="local", k=3)
    assert result.entities[0].name == "Gamma Mining" and result.entities[0].how in ("fulltext", "vector")
    assert result.chunks[0].document_id == "gamma.md"


def test_k_is_the_number_of_passages_in_every_offline_mode(world, cli_env, tmp_path: Path) -> None:
    """`k` means the same everywhere: at most k passages in the evidence, the answer and the citations (local
    once showed 3 in its answer and 20 in its evidence)."""
    from graphwright.search.registry import mode_names, modes_where
    from tests.integration.helpers import run

    question = "Where does Gamma Mining operate a mine?"
    for mode in (m for m in mode_names() if m not in modes_where("needs_llm")):
        wide = world.search(question, mode=mode, k=6)
        result = world.search(question, mode=mode, k=2)
        assert len(result.chunks) <= 2, (mode, len(result.chunks))
        assert [c.chunk_id for c in result.chunks] == [c.chunk_id for c in wide.chunks[:2]], mode
        assert len([c for c in result.citations if c.kind == "chunk"]) <= 2, mode
    shown = run(["query", question, "--mode", "local", "--k", "2", "--json"], cli_env, tmp_path)
    assert shown.returncode == 0 and len(json.loads(shown.stdout)["chunks"]) == 2
