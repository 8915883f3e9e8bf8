"""The computer player for the Table: :mod:`.bot` behind the Table's small port
(:class:`controller.computer_thread.ComputerPlayer`), with the budgets ``pyramid run``
gives it.

>>> from controller.games.perlen import rules as perlen
>>> import threading
>>> player = BotPlayer(computer_budget_s=0.2, hint_budget_s=0.2)
>>> start = perlen.new_game()
>>> player.levels[0], player.choose(start, "gentle", 1, threading.Event()) in player.legal(start)
('gentle', True)
"""

from __future__ import annotations

import threading

from controller.games.perlen import bot
from controller.games.perlen import rules as perlen
from controller.games.perlen.hints import Why


def _state(position: object) -> perlen.PerlenState:
    assert isinstance(position, perlen.PerlenState), "a Perlen-Pyramide position"
    return position


class BotPlayer:
    """:mod:`.bot` at the levels it plays."""

    def __init__(self, computer_budget_s: float | None, hint_budget_s: float) -> None:
        self._budget = computer_budget_s
        self._hint_budget = hint_budget_s
        self.levels: tuple[str, ...] = tuple(bot.LEVELS)

    def legal(self, position: object) -> frozenset[str]:
        return frozenset(p.short for p in perlen.legal_moves(_state(position)))

    def choose(self, position: object, level: str, seed: int, cancel: threading.Event) -> str:
        state = _state(position)
        return bot.choose_move(state, level, seed=seed, budget=self._budget, cancel=cancel).short

    def hint(self, position: object, cancel: threading.Event) -> tuple[str, object]:
        advice = bot.advise(_state(position), budget=self._hint_budget, cancel=cancel)
        return advice.cell.short, reasons(advice)


def reasons(advice: bot.Advice) -> Why:
    """What the family is told about a hinted cell: the bonus pearls it wins or keeps
    from a rival, and how many visible pearls it is worth against the next best cell,
    or, when the computer is not sure it is better, that the next best is about as good."""
    close = advice.next_best if not advice.sure else None
    return Why(
        wins=tuple(bonus.position.short for bonus in advice.wins),
        denies=tuple(bonus.position.short for bonus in advice.denies),
        worth=advice.worth if advice.sure else 0.0,
        close=None if close is None else close.short,
    )
