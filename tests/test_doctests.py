"""Docstrings show use, and the examples in them run (as python-chess does).

Every module of the product, the maker's tools and the test rigs whose docstrings hold an
example (``>>>``) is run; a module that says it has one and runs none fails.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "web_ui", "pyramid_board", "firmware", "hardware", "bench", "rigs")
ON_DEVICE = ("firmware/main.py", "firmware/sim/", "firmware/emulator/")
"""MicroPython's files and the emulator's are run on the chip, not here."""


def _modules() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(ON_DEVICE) or ">>> " not in path.read_text(encoding="utf-8"):
                continue
            name = relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            found.append(name)
    return found


MODULES = _modules()


def test_the_examples_are_found() -> None:
    assert "controller.referee" in MODULES and "controller.games.perlen.rules" in MODULES
    assert len(MODULES) > 60


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
