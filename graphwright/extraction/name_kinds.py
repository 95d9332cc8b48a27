"""What a sentence says a name is, read from its dependency parse, for the names whose words alone tell
nothing ("Blue Origin", "Boeing", "Roscosmos"):
- a describing noun: "Blue Origin is an American aerospace company", "Northrop Grumman was the prime
  contractor", "Perkin-Elmer, an optics firm"; and the noun a name stands before when the noun is a kind of
  thing ("the Orion spacecraft", "the Blue Moon lander": a product; "NASA astronaut" says nothing of NASA, so
  person nouns are not read this way);
- a maker's role: who builds, manufactures or develops a named thing ("Boeing built the S-IC first stage",
  "made by Perkin-Elmer") is an organisation;
- a list: a name listed with names of one kind is of that kind ("NASA, Roscosmos, the European Space Agency
  and JAXA"); `list_head` says which list a name is in, the caller votes.

Pure functions over spaCy tokens (duck-typed, as in `predicates.py`)."""

from __future__ import annotations

from typing import Any

Token = Any

_KIND_NOUNS = {
    "ORGANIZATION": set(
        "administration agency airline alliance bank broadcaster business charity club college "
        "company conglomerate consortium contractor corporation department enterprise firm foundation "
        "institute label laboratory maker manufacturer ministry network newspaper operator organisation "
        "organization party provider publisher retailer school startup studio subcontractor subsidiary "
        "supplier university".split()
    ),
    "PERSON": set(
        "actor actress astronaut astronomer author billionaire businessman businesswoman chemist cofounder "
        "commander cosmonaut engineer entrepreneur executive founder inventor journalist man mathematician "
        "musician novelist painter philosopher physicist pilot poet politician president scientist singer "
        "woman writer".split()
    ),
    "LOCATION": set(
        "capital city continent cosmodrome country county crater desert district island lake mountain "
        "municipality neighborhood neighbourhood ocean peninsula port province region river sea spaceport "
        "state suburb town valley village".split()
    ),
    "PRODUCT": set(
        "aircraft airliner airplane booster camera capsule car carrier chip console constellation database drone "
        "engine framework helicopter instrument lander laptop launcher library missile model module orbiter "
        "phone probe processor robot rocket rover satellite ship shuttle software spacecraft telescope "
        "vehicle".split()
    ),
    "EVENT": set("battle championship conference election expedition festival tournament war".split()),
}
_NOUN_KIND = {noun: kind for kind, nouns in _KIND_NOUNS.items() for noun in nouns}
# a noun a name stands before names the name's kind only for things: "NASA astronaut" is no astronaut
_BEFORE_KINDS = {"PRODUCT", "EVENT"}
_MAKER_VERBS = {"build", "manufacture", "develop", "produce", "design", "fabricate", "make", "supply"}
_SUBJECTS = {"nsubj", "nsubjpass"}


def _noun_kind(token: Token) -> str | None:
    return _NOUN_KIND.get((token.lemma_ or token.text).lower()) if token.pos_ == "NOUN" else None


def described_kind(root: Token) -> str | None:
    """The kind the sentence gives the name whose root token this is (None when it says none)."""
    head = root.head
    # "X is a company", "X was the prime contractor"
    if root.dep_ in _SUBJECTS and head.lemma_ == "be":
        for child in head.children:
            if child.dep_ == "attr" and (kind := _noun_kind(child)):
                return kind
    # "X, an optics firm,"; "the firm X"
    for child in root.children:
        if child.dep_ == "appos" and (kind := _noun_kind(child)):
            return kind
    if root.dep_ == "appos" and (kind := _noun_kind(head)):
        return kind
    # "the Orion spacecraft"
    if root.dep_ == "compound" and head.i != root.i and (kind := _noun_kind(head)) in _BEFORE_KINDS:
        return kind
    # "Boeing built the S-IC", "made by Perkin-Elmer" (make only as the agent: "Mary made tea" says nothing)
    if root.dep_ == "pobj" and head.dep_ == "agent" and head.head.lemma_ in _MAKER_VERBS:
        return "ORGANIZATION"
    if root.dep_ == "nsubj" and head.lemma_ in _MAKER_VERBS - {"make"} and _names_a_thing(head):
        return "ORGANIZATION"
    return None


def _names_a_thing(verb: Token) -> bool:
    """Whether the verb's direct object holds a proper noun ("built the S-IC first stage")."""
    for child in verb.children:
        if child.dep_ == "dobj":
            return any(t.pos_ == "PROPN" for t in child.subtree)
    return False


def list_head(root: Token) -> int | None:
    """The first item of the list the name is in (by its token's index); None when it is in no list. The
    parser often hangs a list's proper names on its first by apposition ("NASA, Roscosmos, the European Space
    Agency"): a proper name in apposition to another is an item too."""
    token = root
    climbed = 0
    while _item_link(token) and climbed < 20:
        token, climbed = token.head, climbed + 1
    if climbed:
        return int(token.i)
    return int(root.i) if any(_item_link(c) for c in root.children) else None


def _item_link(token: Token) -> bool:
    if token.head.i == token.i:
        return False
    return token.dep_ == "conj" or (token.dep_ == "appos" and token.pos_ == "PROPN" and token.head.pos_ == "PROPN")
