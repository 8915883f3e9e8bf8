"""The link's persistence port (the store's implementation is
:class:`controller.remote.stored.StoreJournal`; the tests' model of it is
``rigs/journal.py``'s ``MemoryJournal``).

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
from dataclasses import dataclass
from typing import Protocol

from controller.remote.wire import JsonObject

__all__ = ["EmptyJournal", "Journal", "JournalError", "Logged", "Origin"]


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


class EmptyJournal:
    """The journal of a game not made yet (a board joining one): nothing logged."""

    def logged(self) -> Sequence[Logged]:
        return ()

    def acked(self) -> int:
        return 0
