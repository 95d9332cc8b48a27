"""`graphwright chat`: a conversation with the graph, follow-ups included; `graphwright conversations`:
the stored ones, listed, shown and deleted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from graphwright.cli.common import ModeChoice, fail, make_console, open_graph
from graphwright.search.registry import mode_names

if TYPE_CHECKING:
    from graphwright.api import GraphRAG
    from graphwright.models import ChatTurn, SearchResult

HELP = """commands:
  /mode NAME   search mode ({modes})
  /k N         passages to retrieve
  /sources     what the last answer cited
  /new         start a new conversation
  /help        this list
  /quit        leave (or Ctrl-D)"""


class ChatSession:
    """One REPL's state: the mode, k, the conversation so far and where it is stored (None: in memory)."""

    def __init__(self, rag: GraphRAG, mode: str, k: int | None, save: bool, conversation_id: str | None) -> None:
        self.rag, self.mode, self.k, self.save = rag, mode, k, save
        self.conversation_id = conversation_id
        self.history: list[ChatTurn] = []
        self.last: SearchResult | None = None

    def command(self, line: str) -> bool:
        """Run a /command; False when the session should end."""
        name, _, argument = line[1:].partition(" ")
        argument = argument.strip()
        if name in ("quit", "exit", "q"):
            return False
        if name == "help":
            click.echo(HELP.format(modes=", ".join(mode_names())))
        elif name == "mode":
            if argument not in mode_names():
                click.echo(f"unknown mode {argument!r}: use one of {', '.join(mode_names())}")
            else:
                self.mode = argument
                click.echo(f"mode: {self.mode}")
        elif name == "k":
            if not argument.isdigit() or not 1 <= int(argument) <= 100:
                click.echo("k is a number from 1 to 100")
            else:
                self.k = int(argument)
                click.echo(f"k: {self.k}")
        elif name == "sources":
            self.sources()
        elif name == "new":
            self.history, self.last, self.conversation_id = [], None, None  # stored from its first answer
            click.echo("new conversation")
        else:
            click.echo(f"unknown command /{name}; /help lists them")
        return True

    @staticmethod
    def passages(result: SearchResult) -> None:
        """An offline answer as a chat shows it: the passages found, a line each."""
        if not result.chunks:
            click.echo("nothing in the graph matched")
        for chunk in result.chunks:  # k of them, as asked (`--k`, `/k`)
            text = " ".join(chunk.text.split())
            click.echo(f"[{chunk.rank}] {chunk.cited_as}: {text[:200]}{'…' if len(text) > 200 else ''}")

    def sources(self) -> None:
        if self.last is None:
            click.echo("no answer yet")
            return
        cited = [c for c in self.last.citations if c.kind in ("chunk", "community", "entity")]
        for number, citation in enumerate(cited, start=1):
            click.echo(f"[{number}] {citation.label or citation.id} ({citation.kind} {citation.id})")
        if not cited:
            click.echo("the last answer cited nothing")

    def ask(self, question: str) -> None:
        """Search with the conversation so far; the answer streams as the LLM writes it."""
        from graphwright.models import AnswerDelta, ChatTurn, SearchResult

        if self.save and self.conversation_id is None:
            self.conversation_id = self.rag.conversations().create().id
        stored = self.conversation_id is not None
        events = self.rag.search_stream(
            question,
            mode=self.mode,
            k=self.k,
            history=None if stored else self.history,
            conversation_id=self.conversation_id,
        )
        result = None
        streamed = self.rag.llm is not None  # offline the answer is the retrieval: shown compactly below
        try:
            for event in events:
                if isinstance(event, SearchResult):
                    result = event
                elif isinstance(event, AnswerDelta) and streamed:
                    click.echo(event.text, nl=False)
        finally:
            events.close()  # type: ignore[attr-defined]
        if streamed:
            click.echo()
        if result is None:
            return
        if not streamed:
            self.passages(result)
        for note in result.notes:
            if note.startswith("follow-up"):
                click.secho(f"({note})", dim=True)
        self.last = result
        self.history += [ChatTurn(role="user", content=question), ChatTurn(role="assistant", content=result.answer)]


@click.command()
@click.option("--mode", type=ModeChoice(), default="local", show_default=True)
@click.option("--k", type=click.IntRange(1, 100), default=None, help="Passages to retrieve (default 5).")
@click.option("--conversation", "conversation_id", default=None, help="Go on with a stored conversation.")
@click.option("--no-save", is_flag=True, help="Keep the conversation in memory only (not in Neo4j).")
def chat(mode: str, k: int | None, conversation_id: str | None, no_save: bool) -> None:
    """Talk with the graph: each question is searched with the conversation before it, so a follow-up
    ("who founded it?") finds what it refers to. Answers stream with an LLM; offline they are the retrieval.
    Conversations are stored in Neo4j unless --no-save (see `graphwright conversations`).

    \b
    Examples:
      graphwright chat
      graphwright chat --mode hybrid --k 3 --no-save
      graphwright chat --conversation 3f2a...   # go on where a stored conversation ended

    In the chat: /mode NAME, /k N, /sources, /new, /help, /quit. Ctrl-C stops an answer; Ctrl-D leaves.
    """
    from graphwright.errors import GraphwrightError

    with open_graph() as rag:
        session = ChatSession(rag, mode, k, not no_save, conversation_id)
        if conversation_id:
            try:
                session.history = rag.conversations().history(conversation_id)
            except GraphwrightError as exc:
                fail(str(exc))
        click.echo(f"graphwright chat ({mode}); /help for commands, Ctrl-D to leave")
        while True:
            try:
                line = input("you> ").strip()
            except EOFError:
                click.echo()
                break
            except KeyboardInterrupt:
                click.echo("\n(Ctrl-D or /quit to leave)")
                continue
            if not line:
                continue
            if line.startswith("/"):
                if not session.command(line):
                    break
                continue
            try:
                session.ask(line)
            except KeyboardInterrupt:
                click.echo("\n(answer stopped)")
            except GraphwrightError as exc:
                click.secho(f"error: {exc}", fg="red", err=True)
        if session.conversation_id:
            click.echo(
                f"conversation {session.conversation_id} (graphwright chat --conversation {session.conversation_id})"
            )


@click.group()
def conversations() -> None:
    """Stored conversations (of `graphwright chat` and of the API without keys): list, show, delete.

    \b
    Examples:
      graphwright conversations list
      graphwright conversations show 3f2a...
      graphwright conversations delete 3f2a...
    """


@conversations.command("list")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
def list_conversations(limit: int) -> None:
    """The stored conversations, most recently used first."""
    from rich.table import Table

    with open_graph() as rag:
        found = rag.conversations().list(0, limit)
    table = Table("id", "title", "turns", "updated")
    for info in found:
        table.add_row(info.id, info.title, str(info.turns), info.updated_at[:19])
    make_console().print(table if found else "no conversations")


@conversations.command("show")
@click.argument("conversation_id")
@click.option("--json", "as_json", is_flag=True, help="Print the conversation as JSON.")
def show_conversation(conversation_id: str, as_json: bool) -> None:
    """A conversation's turns: question, answer, mode and what each cited."""
    from graphwright.errors import NotFoundError

    with open_graph() as rag:
        try:
            found = rag.conversations().get(conversation_id)
        except NotFoundError as exc:
            fail(str(exc))
    if as_json:
        click.echo(found.model_dump_json(indent=2))
        return
    click.echo(f"{found.title} ({found.id}), {found.turns} turns")
    for turn in found.history:
        click.echo(f"\n[{turn.index}] you ({turn.mode}): {turn.question}")
        if turn.standalone and turn.standalone != turn.question:
            click.secho(f"    searched as: {turn.standalone}", dim=True)
        click.echo("    " + turn.answer.replace("\n", "\n    "))
        if turn.chunk_ids:
            click.secho(f"    cited: {', '.join(turn.chunk_ids)}", dim=True)


@conversations.command("delete")
@click.argument("conversation_id")
def delete_conversation(conversation_id: str) -> None:
    """Remove a conversation and its turns (the graph it cited stays)."""
    from graphwright.errors import NotFoundError

    with open_graph() as rag:
        try:
            rag.conversations().delete(conversation_id)
        except NotFoundError as exc:
            fail(str(exc))
    click.echo(f"deleted conversation {conversation_id}")
