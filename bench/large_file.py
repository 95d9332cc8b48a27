"""One very large text file (default 50 MB), ingested whole: time and peak memory of this process and of
the local Neo4j server, to show the large-document path (staged chunks, one swap transaction) keeps memory
bounded by the group size rather than the file.

    .venv/bin/python -m bench.large_file --megabytes 50 --extractor none --yes-reset [--record]

WARNING: empties the database NEO4J_URI points at. The file is made of the bundled space articles' sentences,
each numbered so no two chunks are equal.
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import server_peak_mib
from bench.record import arguments, parse, record
from graphwright.api import GraphRAG
from graphwright.config import Settings

SPACE = Path(__file__).resolve().parents[1] / "examples" / "space"


def write_large_file(path: Path, megabytes: float) -> int:
    from graphwright.text.sentences import split_sentences

    sentences = [
        s
        for f in sorted(SPACE.glob("*.md"))
        for line in f.read_text(encoding="utf-8").splitlines()
        for s in split_sentences(line.lstrip("# "))
        if len(s) > 30
    ]
    target, written, i = int(megabytes * 1_000_000), 0, 0
    with path.open("w", encoding="utf-8") as handle:
        while written < target:
            line = f"{sentences[i % len(sentences)]} (line {i})\n" + ("\n" if i % 7 == 6 else "")
            handle.write(line)
            written += len(line.encode("utf-8"))
            i += 1
    return written


def main() -> None:
    parser = arguments(__doc__, resets=True)
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--extractor", choices=["none", "nlp"], default="none")
    args = parse(parser)
    console = Console(record=True, width=140)
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp, GraphRAG(settings) as rag:
        path = Path(tmp) / "large.txt"
        size = write_large_file(path, args.megabytes)
        rag.store.admin.reset()
        rag.init()
        _ = rag.embedder.dimension  # load the model before timing
        before_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        started = time.perf_counter()
        report = rag.ingest([path], base=Path(tmp), extractor=args.extractor)
        seconds = time.perf_counter() - started
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        stats = rag.inspect.stats()
        problems = rag.inspect.check()
    table = Table(
        "MB",
        "extractor",
        "chunks",
        "entities",
        "ingest s",
        "chunks/s",
        "client MiB before",
        "client peak MiB",
        "Neo4j peak MiB",
        "check",
        title="One large file",
    )
    neo4j = server_peak_mib(settings)
    table.add_row(
        f"{size / 1e6:.1f}",
        args.extractor,
        f"{stats['chunks']:,}",
        f"{stats['entities']:,}",
        f"{seconds:.0f}",
        f"{stats['chunks'] / seconds:.0f}",
        f"{before_mib:.0f}",
        f"{peak_mib:.0f}",
        f"{neo4j:.0f}" if neo4j else "-",
        "clean" if not problems else str(problems),
    )
    console.print(table)
    if report.failures:
        console.print(f"failures: {report.failures}")
    if args.record:
        record(
            "One large file",
            "bench.large_file",
            console,
            "Client peak minus 'before' is what ingesting the file cost; the model is loaded before.",
        )


if __name__ == "__main__":
    main()
