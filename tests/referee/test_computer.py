"""The computer seat and hints: asked off the referee's thread, stale answers dropped.

Pure: the referee only asks (an ``AskComputer`` effect); the test answers it, when it
likes, as the Table's worker thread would.
"""

from __future__ import annotations

from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import Hint
from controller.hardware.port import Led, LedMode
from controller.referee.commands import NewGame, Undo
from controller.referee.messages import english
from controller.referee.state import AskComputer
from rigs.referee import Play

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


def _position(ask: AskComputer) -> perlen.PerlenState:
    """The position the computer was asked about (a Perlen-Pyramide one here)."""
    assert isinstance(ask.position, perlen.PerlenState)
    return ask.position


def test_a_computer_seat_is_asked_and_its_cell_blinks() -> None:
    p = Play().new(computer={1: "medium"})
    assert p.snap.players[1].computer == "medium"
    snap = p.play("c3")
    assert snap.thinking and snap.computer_move is None
    assert p.lit["seat:1"] == Led(BLUE, LedMode.BLINK)
    ask = p.asked[-1]
    assert snap.game_id is not None
    assert (ask.purpose, ask.level, ask.seed) == ("move", "medium", snap.game_id * 1000 + 1)
    assert isinstance(ask.position, perlen.PerlenState) and ask.position.base_pearls == 1
    assert p.said().endswith("Ben (computer) is thinking…")
    # Placing before it chose is a mismatch, not its move.
    p.wait(1)
    snap = p.put("b2")
    assert snap.status == "mismatch"
    assert p.said().startswith("Ben (computer) is still choosing: wait for its cell to blink.")
    p.lift("b2")
    snap = p.answer("b2")
    assert snap.computer_move == "b2" and not snap.thinking
    assert p.lit == {"seat:1": Led(BLUE), "b2": Led(BLUE, LedMode.BLINK)}
    assert (
        p.said()
        == "Ben (computer) chose the blinking cell with the dashed ring (b2): put its pearl there."
    )
    snap = p.play("d4")  # not the computer's cell
    assert snap.status == "mismatch"
    assert p.said() == "Ben (computer) chose b2, not d4. Take off the pearl with the red ✕ (d4)."
    p.lift("d4")
    snap = p.play("b2")
    assert snap.moves == 2 and snap.to_move == 2 and snap.computer_move is None


def test_a_stale_computer_answer_is_dropped() -> None:
    p = Play().new(computer={1: "easy"})
    p.play("c3")  # the computer is asked about the position after c3
    old = p.asked[-1]
    assert p.do(Undo()).ok  # ... which is gone at once
    p.lift("c3")
    p.play("e5")
    new = p.asked[-1]
    assert new.token != old.token
    p.answer("b2", ask=old)  # the old answer arrives late: dropped
    assert p.snap.computer_move is None and p.snap.thinking
    assert p.answer("d4", ask=new).computer_move == "d4"


def test_computer_failure_lets_a_person_place_its_pearl() -> None:
    p = Play().new(computer={1: "easy"})
    p.play("c3")
    snap = p.answer(None)
    assert not snap.thinking
    assert p.said() == (
        "The computer could not choose: place its pearl on any legal cell. Ben to move."
    )
    assert snap.fault
    assert p.play("d2").moves == 2


def test_a_game_without_the_computer_player_says_so() -> None:
    import dataclasses

    from rigs.referee import FAST

    p = Play(dataclasses.replace(FAST, levels=()))
    reply = p.do(NewGame("perlen-pyramide", ("a", "", "c"), computer={1: "easy"}))
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "Computer players are not installed."
    p.new()
    p.play("c3")
    reply = p.do(Hint())
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "Hints need the computer player, which is not installed."
    assert "hint" not in p.snap.commands


def test_a_hint_is_asked_for_the_person_to_move_and_cleared_by_a_move() -> None:
    p = Play().new()
    p.play("c3")
    reply = p.do(Hint())
    assert reply.ok and reply.message is not None
    assert english(reply.message) == "Looking for a good cell…"
    ask = p.asked[-1]
    assert ask.purpose == "hint" and ask.level == "strongest"
    assert english(p.do(Hint()).message or reply.message) == "Still thinking…"
    cell = perlen.legal_moves(_position(ask))[-1].short
    snap = p.answer(cell, purpose="hint")
    assert snap.hint == "d4" and p.lit["d4"] == Led(BLUE, LedMode.BLINK)
    assert p.said() == "Hint: the cell with the dotted ring (d4). Ben to move."
    assert p.play("b2").hint is None  # a move clears it


def test_a_hint_is_not_for_the_computer_seat() -> None:
    p = Play().new(computer={0: "easy"})
    reply = p.do(Hint())
    assert not reply.ok and reply.message is not None
    assert english(reply.message) == "It is the computer's turn."
    assert "hint" not in p.snap.commands


def test_a_hint_says_why_in_bonus_pearls_and_visible_pearls() -> None:
    from controller.games.perlen.hints import Why

    p = Play().new()
    p.play("c3", "d4", "d3")
    assert p.do(Hint()).ok
    p.answer("c4", purpose="hint", why=Why(wins=("2:c3",), worth=1.46))
    assert p.said() == (
        "Hint: the cell with the dotted ring (c4). It wins the bonus pearl 2:c3. It is worth "
        "about 1.5 visible pearls more than the next best cell. Anna to move."
    )
    p.play("b2")
    assert p.do(Hint()).ok
    p.answer("b3", purpose="hint", why=Why(denies=("2:b2", "2:b2"), worth=0.2))
    assert p.said() == (
        "Hint: the cell with the dotted ring (b3). It keeps the bonus pearl 2:b2 from the "
        "others. Ben to move."
    )


def test_the_first_hint_of_a_game_says_why_too() -> None:
    """No bonus pearl is won or kept away yet: the hint says what the cell is for."""
    from controller.games.perlen.hints import Why

    p = Play().new()
    assert p.do(Hint()).ok
    p.answer("b1", purpose="hint", why=Why(worth=0.1))
    assert p.said() == (
        "Hint: the cell with the dotted ring (b1). It wins no bonus pearl yet, but leaves you "
        "the best chances for the ones to come. Anna to move."
    )
