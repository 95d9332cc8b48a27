"""A click group that imports a command's module only when that command runs (click's LazyGroup pattern):
`graphwright query` never imports the server, `--help` never imports the API."""

from __future__ import annotations

import click

from graphwright.registry import Registry

# Where `--workspace` is kept for the command that runs: the click context's meta, which `load_settings`
# reads; the settings are then given it explicitly, not through the process environment.
WORKSPACE_KEY = "graphwright.workspace"


def _use_workspace(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """`--workspace NAME`: what GRAPHWRIGHT_WORKSPACE would say, for this command."""
    if value is None:
        return
    from graphwright.config import check_workspace_name

    try:
        ctx.meta[WORKSPACE_KEY] = check_workspace_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def workspace_option() -> click.Option:
    return click.Option(
        ["-W", "--workspace"],
        metavar="NAME",
        callback=_use_workspace,
        expose_value=False,
        is_eager=True,
        help="The workspace (knowledge base) to use; default GRAPHWRIGHT_WORKSPACE, else `default`.",
    )


def with_workspace_option(command: click.Command) -> click.Command:
    """Every command, and each command of a group, takes `--workspace`."""
    if not any(isinstance(p, click.Option) and "--workspace" in p.opts for p in command.params):
        command.params.append(workspace_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_workspace_option(sub)
    return command


class LazyGroup(click.Group):
    """Subcommands given as name -> "module:attribute", loaded on first use."""

    def __init__(self, *args: object, lazy_subcommands: dict[str, str] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy_subcommands: Registry[object] = Registry("command", lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy_subcommands:
            return super().get_command(ctx, cmd_name)
        command = self.lazy_subcommands.load(cmd_name)
        if not isinstance(command, click.Command):
            target = self.lazy_subcommands.target(cmd_name)
            raise TypeError(f"{target} is not a click command")  # a wrong registration, not a user error
        return with_workspace_option(command)
