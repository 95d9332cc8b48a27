"""`auto`: choose vector, hybrid, local, global or path from the question, and say why.

Rules, first match wins: identifiers and codes -> hybrid; corpus-wide wording -> global; two named entities
with connection or intersection wording -> path; any named entity -> local; numbers or quoted phrases ->
hybrid; otherwise vector (a paraphrase with nothing exact to match). "Named" means an exact name match in
the graph. With an LLM configured, it classifies instead and the rules are the fallback."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from graphwright.llm import LLM, LLMError
from graphwright.llm.json_repair import JSONRepairError, parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import TraceStep
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Retrieval
from graphwright.search.global_search import is_thematic
from graphwright.search.linking import EntityLinker
from graphwright.search.path import asks_intersection
from graphwright.search.registry import mode_class, modes_where
from graphwright.text.languages import detect
from graphwright.text.lucene import CODE_RE

_NUMBER_RE = re.compile(r"\b\d[\d,.]*\b")
_QUOTED_RE = re.compile(r"[\"“][^\"”]+[\"”]")
# The reply asked for where the endpoint has structured output (the prompt asks for the same)
ROUTE_SCHEMA = {
    "name": "route",
    "schema": {
        "type": "object",
        "properties": {"mode": {"type": "string"}, "why": {"type": "string"}},
        "required": ["mode"],
    },
}


@dataclass(frozen=True)
class Route:
    mode: str
    why: str
    by: str = "rules"  # or "llm"


def route_by_rules(question: str, named: int) -> Route:
    words = [w.strip(".,;:!?()[]{}'\"") for w in question.split()]
    codes = [w for w in words if CODE_RE.match(w) and any(ch.isdigit() for ch in w)]
    if codes:
        return Route("hybrid", f"identifier or code {codes[0]!r}: exact terms need BM25")
    if is_thematic(question):
        return Route("global", "corpus-wide wording: community reports cover the whole collection")
    if named >= 2 and asks_intersection(question):
        return Route("path", f"{named} named entities and intersection wording: read the shared neighbours")
    if named >= 2 and detect(question).connection.search(question):
        return Route("path", f"{named} named entities and connection wording: shortest typed paths")
    if named >= 1:
        return Route("local", f"{named} named entit{'y' if named == 1 else 'ies'}: their graph neighbourhood")
    if _NUMBER_RE.search(question) or _QUOTED_RE.search(question):
        return Route("hybrid", "numbers or quoted phrases: exact terms need BM25")
    return Route("vector", "no names, codes or corpus-wide wording: semantic similarity")


def route(question: str, named: int, llm: LLM | None = None) -> tuple[Route, str | None]:
    """The route, and a note when the LLM's choice could not be used."""
    fallback = route_by_rules(question, named)
    if llm is None:
        return fallback, None
    routable = modes_where("routable")  # the registry's, read when asked: this module is one of them
    modes = "\n".join(f"- {name}: {mode_class(name).route_when}" for name in routable)
    messages = [
        {"role": "system", "content": render("router_classify", modes=modes)},
        {"role": "user", "content": question},
    ]
    try:
        data = parse_json_object(llm.chat(messages, task="router", schema=ROUTE_SCHEMA).text)
    except (LLMError, JSONRepairError) as exc:
        return fallback, f"LLM router failed ({exc}); used the rules"
    mode = str(data.get("mode") or "").strip().lower()
    if mode not in routable:
        return fallback, f"LLM router chose {mode!r}, not a mode; used the rules"
    return Route(mode, str(data.get("why") or "LLM classifier"), "llm"), None


class AutoMode(SearchMode):
    name = "auto"
    summary = "one of vector, hybrid, local, global or path, chosen from the question (rules, or the LLM)"
    filterable = True
    ranks_passages = True

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        started = time.perf_counter()
        # A follow-up's carried entities count as named: "were they born in the same city?" names two.
        named = len(EntityLinker(ctx.store.graph).exact(query.question)[0]) + len(query.carried)
        chosen, problem = route(query.text, named, ctx.llm)
        notes = [problem] if problem else []
        mode = chosen.mode
        if query.filters and not mode_class(mode).filterable:
            notes.append(f"router chose {mode}, but filters apply to vector, hybrid and local only: used hybrid")
            mode = "hybrid"
        routed_ms = (time.perf_counter() - started) * 1000
        found = ctx.run(mode, query, generate=ctx.llm is not None)
        found.trace.insert(
            0,
            TraceStep(
                step=0,
                kind="route",
                name=mode,
                summary=chosen.why,
                arguments={"by": chosen.by, "named_entities": named},
            ),
        )
        found.notes = [f"auto -> {mode} ({chosen.by}): {chosen.why}", *notes, *found.notes]
        found.timings_ms = {"route_ms": routed_ms, **found.timings_ms}
        return found
