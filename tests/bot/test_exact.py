"""The exact search agrees with a plain brute force over the rules engine on small endgames."""

from __future__ import annotations

import pytest

from controller.games.perlen.bot.exact import MARGIN, ExactSearch, OutOfBudget, pools_can_run_dry
from controller.games.perlen.rules import (
    PerlenOptions,
    PerlenState,
    legal_moves,
    new_game,
    outcome,
    play,
)
from rigs.positions import OPTIONS, endgame
from tests.bot.clocks import StepClock


def brute_force(state: PerlenState, viewpoint: int, margin: bool = False) -> int:
    """The viewpoint's final score (or lead over the better rival) when it plays to make
    it as high as it can and both rivals play to make it as low as they can, by trying
    every order of the empty cells through the engine. No table, no pruning."""
    if state.to_move is None:
        scores = outcome(state).scores
        if not margin:
            return scores[viewpoint]
        return scores[viewpoint] - max(scores[(viewpoint + 1) % 3], scores[(viewpoint + 2) % 3])
    values = [brute_force(play(state, move)[0], viewpoint, margin) for move in legal_moves(state)]
    return max(values) if state.to_move == viewpoint else min(values)


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "score-all", "unlimited-free"])
@pytest.mark.parametrize("empty", [1, 2, 4, 6])
def test_value_and_every_move_agree_with_brute_force(options: PerlenOptions, empty: int) -> None:
    for seed in range(6):
        state = endgame(seed, empty, options)
        viewpoint = seed % 3  # the mover's, or a rival's
        search = ExactSearch(state.rules, viewpoint=viewpoint)
        assert search.value(state) == brute_force(state, viewpoint)
        values = search.move_values(state)
        assert sorted(values) == [m.index for m in legal_moves(state)]
        for move in legal_moves(state):
            after = play(state, move)[0]
            assert values[move.index] == brute_force(after, viewpoint), (seed, move)


def test_the_margin_agrees_with_brute_force_too() -> None:
    for seed in range(8):
        state = endgame(50 + seed, 5)
        search = ExactSearch(state.rules, viewpoint=seed % 3, measure=MARGIN)
        assert search.value(state) == brute_force(state, seed % 3, margin=True)


def test_the_best_cell_reaches_the_value_and_null_windows_agree() -> None:
    for seed in range(10):
        state = endgame(100 + seed, 6)
        mover = state.to_move
        assert mover is not None
        search = ExactSearch(state.rules, viewpoint=mover)
        best = search.solve(state)
        move = next(m for m in legal_moves(state) if m.index == best.cell)
        assert brute_force(play(state, move)[0], mover) == best.value
        assert search.at_least(state, best.value)
        assert not search.at_least(state, best.value + 1)


def test_the_best_below_is_the_second_value() -> None:
    checked = 0
    for seed in range(20):
        state = endgame(200 + seed, 5)
        mover = state.to_move
        assert mover is not None
        values = {m.index: brute_force(play(state, m)[0], mover) for m in legal_moves(state)}
        top = max(values.values())
        perfect = tuple(sorted(c for c, v in values.items() if v == top))
        rest = [v for c, v in values.items() if v < top]
        search = ExactSearch(state.rules, viewpoint=mover)
        second, cell = search.best_below(state, top, exclude=perfect)
        if not rest:
            assert (second, cell) == (None, None)
            continue
        assert second == max(rest)
        assert cell is not None
        assert values[cell] == second
        checked += 1
    assert checked > 10


def test_agrees_where_a_pool_runs_dry_during_the_endgame() -> None:
    # Endgames whose result changes when the pools are ignored: there a colour runs
    # out, and bonuses and turns pass on.
    checked = 0
    for seed in range(600):
        state = endgame(seed, 5)
        mover = state.to_move
        assert mover is not None
        value = ExactSearch(state.rules, viewpoint=mover).value(state)
        loose = ExactSearch(state.rules._replace(strict=False), viewpoint=mover)
        if value == loose.value(state):
            continue
        assert pools_can_run_dry(state)
        assert value == brute_force(state, mover)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_one_table_serves_later_positions_of_the_same_game() -> None:
    state = endgame(11, 7)
    assert state.to_move is not None
    search = ExactSearch(state.rules, viewpoint=state.to_move)
    best = search.solve(state)
    later, _ = play(state, next(m for m in legal_moves(state) if m.index == best.cell))
    solved = search.nodes
    # After the best cell, every reply of a rival was searched to prove the value.
    for reply in legal_moves(later):
        after, _ = play(later, reply)
        assert search.at_least(after, best.value)
    assert search.nodes - solved < 50


def test_a_deadline_or_a_work_limit_stops_a_search_too_big_for_it() -> None:
    state = endgame(3, 14)
    with pytest.raises(OutOfBudget, match="time"):
        ExactSearch(state.rules, viewpoint=0, deadline=0.0).value(state)
    with pytest.raises(OutOfBudget, match="work"):
        ExactSearch(state.rules, viewpoint=0, max_nodes=300).value(state)


def test_a_deadline_stops_it_at_its_first_look_at_the_clock_past_it() -> None:
    """On a virtual machine that expands 256 positions (the positions between two looks
    at the clock) a second: the looks read 0, 1, … 10 s, none past the deadline of
    10 s; the twelfth reads 11 and stops the search, 12 × 256 positions in."""
    state = endgame(3, 14)
    clock = StepClock(1.0)
    search = ExactSearch(state.rules, viewpoint=0, deadline=10.0, clock=clock)
    with pytest.raises(OutOfBudget, match="time"):
        search.value(state)
    assert clock.looks == 12
    assert search.nodes == 12 * ExactSearch.CHECK_EVERY


def test_a_complete_pyramid_has_its_score_and_no_moves() -> None:
    state = endgame(5, 0)
    search = ExactSearch(state.rules, viewpoint=0)
    assert search.value(state) == outcome(state).scores[0]
    with pytest.raises(ValueError, match="complete"):
        search.move_values(state)


def test_the_viewpoint_is_a_colour_and_the_measure_is_known() -> None:
    with pytest.raises(ValueError, match="viewpoint"):
        ExactSearch(new_game().rules, viewpoint=3)
    with pytest.raises(ValueError, match="measure"):
        ExactSearch(new_game().rules, viewpoint=0, measure="lead")
