"""Pearls on a board and the switches they close, with a maker's mistakes at the sensors.

What a person at the board does (a pearl placed, a ball taken off, a button pressed)
becomes a set of closed switches (matrix crossings, channel numbers) that a circuit
model reads: :class:`~rigs.circuits.DiodeMatrix` through its
:class:`~rigs.contacts.Switches`, or the simulated Pico's matrix
(``firmware/sim``). The mistakes modelled here are those between a magnet and its
switch; those of the wiring behind the switches (a missing or reversed diode, a cut
column) belong to the circuit models.

- **Swapped reeds** (``swapped``): the reeds of two sensors are soldered at each other's
  crossings, so a pearl on one closes the other's switch.
- **Stuck reeds** (``stuck``): a welded reed (or a solder bridge across it) is closed with
  no magnet near.
- **Cross-talk** (``crosstalk``): a reed closes when the magnets around it drive it past its
  operate point. A reed lying flat has one end under its own cell and the other end
  towards one neighbour: a pearl on that neighbour gives :data:`TOWARDS_AT` ampere-turns
  (about 20–25 AT, hardware/README.md's magnet model), every other neighbour
  :data:`AROUND_AT`, the cell's own pearl :data:`OWN_AT`. Drives add (the fields
  superpose along the reed). Release hysteresis is not modelled: the reed is closed
  exactly while the sum reaches its operate point.

>>> closed = []
>>> board = PearlBoard({"a1": 0, "b1": 1, "a2": 5}, closed.append, swapped=(("a1", "b1"),))
>>> board.place("a1"); sorted(closed[-1])
[1]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

__all__ = ["AROUND_AT", "OWN_AT", "TOWARDS_AT", "CrossTalk", "PearlBoard"]

OWN_AT = 150.0
"""Ampere-turns a pearl drives into the reed under its own cell."""
TOWARDS_AT = 22.0
"""Ampere-turns from a pearl on the neighbour the reed's far end points to."""
AROUND_AT = 3.0
"""Ampere-turns from a pearl on any other of the eight neighbours."""


@dataclass(frozen=True)
class CrossTalk:
    """A reed that its neighbours' magnets can close: where its far end points, and the
    ampere-turns it closes at (a 20 AT reed closes under the one neighbour alone, a
    30 AT reed only when that neighbour and three more are full)."""

    towards: str
    operate_at: float


def _around(cell: str) -> set[str]:
    files = "abcde"
    if len(cell) != 2 or cell[0] not in files or not cell[1].isdigit():
        return set()
    f, r = files.index(cell[0]), int(cell[1])
    return {
        f"{files[f + df]}{r + dr}"
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df, dr) != (0, 0) and 0 <= f + df < 5 and 1 <= r + dr <= 5
    }


class PearlBoard:
    """What a person puts on the board, as the switches it closes (see the module).

    ``channels`` maps sensor names to the channel (switch) that sensor's reed was meant
    for; ``apply`` receives the closed switches after every change.
    """

    def __init__(
        self,
        channels: Mapping[str, int],
        apply: Callable[[frozenset[int]], None],
        *,
        swapped: Iterable[tuple[str, str]] = (),
        stuck: Iterable[str] = (),
        crosstalk: Mapping[str, CrossTalk] | None = None,
    ) -> None:
        self.channels = dict(channels)
        self.apply = apply
        self.wired = dict(self.channels)
        """The switch each sensor's reed really closes."""
        for a, b in swapped:
            self.wired[a], self.wired[b] = self.channels[b], self.channels[a]
        self.stuck = frozenset(stuck)
        self.crosstalk = dict(crosstalk or {})
        for cell, talk in self.crosstalk.items():
            if talk.towards not in _around(cell):
                raise ValueError(f"{talk.towards} is not a neighbour of {cell}")
        self.pearls: frozenset[str] = frozenset()

    def drive(self, sensor: str) -> float:
        """Ampere-turns the pearls on the board drive into ``sensor``'s reed."""
        total = OWN_AT if sensor in self.pearls else 0.0
        talk = self.crosstalk.get(sensor)
        if talk is not None:
            for other in _around(sensor) & self.pearls:
                total += TOWARDS_AT if other == talk.towards else AROUND_AT
        return total

    def closed(self) -> frozenset[int]:
        """The switches closed by the pearls now."""
        closed = set()
        for sensor, switch in self.wired.items():
            talk = self.crosstalk.get(sensor)
            operate = talk.operate_at if talk is not None else OWN_AT
            if sensor in self.stuck or self.drive(sensor) >= operate:
                closed.add(switch)
        return frozenset(closed)

    def set(self, sensors: Iterable[str]) -> None:
        """Exactly ``sensors`` hold a pearl, ball or finger."""
        wanted = frozenset(sensors)
        unknown = wanted - self.channels.keys()
        if unknown:
            raise ValueError(f"no sensor named {sorted(unknown)[0]}")
        self.pearls = wanted
        self.apply(self.closed())

    def place(self, sensor: str) -> None:
        self.set(self.pearls | {sensor})

    def lift(self, sensor: str) -> None:
        self.set(self.pearls - {sensor})
