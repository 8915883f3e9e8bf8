"""The computer player: legal, in time, deterministic, ordered in strength; hints, reviews."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
import threading
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games.perlen.bot import (
    LEVEL_SETTINGS,
    LEVELS,
    Decision,
    Level,
    MoveReview,
    advise,
    choose_move,
    decide,
    mcts,
    review,
)
from controller.games.perlen.bot import player as player_module
from controller.games.perlen.bot.exact import ExactSearch
from controller.games.perlen.bot.expectimax import Expected, ModelSearch
from controller.games.perlen.bot.player import EXACT_SHARE, STOP_SHARE, Speed
from controller.games.perlen.record import PerlenRecord
from controller.games.perlen.rules import (
    PerlenOptions,
    PerlenState,
    Placement,
    Pools,
    Score,
    Start,
    legal_moves,
    new_game,
    outcome,
    play,
)
from controller.rules.notation import BASE
from controller.rules.records import ReplayError
from tests.bot.clocks import StepClock, cancelled_at

PLANNED = Speed(playouts_per_second=20_000, nodes_per_second=100_000)
"""A speed to plan with, so that what the levels do here does not depend on this
machine's speed or load (strength itself is measured by bench/bot.py, not by tests)."""
QUICK = 1e-4
"""The step of a virtual machine fast enough for any plan below (32 playouts or 256
positions in a tenth of a millisecond): a search on it is never cut short."""


def position(seed: int, placed: int, options: PerlenOptions | None = None) -> PerlenState:
    rng = random.Random(seed)
    state = new_game(options)
    while state.base_pearls < placed:
        state, _ = play(state, rng.choice(legal_moves(state)))
    return state


# -- legality ----------------------------------------------------------------------------

ANY_OPTIONS = st.builds(
    PerlenOptions,
    pools=st.sampled_from(Pools),
    start=st.sampled_from(Start),
    placement=st.sampled_from(Placement),
    score=st.sampled_from(Score),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=ANY_OPTIONS,
    seed=st.integers(0, 2**32 - 1),
    placed=st.integers(0, 24),
    level=st.sampled_from(LEVELS),
)
def test_never_an_illegal_move(options: PerlenOptions, seed: int, placed: int, level: str) -> None:
    state = position(seed, placed, options)
    # Timing has its own tests below, on a virtual clock; here a 50 ms budget on the wall
    # clock only keeps the many examples quick (a move cut short is legal all the same).
    move = choose_move(state, level, seed=seed, budget=0.05)
    assert move in legal_moves(state)


def test_plays_whole_games_under_every_option_without_an_illegal_move() -> None:
    for number, (pools, start, placement, score) in enumerate(
        itertools.product(Pools, Start, Placement, Score)
    ):
        options = PerlenOptions(pools=pools, start=start, placement=placement, score=score)
        state = new_game(options)
        level = LEVELS[number % len(LEVELS)]
        while state.to_move is not None:
            move = choose_move(state, level, seed=number, budget=0.02)
            state, _ = play(state, move)  # raises IllegalMoveError on an illegal move
        assert outcome(state).over


# -- time --------------------------------------------------------------------------------
#
# On a virtual clock (tests/bot/clocks.py): a StepClock moves a fixed step at every look
# the searches take at it, a model of a machine that does the work between two looks (32
# playouts, 256 positions) in that step. The work is planned at FAST_PLAN, far more than
# those machines do in the budget, so only the clock can stop the search in time: a
# machine much slower than the plan expected (as a busy one is). On the wall clock these
# tests failed on a loaded machine; on this one they pass or fail the same anywhere.

FAST_PLAN = Speed(playouts_per_second=200_000, nodes_per_second=1_000_000)
"""A plan for a machine ten times this one: more work than fits any budget below."""
HUGE_PLAN = Speed(playouts_per_second=2_000_000, nodes_per_second=10_000_000)
"""A plan for a machine a hundred times this one: a review compares many games between
two looks at the clock (each look's 32 rounds play every cell compared)."""


@pytest.mark.parametrize(
    ("placed", "level", "budget"),
    [
        (1, "strongest", 0.3),  # Monte Carlo from the opening
        (13, "strongest", 0.25),  # 12 empty cells: the model search would not fit
        (15, "strongest", 0.4),  # 10 empty: the model search is planned, the clock stops it
        (17, "strong", 0.1),  # 8 empty: solved, then sampling among the perfect cells
    ],
)
def test_a_move_arrives_within_its_budget(placed: int, level: str, budget: float) -> None:
    """On a machine that does the work between two looks at the clock in a twentieth of
    the budget, every search stops at its first look past 80 % of the budget (the exact
    one past 60 %, and sampling takes over): the move comes within the budget, after at
    most one more step for the look that passed it and one for the decision's own."""
    step = budget / 20
    for seed in range(3):
        state = position(seed, placed)
        clock = StepClock(step)
        decision = decide(state, level, seed=seed, budget=budget, speed=FAST_PLAN, clock=clock)
        assert decision.seconds == pytest.approx(clock.elapsed - step)
        assert STOP_SHARE * budget < decision.seconds <= STOP_SHARE * budget + 2 * step
        assert decision.seconds < budget
        assert not decision.complete  # the plan did not fit: the clock stopped it
        assert decision.playouts > 0
        assert decision.move in legal_moves(state)


@pytest.mark.parametrize("against", ["perfect", "model"])
def test_an_exact_search_that_overruns_falls_back_to_sampling_in_time(
    monkeypatch: pytest.MonkeyPatch, against: str
) -> None:
    """Pretend the exact search (against perfect or against modelled rivals) is cheap, so
    that it starts on 13 empty cells; on a machine that expands 256 positions in a
    fiftieth of the budget it meets its deadline at 60 % of the budget, long before it
    could solve them, and the move comes from Monte Carlo within the budget."""
    monkeypatch.setattr(player_module, "EXACT_WORK", (0,) * 26)
    monkeypatch.setattr(player_module, "MODEL_WORK", (0,) * 26)
    level = replace(LEVEL_SETTINGS["strongest"], against=against)
    state = position(4, 12)
    budget = 0.3
    step = budget / 50
    clock = StepClock(step)
    decision = decide(state, level, seed=1, budget=budget, speed=FAST_PLAN, clock=clock)
    assert decision.method == "search"
    # The exact search ran first and stopped at its first look past 60 % of the budget
    # (its work limit at FAST_PLAN, 270,000 positions, is far beyond that).
    looks = int(EXACT_SHARE * budget / step) + 2
    assert 0 < decision.nodes <= looks * ExactSearch.CHECK_EVERY
    assert decision.playouts > 0
    assert STOP_SHARE * budget < decision.seconds <= STOP_SHARE * budget + 2 * step
    assert decision.move in legal_moves(state)


def test_a_cancel_ends_the_search_at_once_with_a_legal_move() -> None:
    cancel = threading.Event()
    cancel.set()
    state = position(2, 3)
    clock = StepClock(0.001)
    decision = decide(
        state, "strongest", seed=1, budget=5.0, cancel=cancel, speed=FAST_PLAN, clock=clock
    )
    # The decision's start, the search's first look (which sees the cancel) and its end.
    assert clock.looks == 3
    assert (decision.playouts, decision.complete, decision.method) == (0, False, "quick")
    assert decision.move in legal_moves(state)


def test_a_cancel_from_another_thread_stops_a_long_search() -> None:
    """The search runs in a thread on a clock that stops at its tenth look until this
    thread sets the cancel; the search sees it at that look and ends, having played the
    playouts of the looks before it, instead of the 5 s its budget allows."""
    cancel = threading.Event()
    state = position(2, 3)
    clock = StepClock(0.001)
    reached = cancelled_at(clock, 10, cancel)
    decisions: list[Decision] = []

    def think() -> None:
        decisions.append(
            decide(
                state, "strongest", seed=1, budget=5.0, cancel=cancel, speed=PLANNED, clock=clock
            )
        )

    worker = threading.Thread(target=think)
    worker.start()
    assert reached.wait(timeout=60)  # a guard: it gets there in milliseconds
    cancel.set()
    worker.join(timeout=60)
    assert not worker.is_alive()
    (decision,) = decisions
    # Looks 2 to 9 each let 32 playouts through; the tenth saw the cancel; one more ended it.
    assert decision.playouts == 8 * mcts.CHECK_EVERY
    assert clock.looks == 11
    assert not decision.complete
    assert decision.move in legal_moves(state)


# -- determinism -------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_move(level: str) -> None:
    """Planned at one speed, on a clock that never cuts the plan short: the same work,
    and so the same move (on the wall clock a busy machine cut it short by chance)."""
    for seed, placed in ((1, 2), (2, 9), (3, 16)):
        state = position(seed, placed)
        first = decide(state, level, seed=seed, budget=0.5, speed=PLANNED, clock=StepClock(QUICK))
        again = decide(state, level, seed=seed, budget=0.5, speed=PLANNED, clock=StepClock(QUICK))
        assert first.complete and again.complete
        assert first.move == again.move
        assert first.expected == again.expected


def test_different_seeds_vary_the_gentle_players_game() -> None:
    state = position(5, 4)
    moves = {choose_move(state, "gentle", seed=seed) for seed in range(40)}
    assert len(moves) >= 3


# -- perfect play ----------------------------------------------------------------------


def strongest_endgame(state: PerlenState) -> Expected:
    """Every cell's expected result against rivals as the strongest level models them."""
    assert state.to_move is not None
    strongest = LEVEL_SETTINGS["strongest"]
    return ModelSearch(
        state.rules,
        viewpoint=state.to_move,
        greedy=strongest.greedy,
        score_weight=strongest.score_weight,
    ).solve(state)


def test_levels_that_solve_endgames_play_a_perfect_cell() -> None:
    # Ten endgames with 8 empty cells, solved exactly. Strong gives nothing away by the
    # measure of the exact search (what the mover can make sure of against perfect
    # rivals); the strongest plays the best cell against rivals as its playouts model
    # them (the greedy cell half the time), by the expected result.
    for seed in range(10):
        state = position(100 + seed, 17)
        assert state.to_move is not None
        values = ExactSearch(state.rules, viewpoint=state.to_move).move_values(state)
        best = max(values.values())
        decision = decide(state, "strong", seed=seed, speed=PLANNED, timed=False)
        assert decision.method == "exact"
        assert values[decision.move.index] == best
        assert decision.expected == best
        model = strongest_endgame(state)
        decision = decide(state, "strongest", seed=seed, speed=PLANNED, timed=False)
        assert decision.method == "exact"
        assert decision.move.index == model.cell
        assert decision.expected is None


def test_gentle_and_easy_make_mistakes_the_searching_levels_do_not() -> None:
    loss: dict[str, float] = dict.fromkeys(LEVELS, 0)
    for seed in range(10):
        state = position(300 + seed, 19)  # 6 empty: medium solves these too
        assert state.to_move is not None
        values = ExactSearch(state.rules, viewpoint=state.to_move).move_values(state)
        best = max(values.values())
        for name in LEVELS[:-1]:
            move = decide(state, name, seed=seed, speed=PLANNED, timed=False).move
            loss[name] += best - values[move.index]
        # The strongest's yardstick is its expected result against modelled rivals.
        expected = strongest_endgame(state)
        move = decide(state, "strongest", seed=seed, speed=PLANNED, timed=False).move
        loss["strongest"] += expected.value - expected.values[move.index]
    assert loss["gentle"] > 0 and loss["easy"] > 0, loss
    assert loss["medium"] == loss["strong"] == loss["strongest"] == 0, loss


# -- hints -------------------------------------------------------------------------------


def test_a_hint_in_a_solved_endgame_is_a_best_cell() -> None:
    for seed in range(4):
        state = position(200 + seed, 18)
        assert state.to_move is not None
        values = ExactSearch(state.rules, viewpoint=state.to_move).move_values(state)
        cell = advise(state, budget=1.0, speed=PLANNED, clock=StepClock(QUICK)).cell
        assert values[cell.index] == max(values.values())
        assert advise(state, budget=1.0, speed=PLANNED, clock=StepClock(QUICK)).cell == cell


def test_a_hint_in_the_opening_is_legal_in_time_and_repeatable() -> None:
    """On a machine that does the work between two looks at the clock in a twentieth of
    the budget, with a plan that does not fit it: the hint stops at 80 % of the budget,
    and the same clock gives the same hint."""
    state = position(9, 2)
    clock = StepClock(0.4 / 20)
    cell = advise(state, budget=0.4, speed=FAST_PLAN, clock=clock).cell
    assert STOP_SHARE * 0.4 < clock.elapsed <= STOP_SHARE * 0.4 + 2 * clock.step
    assert cell in legal_moves(state)
    assert advise(state, budget=0.4, speed=FAST_PLAN, clock=StepClock(0.4 / 20)).cell == cell


# -- reviews -----------------------------------------------------------------------------


def random_record(seed: int) -> PerlenRecord:
    rng = random.Random(seed)
    state = new_game()
    moves = []
    while state.to_move is not None:
        move = rng.choice(legal_moves(state))
        moves.append(move.short)
        state, _ = play(state, move)
    return PerlenRecord(tuple(moves))


def test_a_review_values_every_move_and_solves_the_endgame_exactly() -> None:
    record = random_record(3)
    reviews = review(record, budget_per_move=0.04)  # its fixed work, done to the end
    assert [r.number for r in reviews] == list(range(1, 26))
    assert [r.played.short for r in reviews] == list(record.moves)
    state = new_game()
    exact_seen = 0
    for r in reviews:
        assert isinstance(r, MoveReview)
        assert r.colour == state.to_move
        assert r.loss >= 0
        assert r.best in legal_moves(state)
        if r.best == r.played:
            assert r.loss == 0
        if r.exact and len(legal_moves(state)) > 1:
            values = ExactSearch(state.rules, viewpoint=r.colour).move_values(state)
            best = max(values.values())
            assert r.loss == best - values[r.played.index]
            assert values[r.best.index] == best
            assert (r.best_value, r.played_value) == (best, values[r.played.index])
            exact_seen += 1
        state, _ = play(state, r.played)
    # Random moves lose pearls, and the last placements are solved exactly.
    assert sum(r.loss for r in reviews) > 3
    assert exact_seen >= 5
    assert reviews[-1].exact
    assert reviews[0].to_dict() == {
        "number": 1,
        "colour": 0,
        "played": record.moves[0],
        "best": reviews[0].best.short,
        "loss": reviews[0].loss,
        "exact": reviews[0].exact,
        "best_value": reviews[0].best_value,
        "played_value": reviews[0].played_value,
        "verdict": reviews[0].verdict,
        "low": reviews[0].low,
        "high": reviews[0].high,
    }


def test_a_timed_review_keeps_each_move_within_its_budget() -> None:
    """``timed=True`` on a machine that does the work between two looks at the clock in
    a tenth of the budget, with a plan for a machine a hundred times this one: each move
    of an opening (too early for the exact search) stops at its first look past 80 % of
    its budget, so the review of eight moves takes eight times that and a step or two a
    move for the looks that passed it (the sampling's and the next move's first)."""
    record = PerlenRecord(random_record(3).moves[:8])
    budget = 0.04
    step = budget / 10
    clock = StepClock(step)
    reviews = review(record, budget_per_move=budget, timed=True, speed=HUGE_PLAN, clock=clock)
    assert [r.played.short for r in reviews] == list(record.moves)
    assert not any(r.exact for r in reviews[1:])
    assert clock.elapsed <= 8 * (STOP_SHARE * budget + 2 * step) + step


def test_a_perfect_endgame_loses_nothing() -> None:
    # Play the last 6 placements of a game as the exact search does (strong plays
    # perfectly from 9 empty cells): the review finds no loss.
    state = position(21, 19)
    moves = []
    rng = random.Random(21)
    replay = new_game()
    while replay.base_pearls < 19:
        move = rng.choice(legal_moves(replay))
        moves.append(move.short)
        replay, _ = play(replay, move)
    assert replay == state
    while state.to_move is not None:
        move = decide(state, "strong", seed=0, speed=PLANNED, clock=StepClock(QUICK)).move
        moves.append(move.short)
        state, _ = play(state, move)
    reviews = review(PerlenRecord(tuple(moves)), budget_per_move=0.03)
    assert all(r.loss == 0 and r.best == r.played for r in reviews[19:])


def test_a_review_names_the_first_illegal_move() -> None:
    with pytest.raises(ReplayError) as caught:
        review(PerlenRecord(("c3", "c3")), budget_per_move=0.02)
    assert caught.value.number == 2
    with pytest.raises(ReplayError):
        review(PerlenRecord(("c3", "z9")), budget_per_move=0.02)


# -- outside input -----------------------------------------------------------------------


def test_bad_arguments_are_refused_with_a_clear_message() -> None:
    state = position(1, 3)
    with pytest.raises(ValueError, match=r"unknown level 'hard'.*gentle"):
        choose_move(state, "hard")
    for budget in (0, -1, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ValueError, match="budget"):
            choose_move(state, "easy", budget=budget)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        choose_move(state, "easy", seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="complete"):
        choose_move(position(1, 25), "easy")
    with pytest.raises(TypeError, match="state"):
        choose_move("c3", "easy")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="record"):
        review("c3 d4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget_per_move"):
        review(PerlenRecord(("c3",)), budget_per_move=0)
    with pytest.raises(ValueError, match="exact_empty"):
        Level("odd", budget=1.0, share=0.5, exact_empty=30)
    with pytest.raises(ValueError, match="wander"):
        replace(LEVEL_SETTINGS["easy"], wander=2.0)


def test_a_single_legal_cell_is_played_at_once() -> None:
    state = position(8, 24)
    decision = decide(state, "strongest", seed=0)
    assert decision.method == "forced"
    assert decision.move == legal_moves(state)[0]


def test_levels_are_the_contracts_names_in_order() -> None:
    assert LEVELS == ("gentle", "easy", "medium", "strong", "strongest")
    assert tuple(LEVEL_SETTINGS) == LEVELS
    assert all(BASE[0] in BASE for _ in LEVELS)


def test_importing_the_bot_loads_no_hardware_or_web_library() -> None:
    code = (
        "import sys, controller.games.perlen.bot; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'gpiozero', 'serial', 'flask', 'waitress', 'sqlite3', 'werkzeug'}); print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
