"""Cypher's text as tokens, read one way by every lock of the read-only gate (graph_store/cypher_gate/read_only.py) and
by the bound on what an expression may do (graph_store/cypher_gate/expressions.py): the user's query and the
Details of every plan operator alike. One reader, so no lock can see a term that another splits differently:
strings (both quotes, escapes), backtick names, comments, brackets and `CASE ... END` are known to all."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from graphwright.errors import CypherRejectedError

# Cypher's parser reads \uXXXX (with one or more u's) anywhere in a query, as Java source does.
_UNICODE_ESCAPE = re.compile(r"\\u+([0-9a-fA-F]{4})")
OPENERS, CLOSERS = "([{", ")]}"


@dataclass(frozen=True)
class Token:
    kind: str  # "word", "name" (a backtick name), "string", "punct"
    value: str


def tokenize(text: str) -> Iterator[Token]:
    """Cypher's tokens, comments and whitespace dropped; CypherRejectedError for text that never ends
    (a string, name or comment left open) or a backslash outside a string."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            ends = [j for j in (text.find("\n", i), text.find("\r", i)) if j >= 0]
            i = min(ends) + 1 if ends else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherRejectedError("a block comment is never closed")
            i = end + 2
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise CypherRejectedError("a string literal is never closed")
            yield Token("string", text[i + 1 : j])
            i = j + 1
        elif c == "`":
            parts, j = [], i + 1
            while True:
                k = text.find("`", j)
                if k < 0:
                    raise CypherRejectedError("a `quoted` name is never closed")
                if text.startswith("``", k):  # a doubled backtick is a backtick inside the name
                    parts.append(text[j : k + 1])
                    j = k + 2
                    continue
                parts.append(text[j:k])
                break
            yield Token("name", "".join(parts))
            i = k + 1
        elif c.isalnum() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            yield Token("word", text[i:j])
            i = j
        elif c == "\\":
            raise CypherRejectedError("a backslash outside a string literal is not allowed")
        else:
            yield Token("punct", c)
            i += 1


def decodings(query: str) -> list[str]:
    """The texts Neo4j's parser may see: the query itself and, when it holds unicode escapes, the query
    with them decoded (both by the Java rule, where an escaped backslash starts no escape, and naively, so
    a disagreement between the two rules cannot hide anything)."""
    if not _UNICODE_ESCAPE.search(query):
        return [query]

    def java(match: re.Match[str]) -> str:
        start = before = match.start()
        while before > 0 and query[before - 1] == "\\":  # the run of backslashes just before: O(run), not O(n)
            before -= 1
        return match.group(0) if (start - before) % 2 else chr(int(match.group(1), 16))

    return [query, _UNICODE_ESCAPE.sub(java, query), _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), query)]


def keyword(tokens: list[Token], index: int) -> str | None:
    """The upper-cased word at `index` when it stands as a keyword: not a property, label or type (after `.`
    or `:`) and not a map key (before `:`)."""
    token = tokens[index]
    if token.kind != "word":
        return None
    before = tokens[index - 1] if index else None
    after = tokens[index + 1] if index + 1 < len(tokens) else None
    if (before is not None and before.kind == "punct" and before.value in ".:") or after == Token("punct", ":"):
        return None
    return token.value.upper()


def depth_step(tokens: list[Token], index: int) -> int:
    token = tokens[index]
    if token.kind == "punct":
        return 1 if token.value in OPENERS else -1 if token.value in CLOSERS else 0
    word = keyword(tokens, index)
    return 1 if word == "CASE" else -1 if word == "END" else 0


def split_at(tokens: list[Token], separator: str) -> list[list[Token]]:
    """`tokens` cut at the punctuation or keyword `separator` where it stands outside any bracket or CASE."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for index, token in enumerate(tokens):
        if depth == 0 and (token == Token("punct", separator) or keyword(tokens, index) == separator):
            parts.append([])
            continue
        depth += depth_step(tokens, index)
        parts[-1].append(token)
    return parts


def dotted_name(tokens: list[Token], start: int, max_parts: int) -> tuple[list[str], int]:
    """The parts of the dotted name starting at `start` (`db.index.fulltext.queryNodes`), at most `max_parts`,
    and the index of the token after the last part."""
    parts: list[str] = []
    at = start
    while at < len(tokens) and len(parts) < max_parts and tokens[at].kind in ("word", "name"):
        parts.append(tokens[at].value)
        at += 1
        if tokens[at : at + 1] != [Token("punct", ".")]:
            break
        at += 1
    return parts, at


def word_at(tokens: list[Token], index: int) -> str:
    """The lower-cased word at `index` ("" for anything else or out of range)."""
    token = tokens[index] if 0 <= index < len(tokens) else None
    return token.value.lower() if token is not None and token.kind == "word" else ""
