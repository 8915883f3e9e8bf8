"""A scripted person at the board for ``pyramid diag --check``: does what each step asks.

It plays a careful maker: told a step (the check's ``told`` hook), it places or lifts
pearls on a :class:`~tests.rigs.pearls.PearlBoard`, one at a time, and
after each watches the screen (the board's latest frame) until something changes, or
for :attr:`look` seconds when nothing does (a dead sensor); then it presses Enter (the
check's ``listen`` hook) unless the check has moved on by itself a moment later. It
never judges what the board shows: a person cannot know what a faulty board will do.
Watching the screen, not a clock, makes it as patient as a slow machine needs.
"""

from __future__ import annotations

import contextlib
import io
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.commands.acceptance import Layout, Pass, Step, Timing, causes
from controller.commands.diag import Guide, report, watch_board
from controller.hardware.channels import ChannelMap
from controller.hardware.port import Board
from tests.rigs.pearls import PearlBoard
from tests.support.poll import wait_until

TIMING = Timing(settle=0.05, grace=0.3, patience=5.0)
"""The check's waits for a scripted person, who is quick and always presses Enter."""


class ScriptedPerson:
    """See the module docstring; :meth:`close` sends them home."""

    def __init__(
        self,
        board: PearlBoard,
        screen: Callable[[], frozenset[int]],
        look: float = 0.3,
        hold: float = 0.02,
        glance: float = 0.15,
    ) -> None:
        self.board = board
        self.screen = screen
        self.look = look
        self.hold = hold
        self.glance = glance
        self.asked: list[Step] = []
        self._steps: queue.SimpleQueue[Step | None] = queue.SimpleQueue()
        self._on_done: Callable[[], None] = lambda: None
        self._thread = threading.Thread(target=self._work, name="person", daemon=True)
        self._thread.start()

    def told(self, step: Step) -> None:
        self.asked.append(step)
        self._steps.put(step)

    def listen(self, on_done: Callable[[], None]) -> None:
        self._on_done = on_done

    def close(self) -> None:
        self._steps.put(None)
        self._thread.join(timeout=5)

    def _work(self) -> None:
        step = self._steps.get()
        while step is not None:
            self.act(step)
            try:  # a look at the screen: has the check moved on by itself?
                step = self._steps.get(timeout=self.glance)
            except queue.Empty:
                self._on_done()  # no: Enter
                step = self._steps.get()

    def act(self, step: Step) -> None:
        """Do what ``step`` asks, as a hand would: one pearl at a time."""
        board = self.board
        if step.touch and step.pass_ is Pass.LIFT:
            self.watching(board.lift, step.target)
            self.watching(board.place, step.target)
        elif step.touch:
            self.watching(board.place, step.target)
            self.watching(board.lift, step.target)
        else:
            self.watching(board.set, board.pearls & set(step.pearls))  # swept off together
            for pearl in step.pearls:
                if pearl not in board.pearls:
                    self.watching(board.place, pearl)

    def watching(self, do: Callable[[Any], None], what: Any) -> None:
        """``do(what)``, then watch the screen until it changes (or :attr:`look` passes)."""
        before = self.screen()
        do(what)
        with contextlib.suppress(AssertionError):  # nothing changed: Enter, later
            wait_until(lambda: self.screen() != before, self.look, interval=0.005)
        time.sleep(self.hold)  # a hand does not let go at once


@dataclass(frozen=True)
class Outcome:
    """What ``pyramid diag --check`` ended with."""

    status: int
    out: str
    causes: list[tuple[str, tuple[str, ...]]]
    """The likely causes as (kind, sensors)."""


def check_by_hand(board: Board, cmap: ChannelMap, columns: int, pearls: PearlBoard) -> Outcome:
    """Start ``board`` and let a scripted person through the whole check on ``pearls``."""
    person = ScriptedPerson(pearls, lambda: board.read().active)
    out = io.StringIO()
    guide = Guide(Layout.of(cmap, columns), TIMING, person.told, person.listen)
    try:
        with board:
            watch = watch_board(board, cmap, out, tty=False, settle=0.05, guide=guide)
    finally:
        person.close()
    check = guide.check
    assert check is not None and check.finished, out.getvalue()
    status = report(check, watch, 6, out)
    return Outcome(status, out.getvalue(), [(c.kind, c.names) for c in causes(check)])
