"""Bonus pearls: shown, acknowledged all at once, and the end of the game.

Pure: the referee in virtual time (``rigs/referee.py``).
"""

from __future__ import annotations

from controller.games.perlen import rules as perlen
from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import Led, LedMode, Sound
from controller.palette import WHITE
from controller.referee.commands import PlayAgain
from controller.rules.notation import BASE
from rigs.referee import Play

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)
BONUS_OPENING = ("c3", "d4", "d3", "c4")  # the fourth pearl earns 2:c3 for colour 0
CASCADE = ("c3", "d4", "d3", "c4", "b4", "d2", "c2", "b2", "b3")
"""The last pearl earns a cascade of three: 2:b2, 2:b3 and 3:b2."""


def blinking(p: Play) -> set[str]:
    return {name for name, led in p.lit.items() if led.mode is LedMode.BLINK}


def test_a_bonus_pearl_waits_shows_its_footprint_and_the_confirm_button_places_it(
    p: Play,
) -> None:
    snap = p.play(*BONUS_OPENING)
    assert snap.status == "bonus"
    assert [(b.pos, b.colour, b.reason) for b in perlen_parts(snap).pending] == [
        ("2:c3", 0, "majority")
    ]
    assert (
        "Place the bonus pearl: Anna's red, on top of the four blinking pearls (2:c3)." in p.said()
    )
    assert blinking(p) == {"c3", "d3", "c4", "d4"}
    assert p.lit["button:confirm"] == Led(RED)
    assert p.sounds[-1] is Sound.BONUS
    snap = p.press("button:confirm")
    assert snap.status == "playing" and perlen_parts(snap).pending == ()
    assert any(q.pos == "2:c3" for q in perlen_parts(snap).pearls)
    assert p.events[-1] == ("bonus", {"pos": "2:c3", "colour": 0, "by": "button"})
    assert p.lit == {"seat:1": Led(BLUE)}
    assert p.said() == "Bonus pearl placed. Ben to move."


def test_one_confirm_places_every_waiting_bonus_pearl(p: Play) -> None:
    snap = p.play(*CASCADE)
    assert [b.pos for b in perlen_parts(snap).pending] == ["2:b2", "2:b3", "3:b2"]
    assert (
        "Place 3 bonus pearls, in the order listed, starting with Anna's red, on top of the "
        "four blinking pearls (2:b2)" in (p.said())
    )
    assert p.do(ConfirmBonus()).ok
    assert perlen_parts(p.snap).pending == ()
    assert p.events[-3:] == [
        ("bonus", {"pos": "2:b2", "colour": 0, "by": "page"}),
        ("bonus", {"pos": "2:b3", "colour": 0, "by": "page"}),
        ("bonus", {"pos": "3:b2", "colour": 0, "by": "page"}),
    ]
    assert p.said() == "3 bonus pearls placed. Anna to move."


def test_several_waiting_bonus_pearls_are_shown_in_turn(p: Play) -> None:
    p.play(*CASCADE)
    shown = []
    for _ in range(4):
        shown.append((perlen_parts(p.snap).shown_bonus, frozenset(blinking(p))))
        p.wait(1.5)
    assert [i for i, _ in shown] == [0, 1, 2, 0]
    assert shown[0][1] == {"b2", "c2", "b3", "c3"}
    assert shown[1][1] == {"b3", "c3", "b4", "c4"}
    assert shown[2][1] == {"b2", "c2", "d2", "b3", "c3", "d3", "b4", "c4", "d4"}


def test_the_next_base_pearl_places_every_waiting_bonus(p: Play) -> None:
    snap = p.play(*CASCADE)
    n = len(perlen_parts(snap).pending)
    mover = snap.to_move
    cell = snap.legal[0]
    snap = p.play(cell)
    assert snap.moves == len(CASCADE) + 1
    assert any(q.pos == f"1:{cell}" and q.colour == mover for q in perlen_parts(snap).pearls)
    assert [k for k, _ in p.events[-n - 1 :]] == ["bonus"] * n + ["move"]
    assert all(d["by"] == "pearl" for _, d in p.events[-n - 1 : -1])


def test_confirm_without_a_bonus_is_refused(p: Play) -> None:
    reply = p.do(ConfirmBonus())
    assert not reply.ok
    snap = p.press("button:confirm")
    assert p.said() == "No bonus pearl is waiting. Anna to move." and snap.moves == 0


def _last_move(p: Play) -> str:
    """Play a whole game in reading order up to its 25th pearl (bonus pearls confirmed)."""
    for cell in BASE[:-1]:
        p.play(cell.short)
        if perlen_parts(p.snap).pending:
            p.do(ConfirmBonus())
    return BASE[-1].short


def test_the_winner_stands_at_the_25th_pearl_and_its_bonus_pearls_wait_for_confirm(p: Play) -> None:
    last = _last_move(p)
    snap = p.play(last)
    outcome = perlen.outcome(perlen.new_game())
    del outcome
    assert snap.status == "over" and snap.over and snap.winners
    assert p.ledger.games[1]["status"] == "over"
    result = p.ledger.games[1]["result"]
    assert list(snap.winners) == list(result.winners)
    winner = snap.players[snap.winners[0]].name
    assert f"Game over: {winner} wins with" in p.said() or "shared win" in p.said()
    assert p.sounds[-1] is Sound.WINNER
    # The last bonus pearls finish the pyramid: listed, shown one after another.
    assert perlen_parts(snap).pending and "Finish the pyramid with the last" in p.said()
    assert snap.commands == ("confirm", "play_again")
    footprints = []
    for _ in perlen_parts(snap).pending:
        footprints.append(frozenset(blinking(p)))
        p.wait(1.5)
    assert len(set(footprints)) == len(perlen_parts(snap).pending)
    # A family placing them by hand takes its time: the list stays, the LEDs go round.
    p.wait(600)
    assert perlen_parts(p.snap).pending == perlen_parts(snap).pending and p.snap.commands == (
        "confirm",
        "play_again",
    )
    assert "Finish the pyramid with the last" in p.said()
    assert p.state.animations.sweep_frame is None and frozenset(blinking(p)) in footprints
    # Confirm says the pyramid is finished: then the winner's sweep; nothing more is stored.
    assert p.do(ConfirmBonus()).ok
    assert perlen_parts(p.snap).pending == () and p.state.animations.sweep_frame is not None
    assert p.ledger.games[1]["events"][-1].kind == "move"


def test_one_confirm_at_the_end_goes_straight_to_the_sweep(p: Play) -> None:
    p.play(_last_move(p))
    assert perlen_parts(p.snap).pending
    reply = p.do(ConfirmBonus())
    assert reply.ok and perlen_parts(p.snap).pending == () and p.state.animations.sweep_frame == 0
    frames = []
    for _ in range(5):
        frames.append(dict(p.lit))
        p.wait(0.12)
    assert len({tuple(sorted(f)) for f in frames}) > 1  # the sweep moves on
    p.wait(31)
    calm = dict(p.lit)
    p.wait(5)
    assert p.lit == calm and p.state.animations.sweep_next is None  # and then rests


def test_play_again_on_the_full_board_asks_for_it_cleared_in_one_sentence(p: Play) -> None:
    p.play(_last_move(p))
    assert p.do(ConfirmBonus()).ok
    assert p.do(PlayAgain()).ok
    snap = p.snap
    assert snap.game_id == 2 and snap.status == "mismatch" and len(snap.mismatches) == 25
    # The sensors see the 25 base pearls; the finished pyramid on them holds 55.
    assert p.said().endswith("Take all 55 pearls off the board.")
    cleared = {n for n, led in p.lit.items() if led == Led(WHITE, LedMode.BLINK)}
    assert cleared == {c.short for c in BASE}  # the LEDs show every cell to clear
    p.set(set())
    assert p.snap.status == "playing" and p.said().endswith("to move.")
