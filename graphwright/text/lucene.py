"""Questions as Lucene fulltext queries: every question parses, and nothing in it is query syntax."""

from __future__ import annotations

import re

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_LUCENE_OPERATORS = {"AND", "OR", "NOT", "TO"}
# Codes such as QX-7719-ZB, ISO/IEC-27001 or v2.3.1: the analyzer splits them into pieces that other
# codes share, so they are searched as exact phrases.
CODE_RE = re.compile(r"^\w+(?:[-/._:]\w+)+$")
_EDGE_PUNCTUATION = ".,;:!?()[]{}'\""


def has_identifier(text: str) -> bool:
    """A code that mixes letters and digits (QX-7719-ZB, v2.3.1, U-20); a year range (1945-1949) is not one."""
    for word in text.split():
        core = word.strip(_EDGE_PUNCTUATION)
        if CODE_RE.match(core) and any(ch.isdigit() for ch in core) and any(ch.isalpha() for ch in core):
            return True
    return False


# Lucene refuses a query of more than 1024 clauses (every analysed token is one), so a question is cut to a
# budget of tokens well below that, whatever its length or script.
MAX_QUERY_TOKENS = 256
# Scripts written without spaces: the analyser makes a token of every character (or pair), so each is a term.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")
_PIECES = re.compile(r"[^\W_]+")
# Words that carry little for retrieval; dropped first when a question is over the budget.
_COMMON = frozenset(
    "a an and are as at be been but by did do does for from had has have he her his how i if in into is it its "
    "me my no not of on or our she so than that the their them then there these they this to was we were what "
    "when where which who whom whose why will with would you your".split()
)


def has_unspaced_script(text: str) -> bool:
    """Whether `text` holds characters of a script written without spaces (Chinese, Japanese, Korean)."""
    return bool(_UNSPACED.search(text))


def _terms(question: str, split_unspaced: bool = False) -> list[str]:
    """The question's terms in order: codes as phrases, words escaped, and with `split_unspaced` each character
    of an unspaced script a term of its own."""
    terms: list[str] = []
    for word in question.split():
        core = word.strip(_EDGE_PUNCTUATION)
        if CODE_RE.match(core) and any(ch.isdigit() for ch in core):
            terms.append(f'"{core}"')
            continue
        if split_unspaced and _UNSPACED.search(word):
            # Split at each such character, so `北京大学的` is five terms (as the analyser reads it) that
            # deduplication and the budget can see one by one.
            for piece in re.split(f"({_UNSPACED.pattern})", word):
                if piece and (_UNSPACED.fullmatch(piece) or _PIECES.search(piece)):
                    terms.append(_LUCENE_SPECIAL.sub(r"\\\1", piece))
            continue
        if word in _LUCENE_OPERATORS:
            word = word.lower()
        escaped = _LUCENE_SPECIAL.sub(r"\\\1", word)
        if escaped.strip("\\"):
            terms.append(escaped)
    return terms


def _cost(term: str) -> int:
    """Lucene clauses a term can become: one per analysed token (at least one)."""
    return max(1, len(_UNSPACED.findall(term)) + len(_PIECES.findall(_UNSPACED.sub(" ", term))))


def _weight(term: str) -> tuple[int, int]:
    """How informative a term looks without corpus statistics: codes and phrases, then names and numbers
    (capitals, digits), then other words by length; common words last."""
    bare = term.strip('"').replace("\\", "")
    if term.startswith('"'):
        return (3, len(bare))
    if bare.lower() in _COMMON:
        return (0, len(bare))
    if any(ch.isdigit() for ch in bare) or bare[:1].isupper():
        return (2, len(bare))
    return (1, len(bare))


def to_lucene(question: str, max_tokens: int = MAX_QUERY_TOKENS) -> str:
    """Plain words for the Lucene parser: specials escaped, operators neutralized, so any question parses.
    A question of more than `max_tokens` analysed tokens is cut, so that one of any length and script stays
    under Lucene's clause limit: its terms (each character of an unspaced script alone) taken once each, the
    most informative kept, in the question's order. A question within the budget is searched exactly as
    written, so no ranking changes below it."""
    terms = _terms(question)
    if sum(_cost(t) for t in terms) <= max_tokens:
        return " ".join(terms)
    terms = list(dict.fromkeys(_terms(question, split_unspaced=True)))  # in order, each once
    ranked = sorted(range(len(terms)), key=lambda i: _weight(terms[i]), reverse=True)
    keep: set[int] = set()
    budget = max_tokens
    for index in ranked:
        cost = _cost(terms[index])
        if cost <= budget:
            keep.add(index)
            budget -= cost
    return " ".join(terms[i] for i in sorted(keep))


def term_clause(term: str) -> str:
    """One index term escaped, or a phrase of them (words separated by spaces) allowed a gap of two: an index
    of search-mode segments puts the parts of a long word between its words. "" for nothing searchable."""
    words = [_LUCENE_SPECIAL.sub(r"\\\1", w) for w in term.split() if w.strip("\\")]
    if not words:
        return ""
    return words[0] if len(words) == 1 else '"' + " ".join(words) + '"~2'


def alternatives_query(groups: list[dict[str, float]], max_tokens: int = MAX_QUERY_TOKENS) -> str:
    """Groups of weighted alternatives (a question's word and its translations) as one Lucene query, each
    term or phrase boosted by its weight, so that a word with many candidate translations weighs about as
    one word (a structured query, after Pirkola); at most `max_tokens` terms."""
    parts: list[str] = []
    budget = max_tokens
    for group in groups:
        for term, weight in group.items():
            clause, size = term_clause(term), len(term.split())
            if not clause or size > budget or weight <= 0:
                continue
            budget -= size
            parts.append(f"{clause}^{weight:.3g}")
    return " ".join(parts)
