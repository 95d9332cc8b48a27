"""What every command shares: the console, settings, one clear line for a known failure, the graph and the
progress bars. Imports here are light: a command's heavy imports happen inside it."""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from rich.console import Console

    from graphwright.api import GraphRAG
    from graphwright.config import Settings
    from graphwright.graph_schema import GraphSchema
    from graphwright.models import CostEstimate, ExtractionExample

F = TypeVar("F", bound=Callable[..., Any])

# Exit codes: 0 ok, 1 some inputs failed (the rest went through), 2 cannot run (config, Neo4j, usage).
EXIT_PARTIAL = 1
EXIT_FATAL = 2
EXIT_INTERRUPTED = 130  # as a shell reports a Ctrl-C


def make_console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def tighten_home(home: Path, console: Console) -> None:
    """Take group and other access off a home an older release left readable, and say so (once: the next
    start finds nothing to change). A home folder alone made readable (`mkdir` under the usual umask, before
    anything was written in it) is tightened without a word: nothing of the user's was exposed."""
    from graphwright.private_files import tighten

    changed = [path for path in tighten(home) if path != home]
    if changed:
        console.print(
            f"Made {len(changed)} files and folders under {home} private to their owner (they were readable by others)"
        )


def load_settings() -> Settings:
    """The settings of the environment and `.env`, with what the command line chose (`--workspace`) given
    explicitly."""
    from pydantic import ValidationError

    from graphwright.cli.lazy import WORKSPACE_KEY
    from graphwright.config import Settings

    ctx = click.get_current_context(silent=True)
    chosen = {"workspace": ctx.meta[WORKSPACE_KEY]} if ctx is not None and WORKSPACE_KEY in ctx.meta else {}
    try:
        return Settings(**chosen)
    except ValidationError as exc:
        raise click.ClickException(f"invalid configuration:\n{exc}") from exc


def fail(message: str) -> NoReturn:
    """One red line on stderr, exit 2: the command cannot run."""
    make_console(stderr=True).print(f"[bold red]error:[/] {message}")
    sys.exit(EXIT_FATAL)


def exit_partial() -> NoReturn:
    """Exit 1: the command ran, but some of what it was given failed (it said which)."""
    sys.exit(EXIT_PARTIAL)


@contextmanager
def open_graph(max_cost: float | None = None, max_time: float | None = None) -> Iterator[GraphRAG]:
    """A GraphRAG whose known failures (Neo4j down, schema mismatch, LLM) end in one clear line; `max_cost`
    (--max-cost) caps what its LLM calls may spend, `max_time` (--max-time) how long an ingest calls it."""
    from graphwright.api import GraphRAG
    from graphwright.errors import GraphwrightError, InvalidRequestError

    settings = load_settings()
    if max_cost is not None:
        settings = settings.updated(**{"llm_max_cost": max_cost})
    if max_time is not None:
        settings = settings.updated(**{"llm_max_time": max_time})
    try:
        rag = GraphRAG(settings)  # a workspace that does not exist stops here
    except InvalidRequestError:
        raise
    except GraphwrightError as exc:
        fail(str(exc))
    try:
        rag.store.verify()
        yield rag
    except InvalidRequestError:
        raise  # a usage error: the command says which option
    except GraphwrightError as exc:  # Neo4j down, schema mismatch, LLM failure...: one clear line
        fail(str(exc))
    finally:
        rag.close()


def parse_meta(values: tuple[str, ...]) -> dict[str, Any]:
    from graphwright.search.filters import parse_value

    meta: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: use key=value", param_hint="--meta")
        meta[key.strip()] = parse_value(value.strip())
    return meta


# While an ingest embeds chunks beside the parse, each embedding stream must take the GIL back from spaCy
# after every text; at Python's default 5 ms turn a stream waits longer for it than the text takes to embed.
# 0.5 ms turns made a 3-novel ingest 8% faster; in `serve` they slowed the searches beside a job, so only the
# CLI's own ingests (one process, one job) take them (docs/benchmarks.md, issue 28).
_INGEST_GIL_TURN = 0.0005


@contextmanager
def short_gil_turns() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, _INGEST_GIL_TURN))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


class Tally:
    """A progress callback that remembers each stage's last count (what an interrupted run had written), and
    passes every call on to the bar, if there is one."""

    def __init__(self, bar: Callable[..., None] | None) -> None:
        self.bar = bar
        self.stages: dict[str, tuple[int, int]] = {}

    def __call__(self, stage: str, done: int, total: int, detail: str = "") -> None:
        self.stages[stage] = (done, total)
        if self.bar is not None:
            self.bar(stage, done, total, detail)


@contextmanager
def stop_on_ctrl_c(tally: Tally) -> Iterator[None]:
    """Ctrl-C ends an ingest at once rather than when the workers finish their batch: every document is
    committed whole or not at all (tests/integration/test_kill.py kills ingests to prove it), so nothing in
    flight is worth waiting for. Says what was kept and how to resume, and exits 130."""

    def stop(signum: int, frame: object) -> None:
        written = tally.stages.get("write", (0, 0))[0]
        files = tally.stages.get("load", (0, 0))[1]
        kept = f"{written} documents were written, each whole" if written else "no document was written yet"
        kept += f" ({files} files were given)" if files else ""
        make_console(stderr=True).print(
            f"\n[yellow]stopped:[/] {kept}. Run the same command again to ingest the rest "
            "(what was written is recognised and skipped, and a large document goes on from its staged parts)."
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)  # the driver's open transactions roll back on the server when we go

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def ingest_progress(shown: bool) -> Iterator[Tally]:
    """What an ingest runs inside: its bars (if `shown`), short GIL turns, and Ctrl-C that stops at once."""
    with progress_bar(shown) as bar, short_gil_turns():
        tally = Tally(bar)
        with stop_on_ctrl_c(tally):
            yield tally


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[..., None] | None]:
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),  # from the measured rate: LLM extraction takes minutes
        TextColumn("{task.fields[detail]}"),
        console=make_console(stderr=True),
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int, detail: str = "") -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, detail=detail)
            bar.update(tasks[stage], completed=done, total=total, detail=detail)

        yield update


def browser_base_url(settings: Settings) -> str:
    from graphwright.answer_graph import browser_base

    return browser_base(settings.neo4j_uri, settings.http_port)


def search_option(name: str, *declarations: str, **overrides: Any) -> click.Option:
    """The flag of search option `name` as the HTTP API's `SearchRequest` declares it: its type (a bool is a
    flag, a list repeats), limits and help come from the field, so the CLI cannot drift from the API."""
    import annotated_types

    from graphwright.server.schemas import SearchRequest

    field = SearchRequest.model_fields[name]
    kind = field.annotation
    text = (field.description or "")[:1].upper() + (field.description or "")[1:]
    options: dict[str, Any] = {}
    if kind is bool:
        options["is_flag"] = True
    elif "list[" in str(kind):
        options["multiple"] = True
        text = f"{text} (repeatable)" if text else "Repeatable"
    elif "int" in str(kind):
        low: Any = next((m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)), None)
        high: Any = next((m.le for m in field.metadata if isinstance(m, annotated_types.Le)), None)
        options.update(type=click.IntRange(low, high), default=None)
    else:
        options["default"] = None
    options["help"] = f"{text}." if text else None
    return click.Option(list(declarations or (f"--{name.replace('_', '-')}",)), **{**options, **overrides})


class SearchCommand(click.Command):
    """A command taking search options: `search_options` names them (with any flag-specific overrides), and
    their flags are made by `search_option` when first needed (parsing or the command's help), placed after
    `--mode`; so listing the commands (`graphwright --help`) imports no model."""

    def __init__(self, *args: Any, search_options: Sequence[tuple[str, dict[str, Any]]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending = list(search_options)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if self._pending:
            made = [search_option(name, **extra) for name, extra in self._pending]
            self._pending = []
            at = next((i + 1 for i, p in enumerate(self.params) if p.name == "mode"), len(self.params))
            self.params[at:at] = made
        return super().get_params(ctx)


def extractor_option(what: str = "Entity graph from") -> Callable[[F], F]:
    """--extractor, with the registered extractors as its choices and in its help."""
    from graphwright.extraction.registry import EXTRACTOR_NAMES

    names = ", ".join(n for n in EXTRACTOR_NAMES if n != "auto")
    return click.option(
        "--extractor",
        type=click.Choice(EXTRACTOR_NAMES),
        default=None,
        help=f"{what}: {names}, or auto (llm when one is configured, else nlp). Default: GRAPHWRIGHT_EXTRACTOR.",
    )


def _file_option(flag: str, dest: str, help_text: str) -> Callable[[F], F]:
    return click.option(
        flag, dest, type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help=help_text
    )


def schema_option() -> Callable[[F], F]:
    """--schema FILE: the graph schema for this run (stored with the graph the first time)."""
    return _file_option(
        "--schema",
        "schema_file",
        "Graph schema (JSON or YAML: node_types, relationship_types, patterns); default GRAPHWRIGHT_SCHEMA, "
        "else the one stored in the graph.",
    )


def examples_option() -> Callable[[F], F]:
    """--examples FILE: worked examples the extractor may learn from."""
    return _file_option(
        "--examples",
        "examples_file",
        "Worked examples ({text, triples: [{sub, rel, obj}]} per line) the extractor may learn from.",
    )


def read_schema(path: Path | None) -> GraphSchema | None:
    """The schema in a file, or None; a bad file is one line and exit 2, before anything is written."""
    if path is None:
        return None
    from graphwright.errors import GraphwrightError
    from graphwright.graph_schema import GraphSchema

    try:
        return GraphSchema.from_file(path)
    except GraphwrightError as exc:
        fail(str(exc))


def read_examples_file(path: Path | None) -> list[ExtractionExample] | None:
    """The worked examples in a JSONL file, or None; a bad file is one line (naming the line) and exit 2."""
    if path is None:
        return None
    from graphwright.errors import GraphwrightError
    from graphwright.extraction.examples import read_examples

    try:
        return read_examples(path)
    except GraphwrightError as exc:
        fail(str(exc))


def cost_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--dry-run and --max-cost, for the commands that may call an LLM many times."""
    command = click.option(
        "--max-cost",
        type=click.FloatRange(min=0, min_open=True),
        help="Stop cleanly once the LLM calls cost this much (needs GRAPHWRIGHT_LLM_PRICE_INPUT/OUTPUT); "
        "run again to resume: answers already paid for come from the cache.",
    )(command)
    return click.option(
        "--dry-run",
        is_flag=True,
        help="Print the LLM calls and tokens per stage this run would make (cached answers free), then stop.",
    )(command)


class Duration(click.ParamType):
    """Seconds, as `90`, `90s`, `10m` or `1.5h`."""

    name = "duration"
    _UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", str(value).lower())
        if not found or float(found.group(1)) <= 0:
            self.fail(f"{value!r} is not a duration (e.g. 90s, 10m, 1.5h)", param, ctx)
        return float(found.group(1)) * self._UNITS[found.group(2)]


def time_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--max-time, for the commands whose LLM extraction may run long."""
    return click.option(
        "--max-time",
        type=Duration(),
        default=None,
        help="Stop calling the LLM after this long (90s, 10m, 1h): the chunks left get the offline graph, and "
        "the same command continues them with the LLM. Default: none, or 30m for a model on this machine "
        "(GRAPHWRIGHT_LLM_LOCAL_MAX_TIME).",
    )(command)


def print_estimate(estimate: CostEstimate) -> None:
    """A dry run's table: stage, calls, cached, prompt and completion tokens, and where the reply sizes come from."""
    from rich.table import Table

    table = Table("stage", "calls", "cached", "prompt tokens", "completion tokens", "time", "replies sized by")
    for s in estimate.stages:
        table.add_row(
            s.stage,
            str(s.calls),
            str(s.cached),
            f"{s.prompt_tokens:,}",
            f"{s.completion_tokens:,}",
            _duration(s.seconds),
            s.basis,
        )
    table.add_row(
        "total",
        str(estimate.calls),
        "",
        f"{estimate.prompt_tokens:,}",
        f"{estimate.completion_tokens:,}",
        _duration(estimate.seconds),
        "",
    )
    console = make_console()
    what = f"{estimate.documents} documents to ingest ({estimate.chunks} chunks); " if estimate.documents else ""
    console.print(f"Dry run: {what}nothing was extracted or written")
    console.print(table)
    if estimate.cost is not None:
        console.print(f"Estimated cost: {estimate.cost:.4f} (at GRAPHWRIGHT_LLM_PRICE_INPUT/OUTPUT per 1M tokens)")
    if estimate.seconds is not None:
        console.print("Time: at this endpoint's measured reading and writing speed (llm-endpoints.json)")
    for note in estimate.notes:
        console.print(f"[dim]{note}[/]")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


class ModeChoice(click.Choice):
    """The registered search modes, read when the option is used, so a mode registered at run time is one."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from graphwright.search.registry import mode_names

        return mode_names()

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click sets it in __init__; the registry is the source


def depth_options(command: F) -> F:
    """The options of a web source, shared by `sync` and `ingest URL`."""
    command = click.option(
        "--max-pages",
        type=click.IntRange(min=1),
        default=None,
        help="Pages one sync of a web source fetches at most (default GRAPHWRIGHT_SYNC_MAX_PAGES, 100).",
    )(command)
    return click.option(
        "--depth",
        type=click.IntRange(min=0, max=10),
        default=None,
        help="Web: follow same-site links this many clicks from the page (default 0: the page alone).",
    )(command)
