"""A game's computer player, as the Table's thinker asks it: the port.

Standard library only, and below the referee: the seam (:mod:`controller.referee.protocol`)
names it for :meth:`~controller.referee.protocol.GameKind.computer`, the thinker
(:class:`controller.computer_thread.Thinker`) asks it off the referee's thread, and tests
give the Table their own (any object with these members).
"""

from __future__ import annotations

import threading
from typing import Protocol


class ComputerPlayer(Protocol):
    @property
    def levels(self) -> tuple[str, ...]:
        """The levels it plays, weakest first."""

    def legal(self, position: object) -> frozenset[str]:
        """The places a move may go in ``position`` (an answer elsewhere is refused)."""

    def choose(self, position: object, level: str, seed: int, cancel: threading.Event) -> str:
        """The place a computer seat of ``level`` plays in ``position``."""

    def hint(self, position: object, cancel: threading.Event) -> tuple[str, object]:
        """A good place for the person to move, and why it is good (the game words it:
        :meth:`~controller.referee.protocol.GameKind.explained`)."""
