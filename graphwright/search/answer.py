"""Turn retrieved chunks into the answer of a SearchResult: the retrieval itself offline, or an LLM answer
generated from the context only, citing chunk ids."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graphwright.llm import LLM, prompts
from graphwright.llm.base import Message
from graphwright.models import ChatTurn, Citation, RelationRef, RetrievedChunk
from graphwright.search.context import render
from graphwright.search.evidence import Answer, Retrieval

# Why an answer is the retrieval itself, in its first line: a reader must not be told no LLM is configured
# when one is and it failed.
NO_LLM = "no LLM configured"
LLM_FAILED = "the LLM's answer failed"
LLM_FAILED_RETRIEVING = "the LLM failed"  # a mode whose retrieval needed it: answered from hybrid instead
NOT_IN_CONTEXT = "I don't know: the indexed documents do not say."
_SNIPPET_CHARS = 400
# What of a conversation the answer prompt carries: its last turns, each cut to this length.
HISTORY_PROMPT_TURNS = 6
HISTORY_TURN_CHARS = 2000


def not_in_context() -> Answer:
    return Answer(text=NOT_IN_CONTEXT, kind="generated", citations=[])


def _snippet(text: str, limit: int = _SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def chunk_citations(chunks: list[RetrievedChunk]) -> list[Citation]:
    citations = [Citation(kind="chunk", id=c.chunk_id, label=c.cited_as) for c in chunks]
    seen: set[str] = set()
    for c in chunks:
        if c.document_id not in seen:
            seen.add(c.document_id)
            citations.append(Citation(kind="document", id=c.document_id, label=c.title))
    return citations


def retrieval_answer(chunks: list[RetrievedChunk], why: str = NO_LLM) -> Answer:
    if not chunks:
        return Answer(text="No passages matched the question.", kind="retrieval", citations=[])
    lines = [f"Retrieved passages ({why}, so this is the retrieval itself):"]
    for c in chunks:
        lines.append(f"[{c.rank}] {c.cited_as}  (chunk {c.chunk_id}, {c.strength()})")
        lines.append(f"    {_snippet(c.text)}")
    return Answer(text="\n".join(lines), kind="retrieval", citations=chunk_citations(chunks))


def build_context(chunks: list[RetrievedChunk]) -> str:
    return "\n\n".join(f"[{c.chunk_id}] (from {c.cited_as})\n{c.text}" for c in chunks)


@dataclass(frozen=True)
class AnswerPrompt:
    """What the LLM is asked to answer from, and how its text becomes an Answer (citations of the ids it
    named): one prompt whether the answer comes back whole or streamed."""

    messages: list[Message]
    finish: Callable[[str], Answer]

    def ask(self, llm: LLM) -> Answer:
        # not cached: a question asked again gets a fresh answer
        return self.finish(llm.chat(self.messages, use_cache=False, task="answer").text)

    def with_history(self, turns: list[ChatTurn]) -> AnswerPrompt:
        """The prompt with the conversation's recent turns between its instructions and the question, so
        the answer can say "he" of someone named two turns ago; cited ids still come from this context."""
        if not turns:
            return self
        recent: list[Message] = [
            {"role": t.role, "content": t.content[:HISTORY_TURN_CHARS]} for t in turns[-HISTORY_PROMPT_TURNS:]
        ]
        return AnswerPrompt([*self.messages[:-1], *recent, self.messages[-1]], self.finish)


def passages_prompt(question: str, chunks: list[RetrievedChunk], preface: str = "") -> AnswerPrompt | None:
    """The prompt of an answer from passages (after `preface`, context the passages do not cite: a summary
    tree's summaries); None when there is nothing to answer from."""
    if not chunks:
        return None
    context = f"{preface}\n\n" if preface else ""
    messages = [
        {"role": "system", "content": prompts.render("answer_system", not_in_context=NOT_IN_CONTEXT)},
        {"role": "user", "content": f"{context}Context passages:\n\n{build_context(chunks)}\n\nQuestion: {question}"},
    ]
    known = {c.chunk_id: c for c in chunks}

    def finish(text: str) -> Answer:
        cited = [known[cid] for cid in dict.fromkeys(re.findall(r"c_[0-9a-f]{6,}", text)) if cid in known]
        return Answer(text=text, kind="generated", citations=chunk_citations(cited))

    return AnswerPrompt(messages, finish)


def estimate_prompt_messages(question: str, passages: int, passage_words: int) -> list[Message]:
    """The messages of an answer from `passages` passages of `passage_words` words each, as `passages_prompt`
    makes them, for a dry run that counts their tokens before anything is retrieved."""
    context = "\n\n".join(f"[c_{i:024x}] (from a document)\n" + "word " * passage_words for i in range(passages))
    return [
        {"role": "system", "content": prompts.render("answer_system", not_in_context=NOT_IN_CONTEXT)},
        {"role": "user", "content": f"Context passages:\n\n{context}\n\nQuestion: {question}"},
    ]


def generated_answer(question: str, chunks: list[RetrievedChunk], llm: LLM) -> Answer:
    prompt = passages_prompt(question, chunks)
    return prompt.ask(llm) if prompt else not_in_context()


# --- graph modes (local, global, path) ----------------------------------------------------------------
_ID_RE = re.compile(r"\b(?:c_[0-9a-f]{6,}|e_[0-9a-f]{6,}|L\d+-[0-9a-f]{6,})\b")


def cited_ids(text: str) -> set[str]:
    return set(_ID_RE.findall(text))


def graph_citations(context: Retrieval, only: set[str] | None = None) -> list[Citation]:
    """Citations of every kind the context used; with `only`, just the ids the answer cited (a chunk's
    document, and a relation whose evidence chunk was cited, come along)."""
    chunks = [c for c in context.chunks if only is None or c.chunk_id in only]
    citations = chunk_citations(chunks)
    cited_chunks = {c.chunk_id for c in chunks}
    citations += [
        Citation(kind="entity", id=e.id, label=e.name) for e in context.entities if only is None or e.id in only
    ]
    citations += [
        Citation(kind="relation", id=r.id, label=r.render())
        for r in context.relations
        if only is None or cited_chunks & set(r.chunk_ids)
    ]
    citations += [
        Citation(kind="community", id=c.id, label=c.title) for c in context.communities if only is None or c.id in only
    ]
    return citations


def _relation_line(relation: RelationRef) -> str:
    evidence = f' "{_snippet(relation.evidence[0], 200)}"' if relation.evidence else ""
    sources = ", ".join(relation.chunk_ids[:2])
    return f"  {relation.render()}:{evidence} [{sources}]"


def offline_graph_answer(mode: str, context: Retrieval, k: int, why: str = NO_LLM) -> Answer:
    lines = [f"Graph context ({why}, so this is the retrieval itself):"]
    lines += [f"({note})" for note in context.notes]
    if mode == "global":
        if not context.communities:
            return Answer(text="\n".join(lines + ["No community reports matched."]), kind="retrieval", citations=[])
        lines.append("Community reports most relevant to the question:")
        for rank, c in enumerate(context.communities, start=1):
            stale = ", stale report" if c.stale else ""
            lines.append(f"[{rank}] {c.title}  (community {c.id}, level {c.level}, rating {c.rating:.1f}{stale})")
            lines.append(f"    {_snippet(c.summary)}")
            lines += [f"    - {_snippet(f, 200)}" for f in c.findings[:3]]
        return Answer(text="\n".join(lines), kind="retrieval", citations=graph_citations(context))
    if context.graph_paths:
        lines.append("Paths:" if mode == "path" else "Graph paths:")
        lines += [f"  {p}" for p in context.graph_paths]
    if context.answer_set is not None:
        names = ", ".join(e.name for e in context.answer_set) or "none"
        lines.append(f"Answer set ({len(context.answer_set)}): {names}")
    if mode == "local" and context.entities:
        lines.append("Entities: " + ", ".join(f"{e.name} ({e.type}, {e.how})" for e in context.entities[:12]))
    if context.relations:
        lines.append("Relations (with evidence):")
        lines += [_relation_line(r) for r in context.relations[: 2 * k]]
    if context.chunks:
        lines.append("Passages:")
        for chunk in context.chunks[:k]:
            lines.append(
                f"[{chunk.rank}] {chunk.title or chunk.document_id}  (chunk {chunk.chunk_id}, {chunk.strength()})"
            )
            lines.append(f"    {_snippet(chunk.text)}")
    if mode == "local" and context.communities:
        lines.append("Communities: " + "; ".join(f"{c.title} ({c.id})" for c in context.communities))
    if len(lines) == 1 + len(context.notes):
        lines.append("Nothing in the graph matched the question.")
    trimmed = Retrieval(
        entities=context.entities,
        relations=context.relations[: 2 * k],
        chunks=context.chunks[:k],
        communities=context.communities,
    )
    return Answer(text="\n".join(lines), kind="retrieval", citations=graph_citations(trimmed))


def graph_prompt(question: str, context: Retrieval) -> AnswerPrompt | None:
    """The prompt of an answer from graph context sections; None when there is nothing to answer from."""
    if not context.context:
        return None
    messages = [
        {"role": "system", "content": prompts.render("answer_graph_system", not_in_context=NOT_IN_CONTEXT)},
        {"role": "user", "content": f"Context:\n\n{render(context.context)}\n\nQuestion: {question}"},
    ]
    return AnswerPrompt(
        messages, lambda text: Answer(text=text, kind="generated", citations=graph_citations(context, cited_ids(text)))
    )
