"""The computer player: levels and a move within a time budget.

(Longer than most modules: the levels, the speed they plan with and the one place
that turns a level, a budget and a speed into a move belong together.)

>>> from controller.games.perlen.rules import new_game, play, legal_moves
>>> state = new_game()
>>> for cell in ("c3", "d4", "d3"):
...     state, _ = play(state, cell)
>>> move = choose_move(state, "easy", seed=7)
>>> move in legal_moves(state)
True
>>> choose_move(state, "medium", seed=7) == choose_move(state, "medium", seed=7)
True

Levels, gentlest first (:data:`LEVELS`; :data:`LEVEL_SETTINGS` holds what each does):

- ``gentle``: for children. Mostly a random cell among the sensible ones (those that
  hand no rival a bonus pearl), now and then the greedy cell.
- ``easy``: the greedy cell (most pearls for itself now, fewest for the others), with an
  occasional random sensible cell.
- ``medium``: for each cell, a couple of hundred random games played on from it (flat
  Monte Carlo), and perfect play (:mod:`controller.games.perlen.bot.exact`) for the last 6 empty
  cells; one move in seven before that is a random sensible cell.
- ``strong``: the same with games in which half the moves are greedy (more like the
  games people play), over a thousand per move, and perfect play for the last 9; also
  one slip in five before that (the slips keep the levels apart: see
  docs/performance.md).
- ``strongest``: no slips; a tree of its own moves seven deep, in which the rivals
  move as the playouts model them (half greedy), filled with as many games as its 5 s
  allow, and perfect play against rivals who move so (:mod:`controller.games.perlen.bot.expectimax`)
  as soon as that fits the budget (10 empty cells on the development machine; fewer on
  a Pi). Not the exact search's perfect play against perfect rivals: people are not
  the rivals who join forces against the mover that it assumes, and against people-like
  rivals its safe cells win less (docs/performance.md has the figures).

Each level is meant to beat the one below it, and the strongest greedy players;
``bench/bot.py`` measures how far that holds (docs/performance.md has the matrix).

**Value.** The exact search makes sure of as many of the mover's own final pearls
(visible pearls, or all with ``score = all``) as it can whatever the rivals do; the
sampled games, and the strongest's endgame against modelled rivals, play to win, and
for more pearls among equally winning moves. Why the
lower levels sample flat and the strongest's tree models its rivals instead of
searching their best replies: against people-like rivals a tree that expects the best
reply expects rivals cleverer than they are, and plays worse.

**Time.** A level's ``budget`` is what a family waits, on any machine: the work it plans
(playouts, whether to solve exactly) is the budget times this machine's measured speed.
A move always arrives within its budget: every search looks at the clock as it goes and
stops at 80 % of it (an exact search that overruns its share gives up at 60 % and the
rest goes to sampling). The clock is :func:`time.perf_counter` unless the caller passes
another (``clock``): the tests pass a virtual one, a model of a machine of known speed,
so that "within its budget" is a property of the code they check on any machine under
any load.

**Determinism.** Work is counted, not timed. A level's playouts (the budget times this
machine's speed, rounded down to 50 × a power of two) and whether the exact search may
run are fixed before searching, from a speed measured once per process
(:func:`machine_speed`; best called once at start), and all randomness comes from
``random.Random(seed)``. So on one machine the same position, level, seed and budget give
the same move. Two things can change that: a search cut short by the clock or a cancel
(:attr:`Decision.complete` is then False), and a move asked for before the speed was
measured, with a budget under half a second (it plans with :data:`SLOW_SPEED`).
``seed=None`` draws a fresh seed, so that games differ. ``bench/bot.py`` passes a fixed
``speed`` and ``timed=False``, so that its matches do not depend on the machine's load.
"""

from __future__ import annotations

import contextlib
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from controller.games.perlen.bot import mcts
from controller.games.perlen.bot.exact import MARGIN, OWN, ExactSearch, OutOfBudget, empty_cells
from controller.games.perlen.bot.expectimax import WORK as MODEL_WORK
from controller.games.perlen.bot.expectimax import ModelSearch
from controller.games.perlen.bot.policies import (
    greedy_move,
    greedy_playout,
    model_move,
    playout,
    sensible_moves,
)
from controller.games.perlen.pyramid import Pyramid, cells_of, place
from controller.games.perlen.rules import PerlenState, legal_moves, new_game, play
from controller.rules.notation import BASE, Position

log = logging.getLogger(__name__)

LEVELS: tuple[str, ...] = ("gentle", "easy", "medium", "strong", "strongest")
"""Names of the levels, gentlest first: the one list the Table and the web page offer."""
PERFECT = "perfect"
"""A level's endgame is perfect against perfect rivals (:attr:`Level.against`)."""
MODEL = "model"
"""A level's endgame is perfect against rivals as its playouts model them."""


@dataclass(frozen=True, slots=True)
class Level:
    """What a level does. The named levels are in :data:`LEVEL_SETTINGS`; tests and
    ``bench/bot.py`` may build their own."""

    name: str
    budget: float
    """Seconds per move when the caller gives none: what a family waits."""
    share: float | None
    """Share of the budget that Monte Carlo playouts fill at this machine's speed: 0
    plays the greedy cell without searching, None fills it all (as many as fit)."""
    exact_empty: int
    """Play perfectly once at most this many base cells are empty (if it fits the budget)."""
    wander: float = 0.0
    """Chance of playing a random sensible cell instead (a slip that makes the level a
    step easier; none once the level plays perfectly)."""
    exploration: float = mcts.EXPLORATION
    """UCT's exploration weight."""
    depth: int = 25
    """How many moves from the root the tree may grow (1: flat Monte Carlo)."""
    model: bool = False
    """Whether the tree follows the rivals' moves as the playouts model them (chosen
    like the playouts' moves) instead of searching the rivals' best."""
    bias: float = 0.0
    """Progressive bias of the tree search towards moves that gain pearls at once."""
    score_weight: float = mcts.SCORE_WEIGHT
    """How much a playout's result counts the mover's share of the pearls, rather than
    its share of the win."""
    measure: str = OWN
    """What the exact search makes sure of: the mover's own final score (:data:`OWN`),
    or its lead over the better rival (:data:`MARGIN`)."""
    greedy: float = 0.0
    """Chance that a playout move is the greedy cell rather than a random one (greedy
    playouts cost several random ones: :func:`playout_cost`)."""
    against: str = PERFECT
    """Whom the endgame is played perfectly against: rivals who play perfectly together
    against the mover (:data:`PERFECT`, :mod:`.exact`), or rivals who move as the playouts
    model them (:data:`MODEL`, :mod:`.expectimax`: the greedy cell with chance
    :attr:`greedy`, else any)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.budget) and self.budget > 0):
            raise ValueError(f"level {self.name!r}: budget must be a positive number of seconds")
        if self.share is not None and not 0.0 <= self.share <= 1.0:
            raise ValueError(f"level {self.name!r}: share must be between 0 and 1")
        if not 0 <= self.exact_empty <= len(BASE):
            raise ValueError(f"level {self.name!r}: exact_empty must be 0 to {len(BASE)}")
        if not 0.0 <= self.wander <= 1.0:
            raise ValueError(f"level {self.name!r}: wander is a chance between 0 and 1")
        if not (math.isfinite(self.exploration) and self.exploration >= 0):
            raise ValueError(f"level {self.name!r}: exploration must not be negative")
        if self.measure not in (OWN, MARGIN):
            raise ValueError(f"level {self.name!r}: measure must be {OWN!r} or {MARGIN!r}")
        if not 0.0 <= self.greedy <= 1.0:
            raise ValueError(f"level {self.name!r}: greedy is a chance between 0 and 1")
        if self.against not in (PERFECT, MODEL):
            raise ValueError(f"level {self.name!r}: against must be {PERFECT!r} or {MODEL!r}")

    def rivals_model(self) -> Callable[[Pyramid, Callable[[], float]], int]:
        """How the tree expects a rival to move, with :attr:`model`."""
        greedy = self.greedy
        return lambda pyramid, random: model_move(pyramid, random, greedy)

    def rollout(self) -> mcts.Rollout:
        """The playout its searches use."""
        if not self.greedy:
            return playout
        greedy = self.greedy
        return lambda pyramid, random: greedy_playout(pyramid, random, greedy)


LEVEL_SETTINGS: Mapping[str, Level] = {
    "gentle": Level("gentle", budget=0.5, share=0.0, exact_empty=0, wander=0.7),
    "easy": Level("easy", budget=0.5, share=0.0, exact_empty=0, wander=0.15),
    "medium": Level("medium", budget=1.0, share=0.03, exact_empty=6, wander=0.15, depth=1),
    "strong": Level(
        "strong",
        budget=2.0,
        share=0.2,
        exact_empty=9,
        wander=0.2,
        depth=1,
        greedy=0.5,
        bias=1.0,
    ),
    "strongest": Level(
        "strongest",
        budget=5.0,
        share=None,
        exact_empty=25,
        depth=7,
        model=True,
        greedy=0.5,
        bias=1.0,
        against=MODEL,
    ),
}
"""The levels by name, in the order of :data:`LEVELS`."""

# Positions the exact search expands for n empty base cells: the 90th percentile of
# random positions (bench/bot.py prints how long they take); about threefold per cell.
EXACT_WORK: tuple[float, ...] = (
    0,
    1,
    3,
    7,
    17,
    57,
    150,
    410,
    1.1e3,
    2.8e3,
    1e4,
    3.7e4,
    1.5e5,
    2.2e5,
    8e5,
    3e6,
    *([math.inf] * 10),
)
SAFE_SHARE = 0.6
"""Share of the budget the planned work should take at the measured speed; the rest is
headroom for a busy machine."""
STOP_SHARE = 0.8
"""Share of the budget after which every search stops, whatever it planned (the rest
covers the last look at the clock and a busy machine taking the processor away)."""
EXACT_SHARE = 0.6
"""Share of the budget after which an exact search gives up, leaving time to sample."""
ROUND_PLAYOUTS = 50
"""Playouts are planned as this many (or one and a half times this many) times a power
of two."""
CALIBRATION_EMPTY = 19
"""Empty cells of the opening :func:`measure_speed` times its playouts from."""


@dataclass(frozen=True, slots=True)
class Speed:
    """How fast this machine searches."""

    playouts_per_second: float
    """Monte Carlo playouts from an early middle game, tree work included."""
    nodes_per_second: float
    """Positions the exact search expands (each with every child placed)."""


_speed_lock = threading.Lock()
_speed: Speed | None = None


def measure_speed(seconds: float = 0.3) -> Speed:
    """Time both searches on fixed positions for about ``seconds``."""
    opening, endgame = _calibration_positions()
    half = max(seconds, 0.02) / 2
    started = time.perf_counter()
    result = mcts.search(opening, playouts=10**9, rng=random.Random(0), deadline=started + half)
    playout_rate = result.playouts / (time.perf_counter() - started)
    mover = endgame[3]
    assert mover is not None
    exact = ExactSearch(endgame[0], viewpoint=mover, deadline=time.perf_counter() + half)
    started = time.perf_counter()
    with contextlib.suppress(OutOfBudget):  # it need not finish: its pace is the measure
        exact.solve(endgame)
    node_rate = exact.nodes / (time.perf_counter() - started)
    return Speed(max(playout_rate, 1.0), max(node_rate, 1.0))


def _calibration_positions() -> tuple[Pyramid, Pyramid]:
    rng = random.Random(20240601)
    state = new_game()
    opening: Pyramid | None = None
    while state.base_pearls < 25 - 13:  # the endgame: 13 empty cells
        state, _ = play(state, rng.choice(legal_moves(state)))
        if state.base_pearls == 25 - CALIBRATION_EMPTY:
            opening = state
    assert opening is not None
    return opening, state


def machine_speed(seconds: float = 0.3) -> Speed:
    """:func:`measure_speed` once per process (the first caller pays ``seconds``).

    Call it once at start (``pyramid run``, a worker thread) so that no move pays for it.
    """
    global _speed
    with _speed_lock:
        if _speed is None:
            _speed = measure_speed(seconds)
        return _speed


MIN_MEASURE = 0.1
"""Seconds below which a speed measurement says too little to keep for the process."""
SLOW_SPEED = Speed(playouts_per_second=2_000, nodes_per_second=10_000)
"""What a move plans with when its budget is too short to measure the speed and nobody
has measured it yet: about a Raspberry Pi 3, so the plan fits any Pi."""


def speed_for(seconds: float) -> Speed:
    """The measured speed, measuring it now with a fifth of ``seconds`` (at most 0.3 s)
    unless that is too short to be worth keeping."""
    share = min(0.3, seconds * 0.2)
    with _speed_lock:
        known = _speed
    if known is not None:
        return known
    return machine_speed(share) if share >= MIN_MEASURE else SLOW_SPEED


@dataclass(frozen=True, slots=True)
class Decision:
    """A chosen move and how it was found."""

    move: Position
    method: str
    """``"forced"`` (one legal cell), ``"quick"`` (gentle, easy), ``"exact"`` or ``"search"``."""
    expected: float | None
    """The mover's final score the search expects after ``move`` (certain when the
    endgame was played perfectly against perfect rivals; None when against modelled
    ones, whose search weighs the chance of winning, not pearls)."""
    playouts: int
    nodes: int
    """Positions the exact search expanded."""
    seconds: float
    """How long the decision took on the clock it was kept on."""
    complete: bool
    """False when the clock or a cancel cut the planned work short."""


def level_named(level: str | Level) -> Level:
    """The :class:`Level` of a name in :data:`LEVELS` (a Level is returned as it is)."""
    if isinstance(level, Level):
        return level
    try:
        return LEVEL_SETTINGS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown level {level!r}; the levels are {', '.join(LEVELS)}") from None


def check_budget(budget: object, what: str = "budget") -> float:
    """``budget`` as seconds; ValueError unless it is a positive finite number."""
    if (
        isinstance(budget, bool)
        or not isinstance(budget, int | float)
        or not math.isfinite(budget)
        or budget <= 0
    ):
        raise ValueError(f"{what} must be a positive number of seconds, not {budget!r}")
    return float(budget)


def check_state(state: object) -> PerlenState:
    """``state`` if it is a game in progress; TypeError or ValueError otherwise."""
    if not isinstance(state, PerlenState):
        raise TypeError(f"expected a Perlen-Pyramide state, not {type(state).__name__}")
    if state.to_move is None:
        raise ValueError("the pyramid is complete: there is no move to choose")
    return state


def check_seed(seed: object) -> int:
    """``seed``, or a fresh one for None; ValueError for anything but an int."""
    if seed is None:
        return random.SystemRandom().randrange(2**63)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int or None, not {seed!r}")
    return seed


def playout_cost(greedy: float, empty: int = CALIBRATION_EMPTY) -> float:
    """What a playout from a position with ``empty`` empty cells costs, with this chance
    of greedy moves, in the playouts :attr:`Speed.playouts_per_second` counts (random
    ones from :data:`CALIBRATION_EMPTY` empty cells): a playout's length is its empty
    cells, and a greedy move places every legal cell to compare them (measured: half
    greedy costs three random ones)."""
    return (1.0 + 4.0 * greedy) * max(empty, 2) / CALIBRATION_EMPTY


def affordable_playouts(
    seconds: float, speed: Speed, greedy: float = 0.0, empty: int = CALIBRATION_EMPTY
) -> int:
    """As many playouts as fit in ``seconds`` with headroom, rounded down to 50 or 75
    times a power of two so that a slightly different speed measurement seldom changes
    the work (and the move)."""
    affordable = seconds * SAFE_SHARE * speed.playouts_per_second / playout_cost(greedy, empty)
    playouts = ROUND_PLAYOUTS
    while playouts * 2 <= affordable:
        playouts *= 2
    return playouts * 3 // 2 if playouts * 3 // 2 <= affordable else playouts


def exact_fits(empty: int, seconds: float, speed: Speed) -> bool:
    """Whether the exact search of a position with ``empty`` empty cells should finish
    in ``seconds`` (nine positions in ten do, at ``speed``)."""
    return EXACT_WORK[empty] / speed.nodes_per_second <= seconds


def model_fits(empty: int, seconds: float, speed: Speed) -> bool:
    """Whether the search against modelled rivals of a position with ``empty`` empty
    cells should finish in ``seconds`` at ``speed`` (it expands a position about as fast
    as the exact search does)."""
    return empty < len(MODEL_WORK) and MODEL_WORK[empty] / speed.nodes_per_second <= seconds


def exact_limit(seconds: float, speed: Speed) -> int:
    """The positions an exact search may expand in ``seconds`` at ``speed`` (it also
    proves which other cells are as good, hence the 1.5)."""
    return int(1.5 * seconds * speed.nodes_per_second) + 1000


def perfect_cells(search: ExactSearch, pyramid: Pyramid) -> tuple[int, tuple[int, ...]]:
    """The exact value for the player to move (the search's viewpoint) and every cell
    that reaches it, in reading order."""
    best = search.solve(pyramid)
    assert best.cell is not None
    perfect = [best.cell]
    for cell in cells_of(pyramid[4]):
        if cell != best.cell and search.at_least(place(pyramid, cell), best.value):
            perfect.append(cell)
    return best.value, tuple(sorted(perfect))


def sample(
    spec: Level,
    pyramid: Pyramid,
    *,
    seconds: float,
    speed: Speed,
    rng: random.Random,
    deadline: float | None,
    cancel: threading.Event | None,
    only: tuple[int, ...] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> mcts.SearchResult:
    """The sampled games of ``spec`` from ``pyramid``: as many as its share of
    ``seconds`` holds at ``speed``."""
    share = 1.0 if spec.share is None else spec.share
    return mcts.search(
        pyramid,
        playouts=affordable_playouts(seconds * share, speed, spec.greedy, empty_cells(pyramid)),
        rng=rng,
        deadline=deadline,
        cancel=cancel,
        only=only,
        exploration=spec.exploration,
        score_weight=spec.score_weight,
        bias=spec.bias,
        depth=spec.depth,
        rollout=spec.rollout(),
        rivals=spec.rivals_model() if spec.model else None,
        clock=clock,
    )


def decide(
    state: PerlenState,
    level: str | Level = "strong",
    *,
    seed: int | None = None,
    budget: float | None = None,
    cancel: threading.Event | None = None,
    speed: Speed | None = None,
    timed: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """:func:`choose_move`, telling how the move was found.

    ``speed`` plans with the given speed instead of this machine's, and ``timed=False``
    lets every search do its planned work however long it takes (``bench/bot.py`` uses
    both, so that a match does not depend on the machine's load). ``clock`` is what the
    budget is kept on (:attr:`Decision.seconds` is measured on it): every search's
    deadline is an instant of it.
    """
    started = clock()
    state = check_state(state)
    spec = level_named(level)
    seconds = spec.budget if budget is None else check_budget(budget)
    rng = random.Random(check_seed(seed))
    stop_at = started + seconds * STOP_SHARE if timed else None
    legal = legal_moves(state)
    pyramid: Pyramid = state
    mover = state.to_move
    assert mover is not None

    def done(
        cell: int,
        method: str,
        expected: float | None,
        playouts: int = 0,
        nodes: int = 0,
        complete: bool = True,
    ) -> Decision:
        move = BASE[cell]
        if move not in legal:  # the searches use the engine's own rules; belt and braces
            log.error("bot chose %s, which is not legal; playing %s", move, legal[0])
            move = legal[0]
        return Decision(move, method, expected, playouts, nodes, clock() - started, complete)

    if len(legal) == 1:
        return done(legal[0].index, "forced", None)
    # A level's slips (``wander``) stop where its perfect play begins.
    empty = empty_cells(pyramid)
    if spec.wander and empty > spec.exact_empty and rng.random() < spec.wander:
        sensible = sensible_moves(pyramid)
        return done(sensible[int(rng.random() * len(sensible))], "quick", None)
    if spec.share == 0:
        return done(greedy_move(pyramid, rng), "quick", None)

    if speed is None:
        speed = speed_for(seconds)
    # Plan from the whole budget, not from what the first call's speed measurement left
    # of it, so that the first call plans the same work as every later one.
    planned = seconds * STOP_SHARE
    nodes = 0
    if spec.against == MODEL:
        if empty <= spec.exact_empty and model_fits(empty, seconds * EXACT_SHARE, speed):
            model = ModelSearch(
                pyramid[0],
                viewpoint=mover,
                greedy=spec.greedy,
                score_weight=spec.score_weight,
                deadline=started + seconds * EXACT_SHARE if timed else None,
                cancel=cancel,
                max_positions=exact_limit(seconds * EXACT_SHARE, speed),
                clock=clock,
            )
            try:
                expected = model.solve(pyramid)
            except OutOfBudget:
                nodes = model.positions  # fall back to sampling with the time left
            else:
                return done(expected.cell, "exact", None, nodes=model.positions)
    elif empty <= spec.exact_empty and exact_fits(empty, seconds * EXACT_SHARE, speed):
        exact = ExactSearch(
            pyramid[0],
            viewpoint=mover,
            measure=spec.measure,
            deadline=started + seconds * EXACT_SHARE if timed else None,
            cancel=cancel,
            max_nodes=exact_limit(seconds * EXACT_SHARE, speed),
            clock=clock,
        )
        try:
            value, perfect = perfect_cells(exact, pyramid)
        except OutOfBudget:
            nodes = exact.nodes  # fall back to sampling with the time left
        else:
            if len(perfect) == 1:
                return done(perfect[0], "exact", float(value), nodes=exact.nodes)
            # Several cells are perfect if the rivals play perfectly against the mover,
            # and people do not: sampling, which expects rivals of every kind, picks
            # among them.
            result = sample(
                spec,
                pyramid,
                seconds=planned * (1 - EXACT_SHARE),
                speed=speed,
                rng=rng,
                deadline=stop_at,
                cancel=cancel,
                only=perfect,
                clock=clock,
            )
            cell = result.best.cell if result.playouts else perfect[0]
            return done(cell, "exact", float(value), result.playouts, exact.nodes, result.complete)
    result = sample(
        spec,
        pyramid,
        seconds=planned,
        speed=speed,
        rng=rng,
        deadline=stop_at,
        cancel=cancel,
        clock=clock,
    )
    if result.playouts == 0:
        # Cancelled or out of time before the first playout: the greedy cell is instant.
        return done(greedy_move(pyramid, rng), "quick", None, nodes=nodes, complete=False)
    best = result.best
    return done(best.cell, "search", best.score, result.playouts, nodes, result.complete)


def choose_move(
    state: PerlenState,
    level: str | Level = "strong",
    *,
    seed: int | None = None,
    budget: float | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Position:
    """The base cell the computer takes for the player to move, within ``budget`` seconds.

    ``level`` is one of :data:`LEVELS` (or a :class:`Level`); ``budget`` defaults to the
    level's, kept on ``clock`` (:func:`time.perf_counter`; a test may pass a virtual
    one); setting ``cancel`` ends the search early with a legal move all the same.
    Raises ValueError when the game is over or an argument is out of range.
    """
    return decide(state, level, seed=seed, budget=budget, cancel=cancel, clock=clock).move
