"""Read-only Cypher written by the LLM from the live schema (Text2Cypher), or passed by the agent's
`cypher_read` tool. Every query goes through the one gate of `graph_store/cypher_gate/read_only.py` (the text, Neo4j's
plan, a READ transaction, row/byte/time caps); an error goes back to the model once for repair."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphwright.config import Settings
from graphwright.errors import CypherRejectedError, QueryRejectedError, TenantCypherOffError
from graphwright.graph_store.contracts import GraphStore, ReadLimits
from graphwright.llm import LLM
from graphwright.llm.prompts import render
from graphwright.models import CypherRows, TraceStep
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.graph_model import graph_model_text

__all__ = ["CypherMode", "CypherRejectedError", "Text2Cypher", "extract_query", "read_limits", "run_read_only"]

_FENCE_RE = re.compile(r"```(?:cypher)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def read_limits(settings: Settings) -> ReadLimits:
    return ReadLimits(
        max_rows=settings.search.cypher_max_rows,
        max_bytes=settings.search.cypher_max_bytes,
        timeout=settings.search.cypher_timeout,
        max_concurrent=settings.search.cypher_max_concurrent,
    )


def run_read_only(
    store: GraphStore, query: str, settings: Settings, *, caller: str = "", tenant: bool = False
) -> CypherRows:
    """The gate with the limits of `settings`: CypherRejectedError for its locks, QueryRejectedError for
    what Neo4j refuses; BusyError when `caller` already runs as many as the settings allow at once.
    TenantCypherOffError for a `tenant` (a server key bound to named workspaces) in a database that holds
    several workspaces, unless `settings.search.tenant_cypher` is on: the gate's proof that a query stays in its
    workspace is the one thing standing between tenants there, so an operator opts in to it."""
    if tenant and not settings.search.tenant_cypher and store.workspaces.others_exist():
        raise TenantCypherOffError(
            "Cypher is off for keys bound to a workspace in a database that holds several "
            "(GRAPHWRIGHT_TENANT_CYPHER=on turns it on; `graphwright docs security` says what that exposes)"
        )
    return store.graph.read_only(query, read_limits(settings), caller=caller)


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


class Text2Cypher:
    def __init__(self, store: GraphStore, llm: LLM, settings: Settings) -> None:
        self.store = store
        self.llm = llm
        self.settings = settings

    def run(self, question: str, caller: str = "", tenant: bool = False) -> CypherRun:
        messages = [
            {"role": "system", "content": render("cypher_system")},
            {"role": "user", "content": f"Schema:\n{graph_model_text(self.store)}\n\nQuestion: {question}"},
        ]
        attempts: list[dict[str, str]] = []
        for attempt in range(2):  # the first try and one repair
            query = extract_query(self.llm.chat(messages, use_cache=False, task="cypher").text)
            try:
                found = run_read_only(self.store, query, self.settings, caller=caller, tenant=tenant)
                return CypherRun(query=query, rows=found.rows, truncated=found.truncated, attempts=attempts)
            except TenantCypherOffError:
                raise  # no query would pass: a repair only spends a model call
            except (CypherRejectedError, QueryRejectedError) as exc:
                attempts.append({"query": query, "error": str(exc)})
                if attempt == 0:
                    messages += [
                        {"role": "assistant", "content": query},
                        {
                            "role": "user",
                            "content": f"That query failed: {exc}\nWrite a corrected "
                            "read-only query. Reply with the query only.",
                        },
                    ]
        return CypherRun(query=attempts[-1]["query"], error=attempts[-1]["error"], attempts=attempts)


class CypherMode(SearchMode):
    name = "cypher"
    summary = "read-only Cypher written by the LLM from the live schema (Text2Cypher; needs an LLM)"
    needs_llm = True
    embeds_question = False

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        settings = ctx.settings
        text2cypher = Text2Cypher(ctx.store, ctx.require_llm(), settings)
        run = text2cypher.run(query.question, caller=query.caller, tenant=query.tenant)
        trace = [
            TraceStep(
                step=i,
                kind="cypher",
                name="rejected or failed",
                arguments={"query": a["query"]},
                summary=a["error"],
                ok=False,
            )
            for i, a in enumerate(run.attempts, start=1)
        ]
        if run.error is None:
            trace.append(
                TraceStep(
                    step=len(trace) + 1,
                    kind="cypher",
                    name="ran",
                    arguments={"query": run.query},
                    summary=f"{len(run.rows)} rows{' (truncated)' if run.truncated else ''}",
                )
            )
            rows = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in run.rows)
            text = f"Rows of the read-only query (generated from the live schema):\n{run.query}\n\n{rows}"
        else:
            text = f"No read-only query could be run: {run.error}"
        return Retrieval(
            notes=[f"cypher: {run.query}"], trace=trace, answer=Answer(text=text, kind="retrieval", citations=[])
        )
