"""What mapping onto a schema from worked examples costs the offline extractor: the same text extracted
plainly (typed relations) and mapped onto a schema (candidate spans, the recogniser, the pair classifier), in
one run, with the time the mapping takes to learn from the examples.

    .venv/bin/python -m bench.schema_mapping_speed [--chars 400000] [--schema S --examples E] [--record]

Defaults: the first novel of ../shared/eval/novels, and text2kg-webnlg's politician ontology and its examples.
Needs no database."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.documents.chunking import chunk_text
from graphwright.extraction.examples import read_examples
from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.graph_schema import GraphSchema

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "eval"


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--data", type=Path, default=SHARED / "novels" / "novels.jsonl")
    parser.add_argument("--chars", type=int, default=400_000)
    parser.add_argument("--schema", type=Path, default=SHARED / "text2kg-webnlg" / "6_politician" / "schema.json")
    parser.add_argument("--examples", type=Path, default=SHARED / "text2kg-webnlg" / "6_politician" / "examples.jsonl")
    args = parse(parser)
    with args.data.open(encoding="utf-8") as handle:
        text = json.loads(handle.readline())["text"][: args.chars]
    chunks = [(f"c{i}", c.text) for i, c in enumerate(chunk_text(text))]
    table = Table(title=f"offline extraction of {len(text):,} characters ({len(chunks)} chunks)", title_justify="left")
    for column in ("mode", "learn s", "extract s", "k chars/s", "relations"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode in ("typed relations", "mapped onto the schema"):
        extractor = NLPExtractor()
        learn = 0.0
        if mode != "typed relations":
            start = time.perf_counter()
            extractor.use_schema(GraphSchema.from_file(args.schema, declare_missing=True))
            extractor.use_examples(read_examples(args.examples))
            learn = time.perf_counter() - start
        extractor.extract_many([("warm", "Ada Lovelace wrote for Charles Babbage in London.")])  # loads the model
        start = time.perf_counter()
        found = extractor.extract_many(chunks)
        took = time.perf_counter() - start
        relations = sum(len(x.relations) for x in found)
        table.add_row(mode, f"{learn:.1f}", f"{took:.1f}", f"{len(text) / took / 1000:.1f}", f"{relations:,}")
    console = Console(record=True, width=120)
    console.print(table)
    if args.record:
        record(
            "What mapping onto a schema costs the offline extractor (issue 26)", "bench.schema_mapping_speed", console
        )


if __name__ == "__main__":
    main()
