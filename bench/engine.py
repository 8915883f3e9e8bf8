"""How many complete random Perlen-Pyramide games the rules engine plays per second.

    .venv/bin/python bench/engine.py [--seconds 5] [--rounds 3] [--processes 2]

Three ways of playing the same kind of game, each on one core, in turns within one run
(so that they share whatever the machine is doing), best round of each:

- the public API: ``new_game()``, then until the pyramid is complete a uniformly random
  cell of ``legal_moves(state)`` placed by ``play`` (the whole bonus cascade, strict
  pools), and ``outcome`` at the end: what the Table and the web page use;
- the computer's playouts: ``controller.games.perlen.bot.policies.playout`` from the empty pyramid,
  the random games its Monte Carlo search plays (the same rules core, no state objects);
- the plain list-of-lists implementation the tests check the engine against
  (``rigs/plain_perlen.py``).

Every one picks its random cell the same way, ``cells[int(random() * len(cells))]``, so
the ratios compare the engines, not the picking. The design's target is the public API
at 30 times the plain version or more; the playouts should be at least as fast.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.perlen.bot.policies import playout
from controller.games.perlen.rules import legal_moves, new_game, outcome, play
from rigs.plain_perlen import PlainGame


def api_games(seconds: float, seed: int = 1) -> float:
    """Random games per second through the public API."""
    random_ = random.Random(seed).random
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            state = new_game()
            while state.to_move is not None:
                moves = legal_moves(state)
                state, _ = play(state, moves[int(random_() * len(moves))])
            outcome(state)
        games += 100
    return games / (time.perf_counter() - start)


def playout_games(seconds: float, seed: int = 1) -> float:
    """Random games per second as the computer's Monte Carlo search plays them."""
    random_ = random.Random(seed).random
    start_state = new_game()
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            playout(start_state, random_)
        games += 100
    return games / (time.perf_counter() - start)


def plain_games(seconds: float, seed: int = 1) -> float:
    """Random games per second through the plain list-of-lists implementation."""
    random_ = random.Random(seed).random
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = PlainGame()
        while game.to_move is not None:
            moves = game.legal()
            game.play(moves[int(random_() * len(moves))])
        game.visible()
        games += 1
    return games / (time.perf_counter() - start)


def _worker(seconds: float) -> float:
    return api_games(seconds, seed=multiprocessing.current_process().pid or 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per way and round")
    parser.add_argument("--rounds", type=int, default=3, help="best of N rounds of each")
    parser.add_argument("--processes", type=int, default=multiprocessing.cpu_count())
    args = parser.parse_args()

    cores = multiprocessing.cpu_count()
    print(f"python {platform.python_version()} on {platform.machine()}, {cores} cores")
    ways: dict[str, Callable[[float, int], float]] = {
        "public API": api_games,
        "bot playouts": playout_games,
        "plain list-of-lists": plain_games,
    }
    best = dict.fromkeys(ways, 0.0)
    for round_ in range(args.rounds):
        for name, way in ways.items():
            best[name] = max(best[name], way(args.seconds, round_ + 1))
    plain = best["plain list-of-lists"]
    for name, rate in best.items():
        print(f"{name + ', one core:':<32}{rate:10,.0f} random games/s (best of {args.rounds})")
    if args.processes > 1:
        with multiprocessing.Pool(args.processes) as pool:
            total = sum(pool.map(_worker, [args.seconds] * args.processes))
        print(f"{f'public API, {args.processes} processes:':<32}{total:10,.0f} random games/s")
    print(f"{'public API / plain:':<32}{best['public API'] / plain:10.1f}x  (target 30x)")
    print(f"{'bot playouts / plain:':<32}{best['bot playouts'] / plain:10.1f}x  (target 30x)")
    print(f"{'bot playouts / public API:':<32}{best['bot playouts'] / best['public API']:10.2f}x")


if __name__ == "__main__":
    main()
