"""Virtual clocks for the computer player's timing tests.

The searches look at their clock every so much work (:data:`mcts.CHECK_EVERY
<controller.games.perlen.bot.mcts.CHECK_EVERY>` playouts, ``ExactSearch.CHECK_EVERY``
positions, :data:`compare.CHECK_EVERY <controller.games.perlen.bot.compare.CHECK_EVERY>`
rounds of games). A :class:`StepClock` moves on a fixed step at every look, so it models
a machine that does that much work in one step, whatever the real machine's load: on it
"within the budget" is a property of the code, the same on a quiet machine and a busy one.

>>> clock = StepClock(0.25)
>>> clock(), clock(), clock.elapsed, clock.looks
(0.0, 0.25, 0.5, 2)
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class StepClock:
    """A clock that reads ``start`` at the first look and ``step`` seconds more at each
    one after it: a machine that does the work between two looks in ``step`` seconds."""

    def __init__(self, step: float, start: float = 0.0) -> None:
        self.step = step
        self.start = start
        self.now = start
        """What the next look reads."""
        self.looks = 0
        self.on_look: Callable[[int], None] | None = None
        """Called with the look's number (1 for the first) before it reads the time."""

    def __call__(self) -> float:
        self.looks += 1
        if self.on_look is not None:
            self.on_look(self.looks)
        now = self.now
        self.now += self.step
        return now

    @property
    def elapsed(self) -> float:
        """Virtual seconds from the first look to the next one: what a caller that
        looked once more would measure."""
        return self.now - self.start


def cancelled_at(clock: StepClock, look: int, cancel: threading.Event) -> threading.Event:
    """Make ``clock`` stop at its ``look``-th look until ``cancel`` is set (by another
    thread): a cancel that arrives in the middle of a search. Returns the event the
    clock sets when it gets there, for that thread to wait on."""
    reached = threading.Event()

    def on_look(number: int) -> None:
        if number == look:
            reached.set()
            # A guard, not a timing: the test sets ``cancel`` as soon as ``reached`` is.
            cancel.wait(timeout=60)

    clock.on_look = on_look
    return reached
