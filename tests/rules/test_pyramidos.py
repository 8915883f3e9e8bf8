from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.pyramidos.rules import (
    EndTurn,
    ImpossibleEventError,
    Land,
    Leave,
    PyramidosOptions,
    PyramidosState,
    SetupError,
    Variant,
    apply,
    legal_events,
    new_game,
    outcome,
    parse_event,
)
from controller.rules.notation import NotationError, Target


def run(seats: int, texts: Iterable[str]) -> PyramidosState:
    state = new_game(options=PyramidosOptions(seats=seats))
    for text in texts:
        state = apply(state, parse_event(text))
    return state


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_seats_2_to_4(seats: int) -> None:
    state = new_game(seats)
    assert state.to_move == 0
    for expected in [*range(1, seats), 0]:
        state = apply(state, EndTurn())
        assert state.to_move == expected


@pytest.mark.parametrize("seats", [0, 1, 5, True, "3"])
def test_wrong_seat_counts(seats: int | str) -> None:
    with pytest.raises(SetupError):
        PyramidosOptions(seats=seats)  # type: ignore[arg-type]


def test_a_landing_belongs_to_the_seat_to_move_and_passes_the_turn() -> None:
    state = run(3, ["end", "land t2"])
    assert state.owner(Target.T2) == 1
    assert state.to_move == 2


def test_knocked_off_ball_frees_the_target_and_loses_its_point() -> None:
    state = run(2, ["land t1", "land t2"])
    assert outcome(state).points == (1, 1)
    state = apply(state, Leave(Target.T1))
    assert state.owner(Target.T1) is None
    assert outcome(state).points == (0, 1)
    assert state.to_move == 0  # a knock-off does not end the turn
    state = apply(state, Land(Target.T1))
    assert state.owner(Target.T1) == 0


def test_the_top_opens_only_when_four_base_balls_rest() -> None:
    state = run(2, ["land t1", "land t2", "land t3"])
    assert not state.top_open
    with pytest.raises(ImpossibleEventError, match="closed"):
        apply(state, Land(Target.TOP))
    state = apply(state, Land(Target.T4))
    assert state.top_open
    closed_again = apply(state, Leave(Target.T3))
    assert not closed_again.top_open


def test_a_ball_on_the_top_ends_the_game_and_scores_two() -> None:
    state = run(3, ["land t1", "land t2", "land t3", "land t4", "end", "land top"])
    assert state.over
    result = outcome(state)
    # seat 0: t1, t4 ; seat 1: t2 ; seat 2: t3, then top after seat 1 ended its turn
    assert result.points == (2, 1, 3)
    assert result.winners == (2,)
    assert legal_events(state) == ()


def test_single_winner_with_four_seats() -> None:
    state = run(4, ["land t1", "land t2", "land t3", "land t4", "land top"])
    assert outcome(state).points == (3, 1, 1, 1)
    assert outcome(state).winners == (0,)


def test_exact_shared_draw() -> None:
    # 0 t1, 1 t2, 0 t3, 1 t4; seat 0 knocks t1 off and ends; 1 lands t1 (3 points);
    # seat 0 (t3 = 1 point) lands the top: 3 against 3.
    state = run(
        2, ["land t1", "land t2", "land t3", "land t4", "leave t1", "end", "land t1", "land top"]
    )
    result = outcome(state)
    assert result.points == (3, 3)
    assert result.winners == (0, 1)


@pytest.mark.parametrize(
    ("texts", "event", "match"),
    [
        (["land t1"], "land t1", "already holds"),
        ([], "leave t2", "no ball"),
        ([], "land top", "closed"),
        (["land t1", "land t2", "land t3", "land t4", "land top"], "end", "over"),
        (["land t1", "land t2", "land t3", "land t4", "land top"], "leave t1", "over"),
    ],
)
def test_impossible_events(texts: list[str], event: str, match: str) -> None:
    state = run(2, texts)
    with pytest.raises(ImpossibleEventError, match=match):
        apply(state, parse_event(event))


@pytest.mark.parametrize("text", ["", "land", "land t5", "Land t1", "land  t1", "end now", "stop"])
def test_event_notation_is_strict(text: str) -> None:
    with pytest.raises(NotationError):
        parse_event(text)


def test_event_round_trip() -> None:
    for text in ("land t1", "leave top", "end"):
        assert str(parse_event(text)) == text


def test_options() -> None:
    opts = PyramidosOptions.from_dict(3, {"first_seat": 2, "variant": "skilful"})
    assert opts.variant is Variant.SKILFUL
    assert new_game(options=opts).to_move == 2
    with pytest.raises(SetupError, match="first_seat"):
        PyramidosOptions.from_dict(2, {"first_seat": 2})
    with pytest.raises(SetupError, match="unknown option"):
        PyramidosOptions.from_dict(2, {"balls": 6})


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 4), st.lists(st.integers(0, 10), max_size=60))
def test_random_event_streams_keep_the_invariants(seats: int, picks: list[int]) -> None:
    state = new_game(seats)
    for pick in picks:
        events = legal_events(state)
        if not events:
            break
        state = apply(state, events[pick % len(events)])
        result = outcome(state)
        assert sum(result.points) == sum(o is not None for o in state.owners[:4]) + 2 * (
            state.owners[4] is not None
        )
        assert state.over == (state.owners[4] is not None)
        assert bool(result.winners) == state.over
