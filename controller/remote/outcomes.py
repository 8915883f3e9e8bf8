"""What a step of the link tells its owner happened, in the order it happened."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.remote.wire import JsonObject, OtherVersion, Reason, RecordEntry

__all__ = ["Acknowledged", "Crossed", "Delivered", "Differs", "Ignored", "OtherVersion",
           "Outcome", "Paired", "RecordCame", "RecordWanted", "RefusedThere",
           "Voided"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Delivered:
    """The other board's event number ``seq``: apply it (each comes once, in order)."""

    seq: int
    event: JsonObject
    made: int = field(default=0, compare=False, repr=False)
    """This board's own events made by then (where the event stands in the log)."""


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


@dataclass(frozen=True, slots=True)
class RefusedThere:
    """The inviting board's game could not take this (joining) board's events up to
    ``upto``: the boards disagree, which no family causes; the way back is to take the
    inviting board's record."""

    upto: int


@dataclass(frozen=True, slots=True)
class RecordWanted:
    """The joining board asks for this (inviting) board's record of the game."""


@dataclass(frozen=True, slots=True)
class RecordCame:
    """The inviting board's record, as this (joining) board asked: its events in its
    order; ``acked``: how many of this board's events it has taken (applied or set
    aside)."""

    entries: tuple[RecordEntry, ...]
    acked: int


@dataclass(frozen=True, slots=True)
class Paired:
    """The other board is known: its id and its public key for the game. Keep them (the
    link's ``restore`` takes them back): from now on only that board is believed, and
    only in messages sealed with the key the two share."""

    board: str
    public: bytes


@dataclass(frozen=True, slots=True)
class Differs:
    """The other board sent its event ``seq`` again, but not the one taken here: the
    boards disagree (a store that lost or changed events), which no family causes. The
    inviting board's order stands: it says so as it says a refused event, and the joining
    board's way back is to take its record."""

    seq: int
    event: JsonObject


Outcome = (
    Delivered
    | Paired
    | Differs
    | Crossed
    | Voided
    | Acknowledged
    | Ignored
    | OtherVersion
    | RefusedThere
    | RecordWanted
    | RecordCame
)
"""``OtherVersion``: the other board speaks another protocol version (said once per change)."""
