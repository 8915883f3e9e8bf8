"""Docstrings show use, and the examples in them run (as python-chess does)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "controller.rules.notation",
    "controller.rules.perlen",
    "controller.rules.pyramid",
    "controller.rules.pyramidos",
    "controller.rules.records",
    "controller.hardware.sim",
    "controller.hardware.channels",
    "controller.hardware.pico_link",
    "firmware.debounce",
    "controller.table",
    "controller.subscription",
    *(
        f"controller.referee.{name}"
        for name in (
            "messages",
            "games",
            "events",
            "session",
            "setup",
            "computer",
            "referee",
            "guard",
            "kinds",
            "snapshot",
        )
    ),
    "controller.store",
    "controller.remote.invitation",
    "controller.remote.wire",
    "controller.remote.link",
    "controller.remote.mqtt",
    "controller.guidance",
    "controller.palette",
    "controller.settings",
    "controller.commands.run",
    "controller.bot",
    "controller.bot.advice",
    "controller.bot.exact",
    "controller.bot.mcts",
    "controller.bot.policies",
    "controller.bot.player",
    "bench.stats",
    "controller.config",
    "controller.checks",
    "controller.commands.diag",
    "controller.commands.acceptance",
    "controller.commands.matrix",
    "tests.rigs.pearls",
    "controller.hardware.apa102",
    "controller.hardware.gpio",
    "tests.rigs.circuits",
    "controller.hardware",
    "controller.hardware.wiring",
    "hardware.geometry",
    "controller.hardware.buzzer",
    "tests.rigs.contacts",
    "controller.commands.pin",
    "firmware.protocol",
    "firmware.sim.ticks",
    *(
        f"web_ui.{name}"
        for name in (
            "security",
            "i18n",
            "live",
            "drawing",
            "forms",
            "bodies",
            "replay",
            "pictures",
            "kinds",
        )
    ),
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
