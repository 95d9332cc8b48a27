"""The CLI's process-wide settings around an ingest: taken for it, and given back however it ends."""

from __future__ import annotations

import sys

import pytest

from graphwright.cli.common import short_gil_turns


def test_an_ingest_s_short_gil_turns_end_with_it_even_when_it_fails() -> None:
    before = sys.getswitchinterval()
    with short_gil_turns():
        assert sys.getswitchinterval() == pytest.approx(min(before, 0.0005))
    assert sys.getswitchinterval() == before
    with pytest.raises(RuntimeError), short_gil_turns():
        raise RuntimeError("the ingest failed")
    assert sys.getswitchinterval() == before


def test_the_workspace_option_reaches_the_settings_explicitly_not_through_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    import os

    import click
    from click.testing import CliRunner

    from graphwright.cli.common import load_settings
    from graphwright.cli.lazy import with_workspace_option

    monkeypatch.delenv("GRAPHWRIGHT_WORKSPACE", raising=False)
    monkeypatch.setenv("GRAPHWRIGHT_HOME", str(tmp_path))
    seen: dict[str, object] = {}

    @click.command()
    def show() -> None:
        seen["workspace"] = load_settings().workspace
        seen["environment"] = os.environ.get("GRAPHWRIGHT_WORKSPACE")

    command = with_workspace_option(show)
    assert CliRunner().invoke(command, ["--workspace", "team-a"]).exit_code == 0
    assert seen == {"workspace": "team-a", "environment": None}
    assert CliRunner().invoke(command, []).exit_code == 0 and seen["workspace"] == "default"
    refused = CliRunner().invoke(command, ["--workspace", "Bad Name"])
    assert refused.exit_code == 2 and "Invalid value" in refused.output


def test_an_unexpected_error_is_one_line_unless_debug(monkeypatch) -> None:
    from click.testing import CliRunner

    import graphwright.cli.common as common
    from graphwright.cli import main

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(common, "load_settings", broken)
    plain = CliRunner().invoke(main, ["stats"])
    assert plain.exit_code == 2
    assert "RuntimeError: boom (run again with --debug for the traceback)" in plain.output
    assert "Traceback" not in plain.output
    debug = CliRunner().invoke(main, ["--debug", "stats"])
    assert isinstance(debug.exception, RuntimeError)


def test_an_api_parameter_is_named_as_the_command_line_names_it() -> None:
    from graphwright.cli.query import as_flags

    assert as_flags("the question is empty (`question`)") == "the question is empty (QUESTION)"
    assert as_flags("bad `max_hops`") == "bad --max-hops"
