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
