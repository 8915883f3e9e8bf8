"""Reading the board of Pyramidos: landings, knock-offs, ended turns, the top.

Pure: the referee in virtual time (``rigs/referee.py``).
"""

from __future__ import annotations

import pytest

from controller.games.pyramidos import rules as pyramidos
from controller.games.pyramidos.commands import EndTurn
from controller.games.pyramidos.snapshot import parts_of as pyramidos_parts
from controller.hardware.channels import CELLS, ChannelMap
from controller.hardware.port import Led, LedMode, Sound
from controller.palette import WHITE
from controller.referee.commands import NewGame, Undo
from controller.referee.messages import english
from rigs.referee import FAST, Play
from rigs.scripts import play, pyramidos_script

RED, BLUE, YELLOW = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4), (0xF2, 0xC5, 0x00)


def game(seats: int = 3, **kw: object) -> Play:
    return Play().new("pyramidos", ("Anna", "Ben", "Cleo", "Dora")[:seats], **kw)


def kinds(p: Play) -> list[str]:
    return [f"{kind} {data.get('target', '')}".strip() for kind, data in p.events]


@pytest.mark.parametrize(("seed", "seats"), [(1, 2), (2, 3), (3, 4), (4, 3)])
def test_whole_games(seed: int, seats: int) -> None:
    p = game(seats)
    state = pyramidos.new_game(seats)
    for step in pyramidos_script(seed, seats):
        play(p, step)
    snap = p.snap
    assert snap.status == "over"
    for kind, data in p.events:
        text = f"{kind} {data['target']}" if kind != "end" else "end"
        state = pyramidos.apply(state, pyramidos.parse_event(text))
    assert state.over and dict(pyramidos_parts(snap).targets) == state.targets()
    assert list(p.ledger.games[1]["result"].points) == list(snap.points)
    assert "Game over: " in p.said()


def test_a_landing_belongs_to_the_mover_and_passes_the_turn() -> None:
    p = game()
    snap = p.play("t2")
    assert pyramidos_parts(snap).targets["t2"] == 0 and snap.to_move == 1 and snap.last_move == "t2"
    assert p.said() == "Anna's ball landed on the front right corner. Ben to move."
    assert p.lit["t2"] == Led(RED) and p.lit["seat:1"] == Led(BLUE)
    assert p.lit["button:end_turn"] == Led(BLUE)


def test_end_turn_by_button_and_by_page() -> None:
    p = game()
    snap = p.press("button:end_turn")
    assert snap.to_move == 1 and p.said() == "Anna ended the turn. Ben to move."
    assert p.do(EndTurn()).ok
    assert p.snap.to_move == 2
    assert [d["by"] for _, d in p.events] == ["button", "page"]


def test_end_turn_counts_the_balls_just_knocked_off_and_says_whose_they_were() -> None:
    p = game()
    p.play("t1", "t3")  # Anna's ball on t1, Ben's on t3; Cleo to move
    p.lift("t1", "t3")
    assert p.do(EndTurn()).ok
    assert p.said() == (
        "Anna's ball on the front left corner and Ben's ball on the back right corner were "
        "knocked off. Cleo ended the turn. "
        "Anna to move."
    )


def test_a_ball_knocked_off_counts_once_it_stays_off() -> None:
    p = game()
    p.play("t1", "t3")
    snap = p.lift("t1")
    assert pyramidos_parts(snap).targets["t1"] == 0 and snap.status == "mismatch"
    assert p.said() == (
        "No ball on the front left corner any more: it counts as knocked off in a moment (put "
        "it back if it only wobbled)."
    )
    assert p.lit["t1"] == Led(RED, LedMode.BLINK)
    snap = p.wait(0.5)
    assert pyramidos_parts(snap).targets["t1"] is None
    assert snap.status == "playing" and snap.to_move == 2  # a knock-off keeps the turn
    assert p.said() == "Anna's ball on the front left corner was knocked off. Cleo to move."
    assert kinds(p) == ["land t1", "land t3", "leave t1"]


def test_a_ball_that_wobbles_off_and_back_is_not_knocked_off() -> None:
    p = game()
    p.play("t1")
    for _ in range(5):
        p.lift("t1")
        p.wait(0.03)
        p.put("t1")
        p.wait(0.03)
    p.wait(1)
    assert pyramidos_parts(p.snap).targets["t1"] == 0 and kinds(p) == ["land t1"]


def test_a_knocked_ball_landing_on_another_target_is_the_movers() -> None:
    p = game()
    p.play("t1")  # Anna's
    p.wait(1)
    p.set({"t2"})  # Ben's nudge knocks Anna's ball from t1 onto t2
    snap = p.wait(0.5)
    assert (
        pyramidos_parts(snap).targets["t1"] is None
        and pyramidos_parts(snap).targets["t2"] == 1
        and snap.to_move == 2
    )
    assert kinds(p) == ["land t1", "land t2", "leave t1"]


def test_end_turn_counts_balls_that_just_fell_off() -> None:
    p = game()
    p.play("t1")
    p.lift("t1")  # Ben knocked it off with a ball that went into the net
    snap = p.press("button:end_turn")
    assert pyramidos_parts(snap).targets["t1"] is None and snap.to_move == 2
    assert kinds(p) == ["land t1", "leave t1", "end"]


def test_a_ball_on_the_closed_top_is_a_mismatch_said_once() -> None:
    p = game()
    p.play("t1")
    snap = p.play("top")
    assert snap.status == "mismatch" and pyramidos_parts(snap).targets["top"] is None
    assert p.said() == (
        "The top opens only when all four base targets hold a ball. Take off the ball with the "
        "red ✕ (the top)."
    )
    assert p.lit["top"] == Led(WHITE, LedMode.BLINK)
    assert p.sounds[-1] is Sound.WRONG
    reply = p.do(EndTurn())
    assert not reply.ok and reply.message is not None
    said = english(reply.message)
    assert said == "Fix the board first: take off the ball with the red ✕ (the top)."
    snap = p.lift("top")
    assert snap.status == "playing" and snap.to_move == 1


def test_a_ball_on_the_closed_top_beside_a_landing_is_marked_alone_then_the_landing_is() -> None:
    # Wrong, then right (the referee's reading for every game): only the refused ball is
    # marked, and lifting it leaves the other as Ben's landing.
    p = game()
    p.play("t1")
    p.wait(1)
    snap = p.put("t2", "top")
    assert snap.status == "mismatch" and [m.cell for m in snap.mismatches] == ["top"]
    assert p.said().startswith("The top opens only when all four base targets hold a ball.")
    assert kinds(p) == ["land t1"]
    snap = p.lift("top")
    assert snap.status == "playing" and pyramidos_parts(snap).targets["t2"] == 1
    assert kinds(p) == ["land t1", "land t2"] and snap.to_move == 2


def test_the_top_opens_pulses_and_a_ball_on_it_ends_the_game() -> None:
    p = game(seats=2)
    p.play("t1", "t2", "t3")
    snap = p.play("t4")
    assert pyramidos_parts(snap).top_open and "The top is open!" in p.said()
    assert p.lit["top"] == Led(RED, LedMode.BLINK)
    snap = p.play("top")
    assert snap.status == "over" and snap.winners == (0,)
    assert snap.points == (4, 2)
    assert p.ledger.games[1]["status"] == "over"
    assert p.said() == "Anna's ball landed on the top. Game over: Anna wins with 4 points!"
    assert not p.do(Undo()).ok


def test_two_balls_landing_at_once_are_a_mismatch() -> None:
    p = game()
    snap = p.set({"t1", "t2"})
    assert snap.status == "mismatch" and snap.moves == 0
    assert p.said() == (
        "Balls on the front left corner and the front right corner at once: take off all but one."
    )
    p.lift("t2")
    assert p.snap.status == "mismatch"  # the board must match before a landing counts
    p.lift("t1")
    assert pyramidos_parts(p.play("t1")).targets["t1"] == 0


def test_undo_a_landing_then_the_ball_must_come_off() -> None:
    p = game()
    p.play("t1")
    assert p.do(Undo()).ok
    snap = p.snap
    assert snap.to_move == 0 and pyramidos_parts(snap).targets["t1"] is None
    assert [(m.cell, m.kind) for m in snap.mismatches] == [("t1", "extra")]
    assert p.said() == (
        "Took back Anna's landing on the front left corner. Take off the ball with the red ✕ "
        "(the front left corner)."
    )
    assert p.wait(5).moves == 0  # not landed again
    assert p.lift("t1").status == "playing"


def test_undo_a_knock_off_then_the_ball_must_go_back() -> None:
    p = game()
    p.play("t3")
    p.lift("t3")
    p.wait(1)
    assert p.do(Undo()).ok
    snap = p.snap
    assert pyramidos_parts(snap).targets["t3"] == 0 and snap.status == "mismatch"
    assert p.lit["t3"] == Led(RED, LedMode.BLINK)
    assert p.said() == (
        "Took back the knock-off: the ball belongs on the back right corner. Put Anna's red "
        "ball back on the back right corner."
    )
    assert p.put("t3").status == "playing"


def test_a_pyramidos_only_board() -> None:
    import dataclasses

    sensors = frozenset(FAST.sensors) - set(CELLS)
    p = Play(dataclasses.replace(FAST, sensors=sensors))
    reply = p.do(NewGame("perlen-pyramide", ("a", "b", "c")))
    assert not reply.ok and reply.message is not None
    assert "cannot referee Perlen-Pyramide" in english(reply.message)
    p.new("pyramidos", ("a", "b", "c", "d"))
    assert pyramidos_parts(p.play("t4")).targets["t4"] == 0
    assert ChannelMap.default(cells=False).has_targets


def test_end_turn_is_only_offered_in_pyramidos() -> None:
    assert "end_turn" in game().snap.commands
    assert "end_turn" not in Play().new().snap.commands


def test_a_new_game_on_a_board_with_balls_asks_for_them_off_in_one_sentence() -> None:
    p = game()
    p.play("t1", "t2", "t3")
    p.new("pyramidos", ("Anna", "Ben"))
    assert p.snap.game_id == 2 and p.snap.status == "mismatch"
    assert p.said().endswith("Take all 3 balls off the board.")
    p.lift("t2")
    assert p.said().endswith("Take all 2 balls off the board.")
    p.lift("t1")
    assert p.said().endswith("Take off the ball with the red ✕ (the back right corner).")
