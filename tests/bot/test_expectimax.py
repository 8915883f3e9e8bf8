"""The search against modelled rivals agrees with a plain expectimax over the rules
engine, and with sampled games in which the rivals move as the playouts model them."""

from __future__ import annotations

import random
import threading

import pytest

from controller.games.perlen.bot.exact import OutOfBudget
from controller.games.perlen.bot.expectimax import WORK, ModelSearch
from controller.games.perlen.bot.policies import model_move
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


def result(state: PerlenState, viewpoint: int, weight: float) -> float:
    """The viewpoint's result of a finished game: its share of the win, blended with its
    share of the pearls that count (as the Monte Carlo search scores a playout)."""
    scores = outcome(state).scores
    best = max(scores)
    share = 1 / scores.count(best) if scores[viewpoint] == best else 0.0
    return (1 - weight) * share + weight * scores[viewpoint] / (sum(scores) or 1)


def plain(state: PerlenState, viewpoint: int, greedy: float, weight: float) -> float:
    """Expectimax by trying every order of the empty cells through the public API: the
    viewpoint takes its best cell; a rival takes, with chance ``greedy``, the first cell
    in reading order of those that add most to its score less what they add to the
    others', and otherwise any cell, each as likely. No table."""
    if state.to_move is None:
        return result(state, viewpoint, weight)
    values = []
    gains = []
    before = outcome(state).scores
    for move in legal_moves(state):
        after, _ = play(state, move)
        now = outcome(after).scores
        gained = [now[c] - before[c] for c in range(3)]
        gains.append(2 * gained[state.to_move] - sum(gained))
        values.append(plain(after, viewpoint, greedy, weight))
    if state.to_move == viewpoint:
        return max(values)
    greedy_value = values[gains.index(max(gains))]
    return greedy * greedy_value + (1 - greedy) * sum(values) / len(values)


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "score-all", "unlimited-free"])
@pytest.mark.parametrize("empty", [2, 4, 5])
def test_every_cell_agrees_with_a_plain_expectimax(options: PerlenOptions, empty: int) -> None:
    for seed in range(4):
        state = endgame(seed, empty, options)
        assert state.to_move is not None
        greedy, weight = (0.5, 0.25) if seed % 2 else (0.9, 0.0)
        search = ModelSearch(
            state.rules, viewpoint=state.to_move, greedy=greedy, score_weight=weight
        )
        best = search.solve(state)
        assert sorted(best.values) == [m.index for m in legal_moves(state)]
        for move in legal_moves(state):
            after, _ = play(state, move)
            expected = plain(after, state.to_move, greedy, weight)
            assert best.values[move.index] == pytest.approx(expected, abs=1e-12)
        assert best.value == max(best.values.values())
        assert best.values[best.cell] == best.value


def test_agrees_where_a_pool_runs_dry_during_the_endgame() -> None:
    checked = 0
    for seed in range(600):
        state = endgame(seed, 5)
        mover = state.to_move
        assert mover is not None
        strict = ModelSearch(state.rules, viewpoint=mover, greedy=0.5).solve(state)
        loose = ModelSearch(state.rules._replace(strict=False), viewpoint=mover, greedy=0.5)
        if strict.values == loose.solve(state).values:
            continue
        for move in legal_moves(state):
            after, _ = play(state, move)
            assert strict.values[move.index] == pytest.approx(plain(after, mover, 0.5, 0.25))
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_sampled_games_against_the_playouts_model_average_to_the_value() -> None:
    # The rivals here are the very function the strongest level's playouts and tree use
    # (policies.model_move), so the search models what it claims to model.
    state = endgame(21, 7)
    me = state.to_move
    assert me is not None
    search = ModelSearch(state.rules, viewpoint=me, greedy=0.5)
    value = search.solve(state).value
    rng = random.Random(4)
    total = 0.0
    games = 3000
    for _ in range(games):
        game = state
        while game.to_move is not None:
            if game.to_move == me:
                cell = search.solve(game).cell  # the table makes later moves look-ups
            else:
                cell = model_move(game, rng.random, 0.5)
            game, _ = play(game, next(m for m in legal_moves(game) if m.index == cell))
        total += result(game, me, 0.25)
    # A result is between 0 and 1, so the mean's standard error is below 0.5 / sqrt(3000)
    # (0.009): five of them.
    assert total / games == pytest.approx(value, abs=0.046)


def test_the_work_table_holds_for_random_endgames() -> None:
    for empty in range(4, 10):
        for seed in range(2):
            state = endgame(500 + 10 * empty + seed, empty)
            assert state.to_move is not None
            search = ModelSearch(state.rules, viewpoint=state.to_move, greedy=0.5)
            search.solve(state)
            assert WORK[empty] / 1.3 <= search.positions <= WORK[empty]


def test_a_deadline_a_work_limit_or_a_cancel_stops_it() -> None:
    state = endgame(3, 12)
    assert state.to_move is not None
    with pytest.raises(OutOfBudget, match="time"):
        ModelSearch(state.rules, viewpoint=state.to_move, greedy=0.5, deadline=0.0).solve(state)
    with pytest.raises(OutOfBudget, match="work"):
        ModelSearch(state.rules, viewpoint=state.to_move, greedy=0.5, max_positions=300).solve(
            state
        )
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(OutOfBudget):
        ModelSearch(state.rules, viewpoint=state.to_move, greedy=0.5, cancel=cancel).solve(state)


def test_a_deadline_stops_it_at_its_first_look_at_the_clock_past_it() -> None:
    """On a virtual machine that expands 256 positions (the positions between two looks
    at the clock) a second, a deadline of 10 s stops it at the look that reads 11."""
    state = endgame(3, 12)
    assert state.to_move is not None
    clock = StepClock(1.0)
    search = ModelSearch(
        state.rules, viewpoint=state.to_move, greedy=0.5, deadline=10.0, clock=clock
    )
    with pytest.raises(OutOfBudget, match="time"):
        search.solve(state)
    assert clock.looks == 12
    assert search.positions == 12 * ModelSearch.CHECK_EVERY


def test_bad_arguments_are_refused_with_their_name() -> None:
    rules = new_game().rules
    with pytest.raises(ValueError, match="viewpoint"):
        ModelSearch(rules, viewpoint=3, greedy=0.5)
    with pytest.raises(ValueError, match="greedy"):
        ModelSearch(rules, viewpoint=0, greedy=1.5)
    with pytest.raises(ValueError, match="score_weight"):
        ModelSearch(rules, viewpoint=0, greedy=0.5, score_weight=-0.1)
    state = endgame(2, 6)
    assert state.to_move is not None
    rival = (state.to_move + 1) % 3
    with pytest.raises(ValueError, match="not to move"):
        ModelSearch(state.rules, viewpoint=rival, greedy=0.5).solve(state)
