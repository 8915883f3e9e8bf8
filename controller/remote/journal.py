"""The link's persistence port, and an in-memory journal that models the store.

A linked game's events are one log kept by both boards; each board's store holds them in
the order it applied them, each marked with where it was made and its number there (the
two boards number their own events 1, 2, 3 …). From that log and the highest number the
other board has acknowledged, :meth:`controller.remote.link.Link.restore` rebuilds the
link after a restart: what to send again, and where the other board's events resume.

The Table integration implements :class:`Journal` over the store; the order of work is
the store's: an event made here is stored before :meth:`Link.send` sees it, and the
events a step delivers are stored (with its acknowledgement mark) before that step's
messages are published, so an acknowledgement never runs ahead of the store.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from controller.remote.outcomes import Acknowledged, Crossed, Delivered, Outcome, Voided
from controller.remote.wire import JsonObject

__all__ = ["Journal", "JournalError", "Logged", "MemoryJournal", "Origin"]


class Origin(enum.Enum):
    """Where an event of a linked game was made."""

    HERE = "here"
    THERE = "there"


@dataclass(frozen=True, slots=True)
class Logged:
    """One event of a linked game as this board keeps it."""

    origin: Origin
    seq: int
    """Its number on the board that made it, from 1."""
    event: JsonObject
    base: int | None = None
    """Made here: how many of the other board's events had been applied here when it was
    made (None: as many as come before it in the log)."""
    void: bool = False
    """Not applied (made here: undone since; made there: never applied): the two boards
    acted while apart and the inviting board's order stood
    (:class:`~controller.remote.outcomes.Voided`, :class:`~controller.remote.outcomes.
    Crossed`). Its number stays taken."""


class JournalError(ValueError):
    """A journal whose numbers do not run 1, 2, 3 … for each origin, or that acknowledges
    events never made: the store and the link disagree, so the link does not start."""


class Journal(Protocol):
    """What the link needs from the store to start again (read once, at restore)."""

    def logged(self) -> Iterable[Logged]:
        """The linked game's events in the order this board applied them."""
        ...

    def acked(self) -> int:
        """The highest number of this board's events the other board has acknowledged."""
        ...


class MemoryJournal:
    """A :class:`Journal` in memory, modelling what the Table's store will keep.

    It models a store that keeps each thing the moment it is told, in order, and loses
    nothing: :meth:`made` is the Table committing an event made at this board,
    :meth:`apply` is the Table committing a step's delivered events and acknowledgement
    mark. It does not model a store that fails to write (the Table's own concern: it
    stores first and only then hands the link anything). A restart in the tests is a new
    :class:`~controller.remote.link.Link` restored from the same journal.
    """

    def __init__(self) -> None:
        self.events: list[Logged] = []
        self.ack = 0

    def made(self, event: JsonObject) -> int:
        """Keep an event made here; its number."""
        seq = 1 + sum(1 for e in self.events if e.origin is Origin.HERE)
        base = sum(1 for e in self.events if e.origin is Origin.THERE)
        self.events.append(Logged(Origin.HERE, seq, event, base))
        return seq

    def apply(self, happened: Iterable[Outcome]) -> list[JsonObject]:
        """Keep what a step delivered, voided, crossed and acknowledged; the events
        delivered, in order."""
        delivered: list[JsonObject] = []
        for outcome in happened:
            if isinstance(outcome, Delivered):
                self.events.append(Logged(Origin.THERE, outcome.seq, outcome.event))
                delivered.append(outcome.event)
            elif isinstance(outcome, Crossed):
                self.events.append(Logged(Origin.THERE, outcome.seq, outcome.event, void=True))
            elif isinstance(outcome, Voided):
                self.events = [
                    replace(e, void=True)
                    if e.origin is Origin.HERE and e.seq in outcome.seqs
                    else e
                    for e in self.events
                ]
            elif isinstance(outcome, Acknowledged):
                self.ack = max(self.ack, outcome.upto)
        return delivered

    def of(self, origin: Origin) -> Sequence[JsonObject]:
        """The events made at ``origin`` and applied, in their order."""
        return [e.event for e in self.events if e.origin is origin and not e.void]

    def order(self) -> list[tuple[Origin, JsonObject]]:
        """The game as this board has it: the events applied, in the order applied."""
        return [(e.origin, e.event) for e in self.events if not e.void]

    def logged(self) -> Iterable[Logged]:
        return tuple(self.events)

    def acked(self) -> int:
        return self.ack
