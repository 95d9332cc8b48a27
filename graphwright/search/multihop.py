"""Multi-hop decomposition: split a question into dependent sub-questions, answer them in order (a later
one may use an earlier answer through #1, #2 ...), then synthesize the final answer from the hops, keeping
each hop's evidence. Needs an LLM."""

from __future__ import annotations

import re
from collections.abc import Callable

from graphwright.llm import LLM
from graphwright.llm.json_repair import JSONRepairError, parse_json_object
from graphwright.llm.prompts import render
from graphwright.models import RetrievedChunk, TraceStep
from graphwright.search.answer import NOT_IN_CONTEXT, build_context, cited_ids, generated_answer, graph_citations
from graphwright.search.base import SearchContext, SearchMode, SearchQuery
from graphwright.search.evidence import Answer, Retrieval
from graphwright.search.hybrid import HybridRetriever

_REFERENCE_RE = re.compile(r"#(\d+)")

Retrieve = Callable[[str], list[RetrievedChunk]]


def substitute(question: str, answers: list[str]) -> str:
    """Replace #n by the n-th earlier answer (first line, without citations); unknown references stay."""

    def one(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        if 0 <= index < len(answers):
            return re.sub(r"\s*\[[^\]]*\]", "", answers[index].splitlines()[0]).strip().rstrip(".")
        return match.group(0)

    return _REFERENCE_RE.sub(one, question)


def decompose(question: str, llm: LLM, max_hops: int) -> list[str]:
    messages = [{"role": "system", "content": render("multihop_decompose")}, {"role": "user", "content": question}]
    try:
        data = parse_json_object(llm.chat(messages, task="decompose").text)
        subs = [str(s).strip() for s in data.get("sub_questions") or [] if str(s).strip()]
    except JSONRepairError:
        subs = []
    return subs[:max_hops] or [question]  # an unusable split is answered as one hop


def answer_multihop(
    question: str, llm: LLM, retrieve: Retrieve, max_hops: int
) -> tuple[str, list[RetrievedChunk], list[TraceStep]]:
    subs = decompose(question, llm, max_hops)
    answers: list[str] = []
    evidence: dict[str, RetrievedChunk] = {}
    trace: list[TraceStep] = []
    for number, sub in enumerate(subs, start=1):
        asked = substitute(sub, answers)
        chunks = retrieve(asked)
        hop = generated_answer(asked, chunks, llm)
        answers.append(hop.text)
        for chunk in chunks:
            evidence.setdefault(chunk.chunk_id, chunk)
        trace.append(
            TraceStep(
                step=number,
                kind="hop",
                name=f"#{number}",
                arguments={"question": asked},
                summary=f"{hop.text[:200]} (evidence: "
                f"{', '.join(c.id for c in hop.citations if c.kind == 'chunk') or 'none'})",
                ok=NOT_IN_CONTEXT not in hop.text,
            )
        )
    if len(subs) == 1:
        return answers[0], list(evidence.values()), trace
    hops = "\n".join(f"#{i} {s.arguments['question']} -> {a}" for i, (s, a) in enumerate(zip(trace, answers), 1))
    messages = [
        {"role": "system", "content": render("multihop_synthesize", not_in_context=NOT_IN_CONTEXT)},
        {
            "role": "user",
            "content": f"Sub-answers:\n{hops}\n\nPassages:\n\n"
            f"{build_context(list(evidence.values()))}\n\nQuestion: {question}",
        },
    ]
    return llm.chat(messages, use_cache=False, task="synthesize").text, list(evidence.values()), trace


class MultihopMode(SearchMode):
    name = "multihop"
    summary = "sub-questions answered in order, each hop's answer feeding the next (needs an LLM)"
    needs_llm = True
    embeds_question = False  # each hop embeds its own sub-question

    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        hybrid = HybridRetriever.from_settings(ctx.store, ctx.embedder, ctx.settings)
        text, chunks, trace = answer_multihop(
            query.question,
            ctx.require_llm(),
            lambda q: hybrid.retrieve(q, query.k),
            ctx.settings.search.multihop_max_hops,
        )
        found = Retrieval(chunks=chunks, trace=trace)
        found.answer = Answer(text=text, kind="generated", citations=graph_citations(found, cited_ids(text)))
        return found
