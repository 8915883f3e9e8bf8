"""How long the computer's review of a whole game takes, and what it says.

    .venv/bin/python bench/review.py [--budgets 0.25,0.5,1] [--speed 20000,60000 | measured]

Reviews one 25-move game (``rigs/positions.py``'s ``REVIEWED_GAME``, the one the
review's tests use), its mirror image (files a↔e) and a quarter turn of it, at each
budget per move (the history page's is ``web_ui.reviews.BUDGET_PER_MOVE``), and prints
for each: the seconds it took, how many moves it calls costly, about as good and best,
how many it solved exactly, the mean half-width of the 99 % interval of the sampled
moves it compared, and whether the three reviews agree move by move.

By default the work is planned as the page plans it, at the reference speed
``controller.games.perlen.bot.advice.REVIEW_SPEED`` (a fixed amount of work, so the same
verdicts on any machine); ``--speed P,N`` plans at P playouts and N exact positions a
second instead, ``--speed measured`` at this machine's measured speed (as reviews did
before they were a fixed amount of work). Either way the planned work runs to the end (a
review is not cut by the clock), so the verdicts do not depend on the machine's load,
only the seconds do: they are this script's figure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.games.perlen.bot import MoveReview, Speed, machine_speed, review
from controller.games.perlen.bot.advice import BEST, CLOSE, COSTLY, REVIEW_SPEED
from controller.games.perlen.pyramid import SYMMETRIES
from controller.games.perlen.record import PerlenRecord
from controller.rules.notation import BASE, parse_cell
from rigs.positions import REVIEWED_GAME

ORIENTATIONS = {"as played": SYMMETRIES[0], "mirrored a-e": SYMMETRIES[1], "turned": SYMMETRIES[2]}


def moved(moves: tuple[str, ...], symmetry: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(BASE[symmetry[parse_cell(m).index]].short for m in moves)


def said(move: MoveReview) -> tuple[object, ...]:
    """What a review says of a move that must not depend on the game's orientation."""
    return (move.verdict, move.loss, move.exact, move.best_value, move.played_value, move.low)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="0.25,0.5,1", help="seconds per move, by commas")
    parser.add_argument(
        "--speed", default="", help="plan at P,N (playouts, positions a second) or 'measured'"
    )
    args = parser.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",")]
    if args.speed == "measured":
        speed, source = machine_speed(), "measured"
    elif args.speed:
        playouts, nodes = (float(x) for x in args.speed.split(","))
        speed, source = Speed(playouts, nodes), "given"
    else:
        speed, source = REVIEW_SPEED, "the reviews' reference"
    print(
        f"speed: {speed.playouts_per_second:,.0f} playouts/s, "
        f"{speed.nodes_per_second:,.0f} exact positions/s ({source})"
    )
    for budget in budgets:
        first: list[MoveReview] | None = None
        agree = True
        for name, symmetry in ORIENTATIONS.items():
            record = PerlenRecord(moved(REVIEWED_GAME, symmetry))
            started = time.perf_counter()
            moves = review(record, budget_per_move=budget, speed=speed)
            took = time.perf_counter() - started
            halves = [(m.high - m.low) / 2 for m in moves if m.low is not None and m.high]
            count = {v: sum(m.verdict == v for m in moves) for v in (COSTLY, CLOSE, BEST)}
            print(
                f"{budget:.2f} s/move, {name:>12}: {took:5.2f} s; costly {count[COSTLY]:2d}, "
                f"about as good {count[CLOSE]:2d}, best {count[BEST]:2d}; "
                f"exact {sum(m.exact for m in moves):2d}; mean 99 % half-width "
                f"{statistics.mean(halves) if halves else 0:.2f} pearls"
            )
            if first is None:
                first = moves
            else:
                agree = agree and [said(m) for m in moves] == [said(m) for m in first]
        print(f"{budget:.2f} s/move: the three reviews {'agree' if agree else 'DIFFER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
