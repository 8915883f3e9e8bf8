"""How strong and how quick the computer player is, at every level.

    .venv/bin/python bench/bot.py [--games 60] [--processes 2] [--levels medium,strong]

Prints:

- speed: Monte Carlo playouts per second (tree included) and positions per second of
  the exact search, on this machine as it is now;
- the endgame depth: how many empty base cells the exact search solves, every one of
  three random positions, within 1 s and within 5 s, and the seconds each took;
- each level's time budget and the work it plans with it at the planning speed (see
  below): playouts per move and the empty cells from which it plays exactly;
- the matches: each level in one seat against two players of the level below, and
  against two greedy players, seats rotated so that each seat (the first has an edge)
  is played equally often. A shared win counts as 1/k of a win; the 95 % interval is
  Wilson's. A seat wins a third of its games when it is no better than its opponents,
  so a level is stronger when the interval's lower bound is above 1/3;
- how long the review of a whole game takes at the history page's 0.25 s per move.

The matches do not depend on the machine's load: every move plans its work from one
fixed planning speed (``--plan``, by default :data:`PLAN` below, this machine's speed
when quiet) and searches without a clock (``timed=False``), so the same seeds give the
same games on a busy machine, only slower. The default run (120 games a match, 180 for
the strongest level against greedy players) takes about 20 minutes on two cores;
``--games`` scales it.

``--variants strongest-perfect,strongest-sampling`` also plays other ways the strongest
level could play its endgame (:data:`VARIANTS`) against greedy players, in the very
games the strongest level plays against them (``--levels ""`` plays the variants
alone).

``--endgames N`` instead plays N endgames of 10 empty cells (from greedy games) several
ways against two greedy players and prints the mover's mean final score and win rate.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import platform
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.perlen.bot import (
    LEVEL_SETTINGS,
    LEVELS,
    Level,
    Speed,
    decide,
    machine_speed,
    mcts,
    review,
)
from controller.games.perlen.bot.exact import ExactSearch, OutOfBudget
from controller.games.perlen.bot.expectimax import ModelSearch
from controller.games.perlen.bot.player import (
    EXACT_SHARE,
    MODEL,
    PERFECT,
    STOP_SHARE,
    affordable_playouts,
    exact_fits,
    model_fits,
)
from controller.games.perlen.bot.policies import greedy_move, random_move
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.rules import PerlenState, legal_moves, new_game, outcome, play
from controller.rules.notation import BASE

PLAN = Speed(playouts_per_second=25_000, nodes_per_second=100_000)
"""The planning speed of the matches: what ``machine_speed()`` measured on the
development machine with nothing else running (docs/performance.md)."""
OPPONENTS = ("random", "greedy")
VARIANTS: dict[str, Level] = {
    "strongest-perfect": replace(
        LEVEL_SETTINGS["strongest"], name="strongest-perfect", against=PERFECT
    ),
    "strongest-sampling": replace(
        LEVEL_SETTINGS["strongest"], name="strongest-sampling", exact_empty=0
    ),
    "strongest-margin": replace(
        LEVEL_SETTINGS["strongest"], name="strongest-margin", against=PERFECT, measure="margin"
    ),
}
"""Other ways the strongest level could play its endgame, for ``--variants`` and
``--endgames``: perfect against perfect rivals (by its own score, as strong does, or by
its lead), or no endgame search at all (sampling to the end)."""


@dataclass(frozen=True)
class Game:
    """One game: ``level`` in seat ``seat``, ``opponent`` in the two other seats."""

    level: str
    """A name of :data:`LEVELS` or :data:`VARIANTS`."""
    opponent: str
    seat: int
    seed: int
    plan: Speed


@dataclass(frozen=True)
class Played:
    game: Game
    scores: tuple[int, int, int]
    winners: tuple[int, ...]
    move_seconds: tuple[float, ...]
    """The seconds each move of ``level`` took."""
    playouts: int
    """Playouts the level's moves played in all."""
    exact_moves: int
    """Moves of the level the exact search decided."""


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _decide(
    state: PerlenState, who: str | Level, seed: int, plan: Speed
) -> tuple[int, float, int, bool]:
    """A move of ``who``: the cell, the seconds, the playouts and whether it was exact."""
    started = time.perf_counter()
    if who == "random":
        return random_move(state, random.Random(seed)), time.perf_counter() - started, 0, False
    if who == "greedy":
        return greedy_move(state, random.Random(seed)), time.perf_counter() - started, 0, False
    if isinstance(who, str) and who in VARIANTS:
        who = VARIANTS[who]
    decision = decide(state, who, seed=seed, speed=plan, timed=False)
    return decision.move.index, decision.seconds, decision.playouts, decision.method == "exact"


def _move(state: PerlenState, who: str | Level, seed: int, plan: Speed) -> tuple[int, float]:
    cell, seconds, _, _ = _decide(state, who, seed, plan)
    return cell, seconds


def play_game(game: Game) -> Played:
    state = new_game()
    rng = random.Random(game.seed)
    seconds: list[float] = []
    playouts = exact = 0
    while state.to_move is not None:
        colour = state.to_move
        who = game.level if colour == game.seat else game.opponent
        cell, took, played, solved = _decide(state, who, rng.randrange(2**32), game.plan)
        if colour == game.seat:
            seconds.append(took)
            playouts += played
            exact += solved
        state, _ = play(state, BASE[cell])
    result = outcome(state)
    return Played(game, result.scores, result.winners, tuple(seconds), playouts, exact)


def endgame(seed: int, empty: int) -> PerlenState:
    rng = random.Random(seed)
    state = new_game()
    while 25 - state.base_pearls > empty:
        state, _ = play(state, rng.choice(legal_moves(state)))
    return state


def exact_solve(state: PerlenState, deadline: float) -> None:
    """The exact search's answer (against perfect rivals) for the player to move."""
    assert state.to_move is not None
    ExactSearch(state.rules, viewpoint=state.to_move, deadline=deadline).solve(state)


def model_solve(state: PerlenState, deadline: float) -> None:
    """The strongest level's endgame: against rivals as its playouts model them."""
    assert state.to_move is not None
    strongest = LEVEL_SETTINGS["strongest"]
    ModelSearch(
        state.rules,
        viewpoint=state.to_move,
        greedy=strongest.greedy,
        score_weight=strongest.score_weight,
        deadline=deadline,
    ).solve(state)


def exact_reach(
    limit: float, positions: int = 3, solve: Callable[[PerlenState, float], None] = exact_solve
) -> tuple[int, list[tuple[int, list[float]]]]:
    """The most empty cells whose every position (of ``positions`` random ones) ``solve``
    solves within ``limit`` seconds, and the seconds each took, by empty cells."""
    solved = 0
    times: list[tuple[int, list[float]]] = []
    for empty in range(6, 26):
        took: list[float] = []
        for seed in range(positions):
            state = endgame(1000 * empty + seed, empty)
            started = time.perf_counter()
            try:
                solve(state, started + limit)
            except OutOfBudget:
                times.append((empty, [*took, math.inf]))
                return solved, times
            took.append(time.perf_counter() - started)
        times.append((empty, took))
        solved = empty
    return solved, times


def review_seconds(budget_per_move: float) -> tuple[float, int]:
    """Seconds to review a random 25-move game, and how many of its moves were exact."""
    rng = random.Random(5)
    state = new_game()
    moves: list[str] = []
    while state.to_move is not None:
        move = rng.choice(legal_moves(state))
        moves.append(move.short)
        state, _ = play(state, move)
    started = time.perf_counter()
    reviews = review(PerlenRecord(tuple(moves)), budget_per_move=budget_per_move)
    return time.perf_counter() - started, sum(r.exact for r in reviews)


def plan_of(level: Level, plan: Speed) -> str:
    """What ``level`` does with its budget at the planning speed."""
    if level.share == 0:
        return "greedy cell, no search"
    planned = level.budget * STOP_SHARE
    share = 1.0 if level.share is None else level.share
    greedy = level.greedy
    early, late = (affordable_playouts(planned * share, plan, greedy, e) for e in (24, 13))
    fits = model_fits if level.against == MODEL else exact_fits
    exact = max(
        (
            e
            for e in range(26)
            if e <= level.exact_empty and fits(e, level.budget * EXACT_SHARE, plan)
        ),
        default=0,
    )
    rivals = "modelled" if level.against == MODEL else "perfect"
    return (
        f"{early:,} to {late:,} playouts a move; exact against {rivals} rivals "
        f"from {exact} empty cells"
    )


def _mover(level: Level, plan: Speed) -> Callable[[PerlenState, random.Random], int]:
    return lambda state, rng: _move(state, level, rng.randrange(2**32), plan)[0]


def endgames(count: int, empty: int, plan: Speed) -> None:
    """The mover's mean final score and win rate when it plays the last ``empty`` cells
    several ways against two greedy players, from ``count`` positions of greedy games."""
    ways: dict[str, Callable[[PerlenState, random.Random], int]] = {
        "greedy": lambda s, r: greedy_move(s, r),
        "sampling 5000": lambda s, r: mcts.search(s, playouts=5000, rng=r).best.cell,
        "strong": lambda s, r: _move(s, "strong", r.randrange(2**32), plan)[0],
        "strongest": lambda s, r: _move(s, "strongest", r.randrange(2**32), plan)[0],
        **{name: _mover(level, plan) for name, level in VARIANTS.items()},
    }
    totals = dict.fromkeys(ways, 0.0)
    wins = dict.fromkeys(ways, 0.0)
    for number in range(count):
        rng = random.Random(number)
        start = new_game()
        while 25 - start.base_pearls > empty:
            start, _ = play(start, BASE[greedy_move(start, rng)])
        me = start.to_move
        assert me is not None
        for name, way in ways.items():
            state, moves = start, random.Random(number * 7)
            while state.to_move is not None:
                mine = state.to_move == me
                cell = way(state, moves) if mine else greedy_move(state, moves)
                state, _ = play(state, BASE[cell])
            result = outcome(state)
            totals[name] += result.scores[me]
            wins[name] += 1 / len(result.winners) if me in result.winners else 0.0
    for name in ways:
        print(
            f"last {empty} cells by {name:<18} mean final score {totals[name] / count:6.2f}, "
            f"wins {wins[name] / count:5.0%}"
        )


def schedule(args: argparse.Namespace) -> list[Game]:
    games: list[Game] = []
    for index, name in enumerate(args.levels):
        count = args.games - args.games % 3  # every seat equally often
        lower = LEVELS[LEVELS.index(name) - 1] if LEVELS.index(name) > 0 else "random"
        opponents = [lower] if lower == "greedy" else [lower, "greedy"]
        if name == "strongest":
            opponents = [lower, "greedy"]
        for opponent in dict.fromkeys(opponents):
            if args.against and opponent not in args.against:
                continue
            # The claim that matters most, the strongest level against greedy players,
            # gets half as many games again, for a narrower interval.
            games_here = count * (3 if (name, opponent) == ("strongest", "greedy") else 2) // 2
            for number in range(games_here):
                games.append(
                    Game(
                        name,
                        opponent,
                        seat=number % 3,
                        seed=args.seed + 7919 * number + 104729 * index,
                        plan=args.plan,
                    )
                )
    # The variants play the very games the strongest level plays against greedy players
    # in the full run (the same seeds), so that the two compare game by game.
    strongest = LEVELS.index("strongest")
    for name in args.variants:
        count = args.games - args.games % 3
        for number in range(count * 3 // 2):
            seed = args.seed + 7919 * number + 104729 * strongest
            games.append(Game(name, "greedy", seat=number % 3, seed=seed, plan=args.plan))
    # The slowest first, so that the processes end together.
    weight = {name: i for i, name in enumerate(LEVELS)}
    games.sort(key=lambda g: -(2 * weight.get(g.level, len(LEVELS)) + weight.get(g.opponent, -1)))
    return games


def report(results: list[Played]) -> None:
    by_match: dict[tuple[str, str], list[Played]] = defaultdict(list)
    for played in results:
        by_match[(played.game.level, played.game.opponent)].append(played)
    print()
    print(
        f"{'level':<18} {'against':<10} {'games':>5} {'win rate':>9} {'95% interval':>14} "
        f"{'margin':>7} {'s/move':>7} {'max s':>6} {'playouts/s':>10} {'exact':>6}"
    )
    for level in (*LEVELS, *VARIANTS):
        for opponent in (*OPPONENTS, *LEVELS):
            rows = by_match.get((level, opponent))
            if not rows:
                continue
            wins = sum(1 / len(p.winners) for p in rows if p.game.seat in p.winners)
            low, high = wilson(wins, len(rows))
            margin = statistics.mean(
                p.scores[p.game.seat] - (sum(p.scores) - p.scores[p.game.seat]) / 2 for p in rows
            )
            seconds = [s for p in rows for s in p.move_seconds]
            rate = sum(p.playouts for p in rows) / sum(seconds) if sum(seconds) else 0.0
            exact = sum(p.exact_moves for p in rows) / sum(len(p.move_seconds) for p in rows)
            verdict = "stronger" if low > 1 / 3 else "not shown"
            print(
                f"{level:<18} {opponent:<10} {len(rows):>5} {wins / len(rows):>8.0%} "
                f"  {low:>5.0%} – {high:<4.0%} {margin:>+7.2f} {statistics.mean(seconds):>7.3f} "
                f"{max(seconds):>6.2f} {rate:>10,.0f} {exact:>6.0%}  {verdict}"
            )


def _speed(text: str) -> Speed:
    playouts, nodes = (float(part) for part in text.split(","))
    return Speed(playouts, nodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=120, help="games per match (default 120)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--plan",
        type=_speed,
        default=PLAN,
        metavar="PLAYOUTS,NODES",
        help="planning speed of the matches: playouts/s and exact positions/s",
    )
    parser.add_argument(
        "--against",
        default="",
        help="comma-separated opponents to play (of each level's lower level and greedy); "
        "default: both",
    )
    parser.add_argument(
        "--variants",
        default="",
        help="comma-separated variants of the strongest level to play against greedy "
        f"players too ({', '.join(VARIANTS)})",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the speed figures")
    parser.add_argument("--no-matches", action="store_true", help="skip the matches")
    parser.add_argument(
        "--endgames",
        type=int,
        default=0,
        metavar="N",
        help="instead: N endgames of 10 empty cells played several ways against greedy players",
    )
    args = parser.parse_args()
    args.levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    args.against = {name.strip() for name in args.against.split(",") if name.strip()}
    for name in args.against:
        if name not in (*OPPONENTS, *LEVELS):
            parser.error(f"unknown opponent {name!r}; opponents are random, greedy or a level")
    args.variants = [name.strip() for name in args.variants.split(",") if name.strip()]
    for name in args.variants:
        if name not in VARIANTS:
            parser.error(f"unknown variant {name!r}; the variants are {', '.join(VARIANTS)}")
    for name in args.levels:
        if name not in LEVELS:
            parser.error(f"unknown level {name!r}; the levels are {', '.join(LEVELS)}")
    if args.games < 3:
        parser.error("--games must be at least 3 (one game per seat)")

    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{multiprocessing.cpu_count()} cores, {args.processes} processes"
    )
    started = time.perf_counter()
    if args.endgames:
        endgames(args.endgames, 10, args.plan)
        return
    if not args.no_speed:
        speed = machine_speed(1.0)
        print(f"Monte Carlo playouts per second (tree included): {speed.playouts_per_second:9,.0f}")
        print(f"exact search positions per second:               {speed.nodes_per_second:9,.0f}")
        for what, solve in (
            ("exact search", exact_solve),
            ("against modelled rivals", model_solve),
        ):
            for limit in (1.0, 5.0):
                solved, times = exact_reach(limit, solve=solve)
                print(f"{what} solves within {limit:.0f} s: {solved} empty cells (3 of 3)")
                for empty, took in times[-3:]:
                    shown = ", ".join("over" if math.isinf(t) else f"{t:.2f}" for t in took)
                    print(f"    {empty:>2} empty: {shown} s")
        review_took, exact = review_seconds(0.25)
        print(
            f"review of a 25-move game, 0.25 s per move: {review_took:.1f} s ({exact} moves exact)"
        )
    print(
        f"\nplanning speed of the matches: {args.plan.playouts_per_second:,.0f} playouts/s, "
        f"{args.plan.nodes_per_second:,.0f} exact positions/s"
    )
    for name in LEVELS:
        level = LEVEL_SETTINGS[name]
        print(f"  {name:<10} budget {level.budget:.1f} s: {plan_of(level, args.plan)}")
    if args.no_matches:
        return
    games = schedule(args)
    print(f"{len(games)} games …", flush=True)
    with multiprocessing.Pool(args.processes) as pool:
        results = pool.map(play_game, games, chunksize=1)
    report(results)
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
