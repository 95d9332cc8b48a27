"""What hostile input costs now (issue 25): the answer graph's path highlight on client-made results, a Word
zip bomb, and the read-only Cypher gate's overhead on an ordinary read.

    .venv/bin/python -m bench.hostile [--record]

- Answer graph: every relation checked against every path. The landed scan (`any(...)` over the path texts,
  kept here as the reference) against the linear check of `answer_graph.path_steps`, on results whose
  relations lie on no path (the scan's worst case), at the sizes a 2 MiB request can carry.
- Zip bomb: a real Word file whose own `word/document.xml` unpacks to 100 MiB (python-docx parses that
  part): the time and peak memory `load_file` spends before it names the failure.
- Gate: `GraphRAG.read_cypher` (text lock, EXPLAIN and plan check, READ transaction, caps) against the same
  query run directly, median of 50, on the Neo4j of the settings (read only; nothing is written).
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
import zipfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.answer_graph import path_steps
from graphwright.models import RelationRef


def _scan(relations: list[RelationRef], paths: list[str]) -> set[tuple[str, str]]:
    """The landed check (before issue 25): substring tests of every relation against every path."""
    return {
        (r.source_id, r.target_id)
        for r in relations
        if any(r.source in p and r.target in p and f"[{r.type}]" in p for p in paths)
    }


def _linear(relations: list[RelationRef], paths: list[str]) -> set[tuple[str, str]]:
    steps = path_steps(paths)
    return {(r.source_id, r.target_id) for r in relations if (r.source, r.type, r.target) in steps}


def _hostile_result(n_relations: int, n_paths: int) -> tuple[list[RelationRef], list[str]]:
    names = [f"Entity number {i}" for i in range(200)]
    paths = [" -[LINKS]-> ".join(names[(i + j) % 200] for j in range(60)) for i in range(n_paths)]
    relations = [
        RelationRef(
            source_id=f"e{i % 200}",
            source=names[i % 200],
            type="NEVER_ON_A_PATH",
            target_id=f"e{(i + 1) % 200}",
            target=names[(i + 1) % 200],
        )
        for i in range(n_relations)
    ]
    return relations, paths


def _timed(fn, *args) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def _word_bomb(folder: Path, mib: int) -> Path:
    import docx

    plain = folder / "plain.docx"
    document = docx.Document()
    document.add_paragraph("Quarterly report")
    document.save(str(plain))
    source = zipfile.ZipFile(plain)
    head, tail = source.read("word/document.xml").decode().split("<w:body>", 1)
    paragraph = "<w:p><w:r><w:t>a</w:t></w:r></w:p>"
    bomb = folder / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename != "word/document.xml":
                out.writestr(info, source.read(info.filename))
                continue
            with out.open("word/document.xml", "w", force_zip64=True) as part:
                part.write((head + "<w:body>").encode())
                block = (paragraph * 10_000).encode()
                for _ in range(mib * 1024 * 1024 // len(block)):
                    part.write(block)
                part.write(tail.encode())
    return bomb


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--no-neo4j", action="store_true", help="skip the gate's overhead")
    args = parse(parser)
    console = Console(record=True)

    table = Table(title="Answer-graph path highlight, relations on no path (the scan's worst case)")
    for column in ("relations", "paths", "landed scan s", "linear check s", "same result"):
        table.add_column(column, justify="right")
    for n_relations, n_paths in ((1000, 100), (4000, 300), (9000, 700)):
        relations, paths = _hostile_result(n_relations, n_paths)
        scan, linear = _timed(_scan, relations, paths), _timed(_linear, relations, paths)
        table.add_row(
            str(n_relations),
            str(n_paths),
            f"{scan:.2f}",
            f"{linear:.4f}",
            str(_scan(relations, paths) == _linear(relations, paths)),
        )
    console.print(table)

    from graphwright.documents.loaders import load_file

    with tempfile.TemporaryDirectory() as tmp:
        bomb = _word_bomb(Path(tmp), 100)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        loaded = load_file(bomb, Path(tmp), {})
        seconds = time.perf_counter() - started
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        table = Table(title="Word file whose document.xml unpacks to 100 MiB")
        for column in ("file KB", "seconds", "peak RSS growth MiB", "outcome"):
            table.add_column(column)
        outcome = loaded.failures[0].error[:70] if loaded.failures else f"{len(loaded.documents)} document(s)"
        table.add_row(f"{bomb.stat().st_size / 1024:.0f}", f"{seconds:.3f}", f"{grown:.0f}", outcome)
        console.print(table)

    if not args.no_neo4j:
        from graphwright.api import GraphRAG
        from graphwright.config import Settings

        query = "MATCH (n) RETURN count(n) AS n"
        with GraphRAG(Settings()) as rag:
            rag.store.verify()
            runs: dict[str, list[float]] = {"direct READ transaction": [], "read_cypher (the gate)": []}
            for _ in range(50):
                runs["direct READ transaction"].append(_timed(rag.store.read, query) * 1000)
                runs["read_cypher (the gate)"].append(_timed(rag.read_cypher, query) * 1000)
        table = Table(title=f"Read-only Cypher: {query}, 50 runs")
        for column in ("path", "p50 ms", "max ms"):
            table.add_column(column)
        for name, values in runs.items():
            table.add_row(name, f"{statistics.median(values):.2f}", f"{max(values):.2f}")
        console.print(table)
    if args.record:
        record("Hostile input (issue 25)", "bench.hostile", console)


if __name__ == "__main__":
    main()
