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


OPTIONS = [
    PerlenOptions(),
    PerlenOptions(score=Score.ALL),
    PerlenOptions(pools=Pools.UNLIMITED, placement=Placement.FREE),
]
"""The default rules, ``score = all``, and unlimited pools with open placement."""
