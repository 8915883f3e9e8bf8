"""Perlen-Pyramide's stored events: a base pearl played, a bonus pearl placed.

>>> BasePearl("c3", 0).data(), BonusPlaced("2:c3", 0, By.PAGE).data()["by"]
({'cell': 'c3', 'colour': 0}, 'page')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from controller.referee.game import By, Reader, Stored, made_by, notation, number
from controller.rules.notation import parse_cell, parse_position

CELL: Final = notation(lambda text: parse_cell(text).short)
"""A base cell, kept as its short name (``c3``)."""


@dataclass(frozen=True, slots=True)
class BasePearl(Stored):
    """``colour`` placed a pearl on base ``cell``."""

    cell: str
    colour: int
    kind: ClassVar[str] = "move"
    readers: ClassVar[Mapping[str, Reader]] = {"cell": CELL, "colour": number}


@dataclass(frozen=True, slots=True)
class BonusPlaced(Stored):
    """The waiting bonus pearl at ``pos`` was placed (acknowledged)."""

    pos: str
    colour: int
    by: By
    kind: ClassVar[str] = "bonus"
    readers: ClassVar[Mapping[str, Reader]] = {
        "pos": notation(parse_position),
        "colour": number,
        "by": made_by,
    }


EVENTS: Final[Mapping[str, type[Stored]]] = {
    BasePearl.kind: BasePearl,
    BonusPlaced.kind: BonusPlaced,
}
"""Its own events by kind."""
