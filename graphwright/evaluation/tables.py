"""An EvalReport as rich tables: one row per system, then recall by question type."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from graphwright.evaluation.extraction import ExtractionReport, Figures
from graphwright.evaluation.runner import EvalReport


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def score_table(report: EvalReport) -> Table:
    table = Table(title=f"{report.dataset}: {report.questions} questions", title_justify="left")
    table.add_column("system")
    paged = any(s.page_at for s in report.systems)
    for column in [
        *((f"doc@{k}" for k in report.ks) if paged else ()),
        *((f"page@{k}" for k in report.ks) if paged else ()),
        *(f"R@{k}" for k in report.ks),
        *(f"all@{k}" for k in report.ks),
        "MRR",
        "keywords",
        "EM",
        "F1",
        "p50 ms",
        "p95 ms",
        "errors",
    ]:
        table.add_column(column, justify="right")
    for s in report.systems:
        table.add_row(
            s.system,
            *((_pct(s.doc_at.get(k)) for k in report.ks) if paged else ()),
            *((_pct(s.page_at.get(k)) for k in report.ks) if paged else ()),
            *(_pct(s.recall.get(k)) for k in report.ks),
            *(_pct(s.all_found.get(k)) for k in report.ks),
            _pct(s.mrr),
            _pct(s.keyword_recall),
            _pct(s.exact_match),
            _pct(s.f1),
            f"{s.p50_ms:.0f}",
            f"{s.p95_ms:.0f}",
            str(s.errors),
        )
    return table


def type_table(report: EvalReport) -> Table | None:
    types = sorted({t for s in report.systems for t in s.by_type})
    if len(types) < 2:
        return None
    table = Table(title="recall (R@k) and all-evidence recall (all@k) by question type", title_justify="left")
    table.add_column("system")
    for t in types:
        for k in report.ks:
            table.add_column(f"{t} R@{k}", justify="right")
        for k in report.ks:
            table.add_column(f"{t} all@{k}", justify="right")
    for s in report.systems:
        table.add_row(
            s.system,
            *(
                _pct(cell.get(k))
                for t in types
                for cell in (s.by_type.get(t, {}), s.by_type_all.get(t, {}))
                for k in report.ks
            ),
        )
    return table


def print_report(console: Console, report: EvalReport) -> None:
    console.print(score_table(report))
    by_type = type_table(report)
    if by_type is not None:
        console.print(by_type)
    for note in report.notes:
        console.print(f"note: {note}", markup=False)


def print_extraction_report(console: Console, report: ExtractionReport) -> None:
    """One row per set (ontology) and their average, as Text2KGBench reports them."""
    table = Table(title=f"extraction by {report.extractor}: Text2KGBench's scoring", title_justify="left")
    for column in (
        "set",
        "sentences",
        "P",
        "R",
        "F1",
        "micro F1",
        "conformance",
        "subj. halluc.",
        "rel. halluc.",
        "obj. halluc.",
    ):
        table.add_column(column, justify="left" if column == "set" else "right")

    def row(name: str, n: str, f: Figures) -> list[str]:
        values = (
            f.precision,
            f.recall,
            f.f1,
            f.micro_f1,
            f.conformance,
            f.subject_hallucination,
            f.relation_hallucination,
            f.object_hallucination,
        )
        return [name, n, *(f"{v:.2f}" for v in values)]

    for o in report.ontologies:
        table.add_row(*row(o.name, str(o.sentences), o.figures))
    if len(report.ontologies) > 1:
        table.add_row(
            *row(
                f"average of {len(report.ontologies)}", str(sum(o.sentences for o in report.ontologies)), report.average
            ),
            style="bold",
        )
    console.print(table)
    checks: dict[str, int] = {}
    for o in report.ontologies:
        for reason, n in o.schema_checks.items():
            checks[reason] = checks.get(reason, 0) + n
    if checks:
        console.print("graph schema: " + ", ".join(f"{n} {reason}" for reason, n in sorted(checks.items())))
    for note in report.notes:
        console.print(f"note: {note}")
