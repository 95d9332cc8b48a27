"""The `graphwright` group: global options, and where each command lives. A command's module is imported
only when that command runs or `--help` lists it (each module imports only click at its top)."""

from __future__ import annotations

import sys

import click

from graphwright.cli.lazy import LazyGroup, workspace_option

DEBUG_KEY = "graphwright.debug"


class _Root(LazyGroup):
    """The group every command runs under: what no command expected ends in one line naming it, not a
    traceback, unless --debug (or GRAPHWRIGHT_DEBUG=1) asks for the traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            import os

            if ctx.meta.get(DEBUG_KEY) or os.environ.get("GRAPHWRIGHT_DEBUG", "").lower() in ("1", "true", "yes"):
                raise
            from graphwright.cli.common import fail

            fail(f"{type(exc).__name__}: {exc} (run again with --debug for the traceback)")


# Command name -> "module:attribute". A new command is a function in one of these modules plus one line here.
COMMANDS: dict[str, str] = {
    "db": "graphwright.cli.db:db",
    "doctor": "graphwright.cli.db:doctor",
    "docs": "graphwright.cli.docs:docs",
    "init": "graphwright.cli.data:init",
    "reset": "graphwright.cli.data:reset",
    "reembed": "graphwright.cli.data:reembed",
    "ingest": "graphwright.cli.data:ingest",
    "import-graph": "graphwright.cli.data:import_graph",
    "index": "graphwright.cli.data:index",
    "delete": "graphwright.cli.data:delete",
    "retry": "graphwright.cli.data:retry",
    "sync": "graphwright.cli.sources:sync",
    "watch": "graphwright.cli.sources:watch",
    "sources": "graphwright.cli.sources:sources",
    "communities": "graphwright.cli.communities:communities",
    "raptor": "graphwright.cli.raptor:raptor",
    "knowledge": "graphwright.cli.knowledge:knowledge",
    "schema": "graphwright.cli.schema:schema",
    "check": "graphwright.cli.inspect:check",
    "stats": "graphwright.cli.inspect:stats",
    "show": "graphwright.cli.inspect:show",
    "documents": "graphwright.cli.browse:documents",
    "entities": "graphwright.cli.browse:entities",
    "export": "graphwright.cli.browse:export",
    "entity": "graphwright.cli.curate:entity",
    "relation": "graphwright.cli.curate:relation",
    "history": "graphwright.cli.curate:history",
    "undo": "graphwright.cli.curate:undo",
    "browser": "graphwright.cli.inspect:browser",
    "query": "graphwright.cli.query:query",
    "chat": "graphwright.cli.chat:chat",
    "conversations": "graphwright.cli.chat:conversations",
    "eval": "graphwright.cli.evaluate:eval_command",
    "eval-extraction": "graphwright.cli.evaluate:eval_extraction",
    "serve": "graphwright.cli.serve:serve",
    "mcp": "graphwright.cli.serve:mcp_command",
    "workspace": "graphwright.cli.workspace:workspace",
    "worker": "graphwright.cli.cluster:worker",
    "scheduler": "graphwright.cli.cluster:scheduler",
    "cluster": "graphwright.cli.cluster:cluster",
}


@click.group(
    cls=_Root,
    lazy_subcommands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="graphwright")
@click.option(
    "-v",
    "--verbose",
    "verbosity",
    count=True,
    help="Log what graphwright does to stderr: -v for steps, -vv for details.",
)
@click.option("--debug", is_flag=True, help="Show the traceback of an unexpected error, and log details.")
@click.pass_context
def main(ctx: click.Context, verbosity: int, debug: bool) -> None:
    """graphwright: GraphRAG on a real Neo4j, offline by default.

    \b
    Quick start:
      graphwright db start
      graphwright ingest --sample
      graphwright query "Who founded SpaceX?" --mode hybrid

    \b
    Several knowledge bases on one Neo4j:
      graphwright workspace create legal
      graphwright ingest contracts/ --workspace legal

    Settings come from the environment or .env (NEO4J_URI, NEO4J_PASSWORD, OPENAI_API_KEY,
    OPENAI_BASE_URL, GRAPHWRIGHT_*); see `graphwright docs configuration`.
    Every page of the documentation: `graphwright docs`.
    """
    import logging

    from graphwright.private_files import private_umask

    private_umask()  # what the CLI (and the Neo4j it starts) writes under the home is its owner's only
    # The library only logs; the command decides what a person sees. Warnings always, more with -v.
    ctx.meta[DEBUG_KEY] = debug
    verbosity = max(verbosity, 2 * debug)
    level = logging.WARNING if not verbosity else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("neo4j", "httpx", "openai", "urllib3", "sentence_transformers", "filelock"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
    from graphwright.telemetry import configure_from_env

    configure_from_env()  # spans exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set (nothing imported if not)


main.params.append(workspace_option())  # `graphwright --workspace NAME <command>`, as well as after the command
