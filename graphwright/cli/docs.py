"""`graphwright docs [TOPIC]`: the documentation that ships with the package, so every hint that names a page
("graphwright docs security") leads somewhere for a pip user without a checkout or a network."""

from __future__ import annotations

from pathlib import Path

import click

from graphwright.cli.common import fail, make_console


def docs_folder() -> Path:
    """The packaged docs (`graphwright/_docs`, written into the wheel by setup.py), else a checkout's `docs/`
    (an editable install or a run from the repository)."""
    package = Path(__file__).resolve().parents[1]
    for folder in (package / "_docs", package.parent / "docs"):
        if (folder / "configuration.md").is_file():
            return folder
    fail("the documentation is not installed with this copy of graphwright (reinstall it from a wheel)")


def topics(folder: Path) -> dict[str, Path]:
    return {page.stem: page for page in sorted(folder.glob("*.md"))}


def title(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem


def find_topic(name: str, pages: dict[str, Path]) -> Path | None:
    """The page named `name`: its exact name, else the one page whose name starts with or contains it."""
    wanted = name.lower().removesuffix(".md").removeprefix("docs/")
    if wanted in pages:
        return pages[wanted]
    for match in (lambda stem: stem.startswith(wanted), lambda stem: wanted in stem):
        hits = [stem for stem in pages if match(stem)]
        if len(hits) == 1:
            return pages[hits[0]]
    return None


@click.command()
@click.argument("topic", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print the page's file path instead of the page.")
@click.option("--raw", is_flag=True, help="Print the markdown as it is (for a pipe or another viewer).")
@click.option("--browser", is_flag=True, help="Open the page in the web browser.")
def docs(topic: str | None, show_path: bool, raw: bool, browser: bool) -> None:
    """Read the documentation that ships with graphwright; with no TOPIC, list the pages.

    \b
    Example:
      graphwright docs                    # the pages and what each covers
      graphwright docs knowledge-bases    # one page, rendered for the terminal
      graphwright docs security --path    # where the file is
    """
    folder = docs_folder()
    pages = topics(folder)
    console = make_console()
    if topic is None:
        from rich.table import Table

        table = Table(title=f"graphwright docs ({folder})", title_justify="left")
        table.add_column("topic", no_wrap=True)
        table.add_column("what it covers", overflow="fold")
        for stem, page in pages.items():
            table.add_row(stem, title(page))
        console.print(table)
        console.print("Read one with `graphwright docs TOPIC`.")
        return
    found = find_topic(topic, pages)
    if found is None:
        fail(f"no page named {topic!r}; the pages: {', '.join(pages)}")
    page = found
    if show_path:
        click.echo(str(page))
    elif browser:
        import webbrowser

        if not webbrowser.open(page.as_uri()):
            fail(f"no browser could be opened; the page is {page}")
    elif raw or not console.is_terminal:
        click.echo(page.read_text(encoding="utf-8"), nl=False)
    else:
        from rich.markdown import Markdown

        with console.pager(styles=True):
            console.print(Markdown(page.read_text(encoding="utf-8")))
