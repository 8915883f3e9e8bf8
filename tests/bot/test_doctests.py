"""The examples in the computer player's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "controller.bot",
    "controller.bot.bits",
    "controller.bot.exact",
    "controller.bot.mcts",
    "controller.bot.policies",
    "controller.bot.player",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
