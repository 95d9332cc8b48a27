"""What an expression in user Cypher may do, read from its text before any transaction opens (lock 1 of the
read-only gate, graph_store/cypher_gate/read_only.py, runs it on every decoding of the query).

Neo4j checks for termination and timeouts between rows, so one expression that loops holds a core past any
timeout, and past `TERMINATE TRANSACTION` too: the work inside one row has to be bounded before it starts.
Rows (UNWIND, MATCH) stop at the timeout and collected lists count against the transaction's memory limit;
within a row:
- **the query's shape**: at most MAX_TERMS tokens, MAX_DEPTH brackets deep and MAX_OPERATORS operators (a
  chain of operators nests as deep as it is long: Neo4j's parser overflows its stack on 4,000 brackets or
  500 `+` terms and sends no reply), string literals at most MAX_STRING_CHARS long, and at most
  MAX_CONCATENATIONS `+` (`WITH s + s AS s`, repeated, doubles a string at every clause: 24 of them fill
  Neo4j's heap, which no transaction memory limit counts);
- **functions from a list**: only those of FUNCTIONS (Cypher's own scalar, aggregating, list, string, math,
  temporal, spatial and vector functions); anything else, `file()` and every user-defined function included,
  is refused naming it;
- **regular expressions that run in linear time**: `=~` only with a literal pattern, no backreferences or
  lookarounds, no quantified group that holds a quantifier or an alternative (`(a+)+`, `(a|ab)*`: Java's
  matcher backtracks exponentially there), and at most MAX_UNBOUNDED_REPEATS unbounded repeats in all (each
  multiplies the work by the subject's length);
- **lists from `range()`** have literal bounds and a capped size, `reduce` (whose accumulator can grow with
  every step, the square of their number in work) runs only over a path's nodes or relationships or such a
  range, for at most MAX_REDUCE_STEPS steps (a range that long, paths bounded that long), and no iteration runs
  inside another (n * m steps in one row);
- **no string that grows without bound**: `replace()` (whose result can be its subject times its subject)
  searches for a non-empty literal and replaces it with a literal at most MAX_REPLACE_GROWTH times as long,
  and runs neither inside an iteration nor inside another `replace()`."""

from __future__ import annotations

import re

from graphwright.errors import CypherRejectedError
from graphwright.graph_store.cypher_gate.tokens import Token, depth_step, keyword, split_at, word_at

MAX_TERMS = 2_000
MAX_DEPTH = 40
MAX_OPERATORS = 250
MAX_CONCATENATIONS = 8
MAX_STRING_CHARS = 2_000
MAX_RANGE = 10_000
MAX_RANGE_PRODUCT = 1_000_000
MAX_REDUCE_STEPS = 100
MAX_REPLACE_GROWTH = 64
MAX_REGEX_CHARS = 200
MAX_UNBOUNDED_REPEATS = 2
MAX_OPTIONAL_REPEATS = 8
_MAX_REPEAT_COUNT = 1_000
_ITERATING_CALLS = frozenset({"reduce", "any", "all", "none", "single"})
_PATH_LISTS = frozenset({"nodes", "relationships"})
_GROWING = frozenset({"replace"})

# The functions user Cypher may call (lower case, as Cypher matches them). Documented in docs/security.md.
FUNCTIONS = frozenset(
    {
        # aggregating
        "avg", "collect", "count", "max", "min", "percentilecont", "percentiledisc", "stdev", "stdevp", "sum",
        # scalar, list and path
        "char_length", "character_length", "coalesce", "elementid", "endnode", "head", "id", "isempty", "keys",
        "labels", "last", "length", "nodes", "nullif", "properties", "randomuuid", "range", "reduce",
        "relationships", "reverse", "size", "startnode", "tail", "timestamp", "type", "valuetype",
        "toboolean", "tobooleanlist", "tobooleanornull", "tofloat", "tofloatlist", "tofloatornull", "tointeger",
        "tointegerlist", "tointegerornull", "tostring", "tostringlist", "tostringornull",
        # predicates and patterns
        "all", "any", "exists", "isnan", "none", "single", "shortestpath", "allshortestpaths",
        # math
        "abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cot", "degrees", "e", "exp", "floor", "haversin",
        "log", "log10", "pi", "radians", "rand", "round", "sign", "sin", "sqrt", "tan",
        # string
        "btrim", "left", "lower", "ltrim", "normalize", "replace", "right", "rtrim", "split", "substring",
        "tolower", "toupper", "trim", "upper",
        # temporal
        "date", "datetime", "localdatetime", "localtime", "time", "duration",
        *(f"{kind}.{fn}" for kind in ("date", "datetime", "localdatetime", "localtime", "time")
          for fn in ("truncate", "statement", "transaction", "realtime")),
        "datetime.fromepoch", "datetime.fromepochmillis",
        "duration.between", "duration.inmonths", "duration.indays", "duration.inseconds",
        # spatial and vector
        "point", "point.distance", "point.withinbbox", "vector.similarity.cosine", "vector.similarity.euclidean",
    }
)  # fmt: skip
# Words that stand before `(` without calling anything: clauses, operators, path selectors.
_NOT_CALLS = frozenset(
    {
        "MATCH", "OPTIONAL", "WHERE", "AND", "OR", "XOR", "NOT", "IN", "RETURN", "WITH", "UNWIND", "CALL",
        "CASE", "WHEN", "THEN", "ELSE", "DISTINCT", "BY", "SKIP", "LIMIT", "OFFSET", "CONTAINS", "UNION",
        "SHORTEST", "PATH", "PATHS", "GROUP", "GROUPS", "WALK", "TRAIL", "ACYCLIC", "ELEMENTS", "FILTER", "LET",
        "NEXT", "FINISH", "IS", "AS", "ASC", "DESC", "ASCENDING", "DESCENDING", "REPEATABLE", "DIFFERENT",
    }
)  # fmt: skip
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_FLAGS = re.compile(r"\(\?[a-zA-Z-]*\)")
_FLAG_GROUP = re.compile(r"\(\?[a-zA-Z-]*:")
_CYPHER_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def check_expressions(tokens: list[Token]) -> None:
    """Every bound of this module on one decoding of a query (see the module's docstring)."""
    check_shape(tokens)
    check_functions(tokens)
    check_regexes(tokens)
    check_cost(tokens)


def check_shape(tokens: list[Token]) -> None:
    if len(tokens) > MAX_TERMS:
        raise CypherRejectedError(f"the query has {len(tokens)} terms, above the limit of {MAX_TERMS}")
    depth = deepest = 0
    for index in range(len(tokens)):
        depth += depth_step(tokens, index)
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise CypherRejectedError(f"the query nests {deepest} brackets deep, above the limit of {MAX_DEPTH}")
    operators = sum(1 for index in range(len(tokens)) if _is_operator(tokens, index))
    if operators > MAX_OPERATORS:
        raise CypherRejectedError(f"the query holds {operators} operators, above the limit of {MAX_OPERATORS}")
    plus = tokens.count(Token("punct", "+"))
    if plus > MAX_CONCATENATIONS:
        raise CypherRejectedError(
            f"the query holds {plus} `+`, above the limit of {MAX_CONCATENATIONS}: each can double a string or list"
        )
    for token in tokens:
        if token.kind == "string" and len(token.value) > MAX_STRING_CHARS:
            raise CypherRejectedError(
                f"a string literal of {len(token.value)} characters is above the limit of {MAX_STRING_CHARS}"
            )


def _is_operator(tokens: list[Token], index: int) -> bool:
    token = tokens[index]
    if token.kind == "punct":
        return token.value in "+-*/%^=<>"
    return token.kind == "word" and keyword(tokens, index) in ("AND", "OR", "XOR", "NOT", "IN", "IS")


def function_calls(tokens: list[Token]) -> list[str]:
    """The lower-cased dotted name of each function the query calls; procedures after CALL and labels before
    `(` (an index hint's `n:Label(prop)`) are not calls."""
    calls = []
    for index in range(1, len(tokens)):
        name = tokens[index - 1]
        if tokens[index] != Token("punct", "(") or name.kind not in ("word", "name") or name.value[:1].isdigit():
            continue
        parts, at = [name.value], index - 1
        while at >= 2 and tokens[at - 1] == Token("punct", ".") and tokens[at - 2].kind in ("word", "name"):
            parts.insert(0, tokens[at - 2].value)
            at -= 2
        before = tokens[at - 1] if at else None
        if len(parts) == 1 and name.kind == "word" and name.value.upper() in _NOT_CALLS:
            continue
        index_hint = before == Token("punct", ":") and word_at(tokens, at - 3) == "index"  # INDEX n:Label(prop)
        if index_hint or word_at(tokens, at - 1) == "call":
            continue
        calls.append(".".join(parts).lower())
    return calls


def check_functions(tokens: list[Token]) -> None:
    for name in function_calls(tokens):
        if name not in FUNCTIONS:
            raise CypherRejectedError(
                f"the function {name}() is not on the list user Cypher may call "
                "(`graphwright docs security` lists them)"
            )


def check_regexes(tokens: list[Token]) -> None:
    for index in range(len(tokens) - 1):
        if tokens[index] != Token("punct", "=") or tokens[index + 1] != Token("punct", "~"):
            continue
        pattern = tokens[index + 2] if index + 2 < len(tokens) else None
        after = tokens[index + 3] if index + 3 < len(tokens) else None
        # The literal must be the whole pattern: `'a' + '((a+)+)+b'` or a slice `'[(a+)+]'[1..6]` would build
        # another one from a literal that passes (`+` binds tighter than `=~`).
        whole = after is None or after.kind == "word" or (after.kind == "punct" and after.value in ")],}")
        if pattern is None or pattern.kind != "string" or not whole:
            raise CypherRejectedError(
                "=~ takes a string literal as its pattern here, so it can be shown to run in linear time: "
                "or use CONTAINS, STARTS WITH, ENDS WITH"
            )
        check_regex(_unescaped(pattern.value))


def _unescaped(literal: str) -> str:
    """A Cypher string literal's text as the regex engine receives it."""
    out, i = [], 0
    while i < len(literal):
        if literal[i] == "\\" and i + 1 < len(literal):
            nxt = literal[i + 1]
            if nxt in _CYPHER_ESCAPES:
                out.append(_CYPHER_ESCAPES[nxt])
                i += 2
                continue
            if nxt in "uU" and re.fullmatch(r"[0-9a-fA-F]{4}", literal[i + 2 : i + 6]):
                out.append(chr(int(literal[i + 2 : i + 6], 16)))
                i += 6
                continue
        out.append(literal[i])
        i += 1
    return "".join(out)


def _refuse_regex(why: str) -> CypherRejectedError:
    return CypherRejectedError(
        f"the regular expression is refused: {why}, which can take exponential or polynomial time; use a "
        "simpler pattern, or CONTAINS, STARTS WITH, ENDS WITH"
    )


def _escape_length(pattern: str, at: int) -> int:
    """How many characters the escape starting at `at` (a backslash) spans; refused when it is a
    backreference or an escape this reader does not know the length of."""
    nxt = pattern[at + 1 : at + 2]
    if not nxt:
        raise _refuse_regex("it ends in a backslash")
    if (nxt.isdigit() and nxt != "0") or nxt == "k":
        raise _refuse_regex("it holds a backreference")
    if nxt in "pPx" and pattern[at + 2 : at + 3] == "{":
        end = pattern.find("}", at)
        if end < 0:
            raise _refuse_regex("an escape is never closed")
        return end + 1 - at
    fixed = {"x": 4, "u": 6, "c": 3}
    if nxt in fixed:
        return fixed[nxt]
    if nxt == "0":
        return 2 + len(re.match(r"[0-7]{0,3}", pattern[at + 2 :]).group(0))  # type: ignore[union-attr]
    if nxt in "NQE":
        raise _refuse_regex(f"it holds \\{nxt}")
    return 2


def _class_end(pattern: str, at: int) -> int:
    """The index just past the character class opening at `at`."""
    j = at + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    depth = 1
    while j < len(pattern) and depth:
        if pattern[j] == "\\":
            j += _escape_length(pattern, j)
            continue
        depth += 1 if pattern[j] == "[" else -1 if pattern[j] == "]" else 0
        j += 1
    if depth:
        raise _refuse_regex("a character class is never closed")
    return j


def check_regex(pattern: str) -> None:
    """Refuse a Java regular expression unless its matching is known to take linear (at worst quadratic) time
    in the subject's length: see the module's docstring for the rules."""
    if len(pattern) > MAX_REGEX_CHARS:
        raise _refuse_regex(f"it is {len(pattern)} characters long, above the limit of {MAX_REGEX_CHARS}")
    unbounded = optional = 0
    # per open group: whether it holds a quantifier, whether it holds an alternative
    groups: list[list[bool]] = [[False, False]]
    atom: list[bool] | None = None  # what a quantifier would repeat: a group's flags, [False, False] a character
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        quantifier = _QUANTIFIER.match(pattern, i) if c == "{" else None
        if c in "*+?" or quantifier:
            if atom is None:
                raise _refuse_regex("a quantifier repeats nothing or another quantifier")
            if atom[0] or atom[1]:
                raise _refuse_regex("a repeated group holds a quantifier or an alternative (nested repeats)")
            if quantifier:
                low = int(quantifier.group(1))
                high = low if quantifier.group(2) is None else int(quantifier.group(3) or -1)
                if max(low, high) > _MAX_REPEAT_COUNT:
                    raise _refuse_regex(f"it repeats more than {_MAX_REPEAT_COUNT} times")
                i = quantifier.end()
            else:
                low, high = (0, -1) if c == "*" else (1, -1) if c == "+" else (0, 1)
                i += 1
            if high < 0 or high - low > 16:
                unbounded += 1
            elif high != low:
                optional += 1
            if pattern[i : i + 1] in ("?", "+"):  # lazy or possessive
                i += 1
            groups[-1][0] = True
            atom = None
            continue
        atom = [False, False]
        if c == "\\":
            i += _escape_length(pattern, i)
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            if flags_only := _FLAGS.match(pattern, i):  # inline flags such as (?i): no group
                i, atom = flags_only.end(), None
                continue
            if pattern.startswith("(?", i):
                named = re.match(r"\(\?<[A-Za-z][A-Za-z0-9]*>", pattern[i:])
                flags = _FLAG_GROUP.match(pattern, i)
                if not (named or flags):
                    raise _refuse_regex("it holds a lookaround or an atomic group")
                i = i + named.end() if named else flags.end()  # type: ignore[union-attr]
            else:
                i += 1
            groups.append([False, False])
            atom = None
            continue
        if c == ")":
            if len(groups) == 1:
                raise _refuse_regex("a bracket closes that never opened")
            atom = groups.pop()
            groups[-1][0] |= atom[0]
            groups[-1][1] |= atom[1]
        elif c == "|":
            groups[-1][1] = True
            atom = None
        i += 1
    if len(groups) > 1:
        raise _refuse_regex("a bracket is never closed")
    if unbounded > MAX_UNBOUNDED_REPEATS:
        raise _refuse_regex(f"it repeats without bound {unbounded} times (at most {MAX_UNBOUNDED_REPEATS})")
    if optional > MAX_OPTIONAL_REPEATS:
        raise _refuse_regex(f"it has {optional} optional repeats (at most {MAX_OPTIONAL_REPEATS})")


def _range_size(tokens: list[Token], start: int) -> int:
    """The number of values of `range(...)` whose `(` is at `start`; CypherRejectedError unless its bounds
    are integer literals."""
    values: list[int] = []
    sign, at = 1, start + 1
    while at < len(tokens):
        token = tokens[at]
        if token == Token("punct", "-"):
            sign = -sign
        elif token.kind == "word" and token.value.isdigit() and len(token.value) <= 18:
            values.append(sign * int(token.value))
            sign = 1
            nxt = tokens[at + 1] if at + 1 < len(tokens) else None
            if nxt == Token("punct", ")"):
                break
            if nxt != Token("punct", ","):
                values = []
                break
            at += 1
        else:
            values = []
            break
        at += 1
    if len(values) not in (2, 3) or (len(values) == 3 and values[2] == 0):
        raise CypherRejectedError(
            f"range() takes integer literals here (at most {MAX_RANGE} values), so its work is known before it runs"
        )
    first, last, step = values[0], values[1], values[2] if len(values) == 3 else 1
    return max(0, (last - first) // step + 1)


def _arguments(tokens: list[Token], start: int) -> list[list[Token]]:
    """The arguments of the call whose `(` is at `start`, each as its tokens."""
    depth = 0
    for at in range(start, len(tokens)):
        depth += depth_step(tokens, at)
        if depth == 0:
            return split_at(tokens[start + 1 : at], ",")
    return split_at(tokens[start + 1 :], ",")


def _check_replacement(tokens: list[Token], start: int) -> None:
    """replace(s, search, replacement) with a non-empty literal `search` and a literal `replacement` at most
    MAX_REPLACE_GROWTH times as long: its result is then at most that many times its subject."""
    arguments = _arguments(tokens, start)
    literals = [a[0].value if len(a) == 1 and a[0].kind == "string" else None for a in arguments[1:3]]
    search, replacement = (literals + [None, None])[:2]
    if not search or replacement is None or len(replacement) > MAX_REPLACE_GROWTH * len(search):
        raise CypherRejectedError(
            "replace() takes a non-empty string literal to search for and a literal replacement at most "
            f"{MAX_REPLACE_GROWTH} times as long here: with anything else its result can grow with the square "
            "of its input, in one row that no timeout interrupts"
        )


def _paths_bounded(tokens: list[Token]) -> bool:
    """Whether every variable-length relationship (`[*...]`) and quantified path (`(...){m,n}`, `+`, `*`) of
    the query has a literal upper bound of at most MAX_REDUCE_STEPS."""
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else None
        if token == Token("punct", "*") and before is not None and before.kind in ("word", "name", "punct"):
            if before == Token("punct", ")"):
                return False  # `(...)*`: a quantified path with no bound
            inside = [t.value for t in tokens[index + 1 : index + 6]]
            if not inside or inside[0] in ("]", "|"):
                return False  # `[*]`
            if inside[:3] == [".", ".", "]"] or (inside[0].isdigit() and inside[1:4] == [".", ".", "]"]):
                return False  # `[*2..]`
            bound = inside[2] if inside[:2] == [".", "."] else inside[3] if inside[1:3] == [".", "."] else inside[0]
            if not bound.isdigit() or int(bound) > MAX_REDUCE_STEPS:
                return False
        if token == Token("punct", "+") and before == Token("punct", ")"):
            return False  # `(...)+`
        if token == Token("punct", "{") and before == Token("punct", ")"):
            quantifier = [t.value for t in tokens[index + 1 : index + 5]]
            upper = quantifier[2] if quantifier[1:2] == [","] else quantifier[0]
            if not upper.isdigit() or int(upper) > MAX_REDUCE_STEPS:
                return False
    return True


def check_cost(tokens: list[Token]) -> None:
    """Refuse what could loop for long inside one row (see the module's docstring)."""
    product = 1
    scopes: list[bool] = []  # per open bracket: whether it is an iteration
    growing: list[int] = []  # how many brackets are open inside each open growing call (replace)
    for index, token in enumerate(tokens):
        word = word_at(tokens, index)
        call = index + 1 < len(tokens) and tokens[index + 1] == Token("punct", "(")
        after_dot = index > 0 and tokens[index - 1] == Token("punct", ".")
        if word == "range" and call and not after_dot and word_at(tokens, index - 1) != "unwind":
            size = _range_size(tokens, index + 1)
            if size > MAX_RANGE:
                raise CypherRejectedError(f"range() of {size} values is above the limit of {MAX_RANGE}")
            product *= max(size, 1)
            if product > MAX_RANGE_PRODUCT:
                raise CypherRejectedError(
                    f"the query's range() lists multiply to more than {MAX_RANGE_PRODUCT} values, above the limit"
                )
        if word == "reduce" and call and not after_dot:
            # reduce(acc = init, x IN <list> | ...): the list must be a path's or a bounded range.
            depth, at = 0, index + 1
            while at < len(tokens):
                depth += 1 if tokens[at] == Token("punct", "(") else -1 if tokens[at] == Token("punct", ")") else 0
                if depth == 1 and word_at(tokens, at) == "in":
                    break
                at += 1
            source = word_at(tokens, at + 1)
            if source not in _PATH_LISTS | {"range"} or tokens[at + 2 : at + 3] != [Token("punct", "(")]:
                raise CypherRejectedError(
                    "reduce() runs here only over nodes(p), relationships(p) or a range() of literals: its "
                    "accumulator can grow at every step, in one row that no timeout interrupts; aggregate over rows "
                    "(sum, collect) instead"
                )
            # Its steps are bounded too: a string that grows at each step costs the square of their number.
            if source == "range" and _range_size(tokens, at + 2) > MAX_REDUCE_STEPS:
                raise CypherRejectedError(
                    f"reduce() over a range() of more than {MAX_REDUCE_STEPS} values is not allowed here: its "
                    "accumulator can grow at every step; aggregate over rows (UNWIND, sum, collect) instead"
                )
            if source in _PATH_LISTS and not _paths_bounded(tokens):
                raise CypherRejectedError(
                    f"reduce() over a path runs here only when every variable-length pattern of the query has a "
                    f"literal upper bound of at most {MAX_REDUCE_STEPS} (`[*..{MAX_REDUCE_STEPS}]`, "
                    f"`{{1,{MAX_REDUCE_STEPS}}}`): its accumulator can grow at every step of the path"
                )
        if word in _GROWING and call and not after_dot:
            if any(scopes) or growing:
                raise CypherRejectedError(
                    f"{word}() inside an iteration or inside another {word}() is not allowed here: its result can "
                    "grow with the square of its input, again at every step, inside one row that no timeout interrupts"
                )
            _check_replacement(tokens, index + 1)
            growing.append(len(scopes) + 1)
        if token.kind == "punct" and token.value in "([":
            iterating = (
                (token.value == "(" and word_at(tokens, index - 1) in _ITERATING_CALLS)
                or (
                    token.value == "["
                    and word_at(tokens, index + 2) == "in"
                    and tokens[index + 1].kind in ("word", "name")
                )
                or (token.value == "[" and tokens[index + 1 : index + 2] == [Token("punct", "(")])  # [(a)--(b) | ...]
            )
            if iterating and any(scopes):
                raise CypherRejectedError(
                    "an iteration inside another iteration (a list comprehension, any/all/none/single or reduce in "
                    "another) is not allowed here: its work multiplies inside one row that no timeout interrupts"
                )
            scopes.append(iterating)
        elif token.kind == "punct" and token.value in ")]" and scopes:
            if growing and growing[-1] == len(scopes):
                growing.pop()
            scopes.pop()
