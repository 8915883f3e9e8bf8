"""How strong and how quick the computer player is, at every level.

    .venv/bin/python bench/bot.py [--games 24] [--processes 2] [--levels medium,strong]

Prints, for each level:

- its win rate against two random players, against two greedy players, and against two
  players of the level below, seats rotated so that each seat (the first has an edge) is
  played equally often; a shared win counts as 1/k of a win, and the 95 % interval is
  Wilson's. A seat wins a third of its games when it is no better than its opponents.
- its mean score margin (its visible pearls minus the mean of its rivals'),
- the time per move (mean and longest) and the share of moves cut short by the clock;

and, for the searches: playouts and exact-search placements per second, how many empty
base cells the exact search solves within 1 s and 5 s, and how long the review of a
whole game takes at the history page's 0.25 s per move.

``--endgames N`` instead plays N endgames of 8 empty cells (from greedy games) four ways
against two greedy players and prints the mover's mean final score: greedily, by 3,000
playouts, by the exact search's own choice, and as the strongest level does.

Quick levels play ten times as many games as ``--games``, and the strongest level three
times as many against greedy players. The default run takes about nine minutes on two
shared cores.
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

from controller.bot import LEVEL_SETTINGS, LEVELS, Level, decide, machine_speed, mcts, review
from controller.bot.bits import Rules, from_state
from controller.bot.exact import ExactSearch, OutOfBudget
from controller.bot.player import best_exact_cell
from controller.bot.policies import greedy_move, random_move
from controller.rules.notation import BASE
from controller.rules.perlen import PerlenOptions, legal_moves, new_game, outcome, play
from controller.rules.records import PerlenRecord

OPPONENTS = ("random", "greedy")


@dataclass(frozen=True)
class Game:
    """One game: ``level`` in seat ``seat``, ``opponent`` in the two other seats."""

    level: str
    opponent: str
    seat: int
    seed: int
    budget: float | None
    exploration: float | None


@dataclass(frozen=True)
class Played:
    game: Game
    scores: tuple[int, int, int]
    winners: tuple[int, ...]
    move_seconds: tuple[float, ...]
    """The seconds each move of ``level`` took."""
    cut_short: int


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _level(name: str, budget: float | None, exploration: float | None) -> Level:
    level = LEVEL_SETTINGS[name]
    if exploration is not None:
        level = replace(level, exploration=exploration)
    if budget is not None:
        level = replace(level, budget=budget)
    return level


def play_game(game: Game) -> Played:
    options = PerlenOptions()
    rules = Rules.of(options)
    state = new_game(options)
    rng = random.Random(game.seed)
    own = _level(game.level, game.budget, game.exploration)
    other: Level | None = None
    if game.opponent not in OPPONENTS:
        other = _level(game.opponent, game.budget, game.exploration)
    seconds: list[float] = []
    cut = 0
    while state.to_move is not None:
        colour = state.to_move
        seed = rng.randrange(2**32)
        if colour == game.seat or other is not None:
            level = own if colour == game.seat else other
            assert level is not None
            decision = decide(state, level, seed=seed)
            move = decision.move
            if colour == game.seat:
                seconds.append(decision.seconds)
                cut += not decision.complete
        else:
            bits = from_state(state)
            pick: Callable[..., int] = random_move if game.opponent == "random" else greedy_move
            move = BASE[pick(bits, rules, random.Random(seed))]
        assert move in legal_moves(state)
        state, _ = play(state, move)
    result = outcome(state)
    return Played(game, result.scores, result.winners, tuple(seconds), cut)


def exact_reach(limit: float, positions: int = 3) -> tuple[int, float]:
    """The most empty cells whose every position (of ``positions`` random ones) the exact
    search solves within ``limit`` seconds, and the placements per second it made."""
    solved = 0
    edges = 0
    took = 0.0
    for empty in range(4, 26):
        for seed in range(positions):
            rng = random.Random(1000 * empty + seed)
            state = new_game()
            while 25 - state.base_pearls > empty:
                state, _ = play(state, rng.choice(legal_moves(state)))
            started = time.perf_counter()
            search = ExactSearch(
                Rules.of(state.options), viewpoint=state.to_move, deadline=started + limit
            )
            try:
                search.move_values(from_state(state))
            except OutOfBudget:
                return solved, edges / took if took else 0.0
            finally:
                edges += search.edges
                took += time.perf_counter() - started
        solved = empty
    return solved, edges / took if took else 0.0


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


def endgames(count: int, empty: int) -> dict[str, float]:
    """The mover's mean final score when it plays the last ``empty`` cells four ways
    against two greedy players, from ``count`` positions of greedy games."""
    options = PerlenOptions()
    rules = Rules.of(options)
    ways = ("greedy", "sampling 3000", "max^n cell", "strongest")
    totals = dict.fromkeys(ways, 0.0)
    for number in range(count):
        rng = random.Random(number)
        start = new_game(options)
        while 25 - start.base_pearls > empty:
            start, _ = play(start, BASE[greedy_move(from_state(start), rules, rng)])
        me = start.to_move
        assert me is not None
        for way in ways:
            state, moves = start, random.Random(number * 7)
            exact = ExactSearch(rules, viewpoint=me)
            while state.to_move is not None:
                bits = from_state(state)
                if state.to_move != me or way == "greedy":
                    cell = greedy_move(bits, rules, moves)
                elif way == "sampling 3000":
                    cell = mcts.search(bits, rules, playouts=3000, rng=moves).best.cell
                elif way == "max^n cell":
                    cell = best_exact_cell(exact.move_values(bits), me, moves)
                else:
                    cell = decide(state, "strongest", seed=moves.randrange(2**32)).move.index
                state, _ = play(state, BASE[cell])
            totals[way] += outcome(state).scores[me]
    return {way: total / count for way, total in totals.items()}


def schedule(args: argparse.Namespace) -> list[Game]:
    games: list[Game] = []
    for index, name in enumerate(args.levels):
        quick = LEVEL_SETTINGS[name].playouts == 0
        count = args.games * (10 if quick else 1)
        count -= count % 3  # every seat equally often
        lower = LEVELS[LEVELS.index(name) - 1] if LEVELS.index(name) > 0 else None
        opponents = [*OPPONENTS, *([lower] if lower else [])]
        for opponent in opponents:
            # The claim that matters most, the strongest level against greedy players,
            # gets three times the games, for a narrower interval.
            games_here = count * (3 if (name, opponent) == ("strongest", "greedy") else 1)
            for number in range(games_here):
                games.append(
                    Game(
                        name,
                        opponent,
                        seat=number % 3,
                        seed=args.seed + 7919 * number + 104729 * index,
                        budget=args.budget,
                        exploration=args.exploration,
                    )
                )
    # The slowest first, so that two processes end together.
    weight = {name: i for i, name in enumerate(LEVELS)}
    games.sort(key=lambda g: -(weight[g.level] + weight.get(g.opponent, -1)))
    return games


def report(results: list[Played]) -> None:
    by_match: dict[tuple[str, str], list[Played]] = defaultdict(list)
    for played in results:
        by_match[(played.game.level, played.game.opponent)].append(played)
    print()
    print(
        f"{'level':<10} {'against':<10} {'games':>5} {'win rate':>9} {'95% interval':>14} "
        f"{'margin':>7} {'s/move':>7} {'max s':>6} {'cut':>4}"
    )
    for level in LEVELS:
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
            cut = sum(p.cut_short for p in rows)
            print(
                f"{level:<10} {opponent:<10} {len(rows):>5} {wins / len(rows):>8.0%} "
                f"  {low:>5.0%} – {high:<4.0%} {margin:>+7.2f} {statistics.mean(seconds):>7.3f} "
                f"{max(seconds):>6.2f} {cut:>4}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="games per match (default 24)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    parser.add_argument("--budget", type=float, default=None, help="seconds per move, all levels")
    parser.add_argument("--exploration", type=float, default=None, help="MCTS exploration weight")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-speed", action="store_true", help="skip the speed figures")
    parser.add_argument(
        "--endgames",
        type=int,
        default=0,
        metavar="N",
        help="instead: N endgames of 8 empty cells played four ways against greedy players",
    )
    args = parser.parse_args()
    args.levels = [name.strip() for name in args.levels.split(",") if name.strip()]
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
        for way, score in endgames(args.endgames, 8).items():
            print(f"last 8 cells by {way:<14} mean final score {score:6.2f}")
        return
    if not args.no_speed:
        speed = machine_speed(1.0)
        print(f"MCTS playouts per second (tree included):  {speed.playouts_per_second:10,.0f}")
        print(f"exact search placements per second:        {speed.placements_per_second:10,.0f}")
        for limit in (1.0, 5.0):
            solved, rate = exact_reach(limit)
            print(
                f"exact search solves within {limit:.0f} s:            {solved:>4} empty cells "
                f"({rate:,.0f} placements/s)"
            )
        took, exact = review_seconds(0.25)
        print(f"review of a 25-move game, 0.25 s per move: {took:10.1f} s ({exact} moves exact)")
    games = schedule(args)
    print(f"{len(games)} games …", flush=True)
    with multiprocessing.Pool(args.processes) as pool:
        results = pool.map(play_game, games, chunksize=1)
    report(results)
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    main()
