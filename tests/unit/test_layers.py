"""The package's imports point one way: entry points -> api -> {pipeline, search, communities, evaluation}
-> sources -> {documents, extraction, graph_store, knowledge} -> embeddings -> llm -> {text, models, config} -> registry
-> errors. Read from the source with `ast` (imports under TYPE_CHECKING and inside functions count too), so a
wrong-way import fails here."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphwright"

# Higher layers may import lower ones; units of one layer may not import each other, so there is no cycle.
LAYERS: list[set[str]] = [
    {"errors"},
    {"registry"},  # the one helper every extension point's registry is
    {
        "config",
        "models",
        "text",
        "graph_schema",
        "private_files",
        "serving_proof",  # whether a URL is this install's server
        "samples",
        "telemetry",
    },  # samples: data and its paths
    {"llm"},
    {"embeddings"},  # its endpoint backend uses the llm package's `openai` client
    {"curation"},  # hand changes, their store role's contract and the rules they leave (graph_store runs them)
    # documents: files read into documents, tables and chunks; extraction: their entities and relations (the two
    # never import each other); knowledge: knowledge bases beyond this workspace
    {"documents", "extraction", "graph_store", "knowledge"},
    {"sources"},  # folders, web sites and buckets a workspace keeps in step with (their files read by documents)
    {"algorithms"},  # Leiden and PageRank, in the client or in the store's GDS
    {"pipeline", "reembed", "search", "communities", "answer_graph", "conversations"}
    | {"dask_ingest"},  # a Dask cluster's embedder and extractor, which api hands the pipeline
    {"evaluation"},  # scores the search modes and runs peers beside them (the fulltext peer is search's own)
    {"api"},
    {"server"},  # serve, mcp: entry points beside the CLI, which starts them
    {"cli"},
]
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def _imports(path: Path) -> set[str]:
    """The graphwright modules a file imports, as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("graphwright.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("graphwright."):
            for alias in node.names:  # `from graphwright.x import submodule` imports the submodule
                sub = PACKAGE.parent.joinpath(*node.module.split("."), alias.name)
                found.add(
                    f"{node.module}.{alias.name}" if sub.with_suffix(".py").exists() or sub.is_dir() else node.module
                )
    return found


def _unit(module: str) -> str:
    return module.split(".")[1]


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges() -> list[tuple[str, str]]:
    return [
        (_module(path), imported)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__main__.py"
        for imported in _imports(path)
    ]


def test_every_unit_has_a_layer() -> None:
    units = {_unit(_module(p)) for p in PACKAGE.rglob("*.py") if _module(p) != "graphwright"}
    assert units <= set(RANK), f"give these a layer in LAYERS: {sorted(units - set(RANK))}"


def test_imports_point_down() -> None:
    wrong = [
        f"{a} -> {b}"
        for a, b in _edges()
        if a != "graphwright" and _unit(a) != _unit(b) and RANK[_unit(a)] <= RANK[_unit(b)]
    ]
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_no_import_cycle_between_modules() -> None:
    graph: dict[str, set[str]] = {}
    for a, b in _edges():
        graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, stack: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend(stack[stack.index(nxt) :] + [nxt] if nxt in stack else [node, nxt])
                return True
            if nxt not in state and visit(nxt, [*stack, nxt]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and start != "graphwright" and visit(start, [start]):
            break
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_the_checker_sees_a_wrong_way_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from graphwright.api import GraphRAG\nimport graphwright.cli\n", encoding="utf-8")
    assert _imports(bad) == {"graphwright.api", "graphwright.cli"}


# Inside the CLI package: the group (app) imports no command module, so a command's imports are paid only when
# it runs; command modules share only `common`, `render` and `tables`, never each other.
CLI_LAYERS: list[set[str]] = [
    {"graphwright.cli.lazy"},  # the lazy group and the --workspace option, which `common.load_settings` reads
    {"graphwright.cli.common"},
    {"graphwright.cli.render", "graphwright.cli.tables"},
    {
        "graphwright.cli.db",
        "graphwright.cli.docs",
        "graphwright.cli.data",
        "graphwright.cli.communities",
        "graphwright.cli.raptor",
        "graphwright.cli.knowledge",
        "graphwright.cli.schema",
        "graphwright.cli.inspect",
        "graphwright.cli.browse",
        "graphwright.cli.query",
        "graphwright.cli.chat",
        "graphwright.cli.evaluate",
        "graphwright.cli.serve",
        "graphwright.cli.workspace",
        "graphwright.cli.curate",
        "graphwright.cli.cluster",
        "graphwright.cli.sources",
    },
    {"graphwright.cli.app"},
    {"graphwright.cli"},
]
CLI_RANK = {module: rank for rank, modules in enumerate(CLI_LAYERS) for module in modules}


def test_the_cli_package_is_layered_and_its_commands_load_lazily() -> None:
    modules = {_module(p) for p in (PACKAGE / "cli").glob("*.py") if p.name != "__main__.py"}
    assert modules == set(CLI_RANK), f"give these a place in CLI_LAYERS: {sorted(modules ^ set(CLI_RANK))}"
    wrong = [
        f"{a} -> {b}" for a, b in _edges() if a in CLI_RANK and b in CLI_RANK and a != b and CLI_RANK[a] <= CLI_RANK[b]
    ]
    assert not wrong, "imports against the CLI's layering:\n" + "\n".join(wrong)


def test_every_command_in_the_table_resolves_to_its_module() -> None:
    import click

    from graphwright.cli.app import COMMANDS, main

    ctx = click.Context(main)
    for name, target in COMMANDS.items():
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name, (name, target)
        assert target.split(":")[0] in CLI_RANK, target


def test_unit_tests_are_laid_out_like_the_package() -> None:
    """A unit test of one package sits in the folder of that package's name (cross-cutting ones at the top)."""
    tests = PACKAGE.parent / "tests" / "unit"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= set(RANK), f"no package named {sorted(folders - set(RANK))}"
    for folder in folders:
        assert (tests / folder / "__init__.py").exists(), folder
