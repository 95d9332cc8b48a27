"""Hand curation on the real Neo4j: each change, its exact undo, the audit trail, refusals, curation lasting
through later ingests and re-extraction, document deletes after a merge, two clients at once, workspaces."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graphwright.errors import CurationConflictError, NotFoundError

pytestmark = pytest.mark.integration

# What undo must give back: every property but the derived ones, every label, relation and mention.
_DERIVED = ["degree", "similar", "embedding"]


def _graph(rag) -> dict:
    entities = rag.store.read(
        "MATCH (e:Entity) RETURN e.id AS id, properties(e) AS props, labels(e) AS labels ORDER BY id"
    )
    for row in entities:
        row["embedding"] = [round(x, 5) for x in row["props"].get("embedding") or []]
        row["props"] = {k: v for k, v in row["props"].items() if k not in _DERIVED}
        row["labels"] = sorted(row["labels"])
    relations = rag.store.read(
        "MATCH (a:Entity)-[r]->(b:Entity) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p "
        "ORDER BY a, t, b"
    )
    mentions = rag.store.read(
        "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) RETURN c.id AS c, e.id AS e, m.count AS n ORDER BY c, e"
    )
    return {"entities": entities, "relations": relations, "mentions": mentions}


def _names(rag) -> set[str]:
    return {r["name"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS name")}


def _edges(rag, name: str) -> set[tuple[str, str, str]]:
    rows = rag.store.read(
        "MATCH (a:Entity)-[r]-(b:Entity) WHERE a.name = $name "
        "RETURN startNode(r).name AS s, type(r) AS t, endNode(r).name AS o",
        name=name,
    )
    return {(r["s"], r["t"], r["o"]) for r in rows}


CHANGES = {
    "merge": lambda c: c.merge("Delta Cells", "Cobalt Semiconductors"),
    "rename": lambda c: c.rename("Gamma Mining", "Gamma Mining AB"),
    "retype": lambda c: c.retype("Kiruna", "facility"),
    "describe": lambda c: c.describe("Kiruna", "A mining town in the far north of Sweden."),
    "delete": lambda c: c.delete("Zenith Motors"),
    "relation-retype": lambda c: c.retype_relation("Astra Agency", "FUNDS", "Orion Rockets", "OWNS"),
    "relation-delete": lambda c: c.delete_relation("Gamma Mining", "SHIPS_TO", "Narvik"),
}


@pytest.mark.parametrize("op", list(CHANGES))
def test_each_change_and_its_undo(world, op: str) -> None:
    rag = world
    before = _graph(rag)
    curation = rag.curation(who="tester")
    change = CHANGES[op](curation)
    assert change.op == op and change.who == "tester" and change.id == "c1"
    assert rag.inspect.check() == {}, "a change must keep the graph's invariants"
    after = _graph(rag)
    assert after != before
    if op == "merge":
        assert "Delta Cells" not in _names(rag)
        edges = _edges(rag, "Cobalt Semiconductors")
        assert ("Zenith Motors", "COMPETES_WITH", "Cobalt Semiconductors") in edges
        supplies = rag.store.read(
            "MATCH (:Entity {name: 'Cobalt Semiconductors'})-[r:SUPPLIES]->(:Entity {name: 'Acme Corp'}) "
            "RETURN r.chunk_ids AS ids, r.weight AS w"
        )
        assert len(supplies) == 1  # Delta's SUPPLIES joined Cobalt's: one edge, the evidence of both
        profile = rag.inspect.entity("Cobalt Semiconductors")
        assert profile is not None and "Delta Cells" in profile.aliases
        # every chunk that mentioned Delta Cells now mentions the survivor
        assert not rag.store.read("MATCH (e:Entity {name: 'Delta Cells'}) RETURN e")
    if op == "merge":  # the community layer was brought up to date: the survivor is in it, the merged-away not
        members = rag.store.read("MATCH (c:Community) UNWIND c.members AS m RETURN collect(DISTINCT m) AS ids")
        ids = {r["id"]: r["name"] for r in rag.store.read("MATCH (e:Entity) RETURN e.id AS id, e.name AS name")}
        assert set(members[0]["ids"]) <= set(ids) and any(ids[m] == "Cobalt Semiconductors" for m in members[0]["ids"])
    if op == "rename":
        assert "Gamma Mining AB" in _names(rag) and "Gamma Mining" not in _names(rag)
        # the entity's vector is of its new name now (the search side links questions with it)
        from graphwright.models import entity_embedding_text

        row = rag.store.read(
            "MATCH (e:Entity {name: 'Gamma Mining AB'}) RETURN e.embedding AS v, e.type AS t, e.description AS d"
        )[0]
        expected = rag.embedder.embed([entity_embedding_text("Gamma Mining AB", row["t"], row["d"] or "")])[0]
        assert max(abs(a - b) for a, b in zip(row["v"], expected)) < 1e-5
        assert ("Borealis Steel", "ACQUIRED", "Gamma Mining AB") in _edges(rag, "Gamma Mining AB")
    if op == "retype":
        row = rag.store.read("MATCH (e:Entity {name: 'Kiruna'}) RETURN e.type AS t, labels(e) AS l")
        assert row == [{"t": "FACILITY", "l": ["Entity", "Facility"]}]
    if op == "describe":
        from graphwright.models import entity_embedding_text

        row = rag.store.read(
            "MATCH (e:Entity {name: 'Kiruna'}) RETURN e.description AS d, e.embedding AS v, e.type AS t"
        )
        assert row[0]["d"] == "A mining town in the far north of Sweden."
        expected = rag.embedder.embed([entity_embedding_text("Kiruna", row[0]["t"], row[0]["d"])])[0]
        assert max(abs(a - b) for a, b in zip(row[0]["v"], expected)) < 1e-5  # its vector reads the new text
    if op == "delete":
        assert "Zenith Motors" not in _names(rag)
        assert rag.inspect.stats()["chunks"] == 5  # the passages stay
    if op == "relation-retype":
        assert ("Astra Agency", "OWNS", "Orion Rockets") in _edges(rag, "Astra Agency")
        assert ("Astra Agency", "FUNDS", "Orion Rockets") not in _edges(rag, "Astra Agency")
    if op == "relation-delete":
        assert ("Gamma Mining", "SHIPS_TO", "Narvik") not in _edges(rag, "Gamma Mining")

    history = curation.history()
    assert [(c.id, c.op, c.status) for c in history] == [("c1", op, "applied")]
    undone = curation.undo()
    assert undone.op == "undo" and undone.undoes == "c1"
    assert _graph(rag) == before, "undo must give back exactly what the change found"
    assert rag.inspect.check() == {}
    assert [(c.id, c.status, c.undone_by) for c in curation.history()] == [
        ("c2", "applied", None),
        ("c1", "undone", "c2"),
    ]
    with pytest.raises(CurationConflictError):
        curation.undo("c1")  # undone already
    with pytest.raises(NotFoundError):
        curation.undo()  # nothing left to undo (an undo is not undone)


def test_undo_refuses_what_later_changes_depend_on(world) -> None:
    curation = world.curation(who="tester")
    curation.merge("Delta Cells", "Cobalt Semiconductors")
    curation.rename("Cobalt Semiconductors", "Cobalt Semi")
    curation.retype("Narvik", "port")  # touches other entities: no conflict
    with pytest.raises(CurationConflictError, match=r"c2 \(renamed 'Cobalt Semiconductors' to 'Cobalt Semi'\)"):
        curation.undo("c1")
    curation.undo("c2")
    curation.undo("c1")
    assert {"Delta Cells", "Cobalt Semiconductors"} <= _names(world)
    with pytest.raises(NotFoundError):
        curation.undo("c99")


def test_undo_refuses_when_an_ingest_changed_the_entities(world, tmp_path: Path) -> None:
    curation = world.curation(who="tester")
    change = curation.retype_relation("Astra Agency", "FUNDS", "Orion Rockets", "OWNS")
    # a later import adds evidence to the retyped relation: undoing would silently drop it
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "more.md").write_text("Astra Agency funds Orion Rockets again.", encoding="utf-8")
    world.ingest([tmp_path / "more"], base=tmp_path / "more", extractor="none")
    extra = tmp_path / "more.jsonl"
    extra.write_text(
        '{"source": "Astra Agency", "target": "Orion Rockets", "type": "FUNDS", "document_id": "more.md"}',
        encoding="utf-8",
    )
    assert world.import_graph(extra).relations == 1
    assert ("Astra Agency", "OWNS", "Orion Rockets") in _edges(world, "Astra Agency")  # the rule applied
    with pytest.raises(CurationConflictError, match="changed since"):
        curation.undo(change.id)


def test_invalid_changes_are_refused_clearly(world) -> None:
    curation = world.curation(who="tester")
    with pytest.raises(NotFoundError, match="no entity named 'Nobody'"):
        curation.merge("Nobody", "Acme Corp")
    with pytest.raises(ValueError, match="same entity"):
        curation.merge("Acme Corp", "acme corp")
    with pytest.raises(CurationConflictError, match="already named"):
        curation.rename("Acme Corp", "Zenith Motors")
    with pytest.raises(NotFoundError, match="no relation"):
        curation.delete_relation("Acme Corp", "OWNS", "Narvik")
    with pytest.raises(ValueError, match="own relationship type"):
        curation.retype_relation("Gamma Mining", "SHIPS_TO", "Narvik", "MENTIONS")
    assert curation.history() == []  # nothing recorded for a refused change


def _at_once(*actions) -> list[object]:
    """Run the actions in threads started together; each one's result, or the error it met."""
    results: list[object] = [None] * len(actions)

    def run(i: int) -> None:
        try:
            results[i] = actions[i]()
        except Exception as exc:  # noqa: BLE001 - what each client met is the point
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_two_clients_at_once(world) -> None:
    """Two merges of one entity into different survivors: one wins, the other finds it gone; two changes of
    different entities both land. The graph stays consistent and the history has each change once."""
    one, two = world.curation(who="one"), world.curation(who="two")
    results = _at_once(
        lambda: one.merge("Delta Cells", "Cobalt Semiconductors"), lambda: two.merge("Delta Cells", "Acme Corp")
    )
    failed = [r for r in results if isinstance(r, Exception)]
    assert len(failed) == 1 and isinstance(failed[0], NotFoundError), results
    results = _at_once(lambda: one.rename("Narvik", "Narvik Port"), lambda: two.retype("Kiruna", "facility"))
    assert not any(isinstance(r, Exception) for r in results), results
    history = one.history()
    assert sorted(c.id for c in history) == ["c1", "c2", "c3"]  # the refused merge left no record
    assert world.inspect.check() == {}


def _corpus(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "a.md").write_text(
        "Google DeepMind built AlphaGo in London. Demis Hassabis leads Google DeepMind.\n", encoding="utf-8"
    )
    (folder / "b.md").write_text(
        "DeepMind released AlphaFold in 2020. Demis Hassabis founded DeepMind in London.\n", encoding="utf-8"
    )
    return folder


def _types(rag) -> dict[str, tuple[str, list[str]]]:
    rows = rag.store.read("MATCH (e:Entity) RETURN e.name AS n, e.type AS t, labels(e) AS l")
    return {r["n"]: (r["t"], sorted(r["l"])) for r in rows}


def test_curation_lasts_through_ingest_and_reextraction(rag, tmp_path: Path) -> None:
    folder = _corpus(tmp_path / "dm")
    rag.ingest([folder], base=folder, extractor="nlp")
    assert {"DeepMind", "Google DeepMind", "AlphaFold", "AlphaGo"} <= _names(rag)
    assert ("Demis Hassabis", "FOUNDED_IN", "London") in _edges(rag, "Demis Hassabis")
    curation = rag.curation(who="tester")
    curation.merge("DeepMind", "Google DeepMind")
    curation.retype("Demis Hassabis", "person")
    curation.delete_relation("Demis Hassabis", "FOUNDED_IN", "London")
    curation.delete("AlphaFold")
    curation.rename("AlphaGo", "AlphaGo program")
    curation.describe("Google DeepMind", "The AI lab, as the curator puts it.")

    def holds() -> None:
        names = _names(rag)
        assert "DeepMind" not in names and "AlphaFold" not in names and "AlphaGo" not in names
        assert "AlphaGo program" in names
        assert _types(rag)["Demis Hassabis"] == ("PERSON", ["Entity", "Person"])
        edges = _edges(rag, "Demis Hassabis")
        assert ("Demis Hassabis", "FOUNDED_IN", "London") not in edges
        assert ("Demis Hassabis", "FOUNDED", "Google DeepMind") in edges  # DeepMind's relation, on the survivor
        assert ("Google DeepMind", "BUILT", "AlphaGo program") in _edges(rag, "Google DeepMind")
        described = rag.store.read("MATCH (e:Entity {name: 'Google DeepMind'}) RETURN e.description AS d")
        assert described == [{"d": "The AI lab, as the curator puts it."}]  # later writes add nothing to it
        assert rag.inspect.check() == {}

    holds()
    # a later document naming the merged-away, deleted and renamed names
    (folder / "c.md").write_text(
        "DeepMind trained AlphaGo in Cambridge. DeepMind released AlphaFold again.\n", encoding="utf-8"
    )
    report = rag.ingest([folder], base=folder, extractor="nlp")
    assert report.documents_written == 1
    holds()
    c_chunks = [r["id"] for r in rag.store.read("MATCH (c:Chunk {document_id: 'c.md'}) RETURN c.id AS id")]
    linked = rag.store.read(
        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $ids RETURN collect(e.name) AS names", ids=c_chunks
    )[0]["names"]
    assert "Google DeepMind" in linked and "AlphaGo program" in linked
    # re-extraction of every document: the curation is applied to what it extracts
    report = rag.ingest([folder], base=folder, extractor="nlp", reextract=True)
    assert report.documents_written == 3 and report.documents_unchanged == 0
    holds()


def test_document_delete_after_a_merge_removes_exactly_what_only_it_supported(rag, tmp_path: Path) -> None:
    folder = _corpus(tmp_path / "dm")
    rag.ingest([folder], base=folder, extractor="nlp")
    rag.curation(who="tester").merge("DeepMind", "Google DeepMind")
    assert rag.delete_document("b.md") is not None
    names = _names(rag)
    assert "Google DeepMind" in names and "AlphaFold" not in names  # AlphaFold only b.md named
    edges = _edges(rag, "Google DeepMind")
    assert ("Demis Hassabis", "FOUNDED", "Google DeepMind") not in edges  # only b.md said it
    assert ("Demis Hassabis", "LEADS", "Google DeepMind") in edges
    mentions = rag.store.read(
        "MATCH (c:Chunk)-[:MENTIONS]->(:Entity {name: 'Google DeepMind'}) RETURN collect(c.document_id) AS d"
    )[0]["d"]
    assert set(mentions) == {"a.md"}
    assert rag.inspect.check() == {}


def test_curation_stays_in_its_workspace(rag, tmp_path: Path) -> None:
    folder = _corpus(tmp_path / "dm")
    rag.workspaces.create("other")
    other = rag.in_workspace("other")
    try:
        for graph in (rag, other):
            graph.ingest([folder], base=folder, extractor="nlp")
        change = rag.curation(who="tester").merge("DeepMind", "Google DeepMind")
        assert "DeepMind" in _names(other) and "DeepMind" not in _names(rag)
        assert other.curation(who="tester").history() == []
        with pytest.raises(NotFoundError):
            other.curation(who="tester").undo(change.id)
        (folder / "c.md").write_text("DeepMind trained AlphaGo in Cambridge.\n", encoding="utf-8")
        other.ingest([folder], base=folder, extractor="nlp")  # the default workspace's rules do not apply
        assert "DeepMind" in _names(other)
        assert other.inspect.check() == {} and rag.inspect.check() == {}
    finally:
        rag.workspaces.delete("other", yes=True)


def test_curation_from_the_command_line(rag, cli_env, tmp_path: Path) -> None:
    from tests.integration.helpers import run

    folder = _corpus(tmp_path / "dm")
    rag.ingest([folder], base=folder, extractor="nlp")
    out = run(["entity", "merge", "DeepMind", "Google DeepMind", "--no-communities"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "c1: merged 'DeepMind' into 'Google DeepMind'" in out.stdout and "graphwright undo c1" in out.stdout
    out = run(["entity", "retype", "Demis Hassabis", "person", "--json"], cli_env, tmp_path)
    assert out.returncode == 0 and '"op": "retype"' in out.stdout
    out = run(["entity", "describe", "London", "Capital of England.", "--no-communities"], cli_env, tmp_path)
    assert out.returncode == 0 and "described 'London'" in out.stdout, out.stderr
    out = run(["relation", "delete", "Demis Hassabis", "FOUNDED_IN", "London"], cli_env, tmp_path)
    assert out.returncode == 0, out.stderr
    out = run(["history"], cli_env, tmp_path)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and len(lines) == 4 and lines[0].split()[0] == "c4"
    assert "cli:" in lines[0] and "deleted 'Demis Hassabis' -[FOUNDED_IN]-> 'London'" in lines[0]
    undone = run(["undo", "c1"], cli_env, tmp_path)  # the later changes touch other entities: it runs
    assert undone.returncode == 0, undone.stderr
    missing = run(["entity", "merge", "Nobody", "London"], cli_env, tmp_path)
    assert missing.returncode == 2 and "no entity named 'Nobody'" in missing.stderr
    again = run(["undo", "c1"], cli_env, tmp_path)
    assert again.returncode == 2 and "undone already" in again.stderr
    assert "DeepMind" in _names(rag) and rag.inspect.check() == {}
