"""A scripted person at the board for ``pyramid diag --check``: does what each step asks.

It plays a careful maker: told a step (the check's ``told`` hook), it places or lifts
pearls on a :class:`~controller.hardware.mock_pearls.PearlBoard`, one at a time, holding
each for :attr:`hold` seconds (a hand is that slow, and a scanner must see a pearl for a
few scans), then presses Enter (the check's ``listen`` hook) unless the check has moved
on by itself. It never looks at the
board's answer: a person cannot know what a faulty board will show.
"""

from __future__ import annotations

import io
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.commands.acceptance import Layout, Pass, Step, Timing, causes
from controller.commands.diag import Guide, report, watch_board
from controller.hardware.channels import ChannelMap
from controller.hardware.mock_pearls import PearlBoard
from controller.hardware.port import Board

TIMING = Timing(settle=0.05, grace=0.4, patience=5.0)
"""The check's waits for a scripted person, who is quick and always presses Enter."""


class ScriptedPerson:
    """See the module docstring; :meth:`close` sends them home."""

    def __init__(self, board: PearlBoard, hold: float = 0.08) -> None:
        self.board = board
        self.hold = hold
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
        while (step := self._steps.get()) is not None:
            self.act(step)
            time.sleep(self.hold)
            if self.asked[-1] is step:  # Enter only while the screen still asks for it
                self._on_done()

    def act(self, step: Step) -> None:
        """Do what ``step`` asks, as a hand would: one pearl at a time."""
        board = self.board
        if step.touch and step.pass_ is Pass.LIFT:
            board.lift(step.target)
            time.sleep(self.hold)
            board.place(step.target)
        elif step.touch:
            board.place(step.target)
            time.sleep(self.hold)
            board.lift(step.target)
        else:
            board.set(board.pearls & set(step.pearls))  # swept off together
            for pearl in step.pearls:
                if pearl not in board.pearls:
                    board.place(pearl)
                    time.sleep(self.hold)


@dataclass(frozen=True)
class Outcome:
    """What ``pyramid diag --check`` ended with."""

    status: int
    out: str
    causes: list[tuple[str, tuple[str, ...]]]
    """The likely causes as (kind, sensors)."""


def check_by_hand(board: Board, cmap: ChannelMap, columns: int, pearls: PearlBoard) -> Outcome:
    """Start ``board`` and let a scripted person through the whole check on ``pearls``."""
    person = ScriptedPerson(pearls)
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
