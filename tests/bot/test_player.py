"""The computer player: legal, in time, deterministic, ordered in strength; hints, reviews."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.games.perlen.bot import (
    LEVEL_SETTINGS,
    LEVELS,
    Level,
    MoveReview,
    advise,
    choose_move,
    decide,
    machine_speed,
    review,
)
from controller.games.perlen.bot import player as player_module
from controller.games.perlen.bot.exact import ExactSearch
from controller.games.perlen.bot.expectimax import Expected, ModelSearch
from controller.games.perlen.bot.player import Speed
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


@pytest.fixture(scope="module", autouse=True)
def measured_speed() -> Speed:
    # As the Table does at start: measure once, so that no test's budget pays for it.
    return machine_speed()


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
    # Timing has its own tests below, with budgets a loaded machine cannot upset; here a
    # 50 ms budget only keeps the many examples quick.
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


@pytest.mark.parametrize(
    ("placed", "level", "budget"),
    [
        (1, "strongest", 0.3),  # Monte Carlo from the opening
        (13, "strongest", 0.25),  # 12 empty cells: exact would not fit, sampling does
        (15, "strongest", 0.4),  # 10 empty: the exact search may or may not fit
        (16, "strong", 0.1),  # a short budget: fewer playouts, and in time
    ],
)
def test_a_move_arrives_within_its_budget(placed: int, level: str, budget: float) -> None:
    for seed in range(3):
        state = position(seed, placed)
        started = time.perf_counter()
        decision = decide(state, level, seed=seed, budget=budget)
        assert time.perf_counter() - started < budget
        assert decision.seconds < budget
        assert decision.move in legal_moves(state)


@pytest.mark.parametrize("against", ["perfect", "model"])
def test_an_exact_search_that_overruns_falls_back_to_sampling_in_time(
    monkeypatch: pytest.MonkeyPatch, against: str
) -> None:
    # Pretend the exact search (against perfect or against modelled rivals) is cheap, so
    # that it starts on 13 empty cells and meets its deadline; the move still comes from
    # Monte Carlo within the budget.
    monkeypatch.setattr(player_module, "EXACT_WORK", (0,) * 26)
    monkeypatch.setattr(player_module, "MODEL_WORK", (0,) * 26)
    level = replace(LEVEL_SETTINGS["strongest"], against=against)
    state = position(4, 12)
    started = time.perf_counter()
    decision = decide(state, level, seed=1, budget=0.3)
    # The player's own clock keeps the budget; the wall clock around it also holds the
    # machine's scheduling (a loaded CI core once added 75 ms), so it gets twice the budget.
    assert decision.seconds < 0.3
    assert time.perf_counter() - started < 0.6
    assert decision.method == "search"
    assert decision.nodes > 0  # the exact search did run first
    assert decision.move in legal_moves(state)


def test_a_cancel_ends_the_search_at_once_with_a_legal_move() -> None:
    cancel = threading.Event()
    cancel.set()
    state = position(2, 3)
    started = time.perf_counter()
    decision = decide(state, "strongest", seed=1, budget=5.0, cancel=cancel)
    assert time.perf_counter() - started < 0.2
    assert not decision.complete
    assert decision.move in legal_moves(state)


def test_a_cancel_from_another_thread_stops_a_long_search() -> None:
    cancel = threading.Event()
    state = position(2, 3)
    timer = threading.Timer(0.1, cancel.set)
    timer.start()
    started = time.perf_counter()
    decision = decide(state, "strongest", seed=1, budget=10.0, cancel=cancel)
    timer.join()
    assert time.perf_counter() - started < 0.5
    assert decision.move in legal_moves(state)


# -- determinism -------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_move(level: str) -> None:
    for seed, placed in ((1, 2), (2, 9), (3, 16)):
        state = position(seed, placed)
        first = decide(state, level, seed=seed, budget=0.5)
        again = decide(state, level, seed=seed, budget=0.5)
        assert first.complete and again.complete
        assert first.move == again.move
        assert first.expected == again.expected


def test_different_seeds_vary_the_gentle_players_game() -> None:
    state = position(5, 4)
    moves = {choose_move(state, "gentle", seed=seed) for seed in range(40)}
    assert len(moves) >= 3


# -- perfect play ----------------------------------------------------------------------

# A speed to plan with, so that what the levels do here does not depend on this
# machine's load (strength itself is measured by bench/bot.py, not by tests).
PLANNED = Speed(playouts_per_second=20_000, nodes_per_second=100_000)


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
        cell = advise(state, budget=1.0).cell
        assert values[cell.index] == max(values.values())
        assert advise(state, budget=1.0).cell == cell


def test_a_hint_in_the_opening_is_legal_in_time_and_repeatable() -> None:
    state = position(9, 2)
    started = time.perf_counter()
    cell = advise(state, budget=0.4).cell
    assert time.perf_counter() - started < 0.4
    assert cell in legal_moves(state)
    assert advise(state, budget=0.4).cell == cell


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
    started = time.perf_counter()
    reviews = review(record, budget_per_move=0.04, timed=True)  # each search stops in time
    assert time.perf_counter() - started < 0.04 * 25 + 0.5
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
        move = choose_move(state, "strong", seed=0)
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
