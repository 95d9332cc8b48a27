"""Offline extractor against the gold entity list of the sample corpus.

    .venv/bin/python -m bench.extraction_gold [--show-misses] [--record]

Chunks examples/space as ingest does, extracts every chunk with the NLP extractor, and compares the distinct
entity keys (case, accents and punctuation ignored) with tests/data/space_gold_entities.txt, where a gold
entity counts as found when its name or any alias was extracted.
"""

from __future__ import annotations

import argparse
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from graphwright.config import Settings
from graphwright.documents.chunking import make_chunks
from graphwright.documents.loaders import load_paths
from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.text.normalize import normalize_key

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "tests" / "data" / "space_gold_entities.txt"


@dataclass
class GoldScore:
    recall: float
    precision: float
    gold: int
    extracted: int
    missed: list[str]
    junk: list[str]


def load_gold(path: Path = GOLD) -> list[list[str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([normalize_key(name) for name in line.split("|")])
    return rows


def score(corpus: Path = ROOT / "examples" / "space") -> GoldScore:
    settings = Settings(_env_file=None)
    extractor = NLPExtractor()
    names: dict[str, str] = {}
    for doc in load_paths([corpus], ROOT).documents:
        for chunk in make_chunks(doc, settings.chunk_size, settings.chunk_overlap):
            for entity in extractor.extract(chunk.id, chunk.text).entities:
                names.setdefault(normalize_key(entity.name), entity.name)
    gold = load_gold()
    gold_keys = {key for row in gold for key in row}
    found = [row for row in gold if any(key in names for key in row)]
    missed = [row[0] for row in gold if not any(key in names for key in row)]
    junk = sorted(name for key, name in names.items() if key not in gold_keys)
    return GoldScore(
        recall=len(found) / len(gold),
        precision=(len(names) - len(junk)) / max(len(names), 1),
        gold=len(gold),
        extracted=len(names),
        missed=missed,
        junk=junk,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    result = score()
    line = f"| {result.gold} | {result.extracted} | {result.recall:.3f} | {result.precision:.3f} |"
    print("| gold entities | extracted | recall | precision |\n|---|---|---|---|\n" + line)
    if args.show_misses:
        print("missed:", result.missed)
        print("not in gold:", result.junk)
    if args.record:
        with open(ROOT / "docs" / "benchmarks.md", "a", encoding="utf-8") as handle:
            handle.write(
                f"\n### Offline extraction vs the sample gold list, {dt.date.today().isoformat()}\n\n"
                "Command: `.venv/bin/python -m bench.extraction_gold --record`\n\n"
                "| gold entities | extracted | recall | precision |\n|---|---|---|---|\n" + line + "\n"
            )


if __name__ == "__main__":
    main()
