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
