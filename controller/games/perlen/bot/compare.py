"""Moves compared by sampled games, with how sure the comparison is.

A hint or a review may say that a move is worse than another only when the sampled
games make it sure. The games sampled after each move are the same ones, as far as the
moves let them be: game ``j`` after every move is played with a generator seeded alike
(*common random numbers*), so that the luck of the games cancels in the difference,
and the difference of each pair is one sample of what the one move is worth more than
the other. Its mean, with a 99 % confidence interval (:data:`SURE` standard errors
either side), is a :class:`Difference`; it is *sure* when the interval lies above zero.

The seeds come from the position, not from the clock, so that the same position (and
its turns and mirror images, passed in as their :func:`~controller.games.perlen.pyramid.canonical`
image) gives the same answer every time. A ``deadline`` is an instant of ``clock``
(:func:`time.perf_counter` unless the caller passes another, as the tests do).

>>> from controller.games.perlen.bot.policies import playout
>>> from controller.games.perlen.pyramid import cell_number
>>> from controller.games.perlen.rules import new_game, play
>>> state = new_game()
>>> for cell in "c2 b3 a3 d1 a2 c4 a1 c1".split():
...     state, _ = play(state, cell)
>>> c5, b2 = cell_number("c5"), cell_number("b2")  # b2 hands a rival the bonus pearl 2:a2
>>> told = compare(state, c5, b2, pairs=400, seed=position_seed(state, 0, 2), rollout=playout)
>>> told.pairs, round(told.mean, 2), round(told.low, 2), told.sure
(400, 1.19, 0.67, True)
"""

from __future__ import annotations

import hashlib
import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from controller.games.perlen.pyramid import Pyramid, place

SURE: Final = 2.576
"""Standard errors either side of the mean: a two-sided 99 % interval, so a move as good
as another is called worse with a chance of 0.5 %. A game reviews about fifteen sampled
moves: at 95 % a move as good as the best would be called costly by chance in one game of
two or three, at 99 % in one of about thirteen."""
CHECK_EVERY: Final = 32
"""Rounds of games between looks at the clock."""

Rollout = Callable[[Pyramid, Callable[[], float]], tuple[int, int, int]]
"""A game played on to the end from a pyramid with a generator's ``random``: its scores."""


@dataclass(frozen=True, slots=True)
class Difference:
    """What one move is worth more than another to the mover, by sampled games."""

    mean: float
    """The mean of the mover's final score after the first less after the second."""
    half: float
    """Half the 99 % interval's width (infinite with fewer than two pairs)."""
    pairs: int
    """Games played after each of the two moves."""
    first: float
    """The mover's mean final score after the first move."""
    second: float
    """… and after the second."""

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half

    @property
    def sure(self) -> bool:
        """Whether the first move is surely the better one (the interval is above 0)."""
        return self.low > 0


def position_seed(pyramid: Pyramid, seed: int, stage: int) -> int:
    """The seed of the games sampled from ``pyramid`` (its board and mover), for the
    caller's ``seed`` and one ``stage`` of its work (each stage gets games of its own):
    game ``j`` uses ``position_seed(...) + j``."""
    key = f"{seed}:{stage}:{pyramid[2]}:{pyramid[3]}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") << 24


def _stopped(
    deadline: float | None, cancel: threading.Event | None, clock: Callable[[], float]
) -> bool:
    # The clock is read with or without a deadline, as the other searches read theirs: a
    # virtual clock that moves on at every look then counts all the work done.
    now = clock()
    return (deadline is not None and now > deadline) or (cancel is not None and cancel.is_set())


def means(
    pyramid: Pyramid,
    cells: tuple[int, ...],
    *,
    playouts: int,
    seed: int,
    rollout: Rollout,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[int, float], int]:
    """The mover's mean final score after each of ``cells`` over ``playouts`` games each
    (fewer if stopped: past ``deadline`` on ``clock``, or once ``cancel`` is set), game
    ``j`` seeded ``seed + j`` after every cell; and how many games each got."""
    mover = pyramid[3]
    if mover is None:
        raise ValueError("the pyramid is complete: there is no move to compare")
    after = [place(pyramid, cell) for cell in cells]
    totals = [0] * len(cells)
    rng = random.Random()
    done = 0
    while done < playouts:
        if done % CHECK_EVERY == 0 and _stopped(deadline, cancel, clock):
            break
        for i, start in enumerate(after):
            rng.seed(seed + done)
            totals[i] += rollout(start, rng.random)[mover]
        done += 1
    return {cell: totals[i] / done if done else 0.0 for i, cell in enumerate(cells)}, done


def compare(
    pyramid: Pyramid,
    first: int,
    second: int,
    *,
    pairs: int,
    seed: int,
    rollout: Rollout,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Difference:
    """How much ``first`` is worth more than ``second`` to the mover of ``pyramid``, from
    ``pairs`` pairs of games (fewer if stopped, as :func:`means` is), pair ``j`` seeded
    ``seed + j``."""
    mover = pyramid[3]
    if mover is None:
        raise ValueError("the pyramid is complete: there is no move to compare")
    one, other = place(pyramid, first), place(pyramid, second)
    rng = random.Random()
    total_one = total_other = 0
    total = squares = 0.0
    done = 0
    while done < pairs:
        if done % CHECK_EVERY == 0 and _stopped(deadline, cancel, clock):
            break
        rng.seed(seed + done)
        a = rollout(one, rng.random)[mover]
        rng.seed(seed + done)
        b = rollout(other, rng.random)[mover]
        total_one += a
        total_other += b
        total += a - b
        squares += (a - b) ** 2
        done += 1
    if done < 2:
        return Difference(float(total), math.inf, done, float(total_one), float(total_other))
    mean = total / done
    variance = max(0.0, (squares - done * mean * mean) / (done - 1))
    return Difference(
        mean,
        SURE * math.sqrt(variance / done),
        done,
        total_one / done,
        total_other / done,
    )


__all__ = ["CHECK_EVERY", "SURE", "Difference", "Rollout", "compare", "means", "position_seed"]
