"""Perlen-Pyramide's stored events: a base pearl played, a bonus pearl placed.

>>> BasePearl("c3", 0).data(), BonusPlaced("2:c3", 0, By.PAGE).data()["by"]
({'cell': 'c3', 'colour': 0}, 'page')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from controller.referee.game import By, PlayerNumber, Stored, notation
from controller.rules.notation import parse_cell, parse_position

CELL: Final = notation(lambda text: parse_cell(text).short)
"""A base cell, kept as its short name (``c3``)."""
POSITION: Final = notation(parse_position)
"""A pearl's place on any layer (``2:c3``)."""


@dataclass(frozen=True, slots=True)
class BasePearl(Stored):
    """``colour`` placed a pearl on base ``cell``."""

    cell: Annotated[str, CELL]
    colour: PlayerNumber
    kind: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class BonusPlaced(Stored):
    """The waiting bonus pearl at ``pos`` was placed (acknowledged)."""

    pos: Annotated[str, POSITION]
    colour: PlayerNumber
    by: By
    kind: ClassVar[str] = "bonus"


EVENTS: Final[Mapping[str, type[Stored]]] = {
    BasePearl.kind: BasePearl,
    BonusPlaced.kind: BonusPlaced,
}
"""Its own events by kind."""
