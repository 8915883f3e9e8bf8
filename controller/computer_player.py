"""The computer player as the Table uses it: :mod:`controller.bot` behind a small port.

The Table asks off its own thread and never waits: a :class:`ComputerPlayer` answers a
computer seat's move or a hint, and stops early when ``cancel`` is set (the position
changed). Tests give the Table their own player (any object with these three members).
"""

from __future__ import annotations

import threading
from typing import Protocol

from controller.rules import perlen
from controller.rules.notation import Position


class ComputerPlayer(Protocol):
    @property
    def levels(self) -> tuple[str, ...]:
        """The levels it plays, weakest first."""

    def choose(
        self, state: perlen.PerlenState, level: str, seed: int, cancel: threading.Event
    ) -> Position | str:
        """The cell a computer seat of ``level`` plays in ``state``."""

    def hint(self, state: perlen.PerlenState, cancel: threading.Event) -> Position | str:
        """A good cell for the person to move."""


class BotPlayer:
    """:mod:`controller.bot`, with the budgets ``pyramid run`` gives it."""

    def __init__(self, computer_budget_s: float | None, hint_budget_s: float) -> None:
        from controller import bot

        self._bot = bot
        self._budget = computer_budget_s
        self._hint_budget = hint_budget_s
        self.levels: tuple[str, ...] = tuple(bot.LEVELS)

    def choose(
        self, state: perlen.PerlenState, level: str, seed: int, cancel: threading.Event
    ) -> Position | str:
        return self._bot.choose_move(state, level, seed=seed, budget=self._budget, cancel=cancel)

    def hint(self, state: perlen.PerlenState, cancel: threading.Event) -> Position | str:
        return self._bot.hint(state, budget=self._hint_budget, cancel=cancel)


def bot_player(computer_budget_s: float | None, hint_budget_s: float) -> ComputerPlayer:
    return BotPlayer(computer_budget_s, hint_budget_s)
