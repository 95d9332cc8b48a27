"""The standing curation rules applied to a graph about to be written: pure, no database."""

from __future__ import annotations

from graphwright.curation.rules import CurationRules, Redirect
from graphwright.models import Entity, Relation
from graphwright.text.normalize import entity_id, normalize_key


def _entity(name: str, type_: str = "CONCEPT", chunk: str = "c1") -> Entity:
    return Entity(
        id=entity_id(normalize_key(name)), name=name, type=type_, label="Concept", mentions={chunk: 1}, embedding=[0.1]
    )


def _relation(a: Entity, type_: str, b: Entity, chunk: str = "c1") -> Relation:
    return Relation(
        source_id=a.id, target_id=b.id, type=type_, chunk_ids=[chunk], chunk_weights=[1.0], evidence=[f"{chunk}."]
    )


def test_no_rules_write_the_graph_as_given() -> None:
    a, b = _entity("A"), _entity("B")
    entities, relations = [a, b], [_relation(a, "KNOWS", b)]
    assert CurationRules().apply(entities, relations) == (entities, relations)


def test_a_merged_away_name_lands_on_its_survivor_through_a_chain() -> None:
    deepmind, google, alphabet, go = _entity("DeepMind"), _entity("Google DeepMind"), _entity("Alphabet"), _entity("Go")
    rules = CurationRules.folded(
        [
            CurationRules(
                redirects=[Redirect(keys=["deepmind"], ids=[deepmind.id], to=google.id, name="Google DeepMind")]
            ),
            CurationRules(
                redirects=[Redirect(keys=["google deepmind"], ids=[google.id], to=alphabet.id, name="Alphabet")]
            ),
        ]
    )
    entities, relations = rules.apply([deepmind, go], [_relation(deepmind, "PLAYS", go)])
    survivor = next(e for e in entities if e.id == alphabet.id)
    assert survivor.name == "Alphabet" and "DeepMind" in survivor.aliases and survivor.embedding is None
    assert [(r.source_id, r.type, r.target_id) for r in relations] == [(alphabet.id, "PLAYS", go.id)]


def test_two_names_made_one_join_their_mentions_and_relations() -> None:
    a, b, x = _entity("JAXA", chunk="c1"), _entity("Japan Aerospace Exploration Agency", chunk="c2"), _entity("ISS")
    rules = CurationRules(redirects=[Redirect(keys=["jaxa"], ids=[a.id], to=b.id, name=b.name)])
    entities, relations = rules.apply([a, b, x], [_relation(a, "BUILT", x, "c1"), _relation(b, "BUILT", x, "c2")])
    joined = next(e for e in entities if e.id == b.id)
    assert joined.mentions == {"c1": 1, "c2": 1} and "JAXA" in joined.aliases
    assert len(relations) == 1 and relations[0].chunk_ids == ["c1", "c2"] and relations[0].evidence == ["c1.", "c2."]


def test_pinned_types_blocks_and_relation_types() -> None:
    bezos, origin, moon, junk = _entity("Jeff Bezos"), _entity("Blue Origin"), _entity("Blue Moon"), _entity("Thanks")
    rules = CurationRules(
        types={origin.id: "ORGANIZATION"},
        blocked_ids=[junk.id],
        blocked_keys=["thanks"],
        blocked_relations=[(origin.id, "HAS", moon.id)],
        relation_types=[(bezos.id, "IN", origin.id, "FOUNDED")],
    )
    entities, relations = rules.apply(
        [bezos, origin, moon, junk],
        [_relation(bezos, "IN", origin), _relation(origin, "HAS", moon), _relation(junk, "IN", moon)],
    )
    by_name = {e.name: e for e in entities}
    assert "Thanks" not in by_name and by_name["Blue Origin"].type == "ORGANIZATION"
    assert by_name["Blue Origin"].label == "Organization"
    assert [(r.source_id, r.type, r.target_id) for r in relations] == [(bezos.id, "FOUNDED", origin.id)]


def test_rules_round_trip_as_json() -> None:
    rules = CurationRules(blocked_relations=[("a", "T", "b")], names={"a": "A"})
    assert CurationRules.from_json(rules.model_dump_json()) == rules and CurationRules.from_json(None).empty
