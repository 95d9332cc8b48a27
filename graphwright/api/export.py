"""The entity graph written out for other tools: GraphML (Gephi, yEd, NetworkX), CSV node and edge files
(Gephi's spreadsheet import, pandas) and JSON lines (one record per entity and per relation). Streamed from Neo4j, so
a graph larger than memory is written a row at a time. Adding a format is one writer plus one line in
EXPORT_FORMATS."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from pydantic import BaseModel

from graphwright.graph_store import GraphStore
from graphwright.graph_store.rows import ExportEntityRow, ExportRelationRow


class ExportReport(BaseModel):
    format: str
    files: list[str]
    entities: int
    relations: int


class _Graph:
    """The two streams one export reads, counted as they are written."""

    def __init__(self, store: GraphStore, ids: list[str] | None) -> None:
        self._store, self._ids = store, ids
        self.entities = self.relations = 0
        self.names: dict[str, str] = {}

    def each_entity(self) -> Iterator[ExportEntityRow]:
        for row in self._store.graph.export_entities(self._ids):
            self.entities += 1
            self.names[row["id"]] = row["name"]
            yield row

    def each_relation(self) -> Iterator[ExportRelationRow]:
        for row in self._store.graph.export_relations(self._ids):
            self.relations += 1
            yield row


_GRAPHML_KEYS = [
    ("name", "node", "string"),
    ("type", "node", "string"),
    ("description", "node", "string"),
    ("degree", "node", "int"),
    ("type", "edge", "string"),
    ("weight", "edge", "double"),
    ("description", "edge", "string"),
    ("chunk_ids", "edge", "string"),
]


def _graphml(graph: _Graph, target: Path) -> list[Path]:
    def data(key: str, value: object) -> str:
        return f'<data key="{key}">{escape(str(value))}</data>' if value not in (None, "") else ""

    with target.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
        for name, domain, kind in _GRAPHML_KEYS:
            out.write(f'  <key id="{domain[0]}_{name}" for="{domain}" attr.name="{name}" attr.type="{kind}"/>\n')
        out.write('  <graph id="graphwright" edgedefault="directed">\n')
        for e in graph.each_entity():
            fields = "".join(data(f"n_{k}", e[k]) for k in ("name", "type", "description", "degree"))
            out.write(f"    <node id={quoteattr(e['id'])}>{fields}</node>\n")
        for r in graph.each_relation():
            chunks = " ".join(r["chunk_ids"] or [])
            fields = data("e_type", r["type"]) + data("e_weight", r["weight"]) + data("e_description", r["description"])
            out.write(
                f"    <edge source={quoteattr(r['source'])} target={quoteattr(r['target'])}>"
                f"{fields}{data('e_chunk_ids', chunks)}</edge>\n"
            )
        out.write("  </graph>\n</graphml>\n")
    return [target]


def _csv(graph: _Graph, target: Path) -> list[Path]:
    """Two files beside each other, as Gephi's import takes them: `<name>.nodes.csv` (Id, Label, ...) and
    `<name>.edges.csv` (Source, Target, Type, Weight, ...)."""
    stem = target.with_suffix("") if target.suffix == ".csv" else target
    nodes, edges = stem.with_name(stem.name + ".nodes.csv"), stem.with_name(stem.name + ".edges.csv")
    with nodes.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["Id", "Label", "type", "description", "degree"])
        for e in graph.each_entity():
            writer.writerow([e["id"], e["name"], e["type"], e["description"] or "", e["degree"]])
    with edges.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["Source", "Target", "Type", "Label", "Weight", "description", "chunk_ids"])
        for r in graph.each_relation():
            chunk_ids = " ".join(r["chunk_ids"] or [])
            row = [
                r["source"],
                r["target"],
                "Directed",
                r["type"],
                r["weight"] or 1.0,
                r["description"] or "",
                chunk_ids,
            ]
            writer.writerow(row)
    return [nodes, edges]


def _jsonl(graph: _Graph, target: Path) -> list[Path]:
    """Entities, then relations naming their ends by name and by id."""
    with target.open("w", encoding="utf-8") as out:
        for e in graph.each_entity():
            out.write(json.dumps({**e, "kind": "entity"}, ensure_ascii=False) + "\n")
        for r in graph.each_relation():
            record = {
                "kind": "relation",
                "source": graph.names.get(r["source"], r["source"]),
                "target": graph.names.get(r["target"], r["target"]),
                "source_id": r["source"],
                "target_id": r["target"],
                "type": r["type"],
                "weight": r["weight"],
                "description": r["description"],
                "chunk_ids": r["chunk_ids"] or [],
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return [target]


EXPORT_FORMATS: dict[str, Callable[[_Graph, Path], list[Path]]] = {
    "graphml": _graphml,
    "csv": _csv,
    "jsonl": _jsonl,
}


def export_graph(store: GraphStore, target: Path, fmt: str, *, ids: list[str] | None = None) -> ExportReport:
    """Write the workspace's entity graph (or the subgraph of the entities `ids`) to `target` in `fmt`."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    graph = _Graph(store, ids)
    files = EXPORT_FORMATS[fmt](graph, target)
    return ExportReport(format=fmt, files=[str(f) for f in files], entities=graph.entities, relations=graph.relations)
