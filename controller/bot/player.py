"""The computer player: levels, a move within a time budget, hints, and game reviews.

>>> from controller.rules.perlen import new_game, play, legal_moves
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
- ``medium``, ``strong``: Monte Carlo tree search with a fixed number of random playouts,
  and perfect play (:mod:`controller.bot.exact`) once 7 or 9 base cells are empty.
- ``strongest``: as many playouts as the time budget allows, and perfect play as soon as
  the exact search fits the budget (9 empty cells in its 3 s on the development machine,
  10 with a 5 s budget; fewer on a Pi). Where several cells are perfect, sampling picks
  among them: people are not the perfect rivals the exact search assumes.

**Value.** Each colour plays for its own final score (visible pearls, or all pearls with
``score = all``); among moves worth the same score it prefers the one that leaves the
better rival lowest. Hints and reviews measure in the same unit: pearls of the mover's
own final score.

**Time.** A move always arrives within its budget: every search looks at the clock as it
goes and stops at 80 % of it (an exact search that overruns its share gives up at 60 %
and the rest goes to sampling).

**Determinism.** Work is counted, not timed. A level's playouts (for ``strongest``: the
budget times this machine's speed, rounded down to 50 × a power of two) and whether the
exact search may run are fixed before searching, from a speed measured once per process
(:func:`machine_speed`; best called once at start), and all randomness comes from
``random.Random(seed)``. So on one machine the same position, level, seed and budget give
the same move. Two things can change that: a search cut short by the clock or a cancel
(:attr:`Decision.complete` is then False), and a move asked for before the speed was
measured, with a budget under half a second (it plans with :data:`SLOW_SPEED`).
``seed=None`` draws a fresh seed, so that games differ.
"""

from __future__ import annotations

import contextlib
import logging
import math
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from controller.bot import mcts
from controller.bot.bits import BitState, Rules, from_state
from controller.bot.exact import ExactSearch, OutOfBudget
from controller.bot.policies import greedy_move, sensible_moves
from controller.rules.notation import BASE, Position, parse_cell
from controller.rules.perlen import PerlenState, legal_moves, new_game, play
from controller.rules.records import PerlenRecord, ReplayError

log = logging.getLogger(__name__)

LEVELS: tuple[str, ...] = ("gentle", "easy", "medium", "strong", "strongest")
"""Names of the levels, gentlest first."""


@dataclass(frozen=True, slots=True)
class Level:
    """What a level does. The named levels are in :data:`LEVEL_SETTINGS`; tests and
    ``bench/bot.py`` may build their own."""

    name: str
    budget: float
    """Seconds per move when the caller gives none."""
    playouts: int | None
    """Monte Carlo playouts per move: 0 plays the greedy cell without searching; None
    takes as many as the budget allows on this machine."""
    exact_empty: int
    """Play perfectly once at most this many base cells are empty (if it fits the budget)."""
    wander: float = 0.0
    """Chance of playing a random sensible cell instead."""
    exploration: float = mcts.EXPLORATION
    """UCT's exploration weight."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.budget) and self.budget > 0):
            raise ValueError(f"level {self.name!r}: budget must be a positive number of seconds")
        if self.playouts is not None and self.playouts < 0:
            raise ValueError(f"level {self.name!r}: playouts must not be negative")
        if not 0 <= self.exact_empty <= len(BASE):
            raise ValueError(f"level {self.name!r}: exact_empty must be 0 to {len(BASE)}")
        if not 0.0 <= self.wander <= 1.0:
            raise ValueError(f"level {self.name!r}: wander is a chance between 0 and 1")
        if not (math.isfinite(self.exploration) and self.exploration >= 0):
            raise ValueError(f"level {self.name!r}: exploration must not be negative")


LEVEL_SETTINGS: Mapping[str, Level] = {
    "gentle": Level("gentle", budget=0.5, playouts=0, exact_empty=0, wander=0.7),
    "easy": Level("easy", budget=0.5, playouts=0, exact_empty=0, wander=0.15),
    "medium": Level("medium", budget=1.0, playouts=500, exact_empty=7),
    "strong": Level("strong", budget=2.0, playouts=3000, exact_empty=9),
    "strongest": Level("strongest", budget=3.0, playouts=None, exact_empty=13),
}

# Placements the exact search makes for a position with n empty base cells (median of
# random positions; about fourfold per cell), to tell beforehand how long it will take.
EXACT_WORK: tuple[float, ...] = (
    0,
    1,
    4,
    12,
    60,
    320,
    1.23e3,
    4.9e3,
    2.06e4,
    7.92e4,
    3.11e5,
    1.26e6,
    5.0e6,
    2.0e7,
    8.0e7,
    3.2e8,
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
"""``strongest`` and reviews play this many playouts times a power of two."""


@dataclass(frozen=True, slots=True)
class Speed:
    """How fast this machine searches."""

    playouts_per_second: float
    """Monte Carlo playouts from an early middle game, tree work included."""
    placements_per_second: float
    """Placements the exact search makes (each a pearl and its bonus cascade)."""


_speed_lock = threading.Lock()
_speed: Speed | None = None


def measure_speed(seconds: float = 0.3) -> Speed:
    """Time both searches on fixed positions for about ``seconds``."""
    rules = Rules.of(new_game().options)
    opening, endgame = _calibration_positions()
    half = max(seconds, 0.02) / 2
    started = time.perf_counter()
    result = mcts.search(
        opening, rules, playouts=10**9, rng=random.Random(0), deadline=started + half
    )
    playout_rate = result.playouts / (time.perf_counter() - started)
    exact = ExactSearch(rules, viewpoint=endgame[4], deadline=time.perf_counter() + half)
    started = time.perf_counter()
    with contextlib.suppress(OutOfBudget):  # it need not finish: its pace is the measure
        exact.move_values(endgame)
    placement_rate = exact.edges / (time.perf_counter() - started)
    return Speed(max(playout_rate, 1.0), max(placement_rate, 1.0))


def _calibration_positions() -> tuple[BitState, BitState]:
    rng = random.Random(20240601)
    state = new_game()
    opening: BitState | None = None
    while state.base_pearls < 25 - 9:  # the endgame: 9 empty cells
        state, _ = play(state, rng.choice(legal_moves(state)))
        if state.base_pearls == 6:
            opening = from_state(state)
    assert opening is not None
    return opening, from_state(state)


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
SLOW_SPEED = Speed(playouts_per_second=2_000, placements_per_second=30_000)
"""What a move plans with when its budget is too short to measure the speed and nobody
has measured it yet: about a Raspberry Pi 3, so the plan fits any Pi."""


def _speed_for(seconds: float) -> Speed:
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
    """The mover's final score the search expects after ``move`` (exact: certain)."""
    playouts: int
    placements: int
    """Placements the exact search made."""
    seconds: float
    complete: bool
    """False when the clock or a cancel cut the planned work short."""


def _level(level: str | Level) -> Level:
    if isinstance(level, Level):
        return level
    try:
        return LEVEL_SETTINGS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown level {level!r}; the levels are {', '.join(LEVELS)}") from None


def _check_budget(budget: object, what: str = "budget") -> float:
    if (
        isinstance(budget, bool)
        or not isinstance(budget, int | float)
        or not math.isfinite(budget)
        or budget <= 0
    ):
        raise ValueError(f"{what} must be a positive number of seconds, not {budget!r}")
    return float(budget)


def _check_state(state: object) -> PerlenState:
    if not isinstance(state, PerlenState):
        raise TypeError(f"expected a Perlen-Pyramide state, not {type(state).__name__}")
    if state.to_move is None:
        raise ValueError("the pyramid is complete: there is no move to choose")
    return state


def _rank(scores: tuple[int, int, int], mover: int) -> tuple[int, int]:
    """Own final score first, then the better rival as low as possible."""
    return scores[mover], -max(scores[(mover + 1) % 3], scores[(mover + 2) % 3])


def best_exact_cell(
    values: Mapping[int, tuple[int, int, int]], mover: int, rng: random.Random
) -> int:
    """The exact search's choice from :meth:`ExactSearch.move_values`: the highest own
    score, then the better rival lowest, then ``rng`` among cells worth exactly the same."""
    top = max(_rank(v, mover) for v in values.values())
    best = sorted(cell for cell, v in values.items() if _rank(v, mover) == top)
    return best[int(rng.random() * len(best))]


def _affordable_playouts(seconds: float, speed: Speed) -> int:
    """As many playouts as fit in ``seconds`` with headroom, rounded down to 50 × 2^k so
    that a slightly different speed measurement seldom changes the work (and the move)."""
    affordable = seconds * SAFE_SHARE * speed.playouts_per_second
    playouts = ROUND_PLAYOUTS
    while playouts * 2 <= affordable:
        playouts *= 2
    return playouts


def _playouts_for(level: Level, seconds: float, speed: Speed) -> int:
    """The playouts to plan in ``seconds``: the level's, or as many as fit."""
    if level.playouts is None:
        return _affordable_playouts(seconds, speed)
    playouts = level.playouts
    while playouts > seconds * SAFE_SHARE * speed.playouts_per_second and playouts > 50:
        playouts //= 2  # a slow machine: the same level, half the work, still in time
    return playouts


def _exact_fits(empty: int, seconds: float, speed: Speed) -> bool:
    return EXACT_WORK[empty] / speed.placements_per_second <= seconds * SAFE_SHARE


def decide(
    state: PerlenState,
    level: str | Level = "strong",
    *,
    seed: int | None = None,
    budget: float | None = None,
    cancel: threading.Event | None = None,
) -> Decision:
    """:func:`choose_move`, telling how the move was found."""
    started = time.perf_counter()
    state = _check_state(state)
    spec = _level(level)
    seconds = spec.budget if budget is None else _check_budget(budget)
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    elif isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int or None, not {seed!r}")
    rng = random.Random(seed)
    stop_at = started + seconds * STOP_SHARE

    legal = legal_moves(state)
    bits, rules = from_state(state), Rules.of(state.options)

    def done(
        cell: int,
        method: str,
        expected: float | None,
        playouts: int = 0,
        placements: int = 0,
        complete: bool = True,
    ) -> Decision:
        move = BASE[cell]
        if move not in legal:  # the integer pyramid is tested against the engine; belt and braces
            log.error("bot chose %s, which is not legal; playing %s", move, legal[0])
            move = legal[0]
        return Decision(
            move, method, expected, playouts, placements, time.perf_counter() - started, complete
        )

    if len(legal) == 1:
        return done(legal[0].index, "forced", None)
    mover = bits[4]
    if spec.wander and rng.random() < spec.wander:
        sensible = sensible_moves(bits, rules)
        return done(sensible[int(rng.random() * len(sensible))], "quick", None)
    if spec.playouts == 0:
        return done(greedy_move(bits, rules, rng), "quick", None)

    speed = _speed_for(seconds)
    # Plan from the whole budget, not from what the first call's speed measurement left
    # of it, so that the first call plans the same work as every later one.
    planned = seconds * STOP_SHARE
    empty = len(BASE) - state.base_pearls
    placements = 0
    if empty <= spec.exact_empty and _exact_fits(empty, planned, speed):
        exact = ExactSearch(
            rules, viewpoint=mover, deadline=started + seconds * EXACT_SHARE, cancel=cancel
        )
        try:
            values = exact.move_values(bits)
        except OutOfBudget:
            placements = exact.edges  # fall back to sampling with the time left
        else:
            top = max(scores[mover] for scores in values.values())
            perfect = [cell for cell, scores in values.items() if scores[mover] == top]
            if len(perfect) == 1:
                return done(perfect[0], "exact", float(top), placements=exact.edges)
            # Several cells are perfect if the rivals play perfectly too, and people do
            # not: sampling, which expects rivals of every kind, picks among them. (It
            # gains bench/bot.py's players more than breaking the tie by the search's
            # guess of how the rivals break theirs.)
            result = mcts.search(
                bits,
                rules,
                playouts=_playouts_for(spec, planned * (1 - EXACT_SHARE), speed),
                rng=rng,
                deadline=stop_at,
                cancel=cancel,
                only=perfect,
                exploration=spec.exploration,
            )
            cell = result.best.cell if result.playouts else best_exact_cell(values, mover, rng)
            return done(cell, "exact", float(top), result.playouts, exact.edges, result.complete)
    playouts = _playouts_for(spec, planned, speed)
    result = mcts.search(
        bits,
        rules,
        playouts=playouts,
        rng=rng,
        deadline=stop_at,
        cancel=cancel,
        exploration=spec.exploration,
    )
    if result.playouts == 0:
        # Cancelled or out of time before the first playout: the greedy cell is instant.
        return done(greedy_move(bits, rules, rng), "quick", None, complete=False)
    best = result.best
    return done(best.cell, "search", best.score, result.playouts, placements, result.complete)


def choose_move(
    state: PerlenState,
    level: str | Level = "strong",
    *,
    seed: int | None = None,
    budget: float | None = None,
    cancel: threading.Event | None = None,
) -> Position:
    """The base cell the computer takes for the player to move, within ``budget`` seconds.

    ``level`` is one of :data:`LEVELS` (or a :class:`Level`); ``budget`` defaults to the
    level's; setting ``cancel`` ends the search early with a legal move all the same.
    Raises ValueError when the game is over or an argument is out of range.
    """
    return decide(state, level, seed=seed, budget=budget, cancel=cancel).move


def hint(
    state: PerlenState,
    *,
    budget: float = 1.0,
    seed: int = 0,
    cancel: threading.Event | None = None,
) -> Position:
    """The best cell for the player to move, as far as ``budget`` seconds of the
    strongest search can tell (the same answer each time for the same position)."""
    return decide(state, "strongest", seed=seed, budget=budget, cancel=cancel).move


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
    """Pearls of the mover's own final score the move gave away against ``best`` (≥ 0);
    exact when :attr:`exact`, else a Monte Carlo estimate to one decimal."""
    exact: bool

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"number": 3, "colour": 2, "played": "c3", "best": "d4", ...}``."""
        return {
            "number": self.number,
            "colour": self.colour,
            "played": self.played.short,
            "best": self.best.short,
            "loss": self.loss,
            "exact": self.exact,
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
    is solved exactly, once (one transposition table serves all its moves). The result
    depends only on the record, the seed and this machine's speed, so callers may cache it.
    Raises :class:`ReplayError` for a record with an illegal move.
    """
    if not isinstance(record, PerlenRecord):
        raise TypeError(f"expected a Perlen-Pyramide record, not {type(record).__name__}")
    seconds = _check_budget(budget_per_move, "budget_per_move")
    rules = Rules.of(record.options)
    # One table per colour: each mover is the viewpoint of its own moves' values.
    exact = [ExactSearch(rules, viewpoint=colour, cancel=cancel) for colour in range(3)]
    reviews: list[MoveReview] = []
    state = new_game(record.options)
    for number, text in enumerate(record.moves, start=1):
        try:
            played = parse_cell(text)
            after, _ = play(state, played)
        except ValueError as exc:
            raise ReplayError("move", number, text, str(exc)) from None
        mover = state.to_move
        assert mover is not None
        reviews.append(
            _review_move(
                state,
                number,
                mover,
                played,
                rules,
                exact[mover],
                seconds,
                seed,
                cancel,
                moves_left=len(record.moves) - number + 1,
            )
        )
        state = after
    return reviews


def _review_move(
    state: PerlenState,
    number: int,
    mover: int,
    played: Position,
    rules: Rules,
    exact: ExactSearch,
    seconds: float,
    seed: int,
    cancel: threading.Event | None,
    moves_left: int,
) -> MoveReview:
    started = time.perf_counter()
    legal = legal_moves(state)
    if len(legal) == 1:
        return MoveReview(number, mover, played, played, 0.0, True)
    bits = from_state(state)
    empty = len(BASE) - state.base_pearls
    speed = machine_speed()  # a review takes seconds: measuring first is worth it
    # Solving the endgame once answers every later move too, so it may take the time
    # of all the moves still to review.
    if _exact_fits(empty, seconds * moves_left / 2, speed):
        exact.deadline = started + seconds * moves_left / 2
        try:
            values = exact.move_values(bits)
        except OutOfBudget:
            pass
        else:
            best = best_exact_cell(values, mover, random.Random(seed))
            if values[played.index][mover] == values[best][mover]:
                best = played.index
            lost = values[best][mover] - values[played.index][mover]
            return MoveReview(number, mover, played, BASE[best], float(lost), True)
    result = mcts.search(
        bits,
        rules,
        playouts=_affordable_playouts(seconds * STOP_SHARE, speed),
        rng=random.Random(seed * 1000 + number),
        deadline=started + seconds * STOP_SHARE,
        cancel=cancel,
        focus=played.index,
    )
    # The played cell got its guaranteed quarter of the playouts, so the search's own
    # choice is the most visited of the others; the played move lost nothing unless that
    # one did better on average.
    played_stats = next(m for m in result.moves if m.cell == played.index)
    rival = max(
        (m for m in result.moves if m.cell != played.index), key=lambda m: (m.visits, m.score)
    )
    loss = round(max(0.0, rival.score - played_stats.score), 1)
    best_cell = played.index if loss == 0.0 else rival.cell
    return MoveReview(number, mover, played, BASE[best_cell], loss, False)
