"""A new game, checked; commands refused with a reason; play again; abort; LED tests.

Pure: the referee in virtual time (``rigs/referee.py``).
"""

from __future__ import annotations

import pytest

from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.pyramidos.commands import EndTurn
from controller.hardware.port import Led
from controller.referee.commands import Abort, Command, LedTest, NewGame, PlayAgain
from controller.referee.messages import Message, Term, english
from controller.referee.setup import MAX_NAME
from controller.referee.snapshot import LedTestView
from rigs.referee import Play

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


@pytest.mark.parametrize(
    ("command", "said", "field"),
    [
        (NewGame("chess", ("a", "b", "c")),
         "Choose one of the games this board plays: Perlen-Pyramide and Pyramidos.", "game"),
        (NewGame("perlen-pyramide", ("a", "b")), "exactly three players, not 2", "players"),
        (NewGame("perlen-pyramide", ("a", "A", "c")), "Two players are called A",
         "players[1].name"),
        (NewGame("perlen-pyramide", ("a", "x" * (MAX_NAME + 1), "c")),
         f"seat 2 must be at most {MAX_NAME} characters", "players[1].name"),
        (NewGame("perlen-pyramide", ("a", "b\x07", "c")), "not control codes", "players[1].name"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"pools": "many"}), "pools",
         "options.pools"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"sides": 4}), "sides",
         "options.sides"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), options={"first_seat": 3}), "first_seat",
         "first_seat"),
        (NewGame("pyramidos", ("a", "b"), options={"variant": "blindfold"}), "variant",
         "options.variant"),
        (NewGame("pyramidos", ("a", "b"), children_help=True), "help for children",
         "children_help"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "red", "blue")),
         "cannot both have red", "players[1].colour"),
        (NewGame("perlen-pyramide", ("a", "b", "c"), colours=("red", "mauve", "blue")),
         "mauve is not a colour", "players[1].colour"),
        (NewGame("pyramidos", ("a",)), "2 to 4 players, not 1", "players"),
        (NewGame("pyramidos", ("a", "b"), computer={1: "easy"}), "no computer players",
         "players[1].computer"),
        (NewGame("perlen-pyramide", ("A", "", "C"), computer={1: "grandmaster"}),
         "level must be one of gentle, easy, medium, strong and strongest",
         "players[1].computer"),
        (NewGame("perlen-pyramide", ("A", "", "C"), computer={5: "easy"}), "not a seat",
         "players"),
        (NewGame("perlen-pyramide", ("A", "B", "C"), computer={0: "easy", 1: "easy", 2: "easy"}),
         "must be a person", "players"),
        (EndTurn(), "This game has no such button.", None),
        (LedTest("z9", (1, 2, 3)), "no LED named z9", None),
        (LedTest("c3", (1, 2, 300)), "0 to 255", None),
        (PlayAgain(), "Play again once this game is over", None),
    ],
)  # fmt: skip
def test_bad_commands_are_refused_with_a_reason(
    p: Play, command: Command, said: str, field: str | None
) -> None:
    before = p.snap.game_id
    reply = p.do(command)
    assert not reply.ok and reply.message is not None
    assert said in english(reply.message) and reply.field == field
    assert p.snap.game_id == before


def test_every_mistake_of_a_new_game_is_said_at_once(p: Play) -> None:
    """A long name on seat 2, seat 3 in seat 1's colour and an option the game does not
    know: the reply names all three with their fields, in the form's order, so the family
    mends them together (the first is the reply's own message and field)."""
    before = p.snap.game_id
    reply = p.do(
        NewGame("perlen-pyramide", ("Anna", "x" * (MAX_NAME + 1), "Cleo"),
                options={"pools": "many"}, colours=("red", "blue", "red"))
    )  # fmt: skip
    assert not reply.ok and reply.message is not None
    said = [(reply.field, english(reply.message))] + [(f, english(m)) for f, m in reply.also]
    assert [field for field, _ in said] == [
        "players[1].name",
        "players[2].colour",
        "options.pools",
    ]
    assert f"at most {MAX_NAME} characters" in said[0][1] and "cannot both have red" in said[1][1]
    assert p.snap.game_id == before
    # One mistake alone: no others
    alone = p.do(NewGame("perlen-pyramide", ("a", "A", "c")))
    assert alone.field == "players[1].name" and alone.also == ()


def _called(p: Play) -> list[str]:
    """What the page calls each player, by colour number (in English)."""
    return [english(q.default_name) if q.default_name else q.name for q in p.snap.players]


def test_unnamed_seats_are_stored_unnamed_and_called_by_number_or_level() -> None:
    p = Play().new(players=("A", "", "  "), computer={"1": "easy"})
    # Nothing English is stored: an empty name, the seat and its level.
    stored = p.ledger.games[1]["players"]
    assert [(r.name, r.computer) for r in stored] == [("A", None), ("", "easy"), ("", None)]
    assert _called(p) == ["A", "Easy computer", "Player 3"]
    assert p.snap.players[1].default_name == Message.of(
        "computer_name", computer=Term("computer", "easy")
    )
    assert "Easy computer" in p.said() and "Player 3" in p.said()  # "Game 1 has started: …"
    # Two unnamed computers of one level are told apart by their seats.
    twins = Play().new(players=("A", "", ""), computer={"1": "easy", "2": "easy"})
    assert _called(twins) == ["A", "Easy computer 2", "Easy computer 3"]
    # The computer to move is called so in what the page says.
    first = Play().new(players=("", "B", "C"), computer={"0": "strong"})
    assert first.said().endswith("Strong computer is thinking…")
    first.answer("c3")
    assert first.said().endswith(
        "Strong computer chose the blinking cell with the dashed ring (c3): put its pearl there."
    )


def test_old_games_that_stored_english_computer_names_read_as_unnamed() -> None:
    from controller.palette import by_name
    from controller.referee.players import Player, called, default_name

    red, blue = by_name("red"), by_name("blue")
    old = (Player(0, 0, "Computer (strong)", red, "strong"), Player(1, 1, "Ben", blue))
    default = default_name(old[0], old)
    assert default is not None and english(default) == "Strong computer"
    assert called(old[1], old) == "Ben"
    # A person who chose such a name keeps it; so does a computer named otherwise.
    person = Player(0, 0, "Computer (strong)", red)
    hal = Player(1, 1, "HAL", blue, "strong")
    assert called(person, (person, hal)) == "Computer (strong)"
    assert called(hal, (person, hal)) == "HAL"


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
    from controller.games.perlen.commands import ConfirmBonus
    from controller.rules.notation import BASE

    for cell in BASE:
        if p.snap.players[p.snap.to_move or 0].computer and not p.snap.over:
            p.answer(cell.short)
        p.play(cell.short)
        if perlen_parts(p.snap).pending and not p.snap.over:
            p.do(ConfirmBonus())
    assert p.snap.over and "play_again" in p.snap.commands
    assert p.do(PlayAgain()).ok
    snap = p.snap
    assert snap.game_id == 2 and snap.children_help and not snap.over
    by_seat = sorted(snap.players, key=lambda q: q.seat)
    assert [(q.name, q.colour_name, q.computer) for q in by_seat] == [
        ("Anna", "green", None),
        ("", "orange", "easy"),
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
