"""A new game, checked; commands refused with a reason; play again; abort; LED tests.

Pure: the referee in virtual time (``tests/support/referee.py``).
"""

from __future__ import annotations

import pytest

from controller.hardware.port import Led
from controller.referee.commands import (
    Abort,
    Command,
    EndTurn,
    LedTest,
    NewGame,
    PlayAgain,
)
from controller.referee.messages import english
from controller.referee.snapshot import LedTestView
from tests.support.referee import Play

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (NewGame("chess", ("a", "b", "c")), "Choose a game: Perlen-Pyramide or Pyramidos."),
        (NewGame("perlen-pyramide", ("a", "b")), "exactly three players, not 2"),
        (NewGame("perlen-pyramide", ("a", "A", "c")), "Two players are called A"),
        (NewGame("perlen-pyramide", ("a", "", "c")), "seat 2 must be 1 to 30 characters"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"pools": "many"}), "pools"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"sides": 4}), "sides"),
        (NewGame("pyramidos", ("a", "b"), options={"variant": "blindfold"}), "variant"),
        (
            NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "red", "blue")),
            "cannot both have red",
        ),
        (
            NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "mauve", "blue")),
            "mauve is not a colour",
        ),
        (NewGame("pyramidos", ("a",)), "2 to 4 players, not 1"),
        (NewGame("pyramidos", ("a", "b"), computer={1: "easy"}), "Perlen-Pyramide only"),
        (
            NewGame("perlen-pyramide", ("A", "", "C"), computer={1: "grandmaster"}),
            "level must be one of gentle, easy, medium, strong and strongest",
        ),
        (NewGame("perlen-pyramide", ("A", "", "C"), computer={5: "easy"}), "not a seat"),
        (
            NewGame("perlen-pyramide", ("A", "B", "C"), computer={0: "easy", 1: "easy", 2: "easy"}),
            "must be a person",
        ),
        (EndTurn(), "Ending a turn is for Pyramidos"),
        (LedTest("z9", (1, 2, 3)), "no LED named z9"),
        (LedTest("c3", (1, 2, 300)), "0 to 255"),
        (PlayAgain(), "Play again once this game is over"),
    ],
)
def test_bad_commands_are_refused_with_a_reason(p: Play, command: Command, said: str) -> None:
    before = p.snap.game_id
    reply = p.do(command)
    assert not reply.ok and reply.message is not None
    assert said in english(reply.message)
    assert p.snap.game_id == before


def test_a_computer_seat_without_a_name_is_named_by_its_level() -> None:
    p = Play().new(players=("A", "", "C"), computer={"1": "easy"})
    assert p.snap.players[1].name == "Computer (easy)"


def test_a_new_game_aborts_the_unfinished_one(p: Play) -> None:
    p.play("c3")
    p.lift("c3")
    p.wait(1)
    p.new()
    assert p.ledger.games[1]["status"] == "aborted"
    assert p.ledger.games[1]["events"][-1].kind == "abort"
    assert p.snap.game_id == 2 and p.snap.moves == 0


def test_abort_returns_to_idle_and_dark(p: Play) -> None:
    p.play("c3")
    assert p.do(Abort()).ok
    assert p.snap.status == "idle" and p.lit == {}
    assert p.ledger.games[1]["status"] == "aborted"
    assert p.said() == "Game 1 ended without a result."
    assert not p.do(Abort()).ok


def test_play_again_keeps_players_colours_and_computer_seats_and_the_next_seat_starts() -> None:
    p = Play().new(
        players=("Anna", "", "Cleo"),
        computer={1: "easy"},
        colours=("green", "orange", "cyan"),
        children_help=True,
    )
    from controller.referee.commands import ConfirmBonus
    from controller.rules.notation import BASE

    for cell in BASE:
        if p.snap.players[p.snap.to_move or 0].computer and not p.snap.over:
            p.answer(cell.short)
        p.play(cell.short)
        if p.snap.pending and not p.snap.over:
            p.do(ConfirmBonus())
    assert p.snap.over and "play_again" in p.snap.commands
    assert p.do(PlayAgain()).ok
    snap = p.snap
    assert snap.game_id == 2 and snap.children_help and not snap.over
    by_seat = sorted(snap.players, key=lambda q: q.seat)
    assert [(q.name, q.colour_name, q.computer) for q in by_seat] == [
        ("Anna", "green", None),
        ("Computer (easy)", "orange", "easy"),
        ("Cleo", "cyan", None),
    ]
    assert snap.players[0].seat == 1  # seat 0 started game 1; seat 1 starts game 2


def test_the_led_test_lights_one_led_walks_all_and_stops(p: Play) -> None:
    assert p.do(LedTest("c3", (1, 2, 3))).ok
    assert p.lit == {"c3": Led((1, 2, 3))}
    assert p.snap.led_test == LedTestView("c3", "#010203")
    assert p.do(LedTest(None, (9, 9, 9))).ok
    first = set(p.lit)
    p.wait(0.3)
    second = set(p.lit)
    assert len(first) == len(second) == 1 and first != second
    assert p.do(LedTest()).ok
    assert p.lit == {"seat:0": Led(RED)} and p.snap.led_test is None


def test_an_led_test_ends_by_itself(p: Play) -> None:
    assert p.do(LedTest("c3", (1, 2, 3))).ok
    p.wait(301)
    assert p.snap.led_test is None and p.lit == {"seat:0": Led(RED)}
