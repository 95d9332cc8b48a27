"""Follow-up resolution as pure logic: when a question depends on its conversation, what it carries, with
which weights, and what passage retrieval searches for. The graph is a dict of names here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from graphwright.graph_store.rows import EntityRow, KeyedEntityRow, RelationRow, ScoredEntityRow
from graphwright.llm.base import ChatResult, JSONSchema, Message
from graphwright.models import ChatTurn, EntityRef
from graphwright.search import followup
from graphwright.search.linking import EntityLinker, Mention, candidate_spans, question_words
from graphwright.text.normalize import normalize_key

ENTITIES = {
    "Blood Street": "FILM",
    "Leo Fong": "PERSON",
    "Hubble Space Telescope": "TECHNOLOGY",
    "James Webb Space Telescope": "TECHNOLOGY",
    "NASA": "ORGANIZATION",
    "Ed Wood": "PERSON",
    "Saturn V": "PRODUCT",
    "Changed It": "SONG",
    "Him": "CONCEPT",
}


RELATIONS = [("Leo Fong", "DIRECTED", "Blood Street"), ("NASA", "OPERATES", "Hubble Space Telescope")]


@dataclass
class FakeGraph:
    """What entity linking reads (the store's `EntityIndex` contract), from the dicts above."""

    reads: list[int] = field(default_factory=list)
    relations: list[tuple[str, str, str]] = field(default_factory=lambda: list(RELATIONS))

    def _row(self, name: str) -> EntityRow:
        return {"id": "e_" + normalize_key(name), "name": name, "type": ENTITIES[name], "description": ""}

    def entities_by_key(self, keys: list[str]) -> list[KeyedEntityRow]:
        self.reads.append(len(keys))
        by_key = {normalize_key(n): n for n in ENTITIES}
        return [{"key": k, "degree": 1, **self._row(by_key[k])} for k in keys if k in by_key]

    def entity_name_search(self, lucene_query: str, k: int) -> list[ScoredEntityRow]:
        return []  # fuzzy linking is not what these tests are about

    def entity_vector_search(self, embedding: list[float], k: int) -> list[ScoredEntityRow]:
        return []

    def entities_with_ids(self, ids: list[str]) -> list[EntityRow]:
        by_id = {"e_" + normalize_key(n): n for n in ENTITIES}
        return [self._row(by_id[i]) for i in ids if i in by_id]

    def relations_among(self, ids: list[str], seeds: list[str], limit: int) -> list[RelationRow]:
        rows: list[RelationRow] = []
        for source, kind, target in self.relations:
            a, b = "e_" + normalize_key(source), "e_" + normalize_key(target)
            if a in ids and b in ids:
                rows.append(
                    {
                        "source_id": a,
                        "source": source,
                        "type": kind,
                        "target_id": b,
                        "target": target,
                        "description": "",
                        "weight": 1.0,
                        "chunk_ids": [],
                        "evidence": [],
                    }
                )
        return rows[:limit]


def linker() -> EntityLinker:
    return EntityLinker(FakeGraph())


def turns(*pairs: tuple[Literal["user", "assistant"], str]) -> list[ChatTurn]:
    return [ChatTurn(role=role, content=text) for role, text in pairs]


def test_pronouns_make_a_question_depend_on_its_conversation() -> None:
    found = followup.resolve(linker(), "Who made its primary mirror?", turns(("user", "Tell me about Saturn V.")))
    assert found.depends and found.reason == "refers back with its"
    assert [e.name for e in found.entities] == ["Saturn V"] and found.names == ["Saturn V"]


def test_a_word_of_a_name_is_not_a_pronoun_and_a_pronoun_is_never_a_name() -> None:
    history = turns(("user", "Tell me about Saturn V."))
    song = followup.resolve(linker(), "Who performed Changed It?", history)
    assert not song.depends and song.reason == "names Changed It", "the It of the song's title"
    assert "him" in followup.ANAPHORS and not any(
        k == "him" for _, _, k in candidate_spans(question_words("what is the place of birth of him?"))
    ), "an entity named Him is not what 'him' asks about"


def test_a_new_subject_is_a_topic_change() -> None:
    found = followup.resolve(linker(), "Where was Ed Wood born?", turns(("user", "Tell me about Saturn V.")))
    assert not found.depends and not found.entities and found.note() == "follow-up: stands alone (names Ed Wood)"


def test_ellipsis_and_questions_without_a_name_depend() -> None:
    history = turns(("user", "Who directed Blood Street?"))
    assert followup.resolve(linker(), "And Ed Wood?", history).reason == "elliptic"
    assert followup.resolve(linker(), "When was the premiere?", history).reason == "names no entity of its own"
    assert not followup.resolve(linker(), "When was the premiere?", []).depends, "no history, nothing to carry"


def test_weights_by_role_age_and_agreement() -> None:
    history = turns(
        ("user", "Tell me about NASA."),
        ("assistant", "NASA runs many programmes."),
        ("user", "Tell me about Blood Street."),
        ("assistant", "Blood Street is a film directed by Leo Fong. Leo Fong also acted in it. Ed Wood did not."),
    )
    found = followup.resolve(linker(), "Where was he born?", history)
    weights = {e.name: e.score for e in found.entities}
    # A question about its subject: that subject at 1.0 but not a person ("he"): 0.5; the answer's people
    # 0.5 each, and first (they agree with "he"); the older question's organisation 0.5 (age) x 0.5.
    assert weights == {"Blood Street": 0.5, "Leo Fong": 0.5, "Ed Wood": 0.5, "NASA": 0.25}
    assert [e.name for e in found.entities][:2] == ["Leo Fong", "Ed Wood"] and found.names == ["Leo Fong", "Ed Wood"]
    it = followup.resolve(linker(), "Where was it shot?", history)
    assert {e.name: e.score for e in it.entities}["Blood Street"] == 1.0 and it.names == ["Blood Street"]


def test_the_entity_a_question_asked_for_is_what_the_next_pronoun_stands_for() -> None:
    """ "Who directed Blood Street?" then "Where was he born?": the answer's person, related to the film by
    DIRECTED, comes first; "it" still finds the film, which agrees with it."""
    history = turns(
        ("user", "Tell me about NASA."),
        ("assistant", "NASA runs many programmes."),
        ("user", "Who is the director of Blood Street?"),
        ("assistant", "Ed Wood was in town. Blood Street is a film directed by Leo Fong. Ed Wood did not."),
    )
    found = followup.resolve(linker(), "Where was he born?", history)
    weights = {e.name: e.score for e in found.entities}
    assert found.entities[0].name == "Leo Fong" and found.entities[0].how == "answered"
    # The question's subject keeps its own weight (x 0.5: a film is not "he"); the other person 0.5 (answer).
    assert weights["Leo Fong"] == 1.0 and weights["Ed Wood"] == 0.5 and weights["Blood Street"] == 0.5
    # Passage search looks for the answer and the subject: the subject's passage states the answer.
    assert found.names == ["Leo Fong", "Blood Street"], "the graph says which of the answer's people directed it"
    assert "the last answer's Leo Fong (a person the answer names, beside 'directed', related to the question's" in (
        found.note()
    )
    it = followup.resolve(linker(), "When was it released?", history)
    assert it.names == ["Blood Street"], "the answer's person does not agree with 'it'"
    they = followup.resolve(linker(), "Where were they born?", history)
    assert they.names[0] == "Leo Fong", "'they' agrees with anyone: the answer's entity first"


def test_the_answer_stated_beside_the_questions_relation_word() -> None:
    """ "Who is the director of X?": the entity written next to "directed" in a line about X is the answer;
    a name next to "directed" in a passage about another film is not, nor a word of the subject's name."""
    from graphwright.search.answer_entity import stated_beside

    answer = "\n".join(
        [
            "[1] Blood Street",
            "  Blood Street is a film directed by Leo Fong.",
            "[2] Other Film",
            "  It was directed by Ed Wood.",
        ]
    )
    words = question_words(answer)

    def at(name: str) -> Mention:
        start = next(i for i in range(len(words)) if " ".join(words[i : i + len(name.split())]) == name)
        return Mention(entity_id=name, start=start, end=start + len(name.split()))

    mentions = [at("Blood Street"), at("Leo Fong"), at("Ed Wood")]
    asked = [EntityRef(id="Blood Street", name="Blood Street", type="WORK", score=1.0)]
    assert stated_beside("Who is the director of Blood Street?", asked, answer, mentions) == {"Leo Fong": "directed"}
    assert stated_beside("Who is the director of Blood Street?", [], answer, mentions) == {}, (
        "without the subject named no line is about it"
    )
    assert stated_beside("Where is Blood Street?", asked, answer, mentions) == {}, "no relation word asked"


def test_what_a_question_asks_for() -> None:
    from graphwright.search.answer_entity import agrees, asked_for

    assert asked_for("Who founded SpaceX?") == "person"
    assert asked_for("In which city was the film shot?") == "place"
    assert asked_for("Which company makes the Model S?") == "thing"
    assert asked_for("What is the place of birth of the director?") == "place"
    assert asked_for("Which actress starred in it?") == "person"
    for about_its_subject in ("Tell me about Apollo 11.", "When was Apollo 11 launched?", "In what year was it built?"):
        assert asked_for(about_its_subject) is None, about_its_subject
    assert asked_for("What is the date of death of Frank Lloyd?") is None
    assert agrees("person", "PERSON") and agrees("place", "GPE") and agrees("thing", "ORG")
    assert not agrees("thing", "PERSON") and not agrees("place", "ORG")


def test_an_answer_of_the_wrong_kind_is_not_taken_for_the_answer() -> None:
    history = turns(("user", "Who directed Blood Street?"), ("assistant", "Saturn V launched. Saturn V flew."))
    found = followup.resolve(linker(), "Where was he born?", history)
    assert all(e.how != "answered" for e in found.entities), "a rocket is no person, nor related to the film"


def test_an_answer_is_about_the_names_it_repeats_not_those_its_question_named() -> None:
    history = turns(
        ("user", "Tell me about the Hubble Space Telescope."),
        (
            "assistant",
            "Hubble Space Telescope, NASA. NASA built it with NASA partners. James Webb Space Telescope later.",
        ),
    )
    found = followup.resolve(linker(), "Who made its mirror?", history)
    assert [e.name for e in found.entities][:3] == ["Hubble Space Telescope", "NASA", "James Webb Space Telescope"]
    assert found.names == ["Hubble Space Telescope"], "passage retrieval searches for the likeliest referent only"


def test_the_whole_conversation_is_read_in_one_call() -> None:
    graph = FakeGraph()
    history = turns(*[("user", f"Tell me about {n}.") for n in ("NASA", "Saturn V")])
    followup.resolve(EntityLinker(graph), "Who built it?", history)
    assert len(graph.reads) == 1


class ScriptedLLM:
    """Keeps the `LLM` protocol: one scripted reply, every prompt kept."""

    model = "scripted"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.messages: list[list[Message]] = []

    def chat(
        self,
        messages: list[Message],
        temperature: float | None = None,
        use_cache: bool = True,
        *,
        task: str = "answer",
        schema: JSONSchema | None = None,
    ) -> ChatResult:
        self.messages.append(messages)
        return ChatResult(text=self.reply)

    def forget(self, messages: list[Message], temperature: float | None = None) -> None:
        pass


def test_the_llm_rewrite_is_one_line_or_nothing() -> None:
    history = turns(("user", "Tell me about Saturn V."), ("assistant", "A rocket."))
    llm = ScriptedLLM("Rewritten question: Who built the Saturn V?\nextra line")
    assert followup.rewrite(llm, "Who built it?", history) == "Who built the Saturn V?"
    assert "Last question: Who built it?" in llm.messages[0][1]["content"]
    assert "user: Tell me about Saturn V." in llm.messages[0][1]["content"]
    assert followup.rewrite(ScriptedLLM(""), "Who built it?", history) is None
    assert followup.rewrite(ScriptedLLM("x" * 2000), "Who built it?", history) is None


def test_long_turns_are_linked_by_their_start_only() -> None:
    graph = FakeGraph()
    history = turns(("user", "Tell me about NASA. " + "word " * 3900), ("assistant", "Saturn V. " + "filler " * 2800))
    found = followup.resolve(EntityLinker(graph), "Who built it?", history)
    assert {e.name for e in found.entities} == {"NASA", "Saturn V"}
    assert graph.reads and graph.reads[0] < 3000, "a bounded read, not every span of 6,700 words"
