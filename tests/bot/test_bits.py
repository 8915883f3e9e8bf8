"""The bot's integer pyramid moves exactly as the rules engine does, under every option."""

from __future__ import annotations

import itertools
import random

import pytest

from controller.bot.bits import OVER, Rules, cells_of, from_state, playout
from controller.rules.notation import BASE
from controller.rules.perlen import (
    PerlenOptions,
    Placement,
    Pools,
    Score,
    Start,
    legal_moves,
    new_game,
    outcome,
    play,
)

ALL_OPTIONS = [
    PerlenOptions(pools=pools, start=start, placement=placement, score=score)
    for pools, start, placement, score in itertools.product(Pools, Start, Placement, Score)
]


@pytest.mark.parametrize(
    "options", ALL_OPTIONS, ids=lambda o: "-".join(map(str, o.to_dict().values()))
)
def test_step_agrees_with_the_engine_move_by_move(options):
    rules = Rules.of(options)
    rng = random.Random(7)
    ran_dry = 0
    for _ in range(150):
        state = new_game(options)
        bits = from_state(state)
        while state.to_move is not None:
            cells = tuple(p.index for p in legal_moves(state))
            assert rules.legal_cells(bits) == cells
            cell = rng.choice(cells)
            state, _ = play(state, BASE[cell])
            bits = rules.step(bits, cell)
            assert bits == from_state(state)
        assert bits[4] == OVER
        assert rules.scores(bits) == outcome(state).scores
        ran_dry += any(left == 0 for left in state.pools_left())
    if options.pools is Pools.STRICT:
        # The pool rules were really exercised: some colour ran out in some games.
        assert ran_dry > 0


@pytest.mark.parametrize("options", ALL_OPTIONS[::3])
def test_a_playout_is_the_random_game_the_engine_plays_with_the_same_numbers(options):
    rules = Rules.of(options)
    for seed in range(60):
        state = new_game(options)
        # Start some playouts part-way through a game.
        opening = random.Random(seed)
        for _ in range(seed % 12):
            state, _ = play(state, opening.choice(legal_moves(state)))
        scores = playout(from_state(state), rules, random.Random(seed).random)
        numbers = random.Random(seed).random
        while state.to_move is not None:
            moves = legal_moves(state)
            state, _ = play(state, moves[int(numbers() * len(moves))])
        assert scores == outcome(state).scores


def test_cells_of_reads_every_bit():
    assert cells_of(0) == ()
    assert cells_of((1 << 25) - 1) == tuple(range(25))
    assert cells_of(1 << 24 | 1 << 12 | 1 << 13) == (12, 13, 24)
