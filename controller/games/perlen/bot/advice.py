"""Hints and reviews: the facts a family's sentence is made of, in numbers and cells.

:func:`advise` names the best cell for the player to move and why: the bonus pearls it
wins at once, the ones it takes away from the rivals, and how many pearls it is worth
against the next best cell. :func:`review` goes through a game and says of each move
whether it was the best, about as good, or what it surely cost. Both compare positions
up to the board's eight turns and mirror images, and say that a cell is worse than
another only when they are sure of it. Neither holds any words: the Table and the web
page say them in the family's language.

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

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.games.perlen.bot.compare import compare, means, position_seed
from controller.games.perlen.bot.exact import ExactSearch, OutOfBudget, empty_cells
from controller.games.perlen.bot.player import (
    LEVEL_SETTINGS,
    STOP_SHARE,
    Speed,
    affordable_playouts,
    check_budget,
    check_state,
    exact_fits,
    exact_limit,
    perfect_cells,
    sample,
    speed_for,
)
from controller.games.perlen.pyramid import (
    Canonical,
    Pyramid,
    canonical,
    cells_of,
    distinct_cells,
    place,
    turned,
)
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.rules import Bonus, PerlenState, new_game, play
from controller.rules.notation import BASE, Position, parse_cell
from controller.rules.records import ReplayError

EXACT_SHARE = 0.7
"""Share of a hint's budget the exact search may take before sampling takes over."""
TREE_SHARE = 0.75
"""Share of a sampled hint's budget that finds the best cell; the rest tells how sure it
is that the best is better than the next best."""
ADVISER = LEVEL_SETTINGS["strongest"]
"""A hint searches as the strongest level does; hints and reviews play their compared
games as its playouts do (half the moves greedy)."""


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
    ``next_best`` (0 when there is none, or when that is not sure; never below 0)."""
    exact: bool
    """Whether ``value`` and ``worth`` are exact."""
    sure: bool = True
    """Whether ``cell`` is surely better than ``next_best``: exactly, or sampled with a
    99 % interval of the difference above zero. When it is not, ``next_best`` is about
    as good, and ``worth`` is 0."""


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
    speed: Speed | None = None,
    timed: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Advice:
    """The best cell for the player to move as far as ``budget`` seconds can tell, and
    why (the same answer each time for the same position and seed on one machine, and
    the turned or mirrored answer for a turned or mirrored position: it searches the
    position's :func:`~controller.games.perlen.pyramid.canonical` image).

    Sampled, its worth against the next best cell is said only when sure: the same
    games after both (:mod:`.compare`) put the 99 % interval of the difference above
    zero. ``speed`` and ``timed=False`` plan the work at a given speed and let it run
    to the end (as :func:`~controller.games.perlen.bot.player.decide`'s do); ``clock``
    is what the budget is kept on (:func:`time.perf_counter` unless a test passes a
    virtual one)."""
    started = clock()
    state = check_state(state)
    seconds = check_budget(budget)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {seed!r}")
    mover = state.to_move
    assert mover is not None
    cells = cells_of(state.legal)
    seen = canonical(state)
    pyramid = seen.pyramid

    def advice(
        cell: int,
        value: float | None,
        equal: tuple[int, ...],
        next_best: int | None,
        worth: float,
        exact: bool,
        sure: bool = True,
    ) -> Advice:
        """The advice for ``cell`` and the others, all cells of the image."""
        told = _facts(state, seen.back(cell))
        return Advice(
            mover,
            BASE[seen.back(cell)],
            told.wins,
            told.gives,
            told.denies,
            value,
            tuple(sorted((BASE[seen.back(c)] for c in equal if c != cell), key=_reading)),
            None if next_best is None else BASE[seen.back(next_best)],
            max(0.0, worth),
            exact,
            sure,
        )

    if len(cells) == 1:
        return advice(seen.cell(cells[0]), None, (), None, 0.0, True)
    if speed is None:
        speed = speed_for(seconds)
    planned = seconds * STOP_SHARE
    rng = random.Random(position_seed(pyramid, seed, 0))
    empty = empty_cells(pyramid)
    if exact_fits(empty, planned * EXACT_SHARE, speed):
        search = ExactSearch(
            pyramid[0],
            viewpoint=mover,
            deadline=started + seconds * EXACT_SHARE if timed else None,
            cancel=cancel,
            max_nodes=exact_limit(planned * EXACT_SHARE, speed),
            clock=clock,
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
                    deadline=started + planned if timed else None,
                    cancel=cancel,
                    only=perfect,
                    clock=clock,
                )
                if result.playouts:
                    cell = result.best.cell
            worth = 0.0 if second is None else float(value - second)
            return advice(cell, float(value), perfect, second_cell, worth, True)
    result = sample(
        ADVISER,
        pyramid,
        seconds=planned * TREE_SHARE,
        speed=speed,
        rng=rng,
        deadline=started + planned * TREE_SHARE if timed else None,
        cancel=cancel,
        clock=clock,
    )
    best = result.best
    others = [m for m in result.moves if m.cell != best.cell and m.visits]
    if not others:
        return advice(best.cell, round(best.score, 1) if best.visits else None, (), None, 0, False)
    runner_up = max(others, key=lambda m: (m.visits, m.value))
    games = affordable_playouts(planned * (1 - TREE_SHARE), speed, ADVISER.greedy, empty)
    told = compare(
        pyramid,
        best.cell,
        runner_up.cell,
        pairs=max(2, games // 2),
        seed=position_seed(pyramid, seed, 2),
        rollout=ADVISER.rollout(),
        deadline=started + planned if timed else None,
        cancel=cancel,
        clock=clock,
    )
    worth = round(told.mean, 1) if told.sure else 0.0
    return advice(best.cell, round(best.score, 1), (), runner_up.cell, worth, False, told.sure)


def _reading(position: Position) -> int:
    return position.index


BEST = "best"
"""A move as good as the best found: the best itself, one alike to it by a turn or mirror
image of the position, or (exactly solved) one worth just as much."""
CLOSE = "close"
"""A move about as good as the best found: the sampled games cannot tell it is worse."""
COSTLY = "costly"
"""A move surely worse than the best found: exactly, or by a 99 % interval above zero."""
SCREEN_SHARE = 0.5
"""Share of a sampled move's games that find the best move; the rest compare it with
the move played."""
REVIEW_SPEED = Speed(playouts_per_second=20_000, nodes_per_second=60_000)
"""The speed a review plans its work at (unless the caller gives another): a reference,
not this machine's, so that a review is a fixed amount of work. (About the development
machine's speed with other work running: it measures 25,000–28,000 playouts and about
100,000 exact positions a second when quiet; docs/performance.md.)

Why a fixed amount and not, as a move or a hint, the measured speed: a review is read,
not waited for, and it is read again. The history page shows it (``web_ui/reviews.py``),
which keeps reviews in memory only, so a game is reviewed afresh after every restart.
Planned from the speed measured at start (0.3 s, under whatever load the machine had),
the same game could have a move called costly before a restart and about as good after
it, and a Pi would tell a family less than the development machine does, from the same
moves. Planned at a reference speed, the same game gets the same review on any machine,
after any restart and under any load; a slower machine takes longer for it instead
(docs/performance.md has the seconds: a 25-move game at the page's 0.25 s a move takes
about a second here, three or four times as long on a Pi 4). A review can afford
that: it runs on a background thread from the moment the game ends, and the replay page
waits for it. A move and a hint cannot: a family waits for them, so they plan from the
measured speed and keep their budget."""


@dataclass(frozen=True, slots=True)
class MoveReview:
    """How one move of a finished (or unfinished) game compares with the best one."""

    number: int
    """Counting from 1, base placements only (as in the record)."""
    colour: int
    played: Position
    best: Position
    """The best cell found (``played`` itself when it is as good: :data:`BEST`)."""
    loss: float
    """Pearls of the mover's own final score the move gave away against ``best``: above
    0 only when the move is :data:`COSTLY` (then exact, or the sampled mean)."""
    exact: bool
    """Whether the values are exact (what the mover could make sure of whatever the
    rivals did) or means of sampled games."""
    best_value: float | None = None
    """The mover's final score after ``best`` (None when not searched: a forced move, or
    every cell alike)."""
    played_value: float | None = None
    """The mover's final score after ``played``."""
    verdict: str = BEST
    """:data:`BEST`, :data:`CLOSE` or :data:`COSTLY`."""
    low: float | None = None
    """Sampled and compared: the low end of the 99 % interval of ``best``'s worth more
    than ``played``'s (above 0 for a costly move), in pearls."""
    high: float | None = None
    """… and its high end."""

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
            "verdict": self.verdict,
            "low": self.low,
            "high": self.high,
        }


def review(
    record: PerlenRecord,
    *,
    budget_per_move: float = 0.3,
    seed: int = 0,
    cancel: threading.Event | None = None,
    speed: Speed | None = None,
    timed: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> list[MoveReview]:
    """Each move of ``record`` against the best move in its position.

    Positions are compared up to their eight turns and mirror images: cells alike in a
    position are one move (a move that is the mirror image of the best is the best),
    and every position is searched as its :func:`~controller.games.perlen.pyramid.canonical`
    image, its games seeded from that image, so a game turned or mirrored gets the same
    review. A move is :data:`COSTLY` only when that is sure: exactly, where the endgame
    is solved (once per colour: one transposition table serves all of its moves), and
    before it when the 99 % interval of the best move's worth more than the played
    one's lies above zero (:mod:`.compare`: the same games after both); otherwise it is
    :data:`CLOSE`.

    The work is what ``budget_per_move`` seconds for each move before the endgame hold
    at ``speed`` (:data:`REVIEW_SPEED` by default: a fixed amount of work, whose reasons
    it gives), and it is then done, however long this machine takes for it, so the
    result depends only on the record, the seed and the speed, on any machine and after
    any restart, and callers may cache it. ``timed=True`` stops each search at its
    budget on ``clock`` instead (:func:`time.perf_counter` unless a test passes a
    virtual one), at the price of that. Stops early, with the moves reviewed so far,
    once ``cancel`` is set. Raises :class:`ReplayError` for a record with an illegal
    move.
    """
    if not isinstance(record, PerlenRecord):
        raise TypeError(f"expected a Perlen-Pyramide record, not {type(record).__name__}")
    seconds = check_budget(budget_per_move, "budget_per_move")
    if speed is None:
        speed = REVIEW_SPEED
    state = new_game(record.options)
    # One table per colour: each mover is the viewpoint of its own moves' values.
    searches = [
        ExactSearch(state.rules, viewpoint=colour, cancel=cancel, clock=clock)
        for colour in range(3)
    ]
    work = _Work(searches, seconds, seed, cancel, speed, timed, clock)
    reviews: list[MoveReview] = []
    for number, text in enumerate(record.moves, start=1):
        try:
            played = parse_cell(text)
            after, _ = play(state, played)
        except ValueError as exc:
            raise ReplayError("move", number, text, str(exc)) from None
        moves_left = len(record.moves) - number + 1
        reviewed = _review_move(state, number, played, work, moves_left)
        if cancel is not None and cancel.is_set():
            break
        reviews.append(reviewed)
        state = after
    return reviews


class _Work:
    """What a review's moves share: the exact searches, the budget, the clock and the
    frame."""

    def __init__(
        self,
        exact: list[ExactSearch],
        seconds: float,
        seed: int,
        cancel: threading.Event | None,
        speed: Speed,
        timed: bool,
        clock: Callable[[], float],
    ) -> None:
        self.exact = exact
        self.seconds = seconds
        self.seed = seed
        self.cancel = cancel
        self.speed = speed
        self.timed = timed
        self.clock = clock
        self.frame: tuple[int, ...] | None = None
        """The symmetry the exact searches see the game in: the canonical one of the
        first position solved, kept for the later ones so that the tables serve them."""


def _review_move(
    state: PerlenState, number: int, played: Position, work: _Work, moves_left: int
) -> MoveReview:
    started = work.clock()
    mover = state.to_move
    assert mover is not None
    if len(cells_of(state.legal)) == 1:
        return MoveReview(number, mover, played, played, 0.0, True)
    seen = canonical(state)
    choices = distinct_cells(seen.pyramid[2], cells_of(seen.pyramid[4]))
    if len(choices) == 1:  # every cell alike (the first pearl with ``start = centre``)
        return MoveReview(number, mover, played, played, 0.0, True)
    # Solving the endgame once answers every later move too, so it may take the time
    # of all the moves still to review.
    allowed = work.seconds * moves_left / 2
    if exact_fits(empty_cells(state), allowed, work.speed):
        exact = work.exact[mover]
        if work.frame is None:
            work.frame = seen.symmetries[0]
        frame = work.frame
        pyramid = turned(state, frame)
        exact.deadline = started + allowed if work.timed else None
        exact.max_nodes = exact.nodes + exact_limit(allowed, work.speed)
        try:
            best = exact.solve(pyramid)
            mine = exact.value(place(pyramid, frame[played.index]))
        except OutOfBudget:
            pass
        else:
            assert best.cell is not None
            if mine == best.value:
                value = float(mine)
                return MoveReview(number, mover, played, played, 0.0, True, value, value)
            return MoveReview(
                number,
                mover,
                played,
                BASE[frame.index(best.cell)],
                float(best.value - mine),
                True,
                float(best.value),
                float(mine),
                COSTLY,
            )
    return _sampled(seen, choices, number, played, work, started)


def _sampled(
    seen: Canonical,
    choices: tuple[int, ...],
    number: int,
    played: Position,
    work: _Work,
    started: float,
) -> MoveReview:
    """The played move against the best of the sampled games: the best found by the same
    games after every cell, then compared with the played one by games of their own (so
    that picking the best of many does not make it look better than it is). The played
    move is the best when it does as well as that one in those games."""
    pyramid = seen.pyramid
    mover = pyramid[3]
    assert mover is not None
    mine = seen.cell(played.index)
    rollout = ADVISER.rollout()
    planned = work.seconds * STOP_SHARE
    games = affordable_playouts(planned, work.speed, ADVISER.greedy, empty_cells(pyramid))
    found, _ = means(
        pyramid,
        choices,
        playouts=max(2, int(games * SCREEN_SHARE) // len(choices)),
        seed=position_seed(pyramid, work.seed, 1),
        rollout=rollout,
        deadline=started + planned * SCREEN_SHARE if work.timed else None,
        cancel=work.cancel,
        clock=work.clock,
    )
    best = max(choices, key=lambda cell: found[cell])  # the first of equals
    if best == mine:
        value = round(found[mine], 1)
        return MoveReview(number, mover, played, played, 0.0, False, value, value)
    told = compare(
        pyramid,
        best,
        mine,
        pairs=max(2, int(games * (1 - SCREEN_SHARE)) // 2),
        seed=position_seed(pyramid, work.seed, 2),
        rollout=rollout,
        deadline=started + planned if work.timed else None,
        cancel=work.cancel,
        clock=work.clock,
    )
    if told.mean <= 0:  # the played move did as well in games of their own: the best
        value = round(told.second, 1)
        return MoveReview(number, mover, played, played, 0.0, False, value, value)
    return MoveReview(
        number,
        mover,
        played,
        BASE[seen.back(best)],
        max(0.1, round(told.mean, 1)) if told.sure else 0.0,
        False,
        round(told.first, 1),
        round(told.second, 1),
        COSTLY if told.sure else CLOSE,
        round(told.low, 2) if math.isfinite(told.low) else None,
        round(told.high, 2) if math.isfinite(told.high) else None,
    )
