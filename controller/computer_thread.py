"""The computer player as the Table uses it: the thread that asks a game's player.

The Table asks off its own thread and never waits: a
:class:`~controller.computer_port.ComputerPlayer` (the port: each game with a
computer player has one, :meth:`~controller.referee.game.GameKind.computer`) answers a
computer seat's move or a hint, and stops early when ``cancel`` is set (the position
changed). Tests give the Table their own player (any object with these
members).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Callable, Mapping

from controller.computer_port import ComputerPlayer as ComputerPlayer  # the port
from controller.referee import AskComputer, Purpose

log = logging.getLogger(__name__)


Answer = Callable[[Purpose, tuple[int, int], str | None, object], None]
"""(purpose, token, place or None, a hint's reasons) back to the Table's queue."""


class Thinker:
    """One worker thread that asks the computer player of the game asked about and hands
    the answer back.

    An answer is a legal place of the position asked about, or None when the player
    failed or chose an illegal place (both logged); :meth:`cancel` lets a search for a
    position that has gone stop early.
    """

    def __init__(self, players: Mapping[str, ComputerPlayer], answer: Answer) -> None:
        self._players = players
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
        pool, player, cancel = self._pool, self._players.get(ask.game), self._cancel
        if pool is None or player is None:
            return
        with contextlib.suppress(RuntimeError):  # shut down while stopping
            pool.submit(self._think, player, ask, cancel)

    def _think(self, player: ComputerPlayer, ask: AskComputer, cancel: threading.Event) -> None:
        cell: str | None = None
        why: object = None
        try:
            if ask.purpose is Purpose.MOVE:
                cell = player.choose(ask.position, ask.level, ask.seed, cancel)
            else:
                cell, why = player.hint(ask.position, cancel)
            if cell not in player.legal(ask.position):
                log.error("the computer chose %s, which is not a legal place", cell)
                cell = None
        except Exception:  # the computer's failure is reported, not fatal
            log.exception("computer player (%s) failed", ask.purpose)
            cell = None
        self._answer(ask.purpose, ask.token, cell, why if cell is not None else None)
