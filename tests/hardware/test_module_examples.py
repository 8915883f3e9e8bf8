"""The docstring examples of the hardware modules that tests/test_doctests.py does not list."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "controller.hardware",
    "controller.hardware.wiring",
    "controller.hardware.buzzer",
    "controller.hardware.mock_contacts",
    "controller.commands.pin",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no examples"
    assert failed == 0
