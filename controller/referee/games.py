"""The game on the table as values: the rules engine's state plus what the table adds.

A :class:`PerlenGame` is a position of Perlen-Pyramide, the bonus pearls that the players
still have to place, and the moves that can be taken back; a :class:`PyramidosGame` is a
position of Pyramidos and its events for taking back. Both are frozen: every change gives
a new value, so the referee can try a change and keep the old game if storing it fails.

>>> g = PerlenGame.new(perlen.PerlenOptions())
>>> for cell in ("c3", "d4", "d3", "c4"):
...     g = g.acknowledge_all().move(cell)
>>> [str(b.position) for b in g.pending], sorted(g.expected)
(['2:c3'], ['c3', 'c4', 'd3', 'd4'])
>>> g.undo().pending, g.undo().state.to_move
((), 0)
>>> p = PyramidosGame.new(pyramidos.PyramidosOptions(seats=2)).event("land t1").event("end")
>>> sorted(p.expected), p.state.to_move, p.undo().state.to_move
(['t1'], 0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from controller.rules import perlen, pyramidos
from controller.rules.notation import BASE, NotationError, Position
from controller.rules.records import PERLEN, PYRAMIDOS, PerlenRecord, PyramidosRecord
from controller.vocabulary import CELLS, TARGETS


@dataclass(frozen=True, slots=True)
class Outcome:
    """A game's scores as the store and the page keep them."""

    points: tuple[int, ...]
    """What counts, by player number."""
    winners: tuple[int, ...]
    unit: str
    """What the points count: ``visible`` pearls, all ``pearls`` or ``points``."""
    details: Mapping[str, object]
    """The game's own figures (visible pearls and totals, or points)."""


class GameError(ValueError):
    """A change the game cannot take (the message says why, for the log and tests)."""


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
    kind: ClassVar[str] = PERLEN
    piece: ClassVar[str] = "pearl"
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
    kind: ClassVar[str] = PYRAMIDOS
    piece: ClassVar[str] = "ball"
    pieces: ClassVar[frozenset[str]] = frozenset(TARGETS)
    """The sensors its pieces sit on: the targets."""
    pending: ClassVar[tuple[perlen.Bonus, ...]] = ()
    """Pyramidos owes no bonus pearls."""

    def legal_cells(self) -> frozenset[str]:
        return frozenset()

    @property
    def last_move(self) -> str | None:
        """The target last landed on."""
        return self.last_landing

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


Game = PerlenGame | PyramidosGame
Options = perlen.PerlenOptions | pyramidos.PyramidosOptions


def new_game(options: Options) -> Game:
    """The game these options are for (each game's options know their game)."""
    from controller.referee.kinds import KINDS  # the kinds build on the games

    return KINDS[options.game].new_game(options)


def read_options(kind: str, seats: int, raw: object) -> Options:
    """The options of a stored game; :class:`perlen.OptionError` or
    :class:`pyramidos.SetupError` when this version cannot read them."""
    from controller.referee.kinds import KINDS

    if not isinstance(raw, dict):
        raise perlen.OptionError("options", "must be an object")
    return KINDS[kind].read_options(seats, raw)


def hidden(position: Position, options: perlen.PerlenOptions) -> bool:
    """A pearl here stays hidden inside the finished pyramid and so scores nothing."""
    return options.score is perlen.Score.VISIBLE and not position.visible
