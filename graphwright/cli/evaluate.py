"""`graphwright eval`: score search modes on a question set, beside peers run on the same chunks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from graphwright.cli.common import (
    cost_options,
    examples_option,
    extractor_option,
    fail,
    load_settings,
    make_console,
    open_graph,
    print_estimate,
    progress_bar,
    schema_option,
)
from graphwright.errors import GraphwrightError
from graphwright.search.registry import mode_names  # names only: the mode classes load when a search runs

if TYPE_CHECKING:
    from graphwright.extraction.base import Extractor


def int_list(ctx: click.Context, param: click.Parameter, value: str) -> list[int]:
    try:
        values = [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise click.BadParameter(f"expected numbers like 2,5,10, got {value!r}") from exc
    if not values or min(values) < 1:
        raise click.BadParameter("give at least one k >= 1")
    return values


@click.command("eval")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option(
    "--modes", default="vector,hybrid,local", show_default=True, help="Comma-separated search modes to score."
)
@click.option("--k", "ks", default="2,5,10", show_default=True, callback=int_list, help="Recall cut-offs.")
@click.option(
    "--peers",
    is_flag=True,
    help="Also run BM25 and dense retrieval in plain Python and neo4j-graphrag's Vector/HybridRetriever "
    "on the same chunks (needs `pip install graphwright[eval]`).",
)
@click.option(
    "--load-corpus",
    is_flag=True,
    help="Ingest the dataset's own corpus first (HotpotQA-style folders ship one); idempotent.",
)
@extractor_option("Extractor for --load-corpus")
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N questions.")
@click.option("--no-llm", is_flag=True, help="Score retrieval only, even when an LLM is configured.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Write the report as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
@cost_options
def eval_command(
    dataset: Path,
    modes: str,
    ks: list[int],
    peers: bool,
    load_corpus: bool,
    extractor: str | None,
    limit: int | None,
    no_llm: bool,
    json_out: Path | None,
    quiet: bool,
    dry_run: bool,
    max_cost: float | None,
) -> None:
    """Score search modes on a question set: passage Recall@k, MRR, keyword recall, and answer EM/F1
    when an LLM answers. DATASET is a JSONL file ({question, gold_doc_ids | gold_titles,
    expected_keywords?, answer?, type?} per line), a HotpotQA-style folder (questions.json, corpus.json),
    or a folder of documents with page gold (questions.jsonl with {question, doc, pages} and the files in
    pdfs/ or documents/, as ../shared/tools/financebench.py writes it): scored as doc@k and page@k too.

    \b
    Examples:
      graphwright eval questions.jsonl --modes vector,hybrid --k 1,3
      graphwright eval ../shared/eval/hotpotqa-dev --load-corpus --peers --json eval.json
      graphwright eval ../shared/eval/2wiki-101 --modes hybrid --dry-run   # the LLM answers' calls and tokens
      graphwright eval financebench/ --load-corpus --peers --k 5   # filings: doc@5 and page@5
    """
    from rich.console import Console

    from graphwright.evaluation.datasets import DatasetError, load_dataset
    from graphwright.evaluation.runner import evaluate
    from graphwright.evaluation.runner import load_corpus as ingest_corpus
    from graphwright.evaluation.tables import print_report
    from graphwright.search.registry import modes_where

    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in mode_names()]
    if unknown or not chosen:
        raise click.BadParameter(
            f"unknown mode(s) {unknown}; choose from {', '.join(mode_names())}", param_hint="--modes"
        )
    try:
        data = load_dataset(dataset)
    except DatasetError as exc:
        fail(str(exc))
    if limit:
        data.questions = data.questions[:limit]
    console = Console(width=max(make_console().width, 150), highlight=False)  # tables wider than a pipe's 80
    if dry_run:
        with open_graph() as rag:
            print_estimate(rag.estimate_eval(data, chosen, ks, generate=not no_llm))
        return
    with open_graph(max_cost) as rag:
        notes = []
        if load_corpus:
            notes += ingest_corpus(rag, data, extractor, bool(set(chosen) & set(modes_where("uses_graph"))))
        with progress_bar(not quiet) as progress:
            report = evaluate(rag, data, chosen, ks, peers=peers, generate=not no_llm, progress=progress)
        report.notes = notes + report.notes
    print_report(console, report)
    if json_out:
        json_out.write_text(report.model_dump_json(indent=2), encoding="utf-8")
        console.print(f"report written to {json_out}")


@click.command("eval-extraction")
@click.argument("gold", type=click.Path(exists=True, path_type=Path))
@schema_option()
@examples_option()
@extractor_option("Extractor to score")
@click.option("--limit", type=click.IntRange(1, None), default=None, help="Only the first N sentences of each set.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Write the report as JSON.")
@click.option(
    "--cross-validate",
    is_flag=True,
    help="Leave one set out: whatever the extractor learns across sets (the relation prior) is fitted on the "
    "other sets for each; the figure that predicts a schema it never saw.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def eval_extraction(
    gold: Path,
    schema_file: Path | None,
    examples_file: Path | None,
    extractor: str | None,
    limit: int | None,
    json_out: Path | None,
    cross_validate: bool,
    quiet: bool,
) -> None:
    """Score extraction against hand-labelled sentences by Text2KGBench's rules: precision, recall and F1 per
    sentence, averaged (and micro), ontology conformance, subject / relation / object hallucination. GOLD is
    a JSONL file ({id, text, triples: [{sub, rel, obj}]} per line) or a folder of sets in Text2KGBench's
    layout (NAME/gold.jsonl, NAME/schema.json, NAME/examples.jsonl), scored set by set. Each sentence goes
    through the extraction ingest runs; no database is needed.

    \b
    Examples:
      graphwright eval-extraction my_gold.jsonl --schema my_schema.yaml --json scores.json
      graphwright eval-extraction ../shared/eval/text2kg-webnlg --extractor nlp
      graphwright eval-extraction ../shared/eval/text2kg-webnlg --cross-validate
    """
    from graphwright.evaluation.cross_validation import LabelledSet, cross_validate_sets, score_sets
    from graphwright.evaluation.extraction import ExtractionReport, average, read_gold
    from graphwright.evaluation.tables import print_extraction_report
    from graphwright.extraction.base import LearnsFromExamples, UsesRelationPrior
    from graphwright.extraction.examples import read_examples
    from graphwright.extraction.registry import make_extractor
    from graphwright.graph_schema import GraphSchema
    from graphwright.llm.registry import make_llm

    settings = load_settings()
    sets = _extraction_sets(gold, schema_file, examples_file)
    if cross_validate and len(sets) < 2:
        fail("--cross-validate needs a folder of two sets or more (one is left out at a time)")
    llm = make_llm(settings)

    def make() -> Extractor:
        try:
            chosen = make_extractor(settings, extractor, llm)
        except GraphwrightError as exc:
            fail(str(exc))
        if chosen is None:
            fail("--extractor none extracts nothing to score")
        return chosen

    labelled = []
    for name, gold_file, schema_path, examples_path in sets:
        try:
            labelled.append(
                LabelledSet(
                    name,
                    read_gold(gold_file)[:limit],
                    GraphSchema.from_file(schema_path, declare_missing=gold.is_dir()) if schema_path else None,
                    read_examples(examples_path) if examples_path else [],
                )
            )
        except GraphwrightError as exc:
            fail(str(exc))
    notes: list[str] = []
    probe = make()
    if any(s.examples for s in labelled) and not isinstance(probe, LearnsFromExamples):
        notes.append(f"the {probe.name} extractor does not learn from examples; they were not used")
    with progress_bar(not quiet) as progress:
        tell = (lambda name, n, total: progress(name[:10], n, total)) if progress is not None else None
        if cross_validate:
            if not isinstance(probe, UsesRelationPrior):
                notes.append(f"the {probe.name} extractor learns nothing across sets: left out or not, it scores alike")
            notes.append(f"leave one set out: each of the {len(sets)} sets scored with what was learned on the others")
            ontologies = cross_validate_sets(labelled, make, tell)
        else:
            ontologies = score_sets(labelled, make, tell)
    report = ExtractionReport(
        extractor=extractor or settings.extractor,
        ontologies=ontologies,
        average=average([o.figures for o in ontologies]),
        notes=notes,
    )
    print_extraction_report(make_console(), report)
    if json_out:
        json_out.write_text(report.model_dump_json(indent=2), encoding="utf-8")
        make_console().print(f"report written to {json_out}")


def _extraction_sets(
    gold: Path, schema_file: Path | None, examples_file: Path | None
) -> list[tuple[str, Path, Path | None, Path | None]]:
    """(name, gold, schema, examples) per set: the file given, or each sub-folder holding a gold.jsonl."""
    if gold.is_file():
        return [(gold.stem, gold, schema_file, examples_file)]
    found = []
    for folder in sorted((p for p in gold.iterdir() if (p / "gold.jsonl").is_file()), key=_natural):
        schema = schema_file or (folder / "schema.json" if (folder / "schema.json").is_file() else None)
        examples = examples_file or (folder / "examples.jsonl" if (folder / "examples.jsonl").is_file() else None)
        found.append((folder.name, folder / "gold.jsonl", schema, examples))
    if not found:
        fail(f"{gold}: no gold.jsonl in it or in its sub-folders")
    return found


def _natural(path: Path) -> tuple[int, str]:
    """1_university before 10_comicscharacter."""
    head = path.name.split("_", 1)[0]
    return (int(head), path.name) if head.isdigit() else (10**9, path.name)
