"""The computer player as the Table uses it: :mod:`controller.bot` behind a small port.

The Table asks off its own thread and never waits: a :class:`ComputerPlayer` answers a
computer seat's move or a hint, and stops early when ``cancel`` is set (the position
changed). Tests give the Table their own player (any object with these three members).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from controller.referee import AskComputer, Purpose, Why
from controller.rules import perlen
from controller.rules.notation import Position, parse_cell

if TYPE_CHECKING:
    from controller.bot import Advice

log = logging.getLogger(__name__)


class ComputerPlayer(Protocol):
    @property
    def levels(self) -> tuple[str, ...]:
        """The levels it plays, weakest first."""

    def choose(
        self, state: perlen.PerlenState, level: str, seed: int, cancel: threading.Event
    ) -> Position | str:
        """The cell a computer seat of ``level`` plays in ``state``."""

    def hint(self, state: perlen.PerlenState, cancel: threading.Event) -> Position | str | Hinted:
        """A good cell for the person to move (with why it is good, if the player says)."""


@dataclass(frozen=True, slots=True)
class Hinted:
    """A hint's cell and why it is good."""

    cell: Position | str
    why: Why | None = None


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

    def hint(self, state: perlen.PerlenState, cancel: threading.Event) -> Hinted:
        advice = self._bot.advise(state, budget=self._hint_budget, cancel=cancel)
        return Hinted(advice.cell, reasons(advice))


def reasons(advice: Advice) -> Why:
    """What the family is told about a hinted cell: the bonus pearls it wins or keeps
    from a rival, and how many visible pearls it is worth against the next best cell."""
    return Why(
        wins=tuple(bonus.position.short for bonus in advice.wins),
        denies=tuple(bonus.position.short for bonus in advice.denies),
        worth=advice.worth,
    )


def bot_player(computer_budget_s: float | None, hint_budget_s: float) -> ComputerPlayer:
    return BotPlayer(computer_budget_s, hint_budget_s)


Answer = Callable[[Purpose, tuple[int, int], str | None, Why | None], None]
"""(purpose, token, cell or None, a hint's reasons) back to the Table's queue."""


class Thinker:
    """One worker thread that asks the computer player and hands the answer back.

    An answer is a legal cell of the position asked about, or None when the player
    failed or chose an illegal cell (both logged); :meth:`cancel` lets a search for a
    position that has gone stop early.
    """

    def __init__(self, player: ComputerPlayer | None, answer: Answer) -> None:
        self._player = player
        self._answer = answer
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._cancel = threading.Event()

    def start(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pyramid-bot")

    def stop(self) -> None:
        self._cancel.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def cancel(self) -> None:
        self._cancel.set()
        self._cancel = threading.Event()

    def ask(self, ask: AskComputer) -> None:
        pool, player, cancel = self._pool, self._player, self._cancel
        if pool is None or player is None:
            return
        with contextlib.suppress(RuntimeError):  # shut down while stopping
            pool.submit(self._think, player, ask, cancel)

    def _think(self, player: ComputerPlayer, ask: AskComputer, cancel: threading.Event) -> None:
        cell: str | None = None
        why: Why | None = None
        try:
            answer: Position | str | Hinted
            if ask.purpose is Purpose.MOVE:
                answer = player.choose(ask.state, ask.level, ask.seed, cancel)
            else:
                answer = player.hint(ask.state, cancel)
            if isinstance(answer, Hinted):
                why = answer.why
                answer = answer.cell
            cell = answer.short if isinstance(answer, Position) else parse_cell(answer).short
            if cell not in {p.short for p in perlen.legal_moves(ask.state)}:
                log.error("the computer chose %s, which is not a legal cell", cell)
                cell = None
        except Exception:  # the computer's failure is reported, not fatal
            log.exception("computer player (%s) failed", ask.purpose)
        self._answer(ask.purpose, ask.token, cell, why if cell is not None else None)
