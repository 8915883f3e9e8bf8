"""The board as the acceptance check (:mod:`~controller.cli.acceptance`) knows it,
and what a diode matrix's wiring makes of the switches: pure functions, no state.

A :class:`Layout` names the channels and, for a diode matrix, its width and its row and
column wires (:class:`Wires`: the GPIO and header pin, or the Pico pin, of each). The
rest is the model of a missing (or shorted) diode: its switch conducts backwards, so
three closed corners of a rectangle with it make the fourth read occupied (a ghost,
:func:`ghosts`). The check gathers :class:`Sighting` s (channels that came on that may
have no pearl of their own) and settled readings; from them this module says which
missing diodes agree with everything seen (:func:`allowed`), which lifts can show nothing
(:func:`hidden`) and which diodes to name (:func:`missing_diodes`).

A board of another sensing principle (a hall sensor per cell, say) has no matrix: its
layout's ``columns`` is None and nothing here names anything for it.

>>> from controller.hardware.channels import ChannelMap
>>> layout = Layout.of(ChannelMap.matrix(), columns=6)
>>> a1, b1, a2, b2 = (layout.channel_by_name[n] for n in ("a1", "b1", "a2", "b2"))
>>> layout.names_of(ghosts(layout, a1, frozenset({a1, b1, a2})))  # a1 without its diode
('b2',)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from controller.hardware.channels import BUTTONS, CELLS, TARGETS, ChannelMap

__all__ = [
    "Layout",
    "MissingDiode",
    "Sighting",
    "Wire",
    "Wires",
    "allowed",
    "explains",
    "ghosts",
    "hidden",
    "missing_diodes",
]


@dataclass(frozen=True)
class Wire:
    """One row or column wire of the diode matrix, as the maker finds it."""

    pin: str
    """The pin it is on: ``GPIO 26``, ``GP10``."""
    place: str
    """Where that pin is: ``header pin 37``, ``Pico pin 14``."""
    entry: str
    """How it stands in its list in the config: ``26``."""

    @property
    def where(self) -> str:
        return f"{self.pin} ({self.place})"


@dataclass(frozen=True)
class Wires:
    """The matrix's row and column wires, in channel order, and the lists that name them."""

    rows: tuple[Wire, ...]
    columns: tuple[Wire, ...]
    rows_list: str
    """Where the rows' order is written: ``[board.gpio] rows``."""
    columns_list: str


@dataclass(frozen=True)
class Layout:
    """What the check knows of the board: the named channels and the matrix wiring.

    A board whose sensors are not in a diode matrix (a multiplexer, direct wiring, or
    another sensing principle) has ``columns`` None: its causes are named per sensor.
    """

    channel_by_name: Mapping[str, int]
    columns: int | None
    """Columns of the diode matrix (channel = row * columns + column); None: no matrix
    (mux or direct wiring), so no diode or column causes are named."""
    wires: Wires | None = None
    """The matrix's wires, when known: causes about a row or column name them."""

    @classmethod
    def of(cls, cmap: ChannelMap, columns: int | None, wires: Wires | None = None) -> Layout:
        if wires is not None and columns != len(wires.columns):
            raise ValueError(f"{len(wires.columns)} column wires for {columns} columns")
        return cls(dict(cmap.channel_by_name), columns, wires)

    @property
    def names(self) -> tuple[str, ...]:
        """The named sensors in the order the check asks for them."""
        return tuple(n for n in CELLS + TARGETS + BUTTONS if n in self.channel_by_name)

    @functools.cached_property
    def named(self) -> frozenset[int]:
        """The channels that have a name."""
        return frozenset(self.channel_by_name.values())

    @property
    def fillable(self) -> tuple[str, ...]:
        """Cells and targets: what can all be occupied at once (not the buttons)."""
        return tuple(n for n in self.names if n not in BUTTONS)

    def name(self, channel: int) -> str | None:
        for name, number in self.channel_by_name.items():
            if number == channel:
                return name
        return None

    def channels(self, names: Iterable[str]) -> frozenset[int]:
        return frozenset(self.channel_by_name[n] for n in names)

    def names_of(self, channels: Iterable[int]) -> tuple[str, ...]:
        """Named channels among ``channels``, in the check's order."""
        wanted = set(channels)
        return tuple(n for n in self.names if self.channel_by_name[n] in wanted)

    def crossing(self, name: str) -> tuple[int, int] | None:
        """(row, column) of a sensor in the matrix wiring, or None without a matrix."""
        if self.columns is None:
            return None
        return divmod(self.channel_by_name[name], self.columns)

    def at(self, row: int, column: int) -> str | None:
        """The named sensor at a matrix crossing, if any."""
        if self.columns is None or not 0 <= column < self.columns:
            return None
        return self.name(row * self.columns + column)

    def line(self, axis: str, index: int) -> str:
        """``matrix column 2``, with its wire when known: ``(GPIO 26, header pin 37)``."""
        wires = None if self.wires is None else getattr(self.wires, f"{axis}s")
        if wires is None or index >= len(wires):
            return f"matrix {axis} {index}"
        wire: Wire = wires[index]
        return f"matrix {axis} {index} ({wire.pin}, {wire.place})"


@dataclass(frozen=True)
class Sighting:
    """Channels that came on that may have no pearl of their own: the missing diodes'
    evidence. A fill placement that lit more than one channel (one of them is the
    pearl), or a cell that stayed occupied when lifted from the full board."""

    came: frozenset[int]
    reading: frozenset[int]
    """What the board read then."""
    pearls: int
    """How many of :attr:`came` may be the pearl placed (1 in the fill pass, 0 lifted)."""


def ghosts(layout: Layout, diode: int, reading: frozenset[int]) -> frozenset[int]:
    """The crossings that read occupied through the switch at ``diode`` if its diode is
    missing, with ``reading``'s switches closed.

    A cell G at (r2, c2) reads occupied when row r2, pulled low, reaches column c2 by a
    sneak path: along G's row to a closed (r2, c), up column c backwards through the
    switch (r, c) that has no diode, along row r to a closed (r, c2). So every fourth
    corner of a rectangle whose other three corners are closed, one of them the diode's.
    (A ghost joins its row to its column as a closed switch does: readings, ghosts and
    all, stand for the closed switches.)
    """
    width = layout.columns
    if width is None or diode not in reading:
        return frozenset()
    row, column = divmod(diode, width)
    rows = {ch // width for ch in reading if ch % width == column and ch // width != row}
    columns = {ch % width for ch in reading if ch // width == row and ch % width != column}
    return frozenset(r * width + c for r in rows for c in columns) & layout.named


def explains(layout: Layout, diode: int, sighting: Sighting) -> frozenset[int]:
    """The channels of ``sighting`` that the missing diode at ``diode`` made come on, if
    it explains all but the pearl placed (else nothing)."""
    lit = ghosts(layout, diode, sighting.reading) & sighting.came
    if not lit or len(lit) < len(sighting.came) - sighting.pearls:
        return frozenset()
    return lit


def allowed(
    layout: Layout, possible: frozenset[int] | None, reading: frozenset[int]
) -> frozenset[int]:
    """Of ``possible`` (None: every cell and target), the crossings whose missing diode
    agrees with a settled ``reading``: one that would have lit a ghost the reading lacks
    is ruled out (an extra ghost may be another diode's, so it rules out nothing)."""
    if possible is None:
        possible = layout.channels(layout.fillable)
    return frozenset(d for d in possible if ghosts(layout, d, reading) <= reading)


def hidden(
    layout: Layout, candidates: Sequence[int], sightings: Sequence[Sighting], full: frozenset[int]
) -> frozenset[int]:
    """The cells whose lift from the ``full`` board can show nothing: once at least three
    cells came on without their pearl and one missing diode among ``candidates`` (those
    the readings allow) explains all of it, every cell that each of the candidates keeps
    occupied with the board full. (Were two diodes missing, each is among the candidates,
    so such a cell stays occupied all the same.)"""
    alone = [d for d in candidates if all(explains(layout, d, s) for s in sightings)]
    if not alone:
        return frozenset()
    if min(coverage(layout, d, sightings)[1] for d in alone) < 3:
        return frozenset()
    kept = ghosts(layout, candidates[0], full)
    for d in candidates[1:]:
        kept &= ghosts(layout, d, full)
    return kept


@dataclass(frozen=True)
class MissingDiode:
    """A diode the check names as missing, with the ghosts and sightings it explains."""

    name: str
    ghosts: tuple[int, ...]
    sightings: tuple[Sighting, ...]


def missing_diodes(
    layout: Layout, candidates: Sequence[int], sightings: Sequence[Sighting]
) -> list[MissingDiode]:
    """The missing diodes that explain the sightings: the fewest that explain the most,
    each at least two sightings with at least two ghosts (one alone could be any of
    several)."""
    left = tuple(sightings)
    named: list[MissingDiode] = []
    while left and candidates:
        best = max(candidates, key=lambda d: (*coverage(layout, d, left), -d))
        count, lit = coverage(layout, best, left)
        if count < 2 or lit < 2:
            break
        covered = tuple(s for s in left if explains(layout, best, s))
        found = {g for s in covered for g in explains(layout, best, s)}
        name = layout.name(best)
        assert name is not None
        named.append(MissingDiode(name, tuple(sorted(found)), covered))
        left = tuple(s for s in left if s not in covered)
    return named


def coverage(layout: Layout, diode: int, sightings: Iterable[Sighting]) -> tuple[int, int]:
    """How many of ``sightings`` the missing diode explains, and with how many ghosts."""
    covered = [explains(layout, diode, s) for s in sightings]
    lit: set[int] = set()
    for c in covered:
        lit |= c
    return sum(1 for c in covered if c), len(lit)
