"""Where the Table reads the time: the monotonic clock, or a test's own.

The referee is given ``now`` with every call; the Table reads it from a :class:`Clock`
and asks it how long it may sleep until the referee's next deadline. The system clock
is monotonic, so a wall-clock jump (NTP setting a Pi without a clock battery years
ahead) moves no timer; tests use a virtual clock that moves only when they say.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Where the Table reads the time and how long it may sleep."""

    def now(self) -> float: ...

    def timeout(self, deadline: float | None) -> float | None:
        """Seconds to wait for the next item at most (None: until one comes)."""


class SystemClock:
    """The monotonic clock: wall-clock jumps (NTP on a Pi without a battery) move no timer."""

    def now(self) -> float:
        return time.monotonic()

    def timeout(self, deadline: float | None) -> float | None:
        return None if deadline is None else max(0.0, deadline - time.monotonic())
