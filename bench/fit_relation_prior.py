"""Fits the packaged relation prior (`graphwright/extraction/data/relation_prior.json`) on every ontology of
text2kg-webnlg: each ontology's schema and train examples, as a user would give them (no gold sentence).

    .venv/bin/python -m bench.fit_relation_prior [--data ../shared/eval/text2kg-webnlg]

What it predicts on an ontology it never saw is measured leave-one-ontology-out:
`graphwright eval-extraction ../shared/eval/text2kg-webnlg --cross-validate`."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.extraction_text2kg import DATA
from graphwright.config import Settings
from graphwright.extraction.base import LearnsFromExamples, SchemaAware, UsesRelationPrior
from graphwright.extraction.examples import read_examples
from graphwright.extraction.registry import make_extractor
from graphwright.extraction.relation_prior import PACKAGED, RelationPrior
from graphwright.graph_schema import GraphSchema


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=PACKAGED)
    args = parser.parse_args()
    started = time.perf_counter()
    evidence = []
    for folder in sorted(p for p in args.data.iterdir() if (p / "examples.jsonl").is_file()):
        extractor = make_extractor(Settings(), "nlp", None)
        assert isinstance(extractor, SchemaAware) and isinstance(extractor, LearnsFromExamples)
        assert isinstance(extractor, UsesRelationPrior)
        extractor.use_schema(GraphSchema.from_file(folder / "schema.json", declare_missing=True))
        extractor.use_relation_prior(None)
        extractor.use_examples(read_examples(folder / "examples.jsonl"))
        found = extractor.evidence()
        if found is not None:
            evidence.append(found)
        print(f"{folder.name}: {len(found.pairs) if found else 0} candidate pairs", flush=True)
    prior = RelationPrior.fit(evidence)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(prior.to_json() + "\n", encoding="utf-8")
    print(f"fitted on {len(evidence)} ontologies in {time.perf_counter() - started:.0f} s: {args.out}")


if __name__ == "__main__":
    main()
