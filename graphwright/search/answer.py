"""Turn retrieved chunks into the answer of a SearchResult: the retrieval itself offline, or an LLM answer
generated from the context only, citing chunk ids."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwright.llm import LLMClient
from graphwright.models import Citation, RetrievedChunk

RETRIEVAL_HEADER = "Retrieved passages (no LLM configured, so this is the retrieval itself):"
NOT_IN_CONTEXT = "I don't know: the indexed documents do not say."
_SNIPPET_CHARS = 400

SYSTEM_PROMPT = f"""You answer questions using ONLY the numbered context passages given to you.
Rules:
- Use no outside knowledge. If the passages do not contain the answer, reply exactly: "{NOT_IN_CONTEXT}"
- After every claim, cite the passage ids it comes from in square brackets, e.g. [c_1a2b3c].
- Be concise and factual."""


@dataclass
class Answer:
    text: str
    kind: str  # "retrieval" or "generated"
    citations: list[Citation]


def _snippet(text: str, limit: int = _SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def chunk_citations(chunks: list[RetrievedChunk]) -> list[Citation]:
    citations = [Citation(kind="chunk", id=c.chunk_id, label=c.title) for c in chunks]
    seen: set[str] = set()
    for c in chunks:
        if c.document_id not in seen:
            seen.add(c.document_id)
            citations.append(Citation(kind="document", id=c.document_id, label=c.title))
    return citations


def retrieval_answer(chunks: list[RetrievedChunk]) -> Answer:
    if not chunks:
        return Answer(text="No passages matched the question.", kind="retrieval", citations=[])
    lines = [RETRIEVAL_HEADER]
    for c in chunks:
        lines.append(f"[{c.rank}] {c.title or c.document_id}  (chunk {c.chunk_id}, score {c.score:.3f})")
        lines.append(f"    {_snippet(c.text)}")
    return Answer(text="\n".join(lines), kind="retrieval", citations=chunk_citations(chunks))


def build_context(chunks: list[RetrievedChunk]) -> str:
    return "\n\n".join(f"[{c.chunk_id}] (from {c.title or c.document_id})\n{c.text}" for c in chunks)


def generated_answer(question: str, chunks: list[RetrievedChunk], llm: LLMClient) -> Answer:
    if not chunks:
        return Answer(text=NOT_IN_CONTEXT, kind="generated", citations=[])
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Context passages:\n\n{build_context(chunks)}\n\nQuestion: {question}"},
    ]
    text = llm.chat(messages, use_cache=False).text  # a retried question deserves a fresh answer
    known = {c.chunk_id: c for c in chunks}
    cited_ids = [cid for cid in dict.fromkeys(re.findall(r"c_[0-9a-f]{6,}", text)) if cid in known]
    cited = [known[cid] for cid in cited_ids]
    return Answer(text=text, kind="generated", citations=chunk_citations(cited))
