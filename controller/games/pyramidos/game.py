"""Pyramidos as the table keeps it: the position and its events, for taking back.

>>> p = PyramidosGame.new(pyramidos.PyramidosOptions(seats=2)).event("land t1").event("end")
>>> sorted(p.expected), p.state.to_move, p.undo().state.to_move
(['t1'], 0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.record import PyramidosRecord
from controller.referee.game import GameError, Outcome
from controller.rules.notation import NotationError
from controller.vocabulary import TARGETS


@dataclass(frozen=True, slots=True)
class PyramidosStep:
    """One event of Pyramidos (``land t1``, ``leave top``, ``end``) and the state before."""

    text: str
    seat: int
    """The seat to move when it happened (a leave: still the mover, not the ball's owner)."""
    before: pyramidos.PyramidosState


@dataclass(frozen=True, slots=True)
class PyramidosGame:
    """Pyramidos as the table keeps it, with its events for taking back."""

    state: pyramidos.PyramidosState
    steps: tuple[PyramidosStep, ...] = ()
    pieces: ClassVar[frozenset[str]] = frozenset(TARGETS)
    """The sensors its pieces sit on: the targets."""
    pending: ClassVar[tuple[object, ...]] = ()
    """Pyramidos owes no pieces to place by hand."""

    def legal_cells(self) -> frozenset[str]:
        return frozenset()

    @property
    def last_move(self) -> str | None:
        """The target last landed on."""
        return self.last_landing

    @property
    def last_by(self) -> int | None:
        """The seat whose turn the last event was in."""
        return self.steps[-1].seat if self.steps else None

    @property
    def to_move(self) -> int | None:
        return None if self.state.over else self.state.to_move

    @property
    def standing(self) -> tuple[str, ...]:
        """The events that stand: the record."""
        return tuple(step.text for step in self.steps)

    def record(self, players: tuple[str, ...]) -> PyramidosRecord:
        return PyramidosRecord(self.standing, self.state.options, players)

    def outcome(self) -> Outcome:
        out = pyramidos.outcome(self.state)
        return Outcome(out.points, out.winners, "points", {"points": list(out.points)})

    @classmethod
    def new(cls, options: pyramidos.PyramidosOptions) -> PyramidosGame:
        return cls(pyramidos.new_game(options=options))

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def moves(self) -> int:
        return len(self.steps)

    @property
    def expected(self) -> frozenset[str]:
        """Targets that hold a ball."""
        return frozenset(name for name, owner in self.state.targets().items() if owner is not None)

    @property
    def owners(self) -> dict[str, int]:
        return {name: owner for name, owner in self.state.targets().items() if owner is not None}

    @property
    def last_landing(self) -> str | None:
        for step in reversed(self.steps):
            if step.text.startswith("land "):
                return step.text.split()[1]
        return None

    def event(self, text: str) -> PyramidosGame:
        try:
            state = pyramidos.apply(self.state, pyramidos.parse_event(text))
        except (NotationError, pyramidos.ImpossibleEventError) as exc:
            raise GameError(str(exc)) from None
        step = PyramidosStep(text, self.state.to_move, self.state)
        return PyramidosGame(state, (*self.steps, step))

    def undo(self) -> PyramidosGame:
        if not self.steps:
            raise GameError("there is nothing to take back")
        return PyramidosGame(self.steps[-1].before, self.steps[:-1])
