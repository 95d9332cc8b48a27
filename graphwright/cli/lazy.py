"""A click group that imports a command's module only when that command runs (click's LazyGroup pattern):
`graphwright query` never imports the server, `--help` never imports the API."""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    """Subcommands given as name -> "module:attribute", loaded on first use."""

    def __init__(self, *args: object, lazy_subcommands: dict[str, str] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy_subcommands.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command")  # a wrong registration, not a user error
        return command
