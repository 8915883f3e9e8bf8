"""Perlen-Pyramide's stored events: a base pearl played, a bonus pearl placed.

>>> BasePearl("c3", 0).data(), BonusPlaced("2:c3", 0, By.PAGE).data()["by"]
({'cell': 'c3', 'colour': 0}, 'page')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from controller.referee.events import By, Stored


@dataclass(frozen=True, slots=True)
class BasePearl(Stored):
    """``colour`` placed a pearl on base ``cell``."""

    cell: str
    colour: int
    kind: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class BonusPlaced(Stored):
    """The waiting bonus pearl at ``pos`` was placed (acknowledged)."""

    pos: str
    colour: int
    by: By
    kind: ClassVar[str] = "bonus"


EVENTS: Final[Mapping[str, type[Stored]]] = {
    BasePearl.kind: BasePearl,
    BonusPlaced.kind: BonusPlaced,
}
"""Its own events by kind."""
