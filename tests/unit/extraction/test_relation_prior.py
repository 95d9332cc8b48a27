"""The relation prior: what other ontologies' examples teach about a relation the user's examples never show,
fitted, stored and read back, and scored leave-one-set-out from the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphwright.cli import main
from graphwright.extraction.parser import spacy_available
from graphwright.extraction.relation_prior import (
    Associations,
    Evidence,
    LabelView,
    PairView,
    RelationPrior,
    fits,
)


def view(between: set[str], kind: str = "NAME", ner: str = "PERSON") -> PairView:
    return PairView(frozenset(between), frozenset(), frozenset(), frozenset(), ner, kind, True, False, True)


FOUNDER = LabelView(frozenset({"found"}), frozenset({"perso"}), "name")
BIRTH = LabelView(frozenset({"birth", "date"}), frozenset(), "date")


def evidence(n: int) -> Evidence:
    """Pairs whose context says "founded" are `founder`, "born" ones `birthDate`, the rest none."""
    pairs = []
    for i in range(n):
        pairs.append((view({"found", f"w{i % 3}"}), "founder"))
        pairs.append((view({"born"}, kind="DATE", ner="DATE"), "birthDate"))
        pairs.append((view({"visit", f"w{i % 3}"}), ""))
    return Evidence(pairs, {"founder": FOUNDER, "birthDate": BIRTH})


def test_a_value_fits_its_range() -> None:
    assert fits("DATE", "date") and fits("NUMBER", "year") and fits("NAME", "name")
    assert not fits("NUMBER", "name") and not fits("NAME", "date")


def test_associations_learned_on_other_ontologies_carry_to_a_label_by_its_words() -> None:
    counts = evidence(10).words()
    # "born" goes with birth/date far above chance; "visit" with nothing
    assert counts.best(["born"], ["birth"]) > 0.5
    assert counts.best(["visit"], ["birth", "found"]) == 0.0
    assert (counts + counts - counts).pairs == counts.pairs


def test_the_fitted_prior_writes_the_stated_relation_only_and_survives_a_round_trip() -> None:
    prior = RelationPrior.fit([evidence(12), evidence(9)])
    founded, visited = view({"found"}), view({"visit"})
    assert prior.logit(founded, FOUNDER) > 0
    assert prior.logit(visited, FOUNDER) < 0
    assert prior.logit(view({"born"}, kind="DATE", ner="DATE"), BIRTH) > 0
    again = RelationPrior.from_json(prior.to_json())
    assert again.logit(founded, FOUNDER) == pytest.approx(prior.logit(founded, FOUNDER))
    assert again.fingerprint() == prior.fingerprint()


def test_a_prior_fitted_with_other_features_is_refused() -> None:
    data = json.loads(RelationPrior([0.0] * 13, 0.0, Associations()).to_json())
    data["features"] = ["bias"]
    with pytest.raises(ValueError, match="other features"):
        RelationPrior.from_json(json.dumps(data))


def test_the_packaged_prior_is_shipped_and_reads() -> None:
    prior = RelationPrior.packaged()
    assert prior is not None and len(prior.weights) == 13 and prior.associations.pairs


# --- leave one set out, from the CLI -------------------------------------------------------------------
PEOPLE = [("Acme Tools", "Anna Berg"), ("Bolt Labs", "Carl Dorn"), ("Cora Foods", "Eva Falk"), ("Dune Oil", "Gus Hale")]
YEARS = [("Kiel Works", "1901"), ("Turku Steel", "1932"), ("Bergen Fish", "1950"), ("Malmo Glass", "1977")]


def write_set(folder: Path, relations: list[str], examples: list[dict], gold: list[dict]) -> None:
    folder.mkdir()
    patterns = [["Company", r, "Person"] if r == "founder" else ["Company", r, "xsd:gYear"] for r in relations]
    (folder / "schema.json").write_text(
        json.dumps({"node_types": ["Company", "Person"], "relationship_types": relations,
                    "patterns": patterns}),
        encoding="utf-8",
    )  # fmt: skip
    (folder / "examples.jsonl").write_text("".join(json.dumps(e) + "\n" for e in examples), encoding="utf-8")
    (folder / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")


def founded(c: str, p: str) -> dict:
    return {"text": f"{c} was founded by {p}.", "triples": [{"sub": c, "rel": "founder", "obj": p}]}


def established(c: str, year: str) -> dict:
    return {"text": f"{c} opened in {year}.", "triples": [{"sub": c, "rel": "foundingYear", "obj": year}]}


@pytest.mark.skipif(not spacy_available(), reason="spaCy's English model is not installed")
def test_cross_validation_scores_each_set_with_what_the_other_sets_taught(tmp_path: Path) -> None:
    """Set b's examples never show `founder`: only what set a taught can write it; left out, a's own pairs
    never teach the prior that scores a."""
    write_set(
        tmp_path / "1_a",
        ["founder"],
        [founded(c, p) for c, p in PEOPLE * 3],
        [{"id": "g", **founded("Zeta Motors", "Nils Ort")}],
    )
    write_set(
        tmp_path / "2_b",
        ["founder", "foundingYear"],
        [established(c, y) for c, y in YEARS * 3],
        [{"id": "g", **founded("Yarrow Mills", "Ida Lund")}],
    )
    out = tmp_path / "cv.json"
    run = CliRunner().invoke(main, ["eval-extraction", str(tmp_path), "--cross-validate", "-q", "--json", str(out)])
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text(encoding="utf-8"))
    b = next(o for o in report["ontologies"] if o["name"] == "2_b")
    assert b["scores"][0]["predicted"] == [["Yarrow Mills", "founder", "Ida Lund"]], b
    assert any("leave one set out" in n for n in report["notes"])
    one = CliRunner().invoke(main, ["eval-extraction", str(tmp_path / "1_a" / "gold.jsonl"), "--cross-validate"])
    assert one.exit_code == 2 and "two sets or more" in one.output
