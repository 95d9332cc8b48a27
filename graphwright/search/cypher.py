"""Read-only Cypher: written by the LLM from the live schema (Text2Cypher), or passed by the agent's
`cypher_read` tool. Four locks, any one of which stops a write:

1. a lexical check (string literals and comments removed first) refuses write and admin clauses, LOAD CSV,
   procedure calls outside a read-only allowlist, and more than one statement;
2. `EXPLAIN` must parse it and Neo4j must classify it as read-only (query type "r");
3. it runs in a READ transaction, which the server refuses to write in;
4. with a row limit and a transaction timeout.
An error goes back to the model once for repair."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphwright.errors import GraphwrightError, QueryRejectedError
from graphwright.graph_store import Neo4jStore
from graphwright.llm import LLM
from graphwright.llm.prompts import render
from graphwright.models import TraceStep
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Answer, Retrieval

_STRING_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_BACKTICK_RE = re.compile(r"`[^`]*`")
_FORBIDDEN = ("CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "FOREACH", "ALTER", "GRANT",
              "DENY", "REVOKE", "RENAME", "START", "STOP", "TERMINATE", "LOAD", "USE", "ENABLE", "SHOW")
_FORBIDDEN_RE = re.compile(r"\b(" + "|".join(_FORBIDDEN) + r")\b|\bIN\s+TRANSACTIONS\b", re.IGNORECASE)
_CALL_RE = re.compile(r"\bCALL\s+([A-Za-z_][\w.]*)\s*\(", re.IGNORECASE)
_CALL_ANY_RE = re.compile(r"\bCALL\b", re.IGNORECASE)
_SUBQUERY_CALL_RE = re.compile(r"\bCALL\s*(\(\s*[\w\s,]*\)\s*)?\{", re.IGNORECASE)
READ_PROCEDURES = {"db.labels", "db.relationshiptypes", "db.propertykeys", "db.index.fulltext.querynodes",
                   "db.index.fulltext.queryrelationships", "db.index.vector.querynodes",
                   "db.schema.nodetypeproperties", "db.schema.reltypeproperties", "db.schema.visualization"}
_FENCE_RE = re.compile(r"```(?:cypher)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)



class CypherRejectedError(GraphwrightError, ValueError):
    """A query that is not provably read-only; the message says which rule it broke."""


def _strip(query: str) -> str:
    """The query without comments, string literals and `quoted` identifiers: what is left is Cypher code."""
    text = _COMMENT_RE.sub(" ", query)
    text = _STRING_RE.sub("''", text)
    return _BACKTICK_RE.sub("x", text)


def check_read_only(query: str) -> str:
    """The query, trimmed, when it passes the lexical lock; CypherRejectedError otherwise."""
    query = query.strip()
    if not query:
        raise CypherRejectedError("the query is empty")
    code = _strip(query).strip()
    if ";" in code.rstrip(";"):
        raise CypherRejectedError("only one statement is allowed")
    query = query.rstrip().rstrip(";").strip()
    found = _FORBIDDEN_RE.search(code)
    if found:
        raise CypherRejectedError(f"{found.group(0).upper()} is not allowed: queries here are read-only")
    procedures = _CALL_RE.findall(code)
    for name in procedures:
        if name.lower() not in READ_PROCEDURES:
            raise CypherRejectedError(f"CALL {name} is not allowed (read-only procedures: "
                                      f"{', '.join(sorted(READ_PROCEDURES))})")
    calls = len(_CALL_ANY_RE.findall(code))
    if calls > len(procedures) + len(_SUBQUERY_CALL_RE.findall(code)):
        raise CypherRejectedError("CALL is only allowed for listed read-only procedures and subqueries")
    return query


def extract_query(text: str) -> str:
    fenced = _FENCE_RE.search(text)
    return (fenced.group(1) if fenced else text).strip()


@dataclass
class CypherRun:
    query: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    error: str | None = None
    attempts: list[dict[str, str]] = field(default_factory=list)  # {query, error} of each failed try


def run_read_only(store: Neo4jStore, query: str, max_rows: int, timeout: float) -> tuple[list[dict[str, Any]], bool]:
    """All four locks; CypherRejectedError for the checks, GraphStoreError for what Neo4j refuses."""
    query = check_read_only(query)
    kind = store.graph.explain_query_type(query)
    if kind != "r":
        raise CypherRejectedError(f"Neo4j classifies this query as {kind!r}, not read-only")
    return store.graph.read_query(query, max_rows, timeout)


class Text2Cypher:
    def __init__(self, store: Neo4jStore, llm: LLM, max_rows: int = 50, timeout: float = 10.0) -> None:
        self.store = store
        self.llm = llm
        self.max_rows = max_rows
        self.timeout = timeout

    def run(self, question: str) -> CypherRun:
        messages = [{"role": "system", "content": render("cypher_system")},
                    {"role": "user", "content": f"Schema:\n{self.store.graph.schema_text()}\n\nQuestion: {question}"}]
        attempts: list[dict[str, str]] = []
        for attempt in range(2):  # the first try and one repair
            query = extract_query(self.llm.chat(messages, use_cache=False).text)
            try:
                rows, truncated = run_read_only(self.store, query, self.max_rows, self.timeout)
                return CypherRun(query=query, rows=rows, truncated=truncated, attempts=attempts)
            except (CypherRejectedError, QueryRejectedError) as exc:
                attempts.append({"query": query, "error": str(exc)})
                if attempt == 0:
                    messages += [{"role": "assistant", "content": query},
                                 {"role": "user", "content": f"That query failed: {exc}\nWrite a corrected "
                                                             "read-only query. Reply with the query only."}]
        return CypherRun(query=attempts[-1]["query"], error=attempts[-1]["error"], attempts=attempts)


class CypherMode(SearchMode):
    name = "cypher"
    summary = "read-only Cypher written by the LLM from the live schema (Text2Cypher; needs an LLM)"
    needs_llm = True
    embeds_question = False

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        settings = ctx.settings
        run = Text2Cypher(ctx.store, ctx.require_llm(), settings.cypher_max_rows, settings.cypher_timeout).run(
            query.question)
        trace = [TraceStep(step=i, kind="cypher", name="rejected or failed", arguments={"query": a["query"]},
                           summary=a["error"], ok=False) for i, a in enumerate(run.attempts, start=1)]
        if run.error is None:
            trace.append(TraceStep(step=len(trace) + 1, kind="cypher", name="ran", arguments={"query": run.query},
                                   summary=f"{len(run.rows)} rows{' (truncated)' if run.truncated else ''}"))
            rows = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in run.rows)
            text = f"Rows of the read-only query (generated from the live schema):\n{run.query}\n\n{rows}"
        else:
            text = f"No read-only query could be run: {run.error}"
        return Retrieval(notes=[f"cypher: {run.query}"], trace=trace,
                         answer=Answer(text=text, kind="retrieval", citations=[]))
