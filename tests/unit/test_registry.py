"""The registry every extension point keeps: names live, targets imported on first use, clear errors."""

from __future__ import annotations

import sys

import pytest

from graphwright.errors import InvalidRequestError
from graphwright.registry import Registry


def test_a_target_is_imported_on_first_use_only() -> None:
    registry: Registry[object] = Registry("thing", {"fractions": "fractions:Fraction"})
    sys.modules.pop("fractions", None)
    assert registry.names() == ("fractions",) and "fractions" in registry
    assert "fractions" not in sys.modules  # listing names imports nothing
    from fractions import Fraction

    assert registry.load("fractions") is Fraction


def test_names_registered_at_run_time_are_seen_and_can_go() -> None:
    registry: Registry[object] = Registry("thing")
    marker = object()
    registry.register("mine", marker)
    assert registry.load("mine") is marker and list(registry) == ["mine"] and len(registry) == 1
    registry.unregister("mine")
    assert "mine" not in registry


def test_an_unknown_name_says_what_is_available() -> None:
    registry: Registry[object] = Registry("search mode", {"vector": "x:y"})
    with pytest.raises(InvalidRequestError, match=r"unknown search mode 'nope'; available: vector"):
        registry.load("nope")
    custom: Registry[object] = Registry("language", unknown=KeyError)
    with pytest.raises(KeyError):
        custom.target("xx")
