"""Hints and reviews: the facts a family's sentence is made of, in numbers and cells.

:func:`advise` names the best cell for the player to move and why: the bonus pearls it
wins at once, the ones it takes away from the rivals, and how many pearls it is worth
against the next best cell. :func:`review` goes through a game and says what each move
cost. Neither holds any words: the Table and the web page say them in the family's
language.

>>> from controller.games.perlen.rules import new_game, play
>>> state = new_game()
>>> for cell in "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 a3 b3 c3 d3 e3 a4 b4 c4 d4 e4".split():
...     state, _ = play(state, cell)
>>> advice = advise(state, budget=1.0)
>>> advice.colour, advice.cell.short, advice.value, advice.exact
(2, 'c5', 14.0, True)
>>> [(str(b.position), b.colour) for b in advice.wins], advice.next_best.short, advice.worth
([], 'd5', 1.0)

All values are pearls of the mover's own final score: visible pearls, or every pearl
with ``score = all``. In an endgame the exact search can solve within the budget they
are exact (what the mover can make sure of whatever the rivals do); before it they are
Monte Carlo means, to one decimal.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

from controller.games.perlen.bot.exact import ExactSearch, OutOfBudget, empty_cells
from controller.games.perlen.bot.player import (
    LEVEL_SETTINGS,
    STOP_SHARE,
    check_budget,
    check_state,
    exact_fits,
    exact_limit,
    machine_speed,
    perfect_cells,
    sample,
    speed_for,
)
from controller.games.perlen.pyramid import Pyramid, cells_of, place
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.rules import Bonus, PerlenState, new_game, play
from controller.rules.notation import BASE, Position, parse_cell
from controller.rules.records import ReplayError

EXACT_SHARE = 0.7
"""Share of a hint's budget the exact search may take before sampling takes over."""
ADVISER = LEVEL_SETTINGS["strongest"]
"""Hints and reviews sample games as the strongest level does."""


@dataclass(frozen=True, slots=True)
class Advice:
    """The best cell for the player to move, and the facts that make it best.

    ``wins``, ``gives`` and ``denies`` are :class:`controller.games.perlen.rules.Bonus`
    values, in the order they would be placed:

    - ``wins``: the bonus pearls of the mover's colour that the move earns at once (its
      cascade), ``gives`` the ones of the cascade that go to a rival;
    - ``denies``: what the cell is worth to the rivals now, and the move takes from them:
      for each rival in turn order, the bonus pearls of that rival's colour that a pearl
      of its colour on this cell would earn at once, in the position as it is (the
      next rival could take the cell on its turn; the one after it could too).
    """

    colour: int
    """The mover."""
    cell: Position
    """The best cell found."""
    wins: tuple[Bonus, ...]
    gives: tuple[Bonus, ...]
    denies: tuple[Bonus, ...]
    value: float | None
    """The mover's final score after ``cell``: exact, or a Monte Carlo mean; None for
    the one legal cell (nothing was searched)."""
    equal: tuple[Position, ...]
    """Other cells exactly as good (only an exact search can tell)."""
    next_best: Position | None
    """The best of the cells that are worse, None when there is none."""
    worth: float
    """How many pearls of the mover's final score ``cell`` is worth more than
    ``next_best`` (0 when there is none; never below 0)."""
    exact: bool
    """Whether ``value`` and ``worth`` are exact."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What taking one cell does at once, in bonus pearls (see :class:`Advice`)."""

    wins: tuple[Bonus, ...]
    gives: tuple[Bonus, ...]
    denies: tuple[Bonus, ...]


def bonuses_at(pyramid: Pyramid, cell: int, colour: int) -> tuple[Bonus, ...]:
    """The bonus pearls a pearl of ``colour`` on base cell ``cell`` would set off now."""
    placed: list[Bonus] = []
    place((pyramid[0], pyramid[1], pyramid[2], colour, pyramid[4]), cell, placed)
    return tuple(placed)


def facts(state: PerlenState, cell: Position | str) -> Facts:
    """The bonus pearls the mover wins and gives by taking ``cell``, and those it denies
    its rivals (as :class:`Advice` defines them), for any legal cell.

    >>> from controller.games.perlen.rules import new_game, play
    >>> state = new_game()
    >>> for move in ("a1", "b1", "a2", "c1", "c2"):
    ...     state, _ = play(state, move)
    >>> told = facts(state, "b2")
    >>> [(str(b.position), b.colour) for b in told.wins + told.gives]
    [('2:a1', 2), ('2:b1', 1)]
    >>> [(str(b.position), b.colour) for b in told.denies]
    [('2:a1', 0), ('2:a1', 1), ('2:b1', 1)]
    """
    state = check_state(state)
    pos = cell if isinstance(cell, Position) else parse_cell(cell)
    if not state.legal >> pos.index & 1:
        raise ValueError(f"{pos.short} is not a legal cell for the player to move")
    return _facts(state, pos.index)


def _facts(pyramid: Pyramid, cell: int) -> Facts:
    mover = pyramid[3]
    assert mover is not None
    cascade = bonuses_at(pyramid, cell, mover)
    denies: list[Bonus] = []
    for step in (1, 2):
        rival = (mover + step) % 3
        denies.extend(b for b in bonuses_at(pyramid, cell, rival) if b.colour == rival)
    return Facts(
        tuple(b for b in cascade if b.colour == mover),
        tuple(b for b in cascade if b.colour != mover),
        tuple(denies),
    )


def advise(
    state: PerlenState,
    *,
    budget: float = 1.0,
    seed: int = 0,
    cancel: threading.Event | None = None,
) -> Advice:
    """The best cell for the player to move as far as ``budget`` seconds can tell, and
    why (the same answer each time for the same position and seed on one machine)."""
    started = time.perf_counter()
    state = check_state(state)
    seconds = check_budget(budget)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {seed!r}")
    pyramid: Pyramid = state
    mover = state.to_move
    assert mover is not None
    cells = cells_of(state.legal)

    def advice(
        cell: int,
        value: float | None,
        equal: tuple[int, ...],
        next_best: int | None,
        worth: float,
        exact: bool,
    ) -> Advice:
        told = _facts(pyramid, cell)
        return Advice(
            mover,
            BASE[cell],
            told.wins,
            told.gives,
            told.denies,
            value,
            tuple(BASE[c] for c in equal if c != cell),
            None if next_best is None else BASE[next_best],
            max(0.0, worth),
            exact,
        )

    if len(cells) == 1:
        return advice(cells[0], None, (), None, 0.0, True)
    speed = speed_for(seconds)
    planned = seconds * STOP_SHARE
    rng = random.Random(seed)
    empty = empty_cells(pyramid)
    if exact_fits(empty, planned * EXACT_SHARE, speed):
        search = ExactSearch(
            pyramid[0],
            viewpoint=mover,
            deadline=started + seconds * EXACT_SHARE,
            cancel=cancel,
            max_nodes=exact_limit(planned * EXACT_SHARE, speed),
        )
        try:
            value, perfect = perfect_cells(search, pyramid)
            second, second_cell = search.best_below(pyramid, value, exclude=perfect)
        except OutOfBudget:
            pass
        else:
            cell = perfect[0]
            if len(perfect) > 1:
                result = sample(
                    ADVISER,
                    pyramid,
                    seconds=planned * (1 - EXACT_SHARE),
                    speed=speed,
                    rng=rng,
                    deadline=started + planned,
                    cancel=cancel,
                    only=perfect,
                )
                if result.playouts:
                    cell = result.best.cell
            worth = 0.0 if second is None else float(value - second)
            return advice(cell, float(value), perfect, second_cell, worth, True)
    result = sample(
        ADVISER,
        pyramid,
        seconds=planned,
        speed=speed,
        rng=rng,
        deadline=started + planned,
        cancel=cancel,
    )
    best = result.best
    others = [m for m in result.moves if m.cell != best.cell and m.visits]
    if not others:
        return advice(best.cell, round(best.score, 1) if best.visits else None, (), None, 0, False)
    runner_up = max(others, key=lambda m: (m.visits, m.value))
    worth = round(best.score - runner_up.score, 1)
    return advice(best.cell, round(best.score, 1), (), runner_up.cell, worth, False)


@dataclass(frozen=True, slots=True)
class MoveReview:
    """How one move of a finished (or unfinished) game compares with the best one."""

    number: int
    """Counting from 1, base placements only (as in the record)."""
    colour: int
    played: Position
    best: Position
    """The best cell found (``played`` itself when it was as good)."""
    loss: float
    """Pearls of the mover's own final score the move gave away against ``best`` (≥ 0):
    ``best_value - played_value``."""
    exact: bool
    """Whether the values are exact (what the mover could make sure of whatever the
    rivals did) or Monte Carlo means to one decimal."""
    best_value: float | None = None
    """The mover's final score after ``best`` (None for a forced move: not searched)."""
    played_value: float | None = None
    """The mover's final score after ``played``."""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"number": 3, "colour": 2, "played": "c3", "best": "d4", ...}``."""
        return {
            "number": self.number,
            "colour": self.colour,
            "played": self.played.short,
            "best": self.best.short,
            "loss": self.loss,
            "exact": self.exact,
            "best_value": self.best_value,
            "played_value": self.played_value,
        }


def review(
    record: PerlenRecord,
    *,
    budget_per_move: float = 0.3,
    seed: int = 0,
    cancel: threading.Event | None = None,
) -> list[MoveReview]:
    """Each move of ``record`` against the best move in its position.

    Takes about ``budget_per_move`` seconds for each move before the endgame; the endgame
    is solved exactly, once per colour (one transposition table serves all of its moves).
    The result depends only on the record, the seed and this machine's speed, so callers
    may cache it. Raises :class:`ReplayError` for a record with an illegal move.
    """
    if not isinstance(record, PerlenRecord):
        raise TypeError(f"expected a Perlen-Pyramide record, not {type(record).__name__}")
    seconds = check_budget(budget_per_move, "budget_per_move")
    state = new_game(record.options)
    # One table per colour: each mover is the viewpoint of its own moves' values.
    exact = [ExactSearch(state.rules, viewpoint=colour, cancel=cancel) for colour in range(3)]
    reviews: list[MoveReview] = []
    for number, text in enumerate(record.moves, start=1):
        try:
            played = parse_cell(text)
            after, _ = play(state, played)
        except ValueError as exc:
            raise ReplayError("move", number, text, str(exc)) from None
        mover = state.to_move
        assert mover is not None
        moves_left = len(record.moves) - number + 1
        reviews.append(
            _review_move(state, number, played, exact[mover], seconds, seed, cancel, moves_left)
        )
        state = after
    return reviews


def _review_move(
    state: PerlenState,
    number: int,
    played: Position,
    exact: ExactSearch,
    seconds: float,
    seed: int,
    cancel: threading.Event | None,
    moves_left: int,
) -> MoveReview:
    started = time.perf_counter()
    mover = state.to_move
    assert mover is not None
    pyramid: Pyramid = state
    cells = cells_of(state.legal)
    if len(cells) == 1:
        return MoveReview(number, mover, played, played, 0.0, True)
    speed = machine_speed()  # a review takes seconds: measuring first is worth it
    # Solving the endgame once answers every later move too, so it may take the time
    # of all the moves still to review.
    allowed = seconds * moves_left / 2
    if exact_fits(empty_cells(pyramid), allowed, speed):
        exact.deadline = started + allowed
        exact.max_nodes = exact.nodes + exact_limit(allowed, speed)
        try:
            best = exact.solve(pyramid)
            mine = exact.value(place(pyramid, played.index))
        except OutOfBudget:
            pass
        else:
            assert best.cell is not None
            cell = played.index if mine == best.value else best.cell
            loss = float(best.value - mine)
            return MoveReview(
                number, mover, played, BASE[cell], loss, True, float(best.value), float(mine)
            )
    result = sample(
        ADVISER,
        pyramid,
        seconds=seconds * STOP_SHARE,
        speed=speed,
        rng=random.Random(seed * 1000 + number),
        deadline=started + seconds * STOP_SHARE,
        cancel=cancel,
        focus=played.index,
    )
    # The played cell got its guaranteed quarter of the playouts, so the search's own
    # choice is the most visited of the others; the played move lost nothing unless that
    # one did better on average.
    mine_stats = next(m for m in result.moves if m.cell == played.index)
    rival = max(
        (m for m in result.moves if m.cell != played.index), key=lambda m: (m.visits, m.value)
    )
    loss = round(max(0.0, rival.score - mine_stats.score), 1)
    best_cell = played.index if loss == 0.0 else rival.cell
    best_value = mine_stats.score if loss == 0.0 else rival.score
    return MoveReview(
        number,
        mover,
        played,
        BASE[best_cell],
        loss,
        False,
        round(best_value, 1),
        round(mine_stats.score, 1),
    )
