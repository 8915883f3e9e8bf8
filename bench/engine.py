"""How many complete random Perlen-Pyramide games the rules engine plays per second.

    .venv/bin/python bench/engine.py [--seconds 5] [--processes 2]

Each game: a new game, then until the pyramid is complete the player to move takes a
uniformly random cell from ``legal_moves`` and ``play`` places it with its bonus cascade.
It also times the plain list-of-lists implementation that the tests check the engine
against (tests/rules/plain_perlen.py), for the comparison DESIGN.md asks for.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.rules.perlen import legal_moves, new_game, play
from tests.rules.plain_perlen import PlainGame


def engine_games(seconds: float, seed: int = 1) -> tuple[int, float]:
    rng = random.Random(seed)
    choice = rng.choice
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            state = new_game()
            while state.to_move is not None:
                state, _ = play(state, choice(legal_moves(state)))
        games += 100
    return games, time.perf_counter() - start


def plain_games(seconds: float, seed: int = 1) -> tuple[int, float]:
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = PlainGame()
        while game.to_move is not None:
            game.play(rng.choice(game.legal()))
        games += 1
    return games, time.perf_counter() - start


def _worker(args: tuple[float, int]) -> tuple[int, float]:
    return engine_games(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--processes", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--repeat", type=int, default=3, help="best of N single-core runs")
    args = parser.parse_args()

    cores = multiprocessing.cpu_count()
    print(f"python {platform.python_version()} on {platform.machine()}, {cores} cores")
    best = 0.0
    for _ in range(args.repeat):
        games, took = engine_games(args.seconds)
        best = max(best, games / took)
    print(f"engine, one core:        {best:10,.0f} random games/s (best of {args.repeat})")
    if args.processes > 1:
        with multiprocessing.Pool(args.processes) as pool:
            results = pool.map(_worker, [(args.seconds, seed) for seed in range(args.processes)])
        total = sum(g / t for g, t in results)
        print(f"engine, {args.processes} processes:     {total:10,.0f} random games/s")
    games, took = plain_games(min(args.seconds, 3.0))
    plain = games / took
    print(f"plain list-of-lists:     {plain:10,.0f} random games/s")
    print(f"engine / plain (1 core): {best / plain:10.1f}x")


if __name__ == "__main__":
    main()
