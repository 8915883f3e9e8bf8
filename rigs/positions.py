"""Endgames for the search tests: random play from the empty pyramid, under several
option sets."""

from __future__ import annotations

import random

from controller.games.perlen.rules import (
    PerlenOptions,
    PerlenState,
    Placement,
    Pools,
    Score,
    legal_moves,
    new_game,
    play,
)


def endgame(seed: int, empty: int, options: PerlenOptions | None = None) -> PerlenState:
    """A position with ``empty`` empty base cells, reached by random legal moves."""
    rng = random.Random(seed)
    state = new_game(options)
    while 25 - state.base_pearls > empty:
        state, _ = play(state, rng.choice(legal_moves(state)))
    return state


_GAME = "d1 c2 c1 d2 c3 e2 e3 e4 b1 d5 e5 b2 e1 d4 a3 a1 d3 a2 c5 a4 a5 c4 b5 b3 b4"
REVIEWED_GAME = tuple(_GAME.split())
"""A whole game of a strong, a medium and an easy computer seat (in that order), for the
review's tests and ``bench/review.py``."""

OPTIONS = [
    PerlenOptions(),
    PerlenOptions(score=Score.ALL),
    PerlenOptions(pools=Pools.UNLIMITED, placement=Placement.FREE),
]
"""The default rules, ``score = all``, and unlimited pools with open placement."""
