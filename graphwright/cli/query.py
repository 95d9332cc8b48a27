"""`graphwright query`: one question, answered here or by a running `graphwright serve`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from graphwright.cli.common import (
    ModeChoice,
    SearchCommand,
    browser_base_url,
    fail,
    load_settings,
    make_console,
    open_graph,
)
from graphwright.cli.render import print_result
from graphwright.search.registry import mode_names  # names only: the mode classes load when a search runs

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.models import SearchResult
    from graphwright.server.schemas import ServedResult


class _ModeOption(click.Option):
    """--mode, whose help is each registered mode's own summary: written once, in the mode's class, and
    imported only when the help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from graphwright.search.registry import mode_class

        self.help = "; ".join(f"{name}: {mode_class(name).summary}" for name in mode_names()) + "."
        return super().get_help_record(ctx)


# --where's help adds to the API's description that the flag repeats.
_WHERE_HELP = (
    "Metadata filter on documents (vector, hybrid): key=value, key!=value, year>=2020, title~Apollo (repeatable)."
)


@click.command(
    cls=SearchCommand,
    search_options=[
        ("k", {}),
        ("where", {"metavar": "FILTER"}),
        ("level", {}),
        ("source", {}),
        ("target", {}),
        ("hyde", {}),
    ],
)
@click.argument("question")
@click.option("--mode", cls=_ModeOption, type=ModeChoice(), default="hybrid", show_default=True)
@click.option("--no-llm", is_flag=True, help="Return the retrieval even when an LLM is configured.")
@click.option("--show-context", is_flag=True, help="Also print the context sections the answer was built from.")
@click.option(
    "--explain",
    is_flag=True,
    help="Also the evidence table, the cited graph elements, timings, and the Neo4j Browser link with its Cypher.",
)
@click.option("-v", "--verbose", is_flag=True, help="--explain, and the trace: routing, tool calls, hops, attempts.")
@click.option(
    "--graph",
    "graph_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a self-contained HTML view (opens offline) of the entities, relations and paths used.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the SearchResult as JSON.")
@click.option(
    "--server",
    default=None,
    metavar="URL",
    help="Ask this running `graphwright serve` (no model load here); default GRAPHWRIGHT_SERVER_URL, "
    "which falls back to searching locally when nothing answers there.",
)
@click.option("--local", is_flag=True, help="Search in this process even when GRAPHWRIGHT_SERVER_URL is set.")
def query(
    question: str,
    mode: str,
    k: int | None,
    where: tuple[str, ...],
    level: int | None,
    source: str | None,
    target: str | None,
    hyde: bool,
    no_llm: bool,
    show_context: bool,
    explain: bool,
    verbose: bool,
    graph_file: Path | None,
    as_json: bool,
    server: str | None,
    local: bool,
) -> None:
    """Answer a question from the graph, citing the chunks, entities, relations and communities used.

    \b
    Examples:
      graphwright query "Which rocket launched Apollo 11?" --mode hybrid --k 3
      graphwright query "Who founded SpaceX?" --explain        # evidence, timings, the Neo4j Browser link
      graphwright query "reusable boosters" --where category=rockets --where year>=2015 --json
      graphwright query "What did Wernher von Braun work on?" --mode local --show-context
      graphwright query "What are the main themes of these documents?" --mode global
      graphwright query "How is Jeff Bezos connected to NASA?" --mode path --graph answer.html
      graphwright query "Who designed the rocket that launched Apollo 11?" --mode auto --verbose
      graphwright query "Which agency built the rocket that flew Apollo 11?" --mode agent --verbose
      graphwright query "Who flew Apollo 11?" --server http://127.0.0.1:8000   # a running `graphwright serve`
    """
    if (source is None) != (target is None):
        raise click.BadParameter("give both --source and --target, or neither", param_hint="--source/--target")
    settings = load_settings()
    url = server or settings.server_url
    found_running = False
    if not url and not local:
        from graphwright.server.running import running_server

        url = running_server(settings.home)  # a `graphwright serve` of this home, on this machine
        found_running = url is not None
    served = None
    if url and not local:  # the server checks the filters; this process never imports the store
        served = _ask_server(
            url,
            settings,
            {
                "question": question,
                "mode": mode,
                "k": k,
                "where": list(where),
                "generate": not no_llm,
                "level": level,
                "source": source,
                "target": target,
                "hyde": hyde,
            },
            required=server is not None,
            quiet_fallback=found_running,
        )
        if served is not None and found_running and not as_json:
            make_console(stderr=True).print(
                f"[dim](answered by the running graphwright serve at {url}; --local: here)[/]"
            )
    result = served or _search_here(question, mode, k, where, no_llm, level, source, target, hyde)
    if graph_file is not None:
        from graphwright.answer_graph import answer_graph_html

        graph_file.write_text(answer_graph_html(result), encoding="utf-8")
        make_console(stderr=True).print(f"answer graph written to {graph_file}")
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    explain = explain or verbose
    print_result(result, show_context, verbose, explain)
    if not explain:
        make_console().print("[dim](--explain: the evidence table, timings and the link to it in Neo4j Browser)[/]")
        return
    cypher, link = (served.browser_cypher, served.browser_url) if served else ("", "")
    if not cypher:  # searched here; a server sends its own (it knows where its Neo4j is)
        from graphwright.answer_graph import browser_url, evidence_browser_query

        cypher = evidence_browser_query(result, settings.workspace)
        link = browser_url(browser_base_url(settings), cypher)
    # Plain echo, not rich: a wrapped line would break the link and copy and paste.
    click.echo(f"\nThis answer's evidence in Neo4j Browser (connect, then press Run):\n  {link}\n\n{cypher}")


def _search_here(
    question: str,
    mode: str,
    k: int | None,
    where: tuple[str, ...],
    no_llm: bool,
    level: int | None,
    source: str | None,
    target: str | None,
    hyde: bool,
) -> SearchResult:
    from graphwright.errors import InvalidRequestError
    from graphwright.search.filters import parse_filters

    try:
        filters = parse_filters(list(where))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--where") from exc
    with open_graph() as rag:
        try:
            return rag.search(
                question,
                mode=mode,
                k=k,
                where=filters,
                generate=not no_llm,
                level=level,
                source=source,
                target=target,
                hyde=hyde,
            )
        except InvalidRequestError as exc:
            raise click.UsageError(as_flags(str(exc))) from exc


def _ask_server(
    url: str, settings: Settings, body: dict[str, Any], required: bool, quiet_fallback: bool = False
) -> ServedResult | None:
    """The result from a running server; None (search locally) when none answers at a URL from the settings."""
    from graphwright.errors import GraphStoreError, GraphwrightError, InvalidRequestError
    from graphwright.server.client import ServerUnavailableError, search_remote

    key = settings.server_key.get_secret_value() if settings.server_key else None
    try:
        # A workspace other than default is asked under its prefix, as the server routes it.
        prefix = "" if settings.workspace == "default" else f"/w/{settings.workspace}"
        return search_remote(url.rstrip("/") + prefix, body, key)
    except InvalidRequestError as exc:
        raise click.UsageError(as_flags(str(exc))) from exc
    except GraphStoreError as exc:  # the server's Neo4j is down: so is this process's, searching here waits too
        fail(f"{exc} (said by the server at {url})")
    except ServerUnavailableError as exc:
        if required:
            fail(str(exc))
        make_console(stderr=True).print(f"[dim]{exc}; searching locally[/]")
        return None
    except GraphwrightError as exc:
        if not quiet_fallback:
            fail(str(exc))
        # a server found running, not named: its refusal (a key it wants, a workspace it lacks) is no reason
        # not to answer here
        make_console(stderr=True).print(f"[dim]the running server at {url} refused ({exc}); searching locally[/]")
    return None


# Parameters of the API that are positional arguments on the command line, not options.
_ARGUMENTS = {"question": "QUESTION"}


def as_flags(message: str) -> str:
    """An API error names parameters (`where`); on the command line they are options (--where), or the
    argument (QUESTION)."""
    import re

    return re.sub(r"`([a-z_]+)`", lambda m: _ARGUMENTS.get(m.group(1)) or "--" + m.group(1).replace("_", "-"), message)
