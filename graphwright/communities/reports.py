"""Community reports: extractive offline, or written by the LLM from members, relations and evidence.

Offline: the title names the most central members, the summary says what holds them together, and each
finding is one of the heaviest relations with its evidence sentence and the chunk ids that support it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, field_validator

from graphwright.errors import JSONRepairError
from graphwright.llm.prompts import render
from graphwright.text.languages import Language, detect
from graphwright.text.languages.english import ENGLISH
from graphwright.text.tokens import count_tokens

_FINDINGS = 5


class Finding(BaseModel):
    summary: str
    explanation: str = ""
    chunk_ids: list[str] = Field(default_factory=list)


class Report(BaseModel):
    title: str
    summary: str
    findings: list[Finding] = Field(default_factory=list)
    rating: float = 0.0
    rating_explanation: str = ""
    kind: str = "extractive"

    @field_validator("rating", mode="before")
    @classmethod
    def _rating(cls, value: Any) -> float:
        try:
            return min(max(float(value), 0.0), 10.0)
        except (TypeError, ValueError):
            return 0.0

    @property
    def cited_chunks(self) -> list[str]:
        return list(dict.fromkeys(c for f in self.findings for c in f.chunk_ids))


def _list(names: list[str], spoken: Language = ENGLISH) -> str:
    if len(names) == 1:
        return names[0]
    return spoken.report("comma").join(names[:-1]) + spoken.report("and") + names[-1]


def _relation(type_: str, spoken: Language) -> str:
    """A relation type as words: "founded"; a tie the text never typed in the language's words ("related
    to", "关联")."""
    if type_ == "RELATED_TO":
        return spoken.report("related")
    return type_.lower().replace("_", " ")


def extractive_report(
    size: int, members: Sequence[Mapping[str, Any]], relations: Sequence[Mapping[str, Any]]
) -> Report:
    """The report written without an LLM, in the language of its members' names and evidence."""
    internal: dict[str, float] = {}
    for r in relations:
        for end in (r["source"], r["target"]):
            internal[end] = internal.get(end, 0.0) + float(r["weight"] or 0)
    central = sorted(members, key=lambda m: (-internal.get(m["name"], 0.0), -(m.get("degree") or 0), m["name"]))
    sample = [m["name"] for m in members[:20]] + [e for r in relations[:5] for e in (r.get("evidence") or [])[:1] if e]
    spoken = detect("\n".join(sample))
    names = [m["name"] for m in central[:3]] or [spoken.report("unnamed")]
    types: dict[str, int] = {}
    for m in members:
        types[m["type"].lower()] = types.get(m["type"].lower(), 0) + 1
    kinds = spoken.report("comma").join(
        spoken.report("kind", count=n, type=spoken.report("type", type=t))
        for t, n in sorted(types.items(), key=lambda kv: -kv[1])[:3]
    )
    findings = []
    for r in relations[:_FINDINGS]:
        evidence = next((e for e in r.get("evidence") or [] if e), r.get("description") or "")
        findings.append(
            Finding(
                summary=spoken.report(
                    "finding",
                    source=r["source"],
                    relation=_relation(r["type"], spoken),
                    target=r["target"],
                    weight=r["weight"],
                ),
                explanation=evidence,
                chunk_ids=list(r.get("chunk_ids") or [])[:5],
            )
        )
    # the ties as the graph types them ("Jeff Bezos founded Blue Origin"), not as bare pairs
    ties = "; ".join(
        spoken.report("tie", source=r["source"], relation=_relation(r["type"], spoken), target=r["target"])
        for r in relations[:3]
    )
    summary = spoken.report("group", size=size, kinds=kinds, names=_list(names, spoken)) + (
        spoken.report("ties", ties=ties) if ties else ""
    )
    possible = size * (size - 1) / 2 or 1
    density = min(len(relations) / possible, 1.0)
    rating = round(min(10.0, 2.0 * math.log2(size + 1) * (0.5 + density)), 1)
    return Report(
        title=_list(names, spoken),
        summary=summary,
        findings=findings,
        rating=rating,
        rating_explanation=spoken.report("rating", size=size, relations=len(relations), density=density),
    )


def llm_report_prompt(
    members: Sequence[Mapping[str, Any]],
    relations: Sequence[Mapping[str, Any]],
    child_reports: Sequence[Mapping[str, Any]],
    budget_tokens: int = 3000,
) -> str:
    """Members, relations and evidence (or, for a large parent, its children's reports) within a budget."""
    lines = [*render("community_report").splitlines(), ""]
    used = sum(count_tokens(line) for line in lines)
    sections: list[str] = []
    if child_reports:
        sections += ["Sub-community reports:"] + [f"- {c['title']}: {c['summary']}" for c in child_reports]
    sections += ["Entities:"] + [
        f"- {m['name']} ({m['type'].lower()}): {m.get('description') or ''}"[:300] for m in members
    ]
    sections += ["Relations:"] + [
        f"- {r['source']} -[{r['type']}]-> {r['target']} (weight {r['weight']:g}): "
        f"{next((e for e in r.get('evidence') or [] if e), r.get('description') or '')}"[:400]
        for r in relations
    ]
    for line in sections:
        cost = count_tokens(line)
        if used + cost > budget_tokens:
            break
        lines.append(line)
        used += cost
    return "\n".join(lines)


def _said(value: Any) -> str:
    """The text of a field, empty when it holds no word (a small model copies the format's "...")."""
    text = str(value or "").strip()
    return text if any(c.isalnum() for c in text) else ""


def parse_llm_report(data: dict[str, Any], relations: Sequence[Mapping[str, Any]]) -> Report:
    """The report a reply holds; JSONRepairError when it holds none (only placeholders), so the community
    gets the extractive report instead."""
    if not _said(data.get("title")) and not _said(data.get("summary")):
        raise JSONRepairError("the reply has neither a title nor a summary (placeholders at most)")
    findings = []
    for raw in data.get("findings") or []:
        if isinstance(raw, dict) and _said(raw.get("summary")):
            findings.append(Finding(summary=_said(raw["summary"]), explanation=_said(raw.get("explanation"))))
    # cite the chunks behind the relations the report was written from
    cited = list(dict.fromkeys(c for r in relations for c in (r.get("chunk_ids") or [])[:2]))[:10]
    if findings and cited:
        findings[0].chunk_ids = cited
    return Report(
        title=_said(data.get("title")) or "Untitled community",
        summary=_said(data.get("summary")),
        findings=findings,
        rating=data.get("rating", 0),
        kind="llm",
        rating_explanation=_said(data.get("rating_explanation")),
    )


def findings_json(report: Report) -> str:
    return json.dumps([f.model_dump() for f in report.findings], ensure_ascii=False)
