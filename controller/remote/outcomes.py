"""What a step of the link tells its owner happened, in the order it happened."""

from __future__ import annotations

from dataclasses import dataclass

from controller.remote.wire import JsonObject, OtherVersion, Reason

__all__ = ["Acknowledged", "Crossed", "Delivered", "Ignored", "OtherVersion", "Outcome", "Voided"]


@dataclass(frozen=True, slots=True)
class Delivered:
    """The other board's event number ``seq``: apply it (each comes once, in order)."""

    seq: int
    event: JsonObject


@dataclass(frozen=True, slots=True)
class Crossed:
    """The joining board's event ``seq`` was made while this (inviting) board made events
    it had not yet seen: the two crossed, this board's order stands, and the event is not
    applied here (the joining board takes it back itself: :class:`Voided`). Keep it as
    seen, not applied."""

    seq: int
    event: JsonObject
    made: int = 0
    """This board's own events made by then (where the crossed event stands in the log)."""


@dataclass(frozen=True, slots=True)
class Voided:
    """This (joining) board's events ``seqs`` crossed events of the inviting board, whose
    order stands: undo them here (in the store and on the wood), then apply what the
    :class:`Delivered` after this brings."""

    seqs: tuple[int, ...]
    bases: tuple[int, ...] = ()
    """What each was made on (the other board's events applied then), for the journal."""
    events: tuple[JsonObject, ...] = ()


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """The other board has applied this board's events up to ``upto``: keep the mark."""

    upto: int


@dataclass(frozen=True, slots=True)
class Ignored:
    """A message that was dropped (and counted), and why."""

    reason: Reason
    detail: str


Outcome = Delivered | Crossed | Voided | Acknowledged | Ignored | OtherVersion
"""``OtherVersion``: the other board speaks another protocol version (said once per change)."""
