"""Debouncing of many channels at once, as bitmasks.

The same file runs on the Pico (MicroPython) and in the host's gpio adapter (CPython), so
both give the same guarantee: a channel's debounced state changes only after ``agree``
consecutive raw scans all read the new level. A one-scan glitch never passes (``agree``
is at least 2), and contact bounce, which flips the level faster than ``agree`` scans,
never passes either; the final level after the bounce does.

Cost is a few integer operations per scan however many channels there are. The type
hints are for mypy on the host; MicroPython parses and ignores them.

>>> d = Debouncer(agree=3)
>>> [d.feed(0b01) for _ in range(3)]
[None, None, 1]
>>> d.feed(0b00), d.feed(0b01), d.feed(0b00)   # glitches and bounce: nothing changes
(None, None, None)
>>> d.state
1
"""


class Debouncer:
    """Consecutive-agreement debouncer over integer bitmasks (bit n = channel n)."""

    def __init__(self, agree: int = 3, initial: int = 0) -> None:
        if agree < 2:
            raise ValueError("agree must be at least 2 so that a one-scan glitch never passes")
        self.agree = agree
        self.state: int = initial
        self._history: list[int] = [initial] * agree
        self._i = 0

    def feed(self, raw: int) -> int | None:
        """Add one raw scan; return the new debounced bitmask if it changed, else None."""
        history = self._history
        history[self._i] = raw
        self._i = (self._i + 1) % self.agree
        all_on = -1
        any_on = 0
        for sample in history:
            all_on &= sample
            any_on |= sample
        new = all_on | (self.state & any_on)
        if new != self.state:
            self.state = new
            return new
        return None

    def settled(self) -> bool:
        """True when every remembered scan agrees with the debounced state."""
        for sample in self._history:
            if sample != self.state:
                return False
        return True

    def reset(self, state: int = 0) -> None:
        self.state = state
        self._history = [state] * self.agree
        self._i = 0
