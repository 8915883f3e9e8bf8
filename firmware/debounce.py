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
    """Whether a pearl is over each reflective sensor, from its readings: an empty level
    (baseline) per sensor, learnt, and per sensor two marks over it (present above
    ``on[i]`` counts over it, gone below ``off[i]``: the hysteresis).

    The baseline starts at ``baseline_max`` (a pearl on a cell at power-up is seen) and
    stays between ``low[i]`` and ``high[i]`` (0 and ``baseline_max``; a calibrated cell's
    own, firmware/calib.py). It falls by one count a scan, and only after ``FALL``
    consecutive certain readings below it: one reading below it (a lamp switched on
    between a scan's dark and lit readings, a ripple's peak) moves it by nothing, so a
    cell's empty level never drops to 0 and leaves the cell between its marks. It rises
    by one count every ``creep`` scans that read the cell empty above it, so a slow drift
    is followed.

    An uncertain reading (room light the sensor cannot see past) changes nothing: a pearl
    not yet seen is not yet there, and one already seen stays there until a certain
    reading says it is gone. Reading a seen pearl as gone would be a move nobody made: the
    referee takes the last move back when its pearl stays off the board.

    >>> levels = Levels(1, on=74, off=50, baseline_max=20, creep=4)
    >>> [levels.update(0, r, True) for r in (12, 12, 100, 80)]
    [False, False, True, True]
    >>> levels.update(0, 0, False), levels.update(0, 40, True), levels.update(0, 900, False)
    (True, False, False)
    >>> [levels.update(0, 12, True) for _ in range(4)], levels.baseline[0]
    ([False, False, False, False], 18)
    """

    FALL = 3
    """Consecutive certain readings below the baseline before it falls (a count a scan)."""

    def __init__(self, count: int, on: int, off: int, baseline_max: int, creep: int) -> None:
        self.on = [on] * count
        self.off = [off] * count
        self.baseline_max = baseline_max
        self.creep = creep
        self.baseline = [baseline_max] * count
        self.low = [0] * count
        self.high = [baseline_max] * count
        self.present = [False] * count
        self._empty_scans = [0] * count
        self._below = [0] * count

    def update(self, index: int, reading: int, certain: bool) -> bool:
        if not certain:
            self._empty_scans[index] = 0
            return self.present[index]
        base = self.baseline[index]
        present = self.present[index]
        if reading < base:
            self._empty_scans[index] = 0
            self._below[index] += 1
            if self._below[index] >= self.FALL and base > self.low[index]:
                base -= 1
        else:
            self._below[index] = 0
            if not present and reading - base < self.off[index]:
                self._empty_scans[index] += 1
                if self._empty_scans[index] >= self.creep and base < self.high[index]:
                    base += 1
                    self._empty_scans[index] = 0
        self.baseline[index] = base
        over = reading - base
        present = over > (self.off[index] if present else self.on[index])
        self.present[index] = present
        return present
