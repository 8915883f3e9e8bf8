"""The exact search agrees with a plain brute force over the rules engine on small endgames."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from controller.bot.bits import Rules, from_state
from controller.bot.exact import ExactSearch, OutOfBudget
from controller.rules.perlen import (
    PerlenOptions,
    PerlenState,
    Placement,
    Pools,
    Score,
    legal_moves,
    new_game,
    outcome,
    play,
)


def brute_force(state: PerlenState, viewpoint: int) -> tuple[int, int, int]:
    """Final scores under max^n play, by trying every order of the empty cells through
    the engine: each mover takes the highest own score; then the viewpoint the lowest
    best rival, a rival the lowest score for the viewpoint; then the first cell in
    reading order. No table, no bitmasks of its own."""
    if state.to_move is None:
        s0, s1, s2 = outcome(state).scores
        return (s0, s1, s2)
    mover = state.to_move
    best: tuple[int, int, int] | None = None
    best_rank: tuple[int, int] | None = None
    for move in legal_moves(state):
        scores = brute_force(play(state, move)[0], viewpoint)
        if mover == viewpoint:
            rank = (scores[mover], -max(scores[(mover + 1) % 3], scores[(mover + 2) % 3]))
        else:
            rank = (scores[mover], -scores[viewpoint])
        if best_rank is None or rank > best_rank:
            best, best_rank = scores, rank
    assert best is not None
    return best


def endgame(seed: int, empty: int, options: PerlenOptions | None = None) -> PerlenState:
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


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "score-all", "unlimited-free"])
@pytest.mark.parametrize("empty", [1, 2, 4, 5])
def test_value_and_every_move_agree_with_brute_force(options, empty):
    for seed in range(6):
        state = endgame(seed, empty, options)
        viewpoint = seed % 3  # the mover's, or a rival's
        search = ExactSearch(Rules.of(options), viewpoint=viewpoint)
        bits = from_state(state)
        assert search.value(bits) == brute_force(state, viewpoint)
        values = search.move_values(bits)
        assert sorted(values) == [m.index for m in legal_moves(state)]
        for move in legal_moves(state):
            after = play(state, move)[0]
            assert values[move.index] == brute_force(after, viewpoint), (seed, move)


def test_agrees_where_a_pool_runs_dry_during_the_endgame():
    # Endgames whose perfect-play result changes when the pools are ignored: there a
    # colour runs out, and bonuses and turns pass on.
    checked = 0
    for seed in range(400):
        state = endgame(seed, 5)
        rules = Rules.of(state.options)
        mover = state.to_move
        value = ExactSearch(rules, viewpoint=mover).value(from_state(state))
        dry = ExactSearch(replace(rules, strict=False), viewpoint=mover)
        if value == dry.value(from_state(state)):
            continue
        assert value == brute_force(state, mover)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_one_table_serves_later_positions_of_the_same_game():
    state = endgame(11, 6)
    search = ExactSearch(Rules.of(state.options), viewpoint=1)
    search.value(from_state(state))
    solved = search.nodes
    later, _ = play(state, legal_moves(state)[0])
    assert search.value(from_state(later)) == brute_force(later, 1)
    assert search.nodes == solved  # every position after it was in the table already


def test_a_deadline_stops_a_search_too_big_for_it():
    state = endgame(3, 14)
    search = ExactSearch(Rules.of(state.options), viewpoint=0, deadline=0.0)
    with pytest.raises(OutOfBudget):
        search.value(from_state(state))
    full = ExactSearch(Rules.of(state.options), viewpoint=0, max_entries=100)
    with pytest.raises(OutOfBudget, match="table full"):
        full.value(from_state(state))


def test_a_complete_pyramid_has_its_scores_and_no_moves():
    state = endgame(5, 0)
    search = ExactSearch(Rules.of(state.options), viewpoint=0)
    s0, s1, s2 = outcome(state).scores
    assert search.value(from_state(state)) == (s0, s1, s2)
    with pytest.raises(ValueError, match="complete"):
        search.move_values(from_state(state))


def test_the_viewpoint_is_a_colour():
    with pytest.raises(ValueError, match="viewpoint"):
        ExactSearch(Rules.of(PerlenOptions()), viewpoint=3)


def test_the_viewpoint_changes_what_the_search_expects_of_indifferent_rivals():
    differ = 0
    for seed in range(12):
        state = endgame(seed, 6)
        values = [
            ExactSearch(Rules.of(state.options), viewpoint=v).move_values(from_state(state))
            for v in range(3)
        ]
        differ += values[0] != values[1] or values[1] != values[2]
    assert differ > 0
