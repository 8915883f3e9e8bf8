"""The link's journal in memory: the tests' model of what the Table's store keeps of a
linked game (:class:`controller.remote.journal.Journal`; the store's own is
:class:`controller.remote.stored.StoreJournal`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from controller.remote.journal import Logged, Origin
from controller.remote.outcomes import Acknowledged, Crossed, Delivered, Outcome, Voided
from controller.remote.wire import JsonObject


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
