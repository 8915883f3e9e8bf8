"""Contacts for the mock circuits: what the sensors of a board do, in real or virtual time.

- :class:`Switches` — contacts that open and close when a test says so, instantly;
- :class:`BouncingContacts` — contacts over a clock (real or :class:`VirtualClock`) whose
  every edge chatters for a few milliseconds, with optional short glitches.

The circuits of :mod:`rigs.circuits` read them (a closed contact is a
pearl on a reed, a ball on a target, a pressed button).
"""

from __future__ import annotations

import bisect
import random
import threading
from collections.abc import Callable, Iterable
from typing import Protocol

__all__ = ["BouncingContacts", "ContactBank", "ContactListener", "Switches", "VirtualClock"]


# -- clocks and contacts ----------------------------------------------------------------------


class VirtualClock:
    """A clock that only moves when told: thousands of edges take no wall time.

    >>> clock = VirtualClock(); clock.advance(0.5); clock()
    0.5
    """

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ContactBank(Protocol):
    """What a circuit asks of its sensors."""

    count: int

    def closed(self, index: int) -> bool: ...

    def closed_set(self) -> frozenset[int]: ...

    def version(self) -> object:
        """Changes whenever :meth:`closed_set` may have changed (a cache key)."""
        ...


ContactListener = Callable[[int, bool], None]


class Switches:
    """Contacts that change exactly when told (a pearl placed, a button pressed).

    >>> s = Switches(4); s.press(1, 3); sorted(s.closed_set())
    [1, 3]
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self._closed: frozenset[int] = frozenset()
        self._version = 0
        self._lock = threading.Lock()
        self._listeners: list[ContactListener] = []

    def add_listener(self, listener: ContactListener) -> None:
        """Call ``listener(index, closed)`` on every change (direct wiring fires edges)."""
        self._listeners.append(listener)

    def closed(self, index: int) -> bool:
        return index in self._closed

    def closed_set(self) -> frozenset[int]:
        return self._closed

    def version(self) -> object:
        return self._version

    def set_closed(self, indices: Iterable[int]) -> None:
        """Close exactly ``indices``, open the rest."""
        new = frozenset(indices)
        bad = [i for i in new if not 0 <= i < self.count]
        if bad:
            raise ValueError(f"no switch {bad[0]} (there are {self.count})")
        with self._lock:
            old = self._closed
            self._closed = new
            self._version += 1
        for index in sorted(old ^ new):
            for listener in self._listeners:
                listener(index, index in new)

    def press(self, *indices: int) -> None:
        self.set_closed(self._closed | set(indices))

    def release(self, *indices: int) -> None:
        self.set_closed(self._closed - set(indices))


class BouncingContacts:
    """Contacts over a clock whose edges chatter and which can glitch.

    :meth:`set` schedules an edge: from ``at`` the contact flips between the two levels in
    segments of ``chatter_ms`` for ``bounce_ms`` in all, then rests at the new level.
    :meth:`glitch` adds a short pulse of the other level to a resting contact. Edges and
    glitches of one contact must be scheduled in time order.

    >>> clock = VirtualClock()
    >>> contacts = BouncingContacts(1, clock, seed=3)
    >>> settled = contacts.set(0, True, at=0.010)
    >>> contacts.closed(0), 0.010 < settled <= 0.015
    (False, True)
    >>> clock.now = settled; contacts.closed(0)
    True
    """

    def __init__(
        self,
        count: int,
        clock: Callable[[], float],
        *,
        seed: int = 0,
        bounce_ms: tuple[float, float] = (0.5, 4.0),
        chatter_ms: tuple[float, float] = (0.05, 1.0),
    ) -> None:
        self.count = count
        self.clock = clock
        self.bounce_ms = bounce_ms
        self.chatter_ms = chatter_ms
        self._random = random.Random(seed)
        self._times: list[list[float]] = [[] for _ in range(count)]
        self._levels: list[list[bool]] = [[] for _ in range(count)]
        self._lock = threading.Lock()

    def _append(self, index: int, at: float, level: bool) -> None:
        times = self._times[index]
        if times and at < times[-1]:
            raise ValueError(f"contact {index}: {at} is before its last change {times[-1]}")
        times.append(at)
        self._levels[index].append(level)

    def resting(self, index: int) -> bool:
        """The level the contact ends at (after everything scheduled)."""
        levels = self._levels[index]
        return levels[-1] if levels else False

    def set(self, index: int, closed: bool, at: float | None = None) -> float:
        """Schedule an edge to ``closed`` at ``at`` (default now); when it stops bouncing."""
        start = self.clock() if at is None else at
        rng = self._random
        bounce = rng.uniform(*self.bounce_ms) / 1000
        with self._lock:
            self._append(index, start, closed)
            level = closed
            t = start + rng.uniform(*self.chatter_ms) / 1000
            while t < start + bounce:
                level = not level
                self._append(index, t, level)
                t += rng.uniform(*self.chatter_ms) / 1000
            if level != closed:
                self._append(index, t, closed)
            return self._times[index][-1]

    def glitch(self, index: int, at: float, width_s: float) -> None:
        """A pulse of the other level, ``width_s`` long, on a resting contact."""
        with self._lock:
            level = self.resting(index)
            self._append(index, at, not level)
            self._append(index, at + width_s, level)

    def closed(self, index: int) -> bool:
        now = self.clock()
        times = self._times[index]
        i = bisect.bisect_right(times, now)
        return self._levels[index][i - 1] if i else False

    def closed_set(self) -> frozenset[int]:
        return frozenset(i for i in range(self.count) if self.closed(i))

    def version(self) -> object:
        return self.clock()
