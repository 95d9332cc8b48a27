"""A self-contained HTML view of what an answer used: its entities and relations drawn as an SVG graph
(paths highlighted), the answer, and the cited passages. No script and no CDN: the file opens offline and
renders the same everywhere, because the layout is computed here (a small seeded force-directed layout)."""

from __future__ import annotations

import html
import math
import random
import re

from graphwright.models import SearchResult

_WIDTH, _HEIGHT, _MARGIN = 960, 640, 70
_MAX_NODES = 60
TYPE_COLOURS = {
    "PERSON": "#e15759",
    "ORGANIZATION": "#4e79a7",
    "LOCATION": "#59a14f",
    "EVENT": "#f28e2b",
    "PRODUCT": "#b07aa1",
    "TECHNOLOGY": "#76b7b2",
    "CONCEPT": "#9c755f",
}
_OTHER_COLOUR = "#bab0ac"


def palette() -> dict[str, str]:
    """Each entity type's colour, and `*` for any other type: what the page's explorer and legend use too."""
    return {**TYPE_COLOURS, "*": _OTHER_COLOUR}


def browser_base(neo4j_uri: str, http_port: int) -> str:
    """The Neo4j Browser of the server behind `neo4j_uri` (its HTTP port is not in a bolt URI)."""
    from urllib.parse import urlparse

    return f"http://{urlparse(neo4j_uri).hostname or '127.0.0.1'}:{http_port}/browser/"


def _layout(ids: list[str], edges: list[tuple[str, str]], seed: int = 7) -> dict[str, tuple[float, float]]:
    """Fruchterman-Reingold in the unit square, then scaled to the drawing; deterministic for a seed."""
    rng = random.Random(seed)
    pos = {i: [rng.random(), rng.random()] for i in ids}
    if len(ids) == 1:
        pos[ids[0]] = [0.5, 0.5]
    k = math.sqrt(1.0 / max(len(ids), 1))
    temperature = 0.1
    for _ in range(120):
        shift = {i: [0.0, 0.0] for i in ids}
        for a_index, a in enumerate(ids):
            for b in ids[a_index + 1 :]:
                dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
                dist = math.hypot(dx, dy) or 1e-4
                force = k * k / dist
                shift[a][0] += dx / dist * force
                shift[a][1] += dy / dist * force
                shift[b][0] -= dx / dist * force
                shift[b][1] -= dy / dist * force
        for a, b in edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            dist = math.hypot(dx, dy) or 1e-4
            force = dist * dist / k
            shift[a][0] -= dx / dist * force
            shift[a][1] -= dy / dist * force
            shift[b][0] += dx / dist * force
            shift[b][1] += dy / dist * force
        for i in ids:
            length = math.hypot(*shift[i]) or 1e-4
            step = min(length, temperature)
            pos[i][0] = min(1.0, max(0.0, pos[i][0] + shift[i][0] / length * step))
            pos[i][1] = min(1.0, max(0.0, pos[i][1] + shift[i][1] / length * step))
        temperature *= 0.97
    return {
        i: (_MARGIN + p[0] * (_WIDTH - 2 * _MARGIN), _MARGIN + p[1] * (_HEIGHT - 2 * _MARGIN)) for i, p in pos.items()
    }


_STEP = re.compile(r" (-\[([^\]]*)\]->|<-\[([^\]]*)\]-) ")


def path_steps(paths: list[str]) -> set[tuple[str, str, str]]:
    """The (source, type, target) steps of rendered paths ("A -[T]-> B <-[U]- C"), in one pass over their
    text: what lets each relation be checked against every path in linear time."""
    steps: set[tuple[str, str, str]] = set()
    for path in paths:
        pieces = _STEP.split(path)
        # split() keeps the groups: name, arrow, forward type, backward type, name, ...
        names, arrows = pieces[0::4], list(zip(pieces[2::4], pieces[3::4]))
        for (left, right), (forward, backward) in zip(zip(names, names[1:]), arrows):
            if forward is not None:
                steps.add((left, forward, right))
            else:
                steps.add((right, backward, left))
    return steps


def answer_graph_html(result: SearchResult) -> str:
    names: dict[str, tuple[str, str]] = {e.id: (e.name, e.type) for e in result.entities}
    for r in result.relations:
        names.setdefault(r.source_id, (r.source, "CONCEPT"))
        names.setdefault(r.target_id, (r.target, "CONCEPT"))
    ids = list(names)[:_MAX_NODES]
    keep = set(ids)
    relations = [r for r in result.relations if r.source_id in keep and r.target_id in keep]
    pos = _layout(ids, [(r.source_id, r.target_id) for r in relations])
    steps = path_steps(result.graph_paths)
    on_path = {(r.source_id, r.target_id) for r in relations if (r.source, r.type, r.target) in steps}
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="entities and relations of the answer">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="22" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>',
    ]
    for r in relations:
        (x1, y1), (x2, y2) = pos[r.source_id], pos[r.target_id]
        highlight = (r.source_id, r.target_id) in on_path
        svg.append(
            f'<line class="edge" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{"#d62728" if highlight else "#999"}" stroke-width="{4 if highlight else 1.5}" '
            f'marker-end="url(#arrow)"><title>{html.escape(r.render())}</title></line>'
        )
        svg.append(
            f'<text class="edge-label" x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 4:.1f}" font-size="10" '
            f'fill="#555" text-anchor="middle">{html.escape(r.type)}</text>'
        )
    for i in ids:
        (x, y), (name, type_) = pos[i], names[i]
        colour = TYPE_COLOURS.get(type_, _OTHER_COLOUR)
        svg.append(
            f'<g class="node"><circle cx="{x:.1f}" cy="{y:.1f}" r="16" fill="{colour}" stroke="#333">'
            f"<title>{html.escape(f'{name} ({type_}) {i}')}</title></circle>"
            f'<text x="{x:.1f}" y="{y + 30:.1f}" font-size="12" text-anchor="middle">'
            f"{html.escape(name)}</text></g>"
        )
    svg.append("</svg>")
    legend = " ".join(f'<span><i style="background:{c}"></i>{t.title()}</span>' for t, c in TYPE_COLOURS.items())
    passages = "".join(
        f"<li><code>{html.escape(c.chunk_id)}</code> {html.escape(c.cited_as)}: {html.escape(c.text[:300])}</li>"
        for c in result.chunks[:10]
    )
    paths = "".join(f"<li>{html.escape(p)}</li>" for p in result.graph_paths)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>graphwright answer graph</title>
<style>body{{font:14px system-ui,sans-serif;margin:12px;color:#222}}
svg{{border:1px solid #ddd;background:#fff;width:100%;height:auto;max-width:{_WIDTH}px}}
.legend span{{margin-right:14px}} .legend i{{display:inline-block;width:12px;height:12px;border-radius:6px;
margin-right:4px;vertical-align:middle}} pre{{white-space:pre-wrap;background:#f6f6f6;padding:12px}}</style>
</head><body>
<h1>{html.escape(result.question)}</h1>
<p>mode <b>{html.escape(result.mode)}</b>, {len(ids)} entities, {len(relations)} relations</p>
<div class="legend">{legend}</div>
{"".join(svg)}
<h2>Paths</h2><ul>{paths or "<li>none</li>"}</ul>
<h2>Answer</h2><pre>{html.escape(result.answer)}</pre>
<h2>Cited passages</h2><ul>{passages or "<li>none</li>"}</ul>
</body></html>
"""


def evidence_browser_query(result: SearchResult, workspace: str = "default", max_entities: int = 25) -> str:
    """The Cypher that shows this answer's evidence in Neo4j Browser: the passages it cites (or ranked first),
    their documents, the entities of its relations and the communities it used, in `workspace`'s labels."""
    from graphwright.graph_store.queries.inspection import evidence_browser_query as build
    from graphwright.graph_store.workspace_names import Workspace

    cited = {kind: [c.id for c in result.citations if c.kind == kind] for kind in ("chunk", "entity", "community")}
    chunks = cited["chunk"] or [c.chunk_id for c in result.chunks[:5]]
    entities = cited["entity"] + [e for r in result.relations for e in (r.source_id, r.target_id)]
    entities += [e.id for e in result.entities]
    communities = cited["community"] or [c.id for c in result.communities]
    return Workspace(workspace).render(build(chunks, list(dict.fromkeys(entities))[:max_entities], communities))


def browser_url(http_base: str, cypher: str) -> str:
    """A Neo4j Browser link that opens with `cypher` in the editor (the user presses Run once connected)."""
    from urllib.parse import quote

    return f"{http_base.rstrip('/')}/?cmd=edit&arg={quote(cypher, safe='')}"
