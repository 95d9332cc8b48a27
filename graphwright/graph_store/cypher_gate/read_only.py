"""The one gate for Cypher written outside graphwright (Text2Cypher's LLM, the agent's `cypher_read` tool, the
MCP `cypher` tool, `GraphRAG.read_cypher`). A query runs only when every lock agrees it is a read:

1. **lexical**: one pass over the text that knows strings (both quotes, escapes), backtick names, line and
   block comments and Cypher's unicode escapes (`\\u0027` is a quote to Neo4j's parser, even outside a
   string); it refuses write and admin keywords, `LOAD`, `IN TRANSACTIONS`, `PERIODIC COMMIT`, the `dbms.`,
   `apoc.` and `gds.` namespaces, procedures outside a read allowlist and more than one statement;
2. **plan**: Neo4j's own `EXPLAIN` must classify it as a read *and* every operator of the plan tree must be
   on a read allowlist (a `LoadCSV`, a `TransactionApply`, a `Show*` or an unknown operator refuses it; a
   `ProcedureCall` must name an allowed procedure). This is the lock that decides: it judges what the
   database will execute, not what the text looks like;
3. **workspace**: where the database holds more than one workspace, every place the plan starts reading
   (its leaves) must name only labels and relationship types of the query's workspace: a scan of every node,
   a seek by internal id, any procedure, or a label of another workspace refuses it (a scan of every
   relationship passes only under a filter that keeps one end on the workspace's label). Since no
   relationship joins two workspaces, what is read from a workspace's nodes stays in it;
4. it runs in a READ transaction (the server refuses writes there) with a timeout;
5. the result is capped by rows and by bytes.

The lexical lock is defence in depth and refuses more than it must; the plan lock is the one that holds
if a trick of the text ever gets past the first."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import neo4j

from graphwright.errors import CypherRejectedError
from graphwright.graph_store.connection import Neo4jConnection
from graphwright.graph_store.contracts import ReadLimits
from graphwright.graph_store.cypher_gate.expressions import check_expressions
from graphwright.graph_store.cypher_gate.tokens import (
    Token,
    decodings,
    depth_step,
    dotted_name,
    keyword,
    split_at,
    tokenize,
)
from graphwright.graph_store.queries import graph as q
from graphwright.graph_store.queries.workspaces import WORKSPACES
from graphwright.graph_store.workspace_names import Workspace
from graphwright.models import CypherRows

READ_PROCEDURES = frozenset(
    {
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.index.fulltext.querynodes",
        "db.index.fulltext.queryrelationships",
        "db.index.vector.querynodes",
        "db.index.vector.queryrelationships",
        "db.schema.nodetypeproperties",
        "db.schema.reltypeproperties",
        "db.schema.visualization",
    }
)
_FORBIDDEN_WORDS = frozenset(
    {
        "CREATE",
        "INSERT",
        "MERGE",
        "DELETE",
        "DETACH",
        "NODETACH",
        "SET",
        "REMOVE",
        "DROP",
        "FOREACH",
        "ALTER",
        "GRANT",
        "DENY",
        "REVOKE",
        "RENAME",
        "START",
        "STOP",
        "TERMINATE",
        "LOAD",
        "CSV",
        "USE",
        "ENABLE",
        "SHOW",
        "DEALLOCATE",
        "REALLOCATE",
        "PERIODIC",
        "COMMIT",
        "TRANSACTIONS",
        "EXPLAIN",
        "PROFILE",
    }
)
_FORBIDDEN_NAMESPACES = frozenset({"dbms", "apoc", "gds"})
# Operators of plans that only read (names as EXPLAIN reports them, without "@neo4j" and "(All)"-style
# variants). Anything else (LoadCSV, Create, Merge, Set*, Delete*, Foreach, TransactionApply, Show*,
# schema and admin commands, operators newer than this list) refuses the query: the list fails closed.
READ_OPERATORS = frozenset(
    {
        # leaves
        "AllNodesScan",
        "NodeByLabelScan",
        "NodeByIdSeek",
        "NodeByElementIdSeek",
        "NodeIndexSeek",
        "NodeUniqueIndexSeek",
        "NodeIndexSeekByRange",
        "NodeUniqueIndexSeekByRange",
        "NodeIndexScan",
        "NodeIndexContainsScan",
        "NodeIndexEndsWithScan",
        "MultiNodeIndexSeek",
        "AssertingMultiNodeIndexSeek",
        "IntersectionNodeByLabelsScan",
        "UnionNodeByLabelsScan",
        "SubtractionNodeByLabelsScan",
        "DirectedRelationshipByIdSeek",
        "UndirectedRelationshipByIdSeek",
        "DirectedRelationshipByElementIdSeek",
        "UndirectedRelationshipByElementIdSeek",
        "DirectedRelationshipIndexSeek",
        "UndirectedRelationshipIndexSeek",
        "DirectedRelationshipUniqueIndexSeek",
        "UndirectedRelationshipUniqueIndexSeek",
        "DirectedRelationshipIndexSeekByRange",
        "UndirectedRelationshipIndexSeekByRange",
        "DirectedRelationshipUniqueIndexSeekByRange",
        "UndirectedRelationshipUniqueIndexSeekByRange",
        "DirectedRelationshipIndexScan",
        "UndirectedRelationshipIndexScan",
        "DirectedRelationshipIndexContainsScan",
        "UndirectedRelationshipIndexContainsScan",
        "DirectedRelationshipIndexEndsWithScan",
        "UndirectedRelationshipIndexEndsWithScan",
        "DirectedAllRelationshipsScan",
        "UndirectedAllRelationshipsScan",
        "DirectedRelationshipTypeScan",
        "UndirectedRelationshipTypeScan",
        "DirectedUnionRelationshipTypesScan",
        "UndirectedUnionRelationshipTypesScan",
        "AssertingMultiRelationshipIndexSeek",
        "NodeCountFromCountStore",
        "RelationshipCountFromCountStore",
        "Argument",
        "ArgumentTracker",
        "EmptyRow",
        "Input",
        # row operators
        "ProduceResults",
        "Projection",
        "Filter",
        "Limit",
        "ExhaustiveLimit",
        "Skip",
        "Sort",
        "PartialSort",
        "Top",
        "PartialTop",
        "Distinct",
        "OrderedDistinct",
        "Aggregation",
        "EagerAggregation",
        "OrderedAggregation",
        "Eager",
        "EmptyResult",
        "CacheProperties",
        "Unwind",
        "ProjectEndpoints",
        "NullifyMetadata",
        "Optional",
        "Anti",
        "PreserveOrder",
        "AssertSameNode",
        "AssertSameRelationship",
        # traversal
        "Expand",
        "OptionalExpand",
        "VarLengthExpand",
        "BFSPruningVarLengthExpand",
        "ShortestPath",
        "StatefulShortestPath",
        "Repeat",
        "BidirectionalRepeat",
        "TriadicSelection",
        "TriadicBuild",
        "TriadicFilter",
        # joins and subqueries that run in the same transaction
        "Apply",
        "SemiApply",
        "AntiSemiApply",
        "LetSemiApply",
        "LetAntiSemiApply",
        "SelectOrSemiApply",
        "SelectOrAntiSemiApply",
        "LetSelectOrSemiApply",
        "LetSelectOrAntiSemiApply",
        "ConditionalApply",
        "AntiConditionalApply",
        "RollUpApply",
        "CartesianProduct",
        "NodeHashJoin",
        "ValueHashJoin",
        "NodeLeftOuterHashJoin",
        "NodeRightOuterHashJoin",
        "Union",
        "OrderedUnion",
        # checked further: the procedure must be on READ_PROCEDURES
        "ProcedureCall",
    }
)
_MAX_PLAN_OPERATORS = 10_000
_MAX_NAME_PARTS = 16  # parts of a dotted procedure name read after CALL
# A query longer than this is refused before any work: no hand- or model-written read needs it, and the
# text lock's passes should stay cheap whatever a request sends.
MAX_QUERY_CHARS = 20_000


# --- lock 1: the text ---------------------------------------------------------------------------------
def _check_tokens(tokens: list[Token]) -> None:
    while tokens and tokens[-1] == Token("punct", ";"):
        tokens.pop()
    if not tokens:
        raise CypherRejectedError("the query is empty")
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else None
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if token == Token("punct", ";"):
            raise CypherRejectedError("only one statement is allowed")
        if (
            token.kind in ("word", "name")
            and token.value.lower() in _FORBIDDEN_NAMESPACES
            and after == Token("punct", ".")
        ):
            raise CypherRejectedError(f"{token.value.lower()}.* is not allowed: queries here are read-only")
        # A word after `.` or `:` is a property, label or type name (n.start, :Set), not a keyword.
        named = before is not None and before.kind == "punct" and before.value in ".:"
        if token.kind == "word" and not named and token.value.upper() in _FORBIDDEN_WORDS:
            raise CypherRejectedError(f"{token.value.upper()} is not allowed: queries here are read-only")
        if token.kind == "word" and not named and token.value.upper() == "CALL":
            _check_call(tokens, index + 1)


def _check_call(tokens: list[Token], start: int) -> None:
    """After CALL (at `start`): a subquery (`{` or `(vars) {`) or a procedure on the read allowlist."""
    if start < len(tokens) and tokens[start].kind == "punct" and tokens[start].value in "{(":
        return
    parts, _ = dotted_name(tokens, start, _MAX_NAME_PARTS)
    name = ".".join(parts)
    if name.lower() not in READ_PROCEDURES:
        raise CypherRejectedError(
            f"CALL {name or '(nothing)'} is not allowed (read-only procedures: {', '.join(sorted(READ_PROCEDURES))})"
        )


def check_text(query: str) -> str:
    """The query, trimmed of whitespace and a final `;`, when its text passes the lexical lock;
    CypherRejectedError (saying which rule) otherwise."""
    if not query.strip():
        raise CypherRejectedError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise CypherRejectedError(f"the query is {len(query)} characters, above the limit of {MAX_QUERY_CHARS}")
    for text in decodings(query):
        tokens = list(tokenize(text))
        _check_tokens(tokens)  # first: a write or admin keyword is named as such
        check_expressions(tokens)
    return query.strip().rstrip(";").strip()


# --- lock 2: the plan ---------------------------------------------------------------------------------
def operator_name(operator_type: str) -> str:
    """ "VarLengthExpand(All)@neo4j" -> "VarLengthExpand"."""
    return operator_type.split("@", 1)[0].split("(", 1)[0].strip()


def _procedure_of(details: str) -> str:
    """The lower-cased dotted name a ProcedureCall's Details start with, read by the one token reader; "" when
    they do not start with `name(`."""
    tokens = list(tokenize(details))
    parts, at = dotted_name(tokens, 0, _MAX_NAME_PARTS)
    followed = tokens[at : at + 1] == [Token("punct", "(")]
    return ".".join(parts).lower() if parts and followed else ""


def check_plan(query_type: str, plan: Mapping[str, Any] | None) -> None:
    """Refuse a query unless Neo4j calls it a read and every operator of its plan only reads."""
    if query_type != "r":
        raise CypherRejectedError(f"Neo4j classifies this query as {query_type!r}, not read-only")
    if not plan:
        raise CypherRejectedError("Neo4j returned no plan for the query, so it cannot be shown to be read-only")
    stack, seen = [plan], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_PLAN_OPERATORS:
            raise CypherRejectedError("the query's plan is too large")
        name = operator_name(str(node.get("operatorType", "")))
        if name not in READ_OPERATORS:
            raise CypherRejectedError(
                f"the plan holds the operator {name or '(unnamed)'}, which is not a read "
                "(allowed: scans, seeks, expands, filters, projections, aggregations, "
                "subqueries, listed read procedures)"
            )
        if name == "ProcedureCall":
            procedure = _procedure_of(_details(node))
            if procedure not in READ_PROCEDURES:
                raise CypherRejectedError(
                    f"the plan calls the procedure {procedure or '(unknown)'}, which is not on the read-only list"
                )
        stack.extend(node.get("children") or [])


# --- lock 3: the workspace -----------------------------------------------------------------------------
# Leaves that read without a label or type: anything in the database.
_UNSCOPED_LEAVES = frozenset(
    {
        "AllNodesScan",
        "NodeByIdSeek",
        "NodeByElementIdSeek",
        "DirectedRelationshipByIdSeek",
        "UndirectedRelationshipByIdSeek",
        "DirectedRelationshipByElementIdSeek",
        "UndirectedRelationshipByElementIdSeek",
    }
)
# A scan of every relationship reads every workspace's relationships: refused like a scan of every node. (It
# used to pass under a Filter holding `a:<label>`; but a Filter evaluates its terms in any order, so another
# workspace's row still reached the other terms, and reading that Filter apart was a second parser to fool.)
_ALL_RELATIONSHIPS = frozenset({"DirectedAllRelationshipsScan", "UndirectedAllRelationshipsScan"})
# Leaves that start from labels or types: each must name at least one, and only the workspace's.
_NAMED_LEAVES = frozenset(
    name
    for name in READ_OPERATORS
    if any(word in name for word in ("Scan", "Seek", "CountFromCountStore"))
    and name not in _UNSCOPED_LEAVES | _ALL_RELATIONSHIPS
)


def _details(node: Mapping[str, Any]) -> str:
    arguments = node.get("args") or node.get("arguments") or {}
    return str(arguments.get("Details", ""))


def _leaf_names(details: str) -> list[str]:
    """The labels and types a leaf's Details name: after `:` (not `::`) or `|`, `&`, `!` of a label expression."""
    tokens = list(tokenize(details))
    names = []
    for index, token in enumerate(tokens[:-1]):
        if token.kind != "punct" or token.value not in ":|&!" or tokens[index + 1].kind not in ("word", "name"):
            continue
        if token.value == ":" and index and tokens[index - 1] == token:
            continue  # `::` of a type
        # Index Details print a workspace's label unquoted, hyphen and all (`c:le-gal__Chunk(id)`): in a leaf,
        # a `-` right after a label only continues it (a pattern's `-` follows `)` or `]`).
        name, at = tokens[index + 1].value, index + 1
        while (
            tokens[at + 1 : at + 2] == [Token("punct", "-")] and at + 2 < len(tokens) and tokens[at + 2].kind == "word"
        ):
            name, at = f"{name}-{tokens[at + 2].value}", at + 2
        names.append(name)
    return names


def check_scope(plan: Mapping[str, Any], workspace: Workspace) -> None:
    """Refuse a plan that could read outside `workspace` (lock 3)."""
    where = f"workspace {workspace.name!r}"
    stack: list[Mapping[str, Any]] = [plan]
    while stack:
        node = stack.pop()
        name = operator_name(str(node.get("operatorType", "")))
        if name in _ALL_RELATIONSHIPS:
            raise CypherRejectedError(
                f"the plan reads with {name}, a scan of every relationship, which is not bound to {where}: give "
                f"the relationship a type of this workspace (for example [r:{workspace.identifier('MENTIONS')}]) or "
                f"start from a label of it (for example ({workspace.identifier('Entity')}))"
            )
        if name in _UNSCOPED_LEAVES:
            raise CypherRejectedError(
                f"the plan reads with {name}, which is not bound to {where}: start every pattern from a "
                f"label of this workspace (for example (n:{workspace.identifier('Entity')}); its schema lists them)"
            )
        if name in _NAMED_LEAVES:
            names = _leaf_names(_details(node))
            if not names:
                raise CypherRejectedError(f"the plan reads with {name} and no label, which is not bound to {where}")
            foreign = [n for n in names if not workspace.owns(n)]
            if foreign:
                raise CypherRejectedError(f"the query names {foreign[0]!r}, which is not a label or type of {where}")
        if name == "ProcedureCall":
            # Their arguments reach the plan as parameters, so which index or which names they read cannot be
            # seen there; the workspace's own vector and fulltext searches are the search modes.
            raise CypherRejectedError(f"procedures are not allowed in the Cypher of {where}: match its labels instead")
        stack.extend(node.get("children") or [])


# --- lock 2b: queries inside expressions -------------------------------------------------------------
# A subquery inside an expression (COLLECT { }, COUNT { }, EXISTS { }, a pattern comprehension) that the
# planner cannot turn into Apply operators is planned as a nested plan *inside* the expression, so it has no
# operators of its own: Neo4j prints it, as canonical Cypher, in the Details of the operator that evaluates
# the expression (pattern comprehensions as `COLLECT { MATCH ... }`, node labels moved into the WHERE right
# after their MATCH, names backtick-quoted wherever they need it). Every read in Cypher is a MATCH pattern or
# a procedure, so a nested read always shows there as a MATCH clause, a `ResolvedCall(...)` or a LOAD CSV:
# those are what this lock reads, in the Details of every operator.
_NESTED_CLAUSE_END = frozenset(
    {"RETURN", "WITH", "MATCH", "OPTIONAL", "UNWIND", "CALL", "ORDER", "SKIP", "LIMIT", "UNION", "FINISH", "LOAD"}
)


def _is_map_key(tokens: list[Token], colon: int) -> bool:
    """Whether the `:` at `colon` ends a map key (`{k: v}`, `{a: 1, k: v}`, `n{k: v}`)."""
    return (
        colon >= 2
        and tokens[colon - 1].kind in ("word", "name")
        and tokens[colon - 2]
        in (
            Token("punct", "{"),
            Token("punct", ","),
        )
    )


def _names_in(tokens: list[Token], where: str) -> list[str]:
    """The labels and types a nested clause names; CypherRejectedError for label expressions that match
    names the clause does not spell out (`!L`, `%`, dynamic `$(...)`, parenthesised expressions)."""
    names: list[str] = []
    for index, token in enumerate(tokens):
        if token != Token("punct", ":") or _is_map_key(tokens, index):
            continue
        if (index and tokens[index - 1] == token) or (index + 1 < len(tokens) and tokens[index + 1] == token):
            continue  # `::` of a type predicate, not a label
        at = index + 1
        while at < len(tokens):
            name = tokens[at]
            if name.kind not in ("word", "name"):
                raise CypherRejectedError(
                    f"a query inside an expression matches a label expression with {name.value!r}, which can "
                    f"reach beyond {where}: name the labels of this workspace instead"
                )
            names.append(name.value)
            follow = tokens[at + 1] if at + 1 < len(tokens) else None
            if follow is None or follow.kind != "punct" or follow.value not in "|&:":
                break
            at += 2
    return names


def _part_variables(part: list[Token]) -> set[str]:
    return {
        part[i + 1].value
        for i, token in enumerate(part[:-1])
        if token.kind == "punct" and token.value in "([" and part[i + 1].kind in ("word", "name")
    }


def _pinned_inline(part: list[Token]) -> bool:
    """Whether a pattern part names a label or type of its own: `(v:L`, `(:L`, `[r:T]`. Not counted in a part
    that repeats (a quantified group or a variable length may match zero times, binding no labelled element)."""
    for i in range(1, len(part)):
        if (
            part[i].kind == "punct"
            and part[i].value in "{*+"
            and part[i - 1].kind == "punct"
            and part[i - 1].value in ")]"
        ):
            return False
        if part[i] == Token("punct", "*"):
            return False
    for i, token in enumerate(part[:-2]):
        if token.kind == "punct" and token.value in "([":
            rest = part[i + 1 : i + 3]
            if rest[0] == Token("punct", ":") or (rest[0].kind in ("word", "name") and rest[1] == Token("punct", ":")):
                return True
    return False


def _anchors(conjunct: list[Token]) -> str | None:
    """The variable a WHERE conjunct `v:L` (or `v:L:M`, `v:L&M`) pins to a label, else None."""
    if len(conjunct) < 3 or len(conjunct) % 2 == 0 or conjunct[0].kind not in ("word", "name"):
        return None
    for index in range(1, len(conjunct), 2):
        if conjunct[index].kind != "punct" or conjunct[index].value not in (":", "&") or conjunct[1].value != ":":
            return None
        if conjunct[index + 1].kind not in ("word", "name"):
            return None
    return conjunct[0].value


def _check_nested_match(clause: list[Token], workspace: Workspace) -> None:
    """One MATCH clause of a nested query: every name it uses is the workspace's, and every pattern part is
    pinned to it, by a label or type in the part or by a `v:L` conjunct of the clause's own WHERE (no
    relationship joins two workspaces, so a part with one pinned element stays in the workspace)."""
    where = f"workspace {workspace.name!r}"
    for name in _names_in(clause, where):
        if not workspace.owns(name):
            raise CypherRejectedError(
                f"a query inside an expression names {name!r}, which is not a label or type of {where}"
            )
    pattern, *predicate = split_at(clause, "WHERE")
    anchored: set[str] = set()
    if predicate and not any(word in ("OR", "XOR") for part in predicate for word in _depth0_words(part)):
        anchored = {v for conjunct in split_at(predicate[0], "AND") if (v := _anchors(conjunct))}
    for part in split_at(pattern, ","):
        pinned = _pinned_inline(part) or bool(_part_variables(part) & anchored)
        if not pinned:
            shown = " ".join(t.value for t in part)[:120]
            raise CypherRejectedError(
                f"a query inside an expression matches `{shown}` without a label of {where}, so it could read "
                "any node: give one of its nodes a label of this workspace"
            )


def _depth0_words(tokens: list[Token]) -> list[str]:
    words, depth = [], 0
    for index in range(len(tokens)):
        if depth == 0 and (word := keyword(tokens, index)):
            words.append(word)
        depth += depth_step(tokens, index)
    return words


def check_nested(plan: Mapping[str, Any], workspace: Workspace | None) -> None:
    """Refuse a plan whose expressions hold a LOAD CSV or a procedure call, or (when `workspace` is given) a
    nested query that could read outside it. CypherRejectedError for Details that cannot be read."""
    stack = [plan]
    while stack:
        node = stack.pop()
        stack.extend(node.get("children") or [])
        details = _details(node)
        if not details:
            continue
        try:
            tokens = list(tokenize(details))
        except CypherRejectedError as exc:
            raise CypherRejectedError(f"an operator's expression cannot be read, so it is refused ({exc})") from exc
        for index in range(len(tokens)):
            word = keyword(tokens, index)
            after = tokens[index + 1] if index + 1 < len(tokens) else None
            if word == "RESOLVEDCALL" or (word == "CALL" and after is not None and after.kind in ("word", "name")):
                raise CypherRejectedError(
                    "a procedure call inside an expression is not allowed: call it at the top level"
                )
            if word == "LOAD":
                raise CypherRejectedError("LOAD CSV is not allowed: queries here are read-only")
            if word == "MATCH" and workspace is not None:
                clause, depth = [], 0
                for at in range(index + 1, len(tokens)):
                    if depth == 0 and keyword(tokens, at) in _NESTED_CLAUSE_END:
                        break
                    depth += depth_step(tokens, at)
                    if depth < 0:
                        break
                    clause.append(tokens[at])
                _check_nested_match(clause, workspace)


# --- all of them -----------------------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """A value of a result row as JSON can carry it: temporal values as ISO 8601 strings, points as Cypher's
    `point({...})` text, lists and maps converted inside."""
    from neo4j import spatial, time

    # Points and durations are tuples: they are tested before lists.
    if isinstance(value, time.DateTime | time.Date | time.Time | time.Duration):
        return value.iso_format()
    if isinstance(value, spatial.Point):
        axes = ("x", "y", "z") if value.srid not in (4326, 4979) else ("longitude", "latitude", "height")
        fields = ", ".join(f"{axis}: {coordinate}" for axis, coordinate in zip(axes, value, strict=False))
        return f"point({{srid: {value.srid}, {fields}}})"
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _record_bytes(row: dict[str, Any]) -> int:
    return len(json.dumps(row, ensure_ascii=False, default=str).encode())


def run_read_only(connection: Neo4jConnection, query: str, limits: ReadLimits) -> CypherRows:
    """Run `query` only if every lock agrees it reads; CypherRejectedError for the locks, QueryRejectedError
    for what Neo4j itself refuses (a syntax error, a write in the READ transaction, the timeout)."""
    query = check_text(query)
    query_type, plan = connection.explain(q.EXPLAIN_PREFIX + query, limits.timeout)
    check_plan(query_type, plan)
    # A workspace registered after this check is empty until something is ingested into it.
    scoped = plan is not None and (not connection.workspace.is_default or bool(connection.read(WORKSPACES)))
    if plan is not None:
        check_nested(plan, connection.workspace if scoped else None)
    if plan is not None and scoped:
        check_scope(plan, connection.workspace)

    def work(tx: neo4j.Transaction) -> CypherRows:
        out = CypherRows(rows=[])
        size = 0
        for record in tx.run(query):
            if len(out.rows) >= limits.max_rows:
                out.truncated, out.limit = True, f"more than {limits.max_rows} rows"
                break
            row = plain(record.data())
            size += _record_bytes(row)
            if size > limits.max_bytes:
                out.truncated, out.limit = True, f"more than {limits.max_bytes} bytes"
                break
            out.rows.append(row)
        return out

    # Fetch one batch beyond the row cap at most, so a huge result is never streamed to us.
    return connection.read_once(work, limits.timeout, fetch_size=limits.max_rows + 1)
