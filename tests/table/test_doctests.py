"""The examples in the Table's modules run (as python-chess runs its docstrings)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "controller.table",
    "controller.store",
    "controller.guidance",
    "controller.palette",
    "controller.commands.run",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
