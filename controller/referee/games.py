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

from dataclasses import dataclass

from controller.rules import perlen, pyramidos
from controller.rules.notation import BASE, NotationError, Position


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
    if isinstance(options, perlen.PerlenOptions):
        return PerlenGame.new(options)
    return PyramidosGame.new(options)


def read_options(kind: str, seats: int, raw: object) -> Options:
    """The options of a stored game; :class:`perlen.OptionError` or
    :class:`pyramidos.SetupError` when this version cannot read them."""
    if not isinstance(raw, dict):
        raise perlen.OptionError("options", "must be an object")
    if kind == "perlen-pyramide":
        return perlen.PerlenOptions.from_dict(raw)
    return pyramidos.PyramidosOptions.from_dict(seats, raw)


def hidden(position: Position, options: perlen.PerlenOptions) -> bool:
    """A pearl here stays hidden inside the finished pyramid and so scores nothing."""
    return options.score is perlen.Score.VISIBLE and not position.visible
