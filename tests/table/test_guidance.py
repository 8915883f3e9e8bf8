"""Each game's LED picture, frame by frame: what every LED shows in each situation of the
user guide (docs/user-guide.md, "What the lights say")."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from controller.games.perlen import rules as perlen
from controller.games.perlen.lights import picture as perlen_picture
from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.lights import picture as pyramidos_picture
from controller.games.pyramidos.rules import Land
from controller.guidance import (
    CALM,
    SWEEP_PERIOD,
    GuidanceOptions,
    Light,
    Mismatch,
    MismatchKind,
    Picture,
    led_test,
    to_frame,
)
from controller.hardware.channels import CELLS, ChannelMap
from controller.hardware.port import Led, LedMode
from controller.palette import WHITE, scaled
from controller.rules.notation import Target, parse_position

RED, BLUE, YELLOW, GREEN = (200, 0, 0), (0, 0, 200), (200, 200, 0), (0, 200, 0)
PLAYERS = [Light(0, RED), Light(1, BLUE), Light(2, YELLOW)]
STEADY, BLINK = LedMode.STEADY, LedMode.BLINK


def guide(
    game: perlen.PerlenState | pyramidos.PyramidosState | None,
    players: list[Light],
    pending: Sequence[perlen.Bonus] = (),
    mismatches: Sequence[Mismatch] = (),
    options: GuidanceOptions = CALM,
    take_off: tuple[str, ...] = (),
) -> Picture:
    """The picture of either game's position, as the referee asks its game for it (no
    game: all dark)."""
    if game is None:
        return {}
    if isinstance(game, perlen.PerlenState):
        return perlen_picture(game, players, tuple(pending), tuple(mismatches), options, take_off)
    return pyramidos_picture(game, players, tuple(mismatches), options)


def play(
    *cells: str, options: perlen.PerlenOptions | None = None
) -> tuple[perlen.PerlenState, tuple[perlen.Bonus, ...]]:
    state = perlen.new_game(options)
    bonuses: tuple[perlen.Bonus, ...] = ()
    for cell in cells:
        state, bonuses = perlen.play(state, cell)
    return state, bonuses


def test_no_game_is_dark() -> None:
    assert guide(None, PLAYERS) == {}


def test_first_move_lights_only_the_starters_seat() -> None:
    assert guide(perlen.new_game(), PLAYERS) == {"seat:0": Led(RED, STEADY)}


def test_seat_led_follows_the_physical_seat_of_the_mover() -> None:
    # Colour 0 sits at seat 2: its turn lights seat:2, in its own colour.
    players = [Light(2, RED), Light(0, BLUE), Light(1, YELLOW)]
    assert guide(perlen.new_game(), players) == {"seat:2": Led(RED, STEADY)}


def test_bonus_footprint_blinks_in_the_bonus_colour_and_confirm_glows() -> None:
    state, bonuses = play("c3", "d4", "d3", "c4")  # 2:c3 for colour 0 (2:1:1)
    picture = guide(state, PLAYERS, bonuses)
    assert picture == {
        "seat:1": Led(BLUE, STEADY),
        "c3": Led(RED, BLINK),
        "d3": Led(RED, BLINK),
        "c4": Led(RED, BLINK),
        "d4": Led(RED, BLINK),
        "button:confirm": Led(RED, STEADY),
    }


def test_only_the_first_of_several_bonuses_is_shown() -> None:
    # A 3×3 block filled so that the last pearl completes four groups at once.
    moves = ["b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4", "c3"]
    state, bonuses = play(*moves)
    assert len(bonuses) >= 2
    picture = guide(state, PLAYERS, bonuses)
    first = bonuses[0]
    blinking = {n for n, led in picture.items() if led.mode is BLINK}
    assert blinking == set(first.position.footprint)
    assert all(picture[c].colour == PLAYERS[first.colour].rgb for c in blinking)
    # Once the first is placed, the next one shows.
    picture = guide(state, PLAYERS, bonuses[1:])
    blinking = {n for n, led in picture.items() if led.mode is BLINK}
    assert blinking == set(bonuses[1].position.footprint)


def test_a_higher_bonus_blinks_its_whole_footprint() -> None:
    bonus = perlen.Bonus(parse_position("3:b2"), 2, perlen.BonusRule.MAJORITY)
    state, _ = play("c3")
    picture = guide(state, PLAYERS, [bonus])
    assert {n for n, led in picture.items() if led.mode is BLINK} == {
        "b2", "c2", "d2", "b3", "c3", "d3", "b4", "c4", "d4"
    }  # fmt: skip


def test_mismatch_extra_flashes_white_missing_blinks_its_colour_and_nothing_else_shows() -> None:
    state, bonuses = play("c3", "d4", "d3", "c4")
    wrong = [Mismatch("a1", MismatchKind.EXTRA), Mismatch("d4", MismatchKind.MISSING, 1)]
    picture = guide(state, PLAYERS, bonuses, wrong, GuidanceOptions(children_help=True))
    assert picture == {
        "seat:1": Led(BLUE, STEADY),
        "a1": Led(WHITE, BLINK),
        "d4": Led(BLUE, BLINK),
    }


def test_children_help_glows_every_legal_cell_dimly_in_the_movers_colour() -> None:
    state, _ = play("c3")
    options = GuidanceOptions(children_help=True, dim=0.1)
    picture = guide(state, PLAYERS, options=options)
    legal = {p.short for p in perlen.legal_moves(state)}
    assert {n for n in picture if n in CELLS} == legal
    assert all(picture[c] == Led(scaled(BLUE, 0.1), STEADY) for c in legal)
    assert "c3" not in picture


def test_hint_blinks_over_the_dim_glow() -> None:
    state, _ = play("c3")
    picture = guide(state, PLAYERS, options=GuidanceOptions(children_help=True, hint="d4"))
    assert picture["d4"] == Led(BLUE, BLINK)
    assert picture["b2"].mode is STEADY


def test_computer_move_blinks_alone_and_the_thinking_seat_blinks() -> None:
    state, _ = play("c3")
    thinking = guide(state, PLAYERS, options=GuidanceOptions(children_help=True, thinking=True))
    assert thinking == {"seat:1": Led(BLUE, BLINK)}
    chosen = guide(state, PLAYERS, options=GuidanceOptions(children_help=True, computer_move="b4"))
    assert chosen == {"seat:1": Led(BLUE, STEADY), "b4": Led(BLUE, BLINK)}


def _full_game(seed: int = 1) -> perlen.PerlenState:
    import random

    rng = random.Random(seed)
    state = perlen.new_game()
    while not state.over:
        state, _ = perlen.play(state, rng.choice(perlen.legal_moves(state)))
    return state


def test_game_over_sweeps_the_winners_colour_one_diagonal_per_frame() -> None:
    state = _full_game()
    winners = perlen.outcome(state).winners
    colour = PLAYERS[winners[0]].rgb
    for k in range(9):
        picture = guide(state, PLAYERS, options=GuidanceOptions(sweep_frame=k))
        lit = {c: led for c, led in picture.items() if c in CELLS}
        head = {c for c in CELLS if "abcde".index(c[0]) + int(c[1]) - 1 == k}
        assert {c for c, led in lit.items() if led.colour == colour} == head
        assert all(led.mode is STEADY for led in lit.values())
        # The trail behind is dimmer, and nothing ahead of the head is lit.
        assert all("abcde".index(c[0]) + int(c[1]) - 1 <= k for c in lit)
    for w in winners:
        assert guide(state, PLAYERS, options=GuidanceOptions(sweep_frame=0))[
            f"seat:{PLAYERS[w].seat}"
        ] == Led(PLAYERS[w].rgb, STEADY)
    gap = guide(state, PLAYERS, options=GuidanceOptions(sweep_frame=SWEEP_PERIOD - 1))
    assert not any(c in CELLS for c in gap)


def test_a_shared_win_sweeps_each_winners_colour_in_turn() -> None:
    for seed in range(200):
        state = _full_game(seed)
        winners = perlen.outcome(state).winners
        if len(winners) > 1:
            break
    else:
        pytest.skip("no shared win in 200 random games")
    for n, w in enumerate(winners):
        picture = guide(state, PLAYERS, options=GuidanceOptions(sweep_frame=n * SWEEP_PERIOD))
        assert picture["a1"].colour == PLAYERS[w].rgb


def test_after_the_sweep_a_calm_picture() -> None:
    state = _full_game()
    winner = perlen.outcome(state).winners[0]
    picture = guide(state, PLAYERS, options=GuidanceOptions(sweep_frame=None, dim=0.1))
    assert {picture[c] for c in CELLS} == {Led(scaled(PLAYERS[winner].rgb, 0.1), STEADY)}


def test_last_bonuses_of_a_complete_pyramid_still_blink_before_the_sweep() -> None:
    state = _full_game()
    bonus = perlen.Bonus(parse_position("5:a1"), 0, perlen.BonusRule.MAJORITY)
    picture = guide(state, PLAYERS, [bonus])
    assert {n for n, led in picture.items() if led.mode is BLINK} == set(CELLS)
    assert not any(n.startswith("seat:") for n in picture)


# -- Pyramidos -----------------------------------------------------------------------------

P4 = [Light(0, RED), Light(1, BLUE), Light(2, YELLOW), Light(3, GREEN)]


def pyr(*events: str, seats: int = 3) -> pyramidos.PyramidosState:
    state = pyramidos.new_game(seats)
    for text in events:
        state = pyramidos.apply(state, pyramidos.parse_event(text))
    return state


def test_pyramidos_targets_show_their_owners_and_end_turn_glows_for_the_mover() -> None:
    state = pyr("land t1", "end", "land t3")
    assert guide(state, P4) == {
        "t1": Led(RED, STEADY),
        "t3": Led(YELLOW, STEADY),
        "seat:0": Led(RED, STEADY),
        "button:end_turn": Led(RED, STEADY),
    }


def test_pyramidos_open_top_pulses_in_the_movers_colour() -> None:
    state = pyr("land t1", "land t2", "land t3", "land t4")
    assert state.top_open
    picture = guide(state, P4)
    assert picture["top"] == Led(BLUE, BLINK)


def test_pyramidos_children_help_glows_free_base_targets() -> None:
    state = pyr("land t2")
    picture = guide(state, P4, options=GuidanceOptions(children_help=True, dim=0.1))
    dim = Led(scaled(BLUE, 0.1), STEADY)
    assert [picture[t] for t in ("t1", "t3", "t4")] == [dim] * 3
    assert picture["t2"] == Led(RED, STEADY)
    assert "top" not in picture


def test_pyramidos_ball_on_a_closed_top_flashes_white() -> None:
    state = pyr("land t1")
    picture = guide(state, P4, mismatches=[Mismatch("top", MismatchKind.EXTRA)])
    assert picture["top"] == Led(WHITE, BLINK)
    assert "button:end_turn" not in picture
    assert picture["t1"] == Led(RED, STEADY)


def test_pyramidos_missing_ball_blinks_in_its_owners_colour() -> None:
    state = pyr("land t1", "land t2")
    picture = guide(state, P4, mismatches=[Mismatch("t2", MismatchKind.MISSING, 1)])
    assert picture["t2"] == Led(BLUE, BLINK)


def test_pyramidos_game_over_sweeps_the_targets() -> None:
    state = pyr("land t1", "land t2", "land t3", "land t4", "land top", seats=2)
    assert pyramidos.outcome(state).winners == (0,)
    seen: list[str] = []
    for k in range(SWEEP_PERIOD):
        picture = guide(state, P4, options=GuidanceOptions(sweep_frame=k))
        heads = [t for t, led in picture.items() if led.colour == RED and not t.startswith("seat")]
        seen.extend(h for h in heads if h not in seen)
    assert seen == ["t1", "t2", "t3", "t4", "top"]
    calm = guide(state, P4, options=GuidanceOptions(sweep_frame=None))
    assert calm["top"] == Led(RED, STEADY) and calm["t2"] == Led(BLUE, STEADY)


def test_pyramidos_land_applies_to_the_mover() -> None:
    state = pyramidos.apply(pyr(), Land(Target.T4))
    assert guide(state, P4)["t4"] == Led(RED, STEADY)


# -- frames and the LED test ---------------------------------------------------------------


def test_to_frame_places_each_named_led_by_the_channel_map() -> None:
    cmap = ChannelMap.default()
    state, _ = play("c3")
    frame = to_frame(guide(state, PLAYERS), cmap)
    assert len(frame) == cmap.led_count
    lit = [i for i, led in enumerate(frame.leds) if led.lit]
    assert lit == [cmap.led("seat:1")]


def test_led_test_walks_every_led_in_order() -> None:
    names = ["a1", "b1", "c1"]
    assert [list(led_test(names, WHITE, step=k)) for k in range(4)] == [
        ["a1"], ["b1"], ["c1"], ["a1"]
    ]  # fmt: skip
    assert set(led_test(names, WHITE)) == set(names)
