"""The graph schema on the real Neo4j: stored with the graph the first time and held to after; every triple
checked against it, whichever extractor made it (the LLM over the stub, answering inside and outside the
schema); bad and conflicting schema files stop a run before it writes anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphwright.errors import SchemaConflictError
from graphwright.graph_schema import GraphSchema
from tests.integration.helpers import TEXT, ada_corpus, extractor_reply

pytestmark = pytest.mark.integration

SCHEMA = {
    "node_types": [{"label": "Person", "description": "a human being"}, {"label": "Machine"}],
    "relationship_types": [
        {"label": "PROGRAMMED", "description": "wrote programs for a machine"},
        {"label": "DESIGNED"},
    ],
    "patterns": [["Person", "PROGRAMMED", "Machine"], ["Person", "DESIGNED", "Machine"]],
}
# What a model says when it strays: a type the schema lacks, a relation the wrong way round, a pattern that is
# not allowed (Person DESIGNED Person), and a relation to an entity of an undeclared type.
STRAYING = {
    "entities": [
        {"name": "Ada Lovelace", "type": "Person", "description": "A mathematician."},
        {"name": "Analytical Engine", "type": "Machine", "description": "A machine."},
        {"name": "Charles Babbage", "type": "person", "description": "An inventor."},
        {"name": "London", "type": "City", "description": "A city."},
    ],
    "relations": [
        {"source": "Ada Lovelace", "target": "Analytical Engine", "type": "programmed", "strength": 9},
        {"source": "Analytical Engine", "target": "Charles Babbage", "type": "DESIGNED", "strength": 9},
        {"source": "Charles Babbage", "target": "Ada Lovelace", "type": "DESIGNED", "strength": 3},
        {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "BEFRIENDED", "strength": 5},
        {"source": "Ada Lovelace", "target": "London", "type": "LIVED_IN", "strength": 5},
    ],
}


# Worked examples for the offline schema mapping: four firms and who founded them.
FOUNDERS = [
    ("Acme Tools", "Anna Berg"),
    ("Bolt Labs", "Carl Dorn"),
    ("Cora Foods", "Eva Falk"),
    ("Dune Oil", "Gus Hale"),
]


def relations(graph) -> set[tuple[str, str, str]]:
    rows = graph.store.read("MATCH (a:Entity)-[r]->(b:Entity) RETURN a.name AS a, type(r) AS t, b.name AS b")
    return {(r["a"], r["t"], r["b"]) for r in rows}


def test_the_llm_is_told_the_schema_and_what_breaks_it_is_dropped_or_repaired(
    rag, llm_rag_factory, stub, tmp_path: Path
) -> None:
    graph = llm_rag_factory(llm_gleanings=0, llm_concurrency=1)
    stub.default = extractor_reply(json.dumps(STRAYING))
    # London is in the text, so only the schema (not the grounding check) can drop it
    corpus = ada_corpus(tmp_path, TEXT + " Ada Lovelace lived in London.")
    report = graph.ingest([corpus], base=tmp_path, schema=GraphSchema.model_validate(SCHEMA))
    assert report.ok and report.extractor == "llm"
    system = stub.requests[0]["body"]["messages"][0]["content"]
    assert "Person, Machine" in system  # the schema's types replace the configured ones
    assert "(Person)-[PROGRAMMED]->(Machine)" in system and "wrote programs for a machine" in system
    assert relations(graph) == {
        ("Ada Lovelace", "PROGRAMMED", "Analytical Engine"),
        ("Charles Babbage", "DESIGNED", "Analytical Engine"),  # turned round to the schema's direction
    }
    assert report.schema_checks == {
        "repaired relation: reversed to the schema's direction": 1,
        "dropped relation: pattern not in schema": 1,
        "dropped relation: unknown relation type": 1,
        "dropped entity: type not in schema": 1,
        "dropped relation: an end is not an entity kept": 1,
    }
    labels = {r["n"]: r["l"] for r in graph.store.read("MATCH (e:Entity) RETURN e.name AS n, labels(e)[1] AS l")}
    assert labels == {"Ada Lovelace": "Person", "Analytical Engine": "Machine", "Charles Babbage": "Person"}
    assert graph.graph_schema() == GraphSchema.model_validate(SCHEMA)  # stored with the graph


def test_a_stored_schema_is_used_later_and_a_different_one_is_refused_before_any_write(rag, tmp_path: Path) -> None:
    schema = GraphSchema.model_validate(SCHEMA)
    rag.set_graph_schema(schema)
    grown = GraphSchema.model_validate(
        {**SCHEMA, "node_types": [*SCHEMA["node_types"], {"label": "City"}], "additional_patterns": True}
    )
    with pytest.raises(SchemaConflictError, match=r"node types \+City; additional_patterns False -> True"):
        rag.ingest([ada_corpus(tmp_path)], base=tmp_path, schema=grown)
    assert rag.inspect.stats()["documents"] == 0
    assert rag.set_graph_schema(grown, replace=True) == grown and rag.graph_schema() == grown
    report = rag.ingest([ada_corpus(tmp_path)], base=tmp_path, extractor="nlp")  # no schema given: the stored one
    assert report.ok and rag.inspect.stats()["documents"] == 1


def cli(cli_env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "graphwright.cli", *args], env=cli_env, cwd=cwd, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "neither valid JSON nor valid YAML"),
        (
            '{"node_types": ["Person"], "relationship_types": ["KNOWS"], "patterns": [["Person", "KNOWS", "Robot"]]}',
            "undeclared node type 'Robot'",
        ),
    ],
)
def test_a_bad_schema_file_is_one_line_and_exit_2_with_nothing_written(
    rag, cli_env, tmp_path: Path, text: str, message: str
) -> None:
    bad = tmp_path / "schema.json"
    bad.write_text(text, encoding="utf-8")
    run = cli(cli_env, tmp_path, "ingest", str(ada_corpus(tmp_path)), "--schema", str(bad), "--quiet")
    said = " ".join(run.stderr.split())  # rich wraps the line at the terminal's width
    assert run.returncode == 2 and message in said and "Traceback" not in said, run.stderr
    assert rag.inspect.stats()["documents"] == 0 and rag.graph_schema() is None


def test_schema_set_and_show_through_the_cli(rag, cli_env, tmp_path: Path) -> None:
    path = tmp_path / "schema.yaml"
    path.write_text(
        "node_types: [Person, Machine]\nrelationship_types: [PROGRAMMED, DESIGNED]\n"
        "patterns:\n  - [Person, PROGRAMMED, Machine]\n  - [Person, DESIGNED, Machine]\n",
        encoding="utf-8",
    )
    assert cli(cli_env, tmp_path, "schema", "set", str(path)).returncode == 0
    assert cli(cli_env, tmp_path, "ingest", str(ada_corpus(tmp_path)), "--quiet", "--extractor", "nlp").returncode in (
        0,
        1,
    )
    shown = cli(cli_env, tmp_path, "schema", "show")
    assert shown.returncode == 0 and "PROGRAMMED" in shown.stdout and "Patterns" in shown.stdout, shown.stderr
    as_json = json.loads(cli(cli_env, tmp_path, "schema", "show", "--json").stdout)
    assert [p["relationship"] for p in as_json["patterns"]] == ["PROGRAMMED", "DESIGNED"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"node_types": ["Planet"]}), encoding="utf-8")
    refused = cli(cli_env, tmp_path, "schema", "set", str(other))
    assert refused.returncode == 2 and "+Planet" in refused.stderr and "--replace" in refused.stderr


def test_worked_examples_reach_the_llm_as_few_shot_turns(rag, llm_rag_factory, stub, tmp_path: Path) -> None:
    from graphwright.extraction.examples import read_examples

    examples = tmp_path / "examples.jsonl"
    unrelated = [
        {"text": f"Harbour {n} handled grain.", "triples": [{"sub": f"Harbour {n}", "rel": "HANDLED", "obj": "grain"}]}
        for n in range(5)
    ]
    relevant = {
        "text": "Grace Hopper programmed the Mark I machine.",
        "triples": [{"sub": "Grace Hopper", "rel": "PROGRAMMED", "obj": "Mark I"}],
    }
    examples.write_text("".join(json.dumps(e) + "\n" for e in [*unrelated, relevant]), encoding="utf-8")
    graph = llm_rag_factory(llm_gleanings=0, llm_concurrency=1)
    stub.default = extractor_reply(json.dumps(STRAYING))
    report = graph.ingest(
        [ada_corpus(tmp_path)],
        base=tmp_path,
        schema=GraphSchema.model_validate(SCHEMA),
        examples=read_examples(examples),
    )
    assert report.ok
    messages = stub.requests[0]["body"]["messages"]
    # the four examples most like the chunk, the likest first: the last line of the file leads
    assert [m["role"] for m in messages] == ["system", *["user", "assistant"] * 4, "user"]
    assert "Grace Hopper programmed the Mark I machine." in messages[1]["content"]
    assert json.loads(messages[2]["content"])["relations"] == [
        {"source": "Grace Hopper", "type": "PROGRAMMED", "target": "Mark I"}
    ]


def test_a_malformed_examples_file_names_its_line_and_stops_before_any_write(rag, cli_env, tmp_path: Path) -> None:
    examples = tmp_path / "examples.jsonl"
    examples.write_text(
        json.dumps({"text": "Ada wrote.", "triples": [{"sub": "Ada", "rel": "WROTE", "obj": "notes"}]})
        + "\n{not json\n",
        encoding="utf-8",
    )
    run = cli(cli_env, tmp_path, "ingest", str(ada_corpus(tmp_path)), "--examples", str(examples), "--quiet")
    said = " ".join(run.stderr.split())  # rich wraps the line at the terminal's width
    assert run.returncode == 2 and "examples.jsonl, line 2: not JSON" in said and "\n" not in said, run.stderr
    assert rag.inspect.stats()["documents"] == 0


def test_eval_extraction_scores_the_extraction_ingest_runs_and_refuses_a_bad_gold_file(cli_env, tmp_path: Path) -> None:
    """The offline extractor with a schema and worked examples, scored from the CLI; the predicted triples per
    sentence are in --json. A gold line without triples stops the run with one line and exit 2."""
    schema = tmp_path / "schema.json"
    schema.write_text(
        json.dumps(
            {
                "node_types": ["Company", "Person"],
                "relationship_types": ["founder"],
                "patterns": [["Company", "founder", "Person"]],
            }
        ),
        encoding="utf-8",
    )
    examples = tmp_path / "examples.jsonl"
    examples.write_text(
        "".join(
            json.dumps({"text": f"{c} was founded by {p}.", "triples": [{"sub": c, "rel": "founder", "obj": p}]}) + "\n"
            for c, p in FOUNDERS
        ),
        encoding="utf-8",
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps(
            {
                "id": "g1",
                "text": "Zeta Motors was founded by Nils Ort.",
                "triples": [{"sub": "Zeta_Motors", "rel": "founder", "obj": "Nils_Ort"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "scores.json"
    run = cli(
        cli_env, tmp_path, "eval-extraction", str(gold), "--schema", str(schema), "--examples", str(examples),
        "--extractor", "nlp", "--json", str(out), "--quiet",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    sentence = report["ontologies"][0]["scores"][0]
    assert sentence["predicted"] == [["Zeta Motors", "founder", "Nils Ort"]], sentence
    assert report["average"]["f1"] == 1.0

    # the benchmark's own gold: a sentence stating none of the relations is scored, not refused
    gold.write_text('{"id": "g2", "sent": "No triples here.", "triples": []}\n', encoding="utf-8")
    run = cli(cli_env, tmp_path, "eval-extraction", str(gold), "--quiet", "--json", str(out))
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["ontologies"][0]["sentences"] == 1
    gold.write_text('{"id": "g2", "text": "No triples here."}\n', encoding="utf-8")
    run = cli(cli_env, tmp_path, "eval-extraction", str(gold), "--quiet")
    said = " ".join(run.stderr.split())
    assert run.returncode == 2 and "gold.jsonl, line 1" in said, run.stderr
    # one message, however rich wraps it at the terminal's width (the tmp path's length varies)
    assert said.count("error:") == 1 and said.startswith("error:") and said.endswith("(check triples)"), run.stderr


def test_offline_ingest_with_a_schema_and_examples_writes_the_schemas_types(rag, tmp_path: Path) -> None:
    """No LLM: the offline extractor maps a document's facts onto the schema as the examples map theirs, and
    Neo4j holds them under the schema's labels and relationship types, with their evidence."""
    from graphwright.models import ExtractionExample, LabelledTriple

    schema = GraphSchema.model_validate(
        {
            "node_types": ["Company", "Person"],
            "relationship_types": ["FOUNDED_BY"],
            "patterns": [["Company", "FOUNDED_BY", "Person"]],
        }
    )
    examples = [
        ExtractionExample(text=f"{c} was founded by {p}.", triples=[LabelledTriple(sub=c, rel="FOUNDED_BY", obj=p)])
        for c, p in FOUNDERS
    ]
    doc = tmp_path / "firms.txt"
    doc.write_text("Zeta Motors was founded by Nils Ort. The weather in spring was mild.\n", encoding="utf-8")
    report = rag.ingest([doc], base=tmp_path, extractor="nlp", schema=schema, examples=examples)
    assert report.ok, report
    assert relations(rag) == {("Zeta Motors", "FOUNDED_BY", "Nils Ort")}
    rows = rag.store.read(
        "MATCH (a:Entity)-[r:FOUNDED_BY]->(b:Entity) RETURN labels(a)[1] AS a, labels(b)[1] AS b, r.evidence AS e"
    )
    assert [(r["a"], r["b"]) for r in rows] == [("Company", "Person")]
    assert any("Zeta Motors was founded by Nils Ort." in e for e in rows[0]["e"]), rows


def test_a_literal_the_schema_declares_a_property_is_one_and_leaves_with_its_last_evidence(rag, tmp_path: Path) -> None:
    """`Company.foundingDate` (DATE) in the schema: the offline mapping's literal fact is a relation with its
    evidence and also a typed property of the company (what a Cypher user writes), recomputed from the
    relations, so deleting the only document that states it removes the property and nothing else."""
    import datetime

    from graphwright.models import ExtractionExample, LabelledTriple

    schema = GraphSchema.model_validate(
        {
            "node_types": [
                {"label": "Company", "properties": [{"name": "foundingDate", "type": "DATE"}]},
                "Person",
            ],
            "relationship_types": ["FOUNDED_BY", "foundingDate"],
            "patterns": [["Company", "FOUNDED_BY", "Person"], ["Company", "foundingDate", "date"]],
        }
    )
    dates = [
        ("March 3, 1950", "1950-03-03"),
        ("12 June 1961", "1961-06-12"),
        ("January 9, 1972", "1972-01-09"),
        ("5 May 1980", "1980-05-05"),
    ]
    examples = [
        ExtractionExample(
            text=f"{c} was founded by {p} on {written}.",
            triples=[
                LabelledTriple(sub=c, rel="FOUNDED_BY", obj=p),
                LabelledTriple(sub=c, rel="foundingDate", obj=iso),
            ],
        )
        for (c, p), (written, iso) in zip(FOUNDERS, dates, strict=True)
    ]
    stating = tmp_path / "dated.txt"
    stating.write_text("Zeta Motors was founded by Nils Ort on August 14, 1966.\n", encoding="utf-8")
    other = tmp_path / "plain.txt"
    other.write_text("Zeta Motors was founded by Nils Ort.\n", encoding="utf-8")
    report = rag.ingest([stating, other], base=tmp_path, extractor="nlp", schema=schema, examples=examples)
    assert report.ok, report
    assert ("Zeta Motors", "FOUNDING_DATE", "1966-08-14") in relations(rag)

    def company() -> dict:
        rows = rag.store.read("MATCH (c:Company {name: 'Zeta Motors'}) RETURN properties(c) AS p")
        assert len(rows) == 1, rows
        return rows[0]["p"]

    found = company()
    assert found["foundingDate"].to_native() == datetime.date(1966, 8, 14), found
    assert found["literal_keys"] == ["foundingDate"]
    from graphwright.search.graph_model import graph_model_text

    # Text2Cypher and the agent are told of the property, and the schema's pattern that feeds it
    model = graph_model_text(rag.store)
    assert "(:Company).`foundingDate` (DATE)" in model and "-[:FOUNDING_DATE]->a literal value" in model, model
    by_date = rag.store.read("MATCH (c:Company) WHERE c.foundingDate = date('1966-08-14') RETURN c.name AS n")
    assert [r["n"] for r in by_date] == ["Zeta Motors"]

    document_id = next(
        r["id"] for r in rag.store.read("MATCH (d:Document) RETURN d.id AS id, d.source AS s") if "dated" in r["s"]
    )
    assert rag.delete_document(document_id) is not None
    left = company()  # still stated as founded by Nils Ort, no longer dated
    assert "foundingDate" not in left and "literal_keys" not in left, left
    assert ("Zeta Motors", "FOUNDED_BY", "Nils Ort") in relations(rag)
