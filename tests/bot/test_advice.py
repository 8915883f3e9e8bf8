"""Hints carry the facts a family's sentence needs: the cell, its bonus pearls, its worth.

Every hint here is planned at one fixed speed and kept on a virtual clock
(tests/bot/clocks.py), so that what it says does not depend on this machine's speed or
load.
"""

from __future__ import annotations

import random

import pytest

from controller.games.perlen.bot import Advice, Speed, advise, facts
from controller.games.perlen.bot.exact import ExactSearch
from controller.games.perlen.bot.player import STOP_SHARE
from controller.games.perlen.rules import PerlenState, legal_moves, new_game, play
from tests.bot.clocks import StepClock

PLANNED = Speed(playouts_per_second=20_000, nodes_per_second=100_000)
"""The speed the hints plan their work at: about this machine's."""
QUICK = 1e-4
"""A virtual machine fast enough for any plan here: no search is cut short."""
FAST_PLAN = Speed(playouts_per_second=200_000, nodes_per_second=1_000_000)
"""A plan for a machine ten times this one: more than fits the budget on a slow clock."""


def position(seed: int, placed: int) -> PerlenState:
    rng = random.Random(seed)
    state = new_game()
    while state.base_pearls < placed:
        state, _ = play(state, rng.choice(legal_moves(state)))
    return state


def test_in_a_solved_endgame_the_advice_is_exact_and_worth_the_gap_to_the_next_cell() -> None:
    checked = 0
    for seed in range(8):
        state = position(400 + seed, 18)
        assert state.to_move is not None
        values = ExactSearch(state.rules, viewpoint=state.to_move).move_values(state)
        best = max(values.values())
        advice = advise(state, budget=1.0, speed=PLANNED, clock=StepClock(QUICK))
        assert isinstance(advice, Advice)
        assert advice.exact and advice.colour == state.to_move
        assert advice.value == best == values[advice.cell.index]
        assert {p.index for p in advice.equal} == {
            c for c, v in values.items() if v == best and c != advice.cell.index
        }
        worse = [v for v in values.values() if v < best]
        if worse:
            assert advice.next_best is not None
            assert values[advice.next_best.index] == max(worse)
            assert advice.worth == best - max(worse) > 0
            checked += 1
        else:
            assert advice.next_best is None and advice.worth == 0
    assert checked >= 4


def test_the_bonus_pearls_of_the_advice_are_the_cascade_of_its_cell() -> None:
    for seed in range(6):
        state = position(500 + seed, 10)
        advice = advise(state, budget=0.3, speed=PLANNED, clock=StepClock(QUICK))
        _, placed = play(state, advice.cell)
        assert advice.wins + advice.gives == tuple(
            sorted(placed, key=lambda b: (b.colour != state.to_move, b.position.index))
        )
        assert all(b.colour == state.to_move for b in advice.wins)
        assert all(b.colour != state.to_move for b in advice.gives)


def test_denied_pearls_are_what_a_rival_would_earn_on_the_same_cell() -> None:
    state = new_game()
    for move in ("a1", "b1", "a2", "c1", "c2"):
        state, _ = play(state, move)
    # Colour 2 to move. On b2, colour 0 would complete 2:a1 as a 2:1:1 for itself;
    # colour 1 would take 2:a1 (2:1:1) and 2:b1 (3:1).
    told = facts(state, "b2")
    assert [(str(b.position), b.colour, b.rule.value) for b in told.denies] == [
        ("2:a1", 0, "majority"),
        ("2:a1", 1, "majority"),
        ("2:b1", 1, "majority"),
    ]
    # What colour 2 itself gets there: 2:a1; and 2:b1 goes to colour 1.
    assert [(str(b.position), b.colour) for b in told.wins] == [("2:a1", 2)]
    assert [(str(b.position), b.colour) for b in told.gives] == [("2:b1", 1)]
    # A cell that completes nothing for anybody denies nothing.
    assert facts(state, "d1").denies == ()


def test_in_the_opening_the_advice_is_a_legal_cell_in_time_and_repeatable() -> None:
    """On a machine that does the work between two looks at the clock in a twentieth of
    the budget, with a plan that does not fit it: the tree search stops at 60 % of the
    budget, the comparison with the next best cell at 80 %, and the same machine gives
    the same advice."""
    state = position(9, 3)
    clock = StepClock(0.4 / 20)
    advice = advise(state, budget=0.4, speed=FAST_PLAN, clock=clock)
    assert STOP_SHARE * 0.4 < clock.elapsed <= STOP_SHARE * 0.4 + 2 * clock.step
    assert advice.cell in legal_moves(state)
    assert not advice.exact and advice.worth >= 0
    assert advice.value is not None and advice.next_best in legal_moves(state)
    assert advise(state, budget=0.4, speed=FAST_PLAN, clock=StepClock(0.4 / 20)) == advice


def test_a_single_legal_cell_needs_no_search() -> None:
    state = position(8, 24)
    advice = advise(state, budget=0.2)
    assert advice.cell == legal_moves(state)[0]
    assert (advice.value, advice.next_best, advice.worth, advice.exact) == (None, None, 0.0, True)


def test_bad_arguments_are_refused() -> None:
    state = position(1, 3)
    with pytest.raises(ValueError, match="budget"):
        advise(state, budget=0)
    with pytest.raises(ValueError, match="seed"):
        advise(state, seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a legal cell"):
        facts(state, "e5")
    with pytest.raises(ValueError, match="complete"):
        advise(position(1, 25))
