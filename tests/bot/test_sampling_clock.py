"""The sampling searches keep their deadline on the clock they are given.

Each test runs on a virtual machine (:class:`tests.bot.clocks.StepClock` with a step of
one second) that plays the games between two looks at the clock in a second: the looks
read 0, 1, … 10 s, none past a deadline of 10 s, and the twelfth reads 11 and stops the
search, eleven looks' worth of games in, whatever the real machine's load.
"""

from __future__ import annotations

import random
import threading

from controller.games.perlen.bot import compare as compare_module
from controller.games.perlen.bot import mcts
from controller.games.perlen.bot.compare import compare, means, position_seed
from controller.games.perlen.bot.policies import playout
from controller.games.perlen.pyramid import cell_number
from controller.games.perlen.rules import new_game, play
from tests.bot.clocks import StepClock

LOOKS = 12
"""The look that reads 11 s, the first past the deadline of 10 s."""


def test_the_tree_search_stops_at_its_first_look_past_the_deadline() -> None:
    state, _ = play(new_game(), "c3")
    clock = StepClock(1.0)
    result = mcts.search(state, playouts=10_000, rng=random.Random(1), deadline=10.0, clock=clock)
    assert not result.complete
    assert clock.looks == LOOKS
    assert result.playouts == (LOOKS - 1) * mcts.CHECK_EVERY


def test_the_compared_games_stop_at_their_first_look_past_the_deadline() -> None:
    state, _ = play(new_game(), "c3")
    c2, b2 = cell_number("c2"), cell_number("b2")
    seed = position_seed(state, 0, 1)
    clock = StepClock(1.0)
    _, games = means(
        state, (c2, b2), playouts=10_000, seed=seed, rollout=playout, deadline=10.0, clock=clock
    )
    assert (clock.looks, games) == (LOOKS, (LOOKS - 1) * compare_module.CHECK_EVERY)
    clock = StepClock(1.0)
    told = compare(
        state, c2, b2, pairs=10_000, seed=seed, rollout=playout, deadline=10.0, clock=clock
    )
    assert (clock.looks, told.pairs) == (LOOKS, (LOOKS - 1) * compare_module.CHECK_EVERY)


def test_a_cancel_stops_them_at_their_first_look() -> None:
    state, _ = play(new_game(), "c3")
    cancel = threading.Event()
    cancel.set()
    result = mcts.search(state, playouts=10_000, rng=random.Random(1), cancel=cancel)
    assert (result.playouts, result.complete) == (0, False)
    c2, b2 = cell_number("c2"), cell_number("b2")
    told = compare(state, c2, b2, pairs=10_000, seed=1, rollout=playout, cancel=cancel)
    assert told.pairs == 0
