"""A scripted person at the board for ``pyramid diag --check``: does what each step asks.

It plays a careful maker: told a step (the check's ``told`` hook), it places or lifts
pearls on a :class:`~controller.hardware.mock_pearls.PearlBoard`, one at a time, holding
each for :attr:`hold` seconds (a hand is that slow, and a scanner must see a pearl for a
few scans), then presses Enter (the check's ``listen`` hook). It never looks at the
board's answer: a person cannot know what a faulty board will show.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from controller.commands.acceptance import Pass, Step
from controller.hardware.mock_pearls import PearlBoard


class ScriptedPerson:
    """See the module docstring; :meth:`close` sends them home."""

    def __init__(self, board: PearlBoard, hold: float = 0.05) -> None:
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
