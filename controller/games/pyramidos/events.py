"""Pyramidos' stored events: a landing, a knock-off, the end of a turn.

>>> Landed("t1", 0).data(), KnockedOff("t1", None).data()
({'target': 't1', 'seat': 0}, {'target': 't1', 'seat': None})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from controller.referee.game import By, PlayerNumber, Stored, notation
from controller.rules.notation import parse_target

TARGET: Final = notation(parse_target)
"""A target by name (``t1`` … ``top``)."""


@dataclass(frozen=True, slots=True)
class Landed(Stored):
    """A ball of ``seat`` came to rest on ``target``."""

    target: Annotated[str, TARGET]
    seat: PlayerNumber
    kind: ClassVar[str] = "land"


@dataclass(frozen=True, slots=True)
class KnockedOff(Stored):
    """The ball on ``target`` (``seat``'s; None for a ball nobody owned) was knocked off."""

    target: Annotated[str, TARGET]
    seat: PlayerNumber | None
    kind: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class TurnEnded(Stored):
    """``seat``'s turn ended without a landing (earth square or net)."""

    seat: PlayerNumber
    by: By
    kind: ClassVar[str] = "end"


EVENTS: Final[Mapping[str, type[Stored]]] = {
    Landed.kind: Landed,
    KnockedOff.kind: KnockedOff,
    TurnEnded.kind: TurnEnded,
}
"""Its own events by kind."""
