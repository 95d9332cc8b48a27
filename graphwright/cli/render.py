"""How the commands print what the API returns: rich tables and panels, written once. Text from documents
and the graph goes through `Text`, so a bracket in a passage is never read as markup."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from graphwright.cli.common import make_console

if TYPE_CHECKING:
    from graphwright.communities.raptor import RaptorRun
    from graphwright.communities.upkeep import CommunityRun
    from graphwright.graph_schema import GraphSchema
    from graphwright.models import EntityProfile, GraphStats, IngestReport, SearchResult, SyncReport


def print_ingest_report(report: IngestReport) -> None:
    console = make_console()
    if report.found_nothing:  # no "Ingested 0 documents, 0 failed" before the error: only what was passed over
        if report.skipped:
            console.print(f"[yellow]skipped:[/] {skipped_line(report.skipped)}")
        return
    rate = report.documents_written / report.seconds if report.seconds else 0.0
    console.print(
        f"Ingested {report.documents_written} documents ({report.chunks_written} chunks), "
        f"{report.documents_unchanged} unchanged, {len(report.failures)} failed "
        f"in {report.seconds:.1f}s ({rate:.1f} docs/s)"
    )
    if report.vectors_reused:
        console.print(f"Kept the vectors of {report.vectors_reused} unchanged passages of changed documents")
    if report.chunks_resumed:
        console.print(f"Resumed {report.chunks_resumed} chunks an interrupted ingest had embedded and extracted")
    if report.extractor != "none" and report.documents_written:
        console.print(
            f"Entity graph ({report.extractor}): {report.entities_written} entities and "
            f"{report.relations_written} relations written"
        )
    if report.llm_usage:
        usage = report.llm_usage
        cost = f", cost {usage['cost']:.4f}" if "cost" in usage else ""
        console.print(
            f"LLM: {usage.get('calls', 0):.0f} calls ({usage.get('cached', 0):.0f} cached), "
            f"{usage.get('prompt_tokens', 0):.0f} prompt + {usage.get('completion_tokens', 0):.0f} "
            f"completion tokens{cost}"
        )
    if report.embedding_usage:
        usage = report.embedding_usage
        console.print(
            f"Embeddings: {usage.get('calls', 0):.0f} calls for {usage.get('texts', 0):.0f} texts "
            f"({usage.get('cached', 0):.0f} cached), {usage.get('tokens', 0):.0f} tokens"
        )
    if report.raptor:
        r = report.raptor
        console.print(
            f"RAPTOR tree updated: {r['summaries']:,} summaries, {r['written']:,} written, {r['kept']:,} kept"
        )
    if report.communities:
        c = report.communities
        console.print(
            f"Communities updated: {c['kept']} kept, {c['rewritten']} rewritten, {c['created']} "
            f"created, {c['removed']} removed; {c.get('reused', 0)} reports kept by overlap, "
            f"{c.get('llm_calls', 0)} LLM report calls, {c.get('stale', 0)} reports stale"
            + (
                f"; {c['llm_skipped']} extractive (this endpoint's LLM reports held none)"
                if c.get("llm_skipped")
                else ""
            )
        )
    if report.schema_checks:
        checks = ", ".join(f"{n} {reason}" for reason, n in sorted(report.schema_checks.items()))
        console.print(f"Graph schema: {checks}")
    from graphwright.extraction.base import TIME_BUDGET

    late = sum(n for reason, n in report.extraction_fallbacks.items() if TIME_BUDGET in reason)
    unusable = {reason: n for reason, n in report.extraction_fallbacks.items() if TIME_BUDGET not in reason}
    if unusable:
        fallbacks = ", ".join(f"{n} chunks ({reason})" for reason, n in sorted(unusable.items()))
        console.print(f"[yellow]LLM replies unusable, offline extractor used:[/] {fallbacks}")
    if late:
        console.print(
            f"[yellow]LLM time budget reached:[/] {late} chunks took the offline extractor; the same command "
            "continues them with the LLM (GRAPHWRIGHT_LLM_MAX_TIME, --max-time)"
        )
    for failure in report.extraction_failures:
        console.print(f"[yellow]extraction failed:[/] {failure.source}: {failure.error}")
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    for failure in report.failures:
        console.print(f"[red]failed:[/] {failure.source}: {failure.error}")
    if report.skipped:
        console.print(f"[yellow]skipped:[/] {skipped_line(report.skipped)}")


def print_schema(schema: GraphSchema | None, counts: dict[str, dict[str, int]]) -> None:
    """The schema's types with how many of each the graph holds, then what the graph holds outside it."""
    from rich.table import Table

    from graphwright.text.normalize import relation_type

    console = make_console()
    entities = {relation_type(k): v for k, v in counts["entities"].items()}
    relations = {relation_type(k): v for k, v in counts["relations"].items()}
    if schema is None:
        console.print("No graph schema stored (give one with `graphwright schema set FILE` or `ingest --schema`).")
        named_nodes: set[str] = set()
        named_relations: set[str] = set()
    else:
        for title, types, held in (
            ("Node types", schema.node_types, entities),
            ("Relationship types", schema.relationship_types, relations),
        ):
            table = Table("type", "in the graph", "description", title=title, title_justify="left")
            for t in types:
                table.add_row(t.label, f"{held.get(relation_type(t.label), 0):,}", t.description)
            console.print(table)
        if schema.patterns:
            patterns = Table("source", "relationship", "target", title="Patterns", title_justify="left")
            for p in schema.patterns:
                patterns.add_row(p.source, p.relationship, p.target)
            console.print(patterns)
        opens = {
            "other node types": schema.additional_node_types,
            "other relationship types": schema.additional_relationship_types,
            "other patterns": schema.additional_patterns,
        }
        console.print("; ".join(f"{k}: {'allowed' if v else 'refused'}" for k, v in opens.items()))
        named_nodes = {relation_type(t.label) for t in schema.node_types}
        named_relations = {relation_type(t.label) for t in schema.relationship_types}
    for title, held, named in (("Entity types", entities, named_nodes), ("Relation types", relations, named_relations)):
        outside = {k: v for k, v in held.items() if k not in named}
        if outside:
            table = Table("type", "count", title=f"{title} the graph holds outside the schema", title_justify="left")
            for name, n in list(outside.items())[:25]:
                table.add_row(name, f"{n:,}")
            if len(outside) > 25:
                table.add_row(f"... {len(outside) - 25} more", "")
            console.print(table)


def skipped_line(skipped: list[str], shown: int = 10) -> str:
    from graphwright.documents.file_types import supported_suffixes

    types = sorted({Path(s).suffix.lower() or "(no extension)" for s in skipped})
    names = ", ".join(skipped[:shown]) + (f" and {len(skipped) - shown} more" if len(skipped) > shown else "")
    return (
        f"{len(skipped)} file(s) of a type graphwright does not read ({', '.join(types)}): {names}. "
        f"Supported: {', '.join(supported_suffixes())}"
    )


def print_community_run(run: CommunityRun) -> None:
    levels = ", ".join(f"level {lvl}: {n}" for lvl, n in sorted(run.levels.items())) or "none"
    where = " (in Neo4j GDS)" if run.engine == "gds" else ""
    make_console().print(
        f"Communities: {run.kept} kept, {run.rewritten} rewritten, {run.created} created, {run.removed} removed "
        f"({levels}); {run.isolated_entities} entities without relations are in no community. "
        f"Detection {run.detect_seconds:.1f}s{where}, reports {run.report_seconds:.1f}s, embeddings "
        f"{run.embed_seconds:.1f}s, write {run.write_seconds:.1f}s. Modularity (level 0) {run.modularity:.4f}. "
        f"Reports: {run.reused} kept by overlap, {run.llm_calls} LLM calls, {run.stale} stale"
        + (f"; {run.llm_failures} LLM reports fell back to extractive" if run.llm_failures else "")
        + (f"; {run.llm_skipped} extractive (this endpoint's LLM reports held none)" if run.llm_skipped else "")
        + (" (run `graphwright communities refresh` to rewrite stale reports)" if run.stale else "")
    )


def print_stats(info: GraphStats) -> None:
    from rich.table import Table

    console = make_console()
    counts = Table("what", "count", title="Graph", title_justify="left")
    for key, value in info.counts.items():
        counts.add_row(key, f"{value:,}")
    if info.store_bytes is not None:
        counts.add_row("store on disk", f"{info.store_bytes / 2**20:,.1f} MiB")
    console.print(counts)
    for title, values in (
        ("Entities by type", info.entity_types),
        ("Relations by type", info.relation_types),
        ("Communities by level", info.community_levels),
    ):
        if values:
            table = Table("", "count", title=title, title_justify="left")
            for name, value in list(values.items())[:25]:
                table.add_row(str(name), f"{value:,}")
            if len(values) > 25:
                table.add_row(f"... {len(values) - 25} more", "")
            console.print(table)
    indexes = Table("index", "type", "on", "state", "populated", title="Indexes", title_justify="left")
    for row in info.indexes:
        on = f"{','.join(row['labelsOrTypes'] or [])}({','.join(row['properties'] or [])})"
        indexes.add_row(row["name"], row["type"], on, row["state"], f"{row['populationPercent']:.0f}%")
    console.print(indexes)


def print_entity_profile(profile: EntityProfile, name: str) -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = make_console()
    e = profile.entity
    header = [
        f"{e.name}  ({e.type}; labels {', '.join(profile.labels) or '-'}; degree {profile.degree})",
        f"id {e.id}" + ("" if e.how == "exact" else f"  (closest match to {name!r}, by {e.how})"),
    ]
    if profile.aliases:
        header.append("aliases: " + ", ".join(profile.aliases))
    if e.description:
        header.append(e.description)
    console.print(Panel(Text("\n".join(header)), title="entity", title_align="left"))
    table = Table("relation", "weight", "evidence", "chunks", title="Relations", title_justify="left")
    for r in profile.relations:
        table.add_row(
            Text(r.render()),
            f"{r.weight:g}",
            Text((r.evidence or [r.description])[0][:120]),
            Text(", ".join(r.chunk_ids[:2])),
        )
    console.print(table)
    sources = Table("document", "chunks", "mentions", "chunk ids", title="Sources", title_justify="left")
    for row in profile.sources:
        sources.add_row(
            Text(row["document_id"]), str(row["chunks"]), str(row["mentions"]), Text(", ".join(row["chunk_ids"]))
        )
    console.print(sources)
    for c in profile.communities:
        console.print(Text(f"community level {c['level']}: {c['title']} ({c['id']})"))


def print_result(result: SearchResult, show_context: bool = False, verbose: bool = False, explain: bool = True) -> None:
    """The answer first; its sources in a line each; with `explain`, the evidence and graph tables and timings."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = make_console()
    title = f"{result.mode} · {'LLM answer' if result.answer_kind == 'generated' else 'retrieval (offline)'}"
    if verbose and result.trace:
        trace = Table("#", "kind", "name", "arguments", "result", title="Trace", title_justify="left")
        for step in result.trace:
            arguments = ", ".join(f"{k}={v!r}" for k, v in step.arguments.items())
            trace.add_row(
                str(step.step),
                step.kind,
                step.name,
                Text(arguments[:120]),
                Text(("" if step.ok else "FAILED: ") + step.summary[:160]),
            )
        console.print(trace)
    console.print(Panel(Text(result.answer), title=title, title_align="left"))  # Text: brackets are not markup
    if show_context:
        for section in result.context:
            console.print(
                Panel(
                    Text(section.text), title=f"context: {section.name} ({section.tokens} tokens)", title_align="left"
                )
            )
    if result.answer_kind == "generated":  # an offline answer lists its passages itself
        documents = [c for c in result.citations if c.kind == "document"]
        for number, cite in enumerate(documents, start=1):
            console.print(Text(f"[{number}] {cite.label or cite.id}  ({cite.id})"))
    for note in result.notes:
        if note.startswith(("the LLM", "follow-up")):  # what changed the answer a reader sees
            console.print(Text(f"({note})"), style="dim")
    if not explain:
        return
    table = Table("#", "match", "chunk", "document", title="Evidence passages", title_justify="left")
    for c in result.chunks:
        table.add_row(str(c.rank), c.strength(), c.chunk_id, Text(c.document_id + (f" p.{c.pages}" if c.pages else "")))
    console.print(table)
    cited = [c for c in result.citations if c.kind in ("entity", "relation", "community")]
    if cited:
        graph = Table("kind", "id", "label", title="Cited graph elements", title_justify="left")
        for cite in cited[:30]:
            graph.add_row(cite.kind, Text(cite.id), Text(cite.label or ""))
        console.print(graph)
    timings = ", ".join(f"{k.removesuffix('_ms')} {v:.0f} ms" for k, v in result.timings_ms.items())
    console.print(f"[dim]{timings}[/]")


def print_raptor_run(run: RaptorRun) -> None:
    levels = ", ".join(f"level {level}: {n:,}" for level, n in sorted(run.levels.items())) or "none"
    make_console().print(
        f"RAPTOR tree over {run.passages:,} passages ({run.trees:,} trees): {run.summaries:,} summaries ({levels}); "
        f"{run.written:,} written, {run.kept:,} kept, {run.removed:,} removed in {sum(run.seconds.values()):.1f}s"
        + (f"; {run.by_llm:,} written by the LLM" if run.by_llm or run.llm_failed else "")
        + (f", {run.llm_failed:,} of its replies unusable (extractive instead)" if run.llm_failed else "")
    )


def print_sync_report(report: SyncReport, *, details: bool = False) -> None:
    console = make_console()
    console.print(  # what changed first; one line whatever the width, so a pipe or a log gets it whole
        f"{len(report.added)} added, {len(report.changed)} changed, {len(report.removed)} removed, "
        f"{report.unchanged} unchanged, {len(report.failures)} failed in {report.seconds:.1f}s: "
        f"[bold]{report.source}[/]",
        highlight=False,
        soft_wrap=True,
    )
    for word, keys in (("added", report.added), ("changed", report.changed), ("removed", report.removed)):
        shown = keys if details else keys[:10]
        for key in shown:
            console.print(f"  {word:<8} {key}", highlight=False, markup=False)
        if len(keys) > len(shown):
            console.print(f"  ... and {len(keys) - len(shown)} more {word} (--details lists them all)")
    for failure in report.failures[: None if details else 10]:
        console.print(f"  [red]failed[/]   {failure.source}: {failure.error}", highlight=False)
    if report.skipped:
        console.print(f"  [yellow]skipped[/]  {len(report.skipped)}: " + ", ".join(report.skipped[:3]))
    ingest = report.ingest
    if ingest is not None and (ingest.communities or ingest.raptor):
        c = ingest.communities
        if c:
            console.print(f"  communities: {c['kept']} kept, {c['rewritten']} rewritten, {c['removed']} removed")
