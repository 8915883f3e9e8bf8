"""Perlen-Pyramide rules, position to position and whole games (RULES.md)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.perlen import rules as perlen
from controller.games.perlen.rules import (
    Bonus,
    BonusRule,
    IllegalMoveError,
    IllegalReason,
    PerlenOptions,
    PerlenState,
    Placement,
    Pools,
    Score,
    Start,
    Ties,
    legal_moves,
    new_game,
    outcome,
    play,
)
from controller.rules.notation import APEX, POSITIONS, parse_position
from rigs.plain_perlen import PlainGame

FREE = PerlenOptions(placement=Placement.FREE)
FILLERS = ("e5", "c5", "e3", "a5", "e1", "c3", "a4", "c1", "e4")

Placed = tuple[str, int, str]
"""A pearl as (position, colour, "base" or "bonus"), in the order it was placed."""


def play_all(
    moves: Iterable[str], options: PerlenOptions | None = None
) -> tuple[PerlenState, list[Bonus]]:
    state = new_game(options)
    bonuses: list[Bonus] = []
    for move in moves:
        state, earned = play(state, move)
        bonuses.extend(earned)
    return state, bonuses


def colour_group(colours: dict[str, int]) -> tuple[PerlenState, tuple[Bonus, ...]]:
    """Play (open placement) until the cells hold the given colours; fillers elsewhere."""
    state = new_game(FREE)
    wanted = dict(colours)
    fillers = list(FILLERS)
    last: tuple[Bonus, ...] = ()
    while wanted:
        mover = state.to_move
        mine = [cell for cell, c in wanted.items() if c == mover]
        if mine:
            cell = mine[0]
            del wanted[cell]
        else:
            cell = fillers.pop(0)
        state, last = play(state, cell)
    return state, last


def random_game(
    seed: int, options: PerlenOptions | None = None
) -> tuple[PerlenState, list[str], list[Placed]]:
    rng = random.Random(seed)
    state = new_game(options)
    moves: list[str] = []
    placements: list[Placed] = []
    while not state.over:
        move = rng.choice(legal_moves(state))
        mover = state.to_move
        assert mover is not None
        state, earned = play(state, move)
        moves.append(move.short)
        placements.append((str(move), mover, "base"))
        placements.extend((str(b.position), b.colour, "bonus") for b in earned)
    return state, moves, placements


# -- the worked example ---------------------------------------------------------------


def test_worked_example_of_the_rule_book() -> None:
    state, bonuses = play_all(["c3", "d4", "d3"])
    assert bonuses == []
    state, earned = play(state, "c4")
    assert len(earned) == 1
    bonus = earned[0]
    assert str(bonus.position) == "2:c3"
    assert bonus.colour == 0
    assert bonus.reason is BonusRule.MAJORITY
    assert state.to_move == 1
    assert state.colour_at("2:c3") == 0


# -- each bonus rule for each colour -------------------------------------------------

GROUP = ("a1", "b1", "a2", "b2")


@pytest.mark.parametrize("colour", [0, 1, 2])
def test_three_one_gives_the_three(colour: int) -> None:
    other = (colour + 1) % 3
    _, earned = colour_group(dict(zip(GROUP, (colour, colour, other, colour), strict=True)))
    assert [(str(b.position), b.colour, b.reason) for b in earned] == [
        ("2:a1", colour, BonusRule.MAJORITY)
    ]


@pytest.mark.parametrize("colour", [0, 1, 2])
def test_two_one_one_gives_the_two(colour: int) -> None:
    a, b = (colour + 1) % 3, (colour + 2) % 3
    _, earned = colour_group(dict(zip(GROUP, (a, colour, b, colour), strict=True)))
    assert [(b.colour, b.reason) for b in earned] == [(colour, BonusRule.MAJORITY)]


@pytest.mark.parametrize("absent", [0, 1, 2])
def test_two_two_gives_the_absent_colour(absent: int) -> None:
    a, b = (absent + 1) % 3, (absent + 2) % 3
    _, earned = colour_group(dict(zip(GROUP, (a, b, b, a), strict=True)))
    assert [(b.colour, b.reason) for b in earned] == [(absent, BonusRule.TWO_TWO)]


@pytest.mark.parametrize("colour", [0, 1, 2])
def test_four_of_a_kind_gives_the_next_colour(colour: int) -> None:
    _, earned = colour_group(dict.fromkeys(GROUP, colour))
    assert [(b.colour, b.reason) for b in earned] == [((colour + 1) % 3, BonusRule.FOUR_OF_A_KIND)]


def test_bonus_pearls_do_not_change_whose_turn_it_is() -> None:
    state, earned = colour_group({"a1": 0, "b1": 1, "a2": 2, "b2": 0})
    assert earned  # the 4th pearl was colour 0's, so colour 1 moves next
    assert state.to_move == 1


# -- cascades -------------------------------------------------------------------------


def test_a_bonus_completes_the_layer_above_and_order_is_reading_order() -> None:
    # Fill a 3x3 block so the last base pearl (b2, the centre) completes four
    # layer-2 groups at once, and with them the layer-3 pearl 3:a1.
    state = new_game(FREE)
    block = ["a1", "c1", "a3", "c3", "b1", "a2", "c2", "b3"]
    for cell in block:
        state, earned = play(state, cell)
        assert earned == ()
    state, earned = play(state, "b2")
    assert [str(b.position) for b in earned] == ["2:a1", "2:b1", "2:a2", "2:b2", "3:a1"]
    for bonus in earned:
        for support in bonus.position.supports:
            assert state.colour_at(support) is not None


def test_the_last_base_pearl_completes_the_pyramid_up_to_the_apex() -> None:
    state, _, placements = random_game(7)
    assert state.over and state.to_move is None
    assert placements[-1][0] == str(APEX)
    assert state.occupied.bit_count() == 55
    assert legal_moves(state) == ()


# -- illegal moves --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "move", "reason"),
    [
        ([], "f3", IllegalReason.OFF_BOARD),
        ([], "a0", IllegalReason.OFF_BOARD),
        ([], "C3", IllegalReason.OFF_BOARD),
        ([], "2:a1", IllegalReason.NOT_BASE),
        (["c3"], "c3", IllegalReason.OCCUPIED),
        (["c3"], "a1", IllegalReason.NOT_TOUCHING),
        (["c3"], "e5", IllegalReason.NOT_TOUCHING),
    ],
)
def test_illegal_moves_raise_a_named_error(
    moves: list[str], move: str, reason: IllegalReason
) -> None:
    state, _ = play_all(moves)
    with pytest.raises(IllegalMoveError) as info:
        play(state, move)
    assert info.value.reason is reason
    assert isinstance(info.value, ValueError)


def test_no_move_after_the_end() -> None:
    state, _, _ = random_game(3)
    with pytest.raises(IllegalMoveError) as info:
        play(state, "a1")
    assert info.value.reason is IllegalReason.GAME_OVER


def test_touching_includes_diagonals() -> None:
    state, _ = play_all(["c3"])
    assert {p.short for p in legal_moves(state)} == {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
    play(state, "d4")  # diagonal: legal


def test_a_failed_move_leaves_the_state_unchanged() -> None:
    state, _ = play_all(["c3", "d4"])
    before = state
    with pytest.raises(IllegalMoveError):
        play(state, "a1")
    assert state == before


# -- house variants -------------------------------------------------------------------


def test_centre_start() -> None:
    opts = PerlenOptions(start=Start.CENTRE)
    state = new_game(opts)
    assert [p.short for p in legal_moves(state)] == ["c3"]
    with pytest.raises(IllegalMoveError) as info:
        play(state, "a1")
    assert info.value.reason is IllegalReason.NOT_CENTRE
    state, _ = play(state, "c3")
    assert len(legal_moves(state)) == 8


def test_open_placement() -> None:
    state, _ = play_all(["c3"], FREE)
    assert len(legal_moves(state)) == 24
    play(state, "a1")


def test_score_all_counts_hidden_pearls() -> None:
    state, _, _ = random_game(11, PerlenOptions(score=Score.ALL))
    result = outcome(state)
    assert result.scores == result.totals
    assert sum(result.scores) == 55
    assert sum(result.visible) == 41


# -- pools ----------------------------------------------------------------------------


def _seed_where(
    predicate: Callable[[PerlenState, list[str], list[Placed]], bool],
    options: PerlenOptions | None = None,
    tries: int = 400,
) -> tuple[int, PerlenState, list[str], list[Placed]]:
    for seed in range(tries):
        state, moves, placements = random_game(seed, options)
        if predicate(state, moves, placements):
            return seed, state, moves, placements
    raise AssertionError("no such game in the seeds tried")


def test_strict_pools_pass_a_bonus_on_and_never_go_negative() -> None:
    def passed_on(state: PerlenState, moves: list[str], placements: list[Placed]) -> bool:
        return any(b.passed_from is not None for b in _bonuses_of(moves))

    _, state, moves, _ = _seed_where(passed_on)
    bonuses = _bonuses_of(moves)
    passed = [b for b in bonuses if b.reason is BonusRule.PASSED_ON]
    assert passed
    for b in passed:
        assert b.colour != b.passed_from
    assert all(left is not None and left >= 0 for left in state.pools_left())
    assert sum(m.bit_count() for m in state.colours) == 55


# Colour 0 collects bonus pearls until its pool is empty before the base is full.
POOL_RUNS_OUT = [
    "e3",
    "e2",
    "e1",
    "d4",
    "d3",
    "e4",
    "c2",
    "b2",
    "d2",
    "c3",
    "c4",
    "b3",
    "b4",
    "d1",
    "a1",
    "c1",
    "b1",
    "c5",
    "d5",
    "e5",
    "a4",
    "b5",
    "a5",
    "a2",
]


def test_strict_pools_a_player_with_no_pearls_passes() -> None:
    state = new_game()
    passes: list[int] = []
    for move in POOL_RUNS_OUT:
        before = state
        state, _ = play(state, move)
        passes.extend(perlen.passes(before, state))
        if state.to_move is not None:
            # Nobody with an empty pool is ever asked to move.
            left = state.pools_left()[state.to_move]
            assert left is not None and left > 0
    assert passes == [0]
    assert state.pools_left()[0] == 0
    # The plain implementation agrees on who moves.
    plain = PlainGame()
    for move in POOL_RUNS_OUT:
        plain.play(move)
    assert plain.to_move == state.to_move


def _bonuses_of(moves: Iterable[str]) -> list[Bonus]:
    state = new_game()
    out: list[Bonus] = []
    for move in moves:
        state, earned = play(state, move)
        out.extend(earned)
    return out


def test_unlimited_pools_ignore_the_25_pearl_limit() -> None:
    opts = PerlenOptions(pools=Pools.UNLIMITED)
    seed, state, _, _ = _seed_where(
        lambda s, m, p: max(c.bit_count() for c in s.colours) > 25, opts
    )
    assert state.pools_left() == (None, None, None)
    # Same moves under strict pools give a different colouring.
    strict_state, _, _ = random_game(seed)
    assert max(c.bit_count() for c in strict_state.colours) <= 25


# -- ties -----------------------------------------------------------------------------


def test_ties_shared_and_total() -> None:
    def tied(state: PerlenState, moves: list[str], placements: list[Placed]) -> bool:
        r = outcome(state)
        best = max(r.visible)
        leaders = [c for c in range(3) if r.visible[c] == best]
        return len(leaders) > 1 and len({r.totals[c] for c in leaders}) > 1

    seed, state, _, _ = _seed_where(tied)
    shared = outcome(state)
    assert len(shared.winners) >= 2
    total_state, _, _ = random_game(seed, PerlenOptions(ties=Ties.TOTAL))
    by_total = outcome(total_state)
    assert len(by_total.winners) < len(shared.winners)
    best_total = max(by_total.totals[c] for c in shared.winners)
    assert all(by_total.totals[w] == best_total for w in by_total.winners)


def test_options_from_dict_rejects_unknown_keys_and_values() -> None:
    with pytest.raises(perlen.OptionError, match="'colour'"):
        PerlenOptions.from_dict({"colour": "red"})
    with pytest.raises(perlen.OptionError, match="'strict' or 'unlimited'"):
        PerlenOptions.from_dict({"pools": "some"})
    with pytest.raises(perlen.OptionError, match="first_seat"):
        PerlenOptions.from_dict({"first_seat": 3})
    opts = PerlenOptions.from_dict({"first_seat": 2})
    assert [opts.seat_of(c) for c in range(3)] == [2, 0, 1]
    assert PerlenOptions.from_dict(opts.to_dict()) == opts


# -- properties over random legal games ------------------------------------------------

options_strategy = st.builds(
    PerlenOptions,
    ties=st.sampled_from(Ties),
    pools=st.sampled_from(Pools),
    start=st.sampled_from(Start),
    placement=st.sampled_from(Placement),
    score=st.sampled_from(Score),
)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=options_strategy)
def test_random_games_build_a_whole_pyramid(seed: int, options: PerlenOptions) -> None:
    state, moves, placements = random_game(seed, options)
    assert len(placements) == 55
    assert len(moves) == 25
    assert {pos for pos, _, _ in placements} == {str(p) for p in POSITIONS}
    result = outcome(state)
    assert sum(result.visible) == 41
    assert sum(result.totals) == 55
    assert result.winners
    # Every pearl's supports were placed before it.
    seen: set[str] = set()
    for pos, _, kind in placements:
        p = parse_position(pos)
        assert kind == ("base" if p.layer == 1 else "bonus")
        assert all(str(s) in seen for s in p.supports)
        seen.add(pos)
    if options.pools is Pools.STRICT:
        assert all(left is not None and left >= 0 for left in state.pools_left())
    # Replay is deterministic.
    again = new_game(options)
    for move in moves:
        again, _ = play(again, move)
    assert again == state


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    pools=st.sampled_from(["strict", "unlimited"]),
    start=st.sampled_from(["anywhere", "centre"]),
    placement=st.sampled_from(["touching", "free"]),
)
def test_engine_agrees_with_a_plain_implementation(
    seed: int, pools: str, start: str, placement: str
) -> None:
    options = PerlenOptions.from_dict({"pools": pools, "start": start, "placement": placement})
    rng = random.Random(seed)
    plain = PlainGame(pools=pools, start=start, placement=placement)
    state = new_game(options)
    engine_placements = []
    while not state.over:
        legal = [p.short for p in legal_moves(state)]
        assert legal == plain.legal()
        move = rng.choice(legal)
        mover = state.to_move
        state, earned = play(state, move)
        engine_placements.append((f"1:{move}", mover, "base"))
        engine_placements.extend((str(b.position), b.colour, "bonus") for b in earned)
        plain.play(move)
        assert state.to_move == plain.to_move
    assert engine_placements == plain.placed
    assert list(outcome(state).visible) == plain.visible()


# -- the pyramid's symmetries -------------------------------------------------------------


def test_a_turned_or_mirrored_game_is_the_same_game_turned_or_mirrored() -> None:
    from controller.games.perlen.pyramid import SYMMETRIES, canonical, image
    from controller.games.perlen.pyramid import turned as turned_pyramid
    from controller.rules.notation import BASE

    for number, symmetry in enumerate(SYMMETRIES):
        rng = random.Random(number)
        state = new_game(PerlenOptions(pools=Pools.UNLIMITED))
        turned = state
        while not state.over:
            move = rng.choice(legal_moves(state))
            assert BASE[symmetry[move.index]] in legal_moves(turned)
            state, earned = play(state, move)
            turned, earned_turned = play(turned, BASE[symmetry[move.index]])
            assert sorted((symmetry[b.position.index], b.colour) for b in earned) == sorted(
                (b.position.index, b.colour) for b in earned_turned
            )
            assert image(state.board, symmetry) == turned.board
            assert state.to_move == turned.to_move
            # The whole position turns with it (its legal cells too), and both have one
            # canonical image.
            assert turned_pyramid(state, symmetry)[1:] == tuple(turned)[1:]
            assert canonical(state).pyramid[1:] == canonical(turned).pyramid[1:]
