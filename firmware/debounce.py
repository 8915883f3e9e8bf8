"""Debouncing of many channels at once, as bitmasks; and :class:`Levels`, which makes a
reflective sensor's readings present or not (on the Pico only).

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


class Levels:
    """Whether a pearl is over each reflective sensor, from its readings: a baseline per
    sensor (the lowest certain reading, starting at and never above ``baseline_max``, and
    creeping up by one count every ``creep`` empty scans so a slow drift is followed), and
    hysteresis (present above ``on`` counts over it, gone below ``off``).

    An uncertain reading (room light the sensor cannot see past) changes nothing: a pearl
    not yet seen is not yet there, and one already seen stays there until a certain
    reading says it is gone. Reading a seen pearl as gone would be a move nobody made: the
    referee takes the last move back when its pearl stays off the board.

    >>> levels = Levels(1, on=74, off=50, baseline_max=20, creep=4)
    >>> [levels.update(0, r, True) for r in (12, 12, 90, 70)]
    [False, False, True, True]
    >>> levels.update(0, 0, False), levels.update(0, 40, True), levels.update(0, 900, False)
    (True, False, False)
    >>> levels.baseline[0]
    12
    """

    def __init__(self, count: int, on: int, off: int, baseline_max: int, creep: int) -> None:
        self.on = on
        self.off = off
        self.baseline_max = baseline_max
        self.creep = creep
        self.baseline = [baseline_max] * count
        self.present = [False] * count
        self._empty_scans = [0] * count

    def update(self, index: int, reading: int, certain: bool) -> bool:
        if not certain:
            self._empty_scans[index] = 0
            return self.present[index]
        base = self.baseline[index]
        if reading < base:
            base = max(reading, 0)
            self._empty_scans[index] = 0
        elif not self.present[index] and reading - base < self.off:
            self._empty_scans[index] += 1
            if self._empty_scans[index] >= self.creep and base < self.baseline_max:
                base += 1
                self._empty_scans[index] = 0
        self.baseline[index] = base
        over = reading - base
        present = over > (self.off if self.present[index] else self.on)
        self.present[index] = present
        return present
