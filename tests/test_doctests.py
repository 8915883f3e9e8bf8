"""Docstrings show use, and the examples in them run (as python-chess does)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "controller.rules.notation",
    "controller.rules.perlen",
    "controller.rules.pyramidos",
    "controller.rules.records",
    "controller.hardware.sim",
    "controller.hardware.channels",
    "firmware.debounce",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
