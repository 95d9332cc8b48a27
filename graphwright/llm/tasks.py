"""What each kind of LLM call is for, and the most tokens it may write.

Every call names its task; the client sends the task's cap as `max_tokens`, so a model that rambles (small
local models do) stops at a size the task can use instead of filling its context. The caps are sized to what
each task's reply needs, with room: an extraction reply for a 1,200-character chunk is rarely past 600 tokens,
a router's label is one word. `GRAPHWRIGHT_LLM_MAX_TOKENS="extract=1500,answer=900"` changes any of them."""

from __future__ import annotations

from types import MappingProxyType

from graphwright.errors import InvalidRequestError

# task -> most completion tokens
MAX_TOKENS = MappingProxyType(
    {
        "extract": 1024,  # entities and relations of one chunk, as JSON
        "glean": 512,  # what the first pass missed
        "repair": 1024,  # the same reply again, as valid JSON
        "summarize": 200,  # one description from several
        "community_report": 800,  # a community's title, summary and findings, as JSON
        "global_map": 400,  # the points one batch of reports gives a question
        "global_reduce": 700,  # the answer from the points
        "answer": 700,  # an answer from retrieved context
        "followup_rewrite": 96,  # a follow-up made standalone
        "router": 64,  # which mode answers a question
        "grade": 128,  # corrective: is the context enough
        "corrective_rewrite": 96,  # corrective: a better query
        "agent_step": 512,  # one agent turn (a tool call or the answer)
        "hyde": 256,  # a hypothetical passage to embed
        "cypher": 384,  # one Cypher query
        "decompose": 256,  # multihop: the sub-questions
        "synthesize": 700,  # multihop: the answer from sub-answers
        "drift_primer": 400,  # drift: an intermediate answer and follow-up questions from reports
        "drift_local": 400,  # drift: a follow-up's answer from passages, scored, with further questions
        "drift_reduce": 700,  # drift: the answer from the intermediate answers
        "raptor_summary": 320,  # a RAPTOR cluster's summary, as JSON
    }
)
TASKS: tuple[str, ...] = tuple(MAX_TOKENS)
# The answers kept in the on-disk cache: indexing's, each filed under the chunks it is about (llm/cache.py),
# so re-indexing unchanged text is free and deleting a document forgets what the model was told of it.
# Search-time answers quote whatever passages they were given and are never asked twice alike once the
# graph changes: they are not kept (nor reports and summaries of many passages, which no one chunk owns).
CACHED_TASKS = frozenset({"extract", "glean", "repair", "summarize"})

# task -> the completion tokens a capable model's reply usually has: a dry run's figure until this endpoint's
# own replies were measured (then their mean is used, and the estimate says so)
TYPICAL_TOKENS = MappingProxyType(
    {
        "extract": 350,
        "glean": 120,
        "repair": 350,
        "summarize": 60,
        "community_report": 450,
        "global_map": 150,
        "global_reduce": 300,
        "answer": 200,
        "followup_rewrite": 20,
        "router": 20,
        "grade": 40,
        "corrective_rewrite": 20,
        "agent_step": 80,
        "hyde": 120,
        "cypher": 80,
        "decompose": 60,
        "synthesize": 250,
        "drift_primer": 200,
        "drift_local": 200,
        "drift_reduce": 300,
        "raptor_summary": 180,
    }
)


def parse_caps(text: str) -> dict[str, int]:
    """`extract=1500,answer=900` as a mapping; a name that is no task, or a cap that is no positive number,
    is refused with the names there are."""
    caps: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in MAX_TOKENS:
            raise InvalidRequestError(f"llm_max_tokens: no task {name!r}; tasks: {', '.join(TASKS)}")
        try:
            cap = int(value)
        except ValueError:
            cap = 0
        if cap < 1:
            raise InvalidRequestError(f"llm_max_tokens: {name}={value!r} is not a positive whole number")
        caps[name] = cap
    return caps


def max_tokens(task: str, overrides: str = "") -> int:
    """The cap of `task`, after the settings' overrides."""
    if task not in MAX_TOKENS:
        raise InvalidRequestError(f"no LLM task {task!r}; tasks: {', '.join(TASKS)}")
    return parse_caps(overrides).get(task, MAX_TOKENS[task])


# Follow-on calls per extraction call until this endpoint's runs measured them: a reply re-asked as valid JSON
# (few for a model with structured output, more for a small one), and an entity's descriptions merged into
# one (an entity named in more than one chunk). First guesses, said as such in the estimate.
TYPICAL_RATES = MappingProxyType({"repair": 0.15, "summarize": 0.3})
