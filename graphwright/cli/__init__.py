"""The `graphwright` command. `app` holds the group and the table of commands; each command group is one
module (db, data, communities, inspect, query, evaluate, serve), imported only when one of its commands
runs; `common` and `render` are what they share."""

from graphwright.cli.app import main

__all__ = ["main"]
