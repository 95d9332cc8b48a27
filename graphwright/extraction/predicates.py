"""What a sentence says between two of its entities, read from its dependency parse: the predicate that links
them, as a relation type with a direction (subject -> object).

"Google acquired DeepMind" gives `Google -[ACQUIRED]-> DeepMind`; "Apollo 11 was launched by a Saturn V" gives
`Saturn V -[LAUNCHED]-> Apollo 11` (a passive turned active); "Armstrong and Aldrin walked on the Moon" gives
both `WALKED_ON` the Moon; "Wernher von Braun, the director of the Marshall Center" gives `DIRECTOR_OF`; "X is
the capital of Y" gives `CAPITAL_OF`. Two names only listed together, or linked by nothing short enough to
read, give None: the caller keeps them as co-occurring (`RELATED_TO`).

Pure functions over spaCy tokens (duck-typed: `dep_`, `head`, `tag_`, `lemma_`, `children`, `i`), so the
rules are tested on real parses without the extractor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Token = Any  # a spaCy Token; typed loosely so this module never imports spaCy

_SUBJECT = {"nsubj", "csubj"}
_PASSIVE_SUBJECT = {"nsubjpass", "csubjpass"}
_OBJECT = {"dobj", "attr", "oprd", "dative", "obj"}
_MAX_EDGES = 6  # longer paths read as noise more often than as a relation
_PRONOUN_SUBJECTS = {"who", "which", "that"}
# A preposition alone is no relation type: under a name it reads as one of these ("Kennedy Space Center in
# Florida": LOCATED_IN; "R-7 from Baikonur": COMES_FROM; "the Chang'e program of CNSA" has its noun: PROGRAM_OF);
# any other preposition leaves the pair co-occurring.
_PREPOSITION_RELATIONS = {
    "in": ("located", "in"),
    "at": ("located", "at"),
    "near": ("located", "near"),
    "on": ("located", "on"),
    "from": ("comes", "from"),
    "of": ("part", "of"),
}
# the readings that say where a thing is: right only when the other name is a place (the caller knows types)
PLACE_READINGS = frozenset(v for k, v in _PREPOSITION_RELATIONS.items() if k != "of")
_VERBS_NO_TYPE = {"be", "have", "do", "become", "include", "say"}  # too vague to name a relation alone


@dataclass(frozen=True)
class Predicate:
    """A typed link: `words` name the relation ("acquired", "walked on"); `forward` is True when the first
    entity is its subject. No words: the parse links the two names by what reads as no relation type ("X
    with Y", a phrase on the noun a name stands before), so they are kept as co-occurring."""

    words: tuple[str, ...]
    forward: bool


def _anchor(root: Token) -> Token:
    """The token that stands for a name in the sentence: its root, climbed past the common noun it modifies
    ("a Saturn V rocket", "the S-IC first stage": the rocket's role is the name's)."""
    token = root
    for _ in range(3):
        head = token.head
        if head.i == token.i:
            break
        if token.dep_ in ("compound", "flat") or (token.dep_ in ("nmod", "amod", "nummod") and head.pos_ == "NOUN"):
            token = head
        else:
            break
    return token


def _ancestors(token: Token) -> list[Token]:
    chain = [token]
    while chain[-1].head.i != chain[-1].i and len(chain) < 40:  # spaCy makes a new Token per access: compare .i
        chain.append(chain[-1].head)
    return chain


def _verb_word(verb: Token) -> str:
    """A verb as a relation word: its past form as written, else the third person ("operates")."""
    text = verb.text.lower()
    if verb.tag_ in ("VBD", "VBN"):
        return text
    lemma = (verb.lemma_ or text).lower()
    if lemma.endswith(("s", "sh", "ch", "x", "z")):
        return lemma + "es"
    if lemma.endswith("y") and len(lemma) > 1 and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"


def _is_verb(token: Token) -> bool:
    return token.tag_.startswith("VB") or token.pos_ in ("VERB", "AUX")


def _role(path: list[Token]) -> str:
    """How a name reaches the predicate: the dependency of the token just below it, when the name is that
    token or one of its conjuncts ("Armstrong and Aldrin walked" makes both subjects); "" when the name
    sits deeper (the object of a clause about the subject is no subject)."""
    if len(path) < 2 or any(t.dep_ != "conj" for t in path[:-2]):
        return ""
    return path[-2].dep_


def _particles(verb: Token) -> list[str]:
    return [c.text.lower() for c in verb.children if c.dep_ == "prt"]


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _object_words(path: list[Token]) -> list[str] | None:
    """The words after the verb that lead down to the object: a preposition ("on"), a noun and its
    preposition ("design of"), an open complement ("to build"); None when the way down is none of these.
    `path` runs from the object's anchor up to, not including, the verb. A conjunct or apposition at the
    bottom takes the role of the name it hangs on ("arrived with A, B and C": each of them)."""
    start = 0
    while start < len(path) - 1 and path[start].dep_ in ("conj", "appos"):
        start += 1
    tokens = list(reversed(path[start:]))  # top first
    words: list[str] = []
    for position, token in enumerate(tokens):
        last = position == len(tokens) - 1
        if token.dep_ == "conj":
            if _is_verb(token):  # "founded ... and headquartered in": another verb, another relation
                return None
            continue
        if token.dep_ in _OBJECT or token.dep_ == "pobj":
            if last:
                continue
            if position == 0 and token.pos_ == "NOUN":
                words.append(token.lemma_.lower())  # "led the design of": the design is part of the link
                continue
            return None
        if token.dep_ in ("prep", "agent"):
            words.append(token.text.lower())
        elif token.dep_ == "xcomp" and _is_verb(token):
            words.append(_verb_word(token))
        else:
            return None
    return words


def _paths(root_a: Token, root_b: Token) -> tuple[list[Token], list[Token]] | None:
    """Each name's way up the parse to where the two meet (both lists end at that token); None when the
    two names are one token or in different sentences of the parse."""
    a, b = _anchor(root_a), _anchor(root_b)
    if a.i == b.i:
        return None
    up_a, up_b = _ancestors(a), _ancestors(b)
    ids_b = {t.i: n for n, t in enumerate(up_b)}
    meet = next((n for n, t in enumerate(up_a) if t.i in ids_b), None)
    if meet is None:
        return None
    return up_a[: meet + 1], up_b[: ids_b[up_a[meet].i] + 1]


def distance(root_a: Token, root_b: Token) -> int | None:
    """How many dependency edges separate two names (past the words of each name); None if unconnected."""
    paths = _paths(root_a, root_b)
    return None if paths is None else len(paths[0]) + len(paths[1]) - 2


def predicate(root_a: Token, root_b: Token) -> Predicate | None:
    """The relation the sentence states between two names, given each name's root token; None when the
    parse links them by nothing this reads as a relation."""
    paths = _paths(root_a, root_b)
    if paths is None:
        return None
    path_a, path_b = paths
    if len(path_a) + len(path_b) - 2 > _MAX_EDGES:
        return None
    top = path_a[-1]
    if _is_verb(top) and len(path_a) > 1 and len(path_b) > 1:
        return _verb_predicate(top, path_a, path_b)
    if len(path_b) > 1 and len(path_a) == 1:
        return _noun_predicate(path_b, forward=True, upper_is_name=_anchor(root_a).i == root_a.i)
    if len(path_a) > 1 and len(path_b) == 1:
        return _noun_predicate(path_a, forward=False, upper_is_name=_anchor(root_b).i == root_b.i)
    return None


def _verb_predicate(verb: Token, path_a: list[Token], path_b: list[Token]) -> Predicate | None:
    role_a, role_b = _role(path_a), _role(path_b)
    subject_a, subject_b = role_a in _SUBJECT, role_b in _SUBJECT
    passive_a, passive_b = role_a in _PASSIVE_SUBJECT, role_b in _PASSIVE_SUBJECT
    if not (subject_a or subject_b or passive_a or passive_b):
        return _objects_predicate(verb, path_a, path_b)
    if subject_a == subject_b and passive_a == passive_b:
        return None  # both subjects: listed together
    forward = subject_a or passive_a
    object_path = path_b if forward else path_a
    passive = passive_a or passive_b
    lemma = verb.lemma_.lower()
    below = list(reversed(object_path[:-1]))  # from just under the verb down to the object
    if lemma == "be" and len(below) >= 2 and below[0].dep_ == "attr" and below[1].dep_ in ("acl", "relcl"):
        # "X is a company founded by Y": the clause on the attribute is said of X
        return _clause_predicate(below[1], below[2:], forward)
    tail = _object_words(object_path[:-1])
    if tail is None:
        return None
    if passive and tail[:1] == ["by"]:  # "was launched by X": X launched it
        return Predicate(tuple(_lead(verb) + tail[1:]), not forward)
    if lemma in ("be", "become"):  # "is the capital of": the noun carries it; "is in": where it is
        return _linking(tail, forward)
    if lemma in _VERBS_NO_TYPE and not tail:
        return None
    return Predicate(tuple(_lead(verb) + tail), forward)


def _objects_predicate(verb: Token, path_a: list[Token], path_b: list[Token]) -> Predicate | None:
    """A direct object and a prepositional object of one verb: "landed the module Eagle in the Sea of
    Tranquility" gives Eagle LANDED_IN the Sea."""
    role_a, role_b = _role(path_a), _role(path_b)
    if role_a in _OBJECT and len(path_b) == 3 and role_b == "prep" and path_b[0].dep_ == "pobj":
        direct, preposition, forward = path_a, path_b[1], True
    elif role_b in _OBJECT and len(path_a) == 3 and role_a == "prep" and path_a[0].dep_ == "pobj":
        direct, preposition, forward = path_b, path_a[1], False
    else:
        return None
    if verb.lemma_.lower() in _VERBS_NO_TYPE or direct[0].dep_ == "conj" and len(direct) > 2:
        return None
    return Predicate((*_lead(verb), preposition.text.lower()), forward)


def _linking(words: list[str], forward: bool) -> Predicate | None:
    """What "is" or a bare attachment states: a noun and its preposition as they are ("capital of"), a lone
    preposition by what it reads as (`_PREPOSITION_RELATIONS`), else linked with no type (`UNTYPED`)."""
    if not words:
        return None
    if len(words) == 1:
        relation = _PREPOSITION_RELATIONS.get(words[0])
        return Predicate(relation, forward) if relation else Predicate((), forward)
    return Predicate(tuple(words), forward)


def _lead(verb: Token) -> list[str]:
    return (["not"] if _negated(verb) else []) + [_verb_word(verb), *_particles(verb)]


def _noun_predicate(path: list[Token], forward: bool, upper_is_name: bool) -> Predicate | None:
    """One name under the other. Through a clause ("Bezos, who founded Blue Origin"; "Orion, built by
    Lockheed Martin"), a possessive ("Blue Origin's New Shepard": HAS), a preposition ("Kennedy Space Center
    in Florida": IN) or a noun ("Braun, the director of the Center": DIRECTOR_OF). `path` runs from the lower
    name up to the upper one; `forward` is True when the upper name is the first entity; `upper_is_name` is
    False when the upper name stands before a noun ("an R-7 rocket") that took its place."""
    tokens = list(reversed(path[:-1]))  # from just under the upper name down to the lower one's anchor
    top = tokens[0]
    if top.dep_ == "poss" and len(tokens) == 1:  # the lower name owns the upper one: the upper belongs to it
        return Predicate(("belongs", "to"), forward)
    if top.dep_ in ("relcl", "acl") and _is_verb(top):
        return _clause_predicate(top, tokens[1:], forward)
    if len(tokens) == 2 and top.dep_ == "prep" and tokens[1].dep_ == "pobj":
        # on the name itself only: in "an R-7 rocket from the Baikonur Cosmodrome in Kazakhstan" the
        # phrases hang on the rocket, which the parser often attaches wrongly
        return _linking([top.text.lower()], forward) if upper_is_name else Predicate((), forward)
    if len(tokens) != 3:
        return None
    noun, prep, obj = tokens
    if noun.dep_ in ("appos", "attr") and noun.pos_ == "NOUN" and prep.dep_ == "prep" and obj.dep_ == "pobj":
        return Predicate((noun.lemma_.lower(), prep.text.lower()), forward)
    return None


def _clause_predicate(verb: Token, below: list[Token], forward: bool) -> Predicate | None:
    """A clause on the upper name: it is the clause's subject ("who founded Y", "a rocket carrying Y") or,
    for a passive ("which was built by Y", "built by Y"), its object."""
    tail = _object_words(below[::-1]) if below else None
    if tail is None:
        return None
    relative = {c.dep_ for c in verb.children if c.text.lower() in _PRONOUN_SUBJECTS}
    passive = bool(relative & _PASSIVE_SUBJECT) or (verb.dep_ == "acl" and verb.tag_ == "VBN")
    if passive:
        if tail[:1] == ["by"]:  # "X, built by Y": Y built X
            return Predicate(tuple(_lead(verb) + tail[1:]), not forward)
        return Predicate(tuple(_lead(verb) + tail), forward) if tail else None  # "launched from Y"
    if relative & _SUBJECT or (verb.dep_ == "acl" and verb.tag_ == "VBG"):
        return Predicate(tuple(_lead(verb) + tail), forward)
    return None
