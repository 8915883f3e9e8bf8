"""Perlen-Pyramide as the table keeps it: the position, the bonus pearls the players
still have to place, and the moves that can be taken back.

>>> g = PerlenGame.new(perlen.PerlenOptions())
>>> for cell in ("c3", "d4", "d3", "c4"):
...     g = g.acknowledge_all().move(cell)
>>> [str(b.position) for b in g.pending], sorted(g.expected)
(['2:c3'], ['c3', 'c4', 'd3', 'd4'])
>>> g.undo().pending, g.undo().state.to_move
((), 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.games.perlen import rules as perlen
from controller.games.perlen.record import PerlenRecord
from controller.referee.game import GameError, Outcome
from controller.rules.notation import BASE, Position
from controller.vocabulary import CELLS


@dataclass(frozen=True, slots=True)
class PerlenStep:
    """One base pearl played: what it was, and the position to go back to."""

    cell: str
    colour: int
    before: perlen.PerlenState
    bonuses: tuple[perlen.Bonus, ...]
    """The bonus pearls it earned, in placing order."""


@dataclass(frozen=True, slots=True)
class PerlenGame:
    """Perlen-Pyramide as the table keeps it."""

    state: perlen.PerlenState
    pending: tuple[perlen.Bonus, ...] = ()
    """Bonus pearls of the last move not yet acknowledged (placed), in placing order."""
    steps: tuple[PerlenStep, ...] = ()
    pieces: ClassVar[frozenset[str]] = frozenset(CELLS)
    """The sensors its pieces sit on: the base cells."""

    @classmethod
    def new(cls, options: perlen.PerlenOptions) -> PerlenGame:
        return cls(perlen.new_game(options))

    @property
    def over(self) -> bool:
        """The 25th base pearl is down: the result stands (bonus pearls may still wait)."""
        return self.state.over

    @property
    def moves(self) -> int:
        return len(self.steps)

    @property
    def expected(self) -> frozenset[str]:
        """Base cells that hold a pearl."""
        occupied = self.state.occupied
        return frozenset(cell.short for cell in BASE if occupied >> cell.index & 1)

    @property
    def owners(self) -> dict[str, int]:
        """The colour of the pearl on each occupied base cell."""
        return {pos.short: colour for pos, colour in self.state.pearls() if pos.layer == 1}

    @property
    def last(self) -> PerlenStep | None:
        return self.steps[-1] if self.steps else None

    def placed_on_last(self) -> tuple[perlen.Bonus, ...]:
        """Bonus pearls of the last move that are on the board: acknowledged, not pending."""
        last = self.last
        if last is None:
            return ()
        waiting = set(self.pending)
        return tuple(b for b in last.bonuses if b not in waiting)

    def move(self, cell: str) -> PerlenGame:
        """Play ``cell`` for the mover; every waiting bonus must have been acknowledged."""
        if self.pending:
            raise GameError("bonus pearls are still waiting to be placed")
        mover = self.state.to_move
        if mover is None:
            raise GameError("the pyramid is complete")
        try:
            state, bonuses = perlen.play(self.state, cell)
        except perlen.IllegalMoveError as exc:
            raise GameError(str(exc)) from None
        return PerlenGame(
            state, bonuses, (*self.steps, PerlenStep(cell, mover, self.state, bonuses))
        )

    def acknowledge(self, position: str) -> PerlenGame:
        """The first waiting bonus pearl, at ``position``, is placed (files of 0.1.0 say
        which one; today a confirmation places them all)."""
        if not self.pending or str(self.pending[0].position) != position:
            raise GameError(f"bonus {position} is not the one waiting")
        return PerlenGame(self.state, self.pending[1:], self.steps)

    def acknowledge_all(self) -> PerlenGame:
        return PerlenGame(self.state, (), self.steps) if self.pending else self

    def undo(self) -> PerlenGame:
        """Take back the last base pearl and the bonus pearls it earned."""
        if not self.steps:
            raise GameError("there is no move to take back")
        # Bonuses of earlier moves were all acknowledged before the last move was made.
        return PerlenGame(self.steps[-1].before, (), self.steps[:-1])

    def legal_cells(self) -> frozenset[str]:
        if self.state.over:
            return frozenset()
        return frozenset(p.short for p in perlen.legal_moves(self.state))

    @property
    def last_move(self) -> str | None:
        """The last base cell played."""
        return self.steps[-1].cell if self.steps else None

    @property
    def last_by(self) -> int | None:
        """The colour of the last base pearl."""
        return self.steps[-1].colour if self.steps else None

    @property
    def to_move(self) -> int | None:
        return self.state.to_move

    @property
    def standing(self) -> tuple[str, ...]:
        """The moves that stand: the record."""
        return tuple(step.cell for step in self.steps)

    def record(self, players: tuple[str, ...]) -> PerlenRecord:
        return PerlenRecord(self.standing, self.state.options, players)

    def outcome(self) -> Outcome:
        out = perlen.outcome(self.state)
        unit = "pearls" if self.state.options.score is perlen.Score.ALL else "visible"
        details = {"visible": list(out.visible), "totals": list(out.totals),
                   "scores": list(out.scores)}  # fmt: skip
        return Outcome(out.scores, out.winners, unit, details)


def hidden(position: Position, options: perlen.PerlenOptions) -> bool:
    """A pearl here stays hidden inside the finished pyramid and so scores nothing."""
    return options.score is perlen.Score.VISIBLE and not position.visible
