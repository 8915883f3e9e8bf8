"""Reading the board of Perlen-Pyramide: moves, mismatches, take-backs, noise.

Pure: the referee in virtual time (``rigs/referee.py``), nothing sleeps.
"""

from __future__ import annotations

import dataclasses

from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import Led, LedMode
from controller.palette import WHITE
from controller.referee.commands import NewGame, Undo
from rigs.referee import FAST, Play

RED, BLUE, YELLOW = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4), (0xF2, 0xC5, 0x00)


def test_a_move_turns_to_the_next_player_and_lights_their_seat(p: Play) -> None:
    assert p.lit == {"seat:0": Led(RED)}
    snap = p.play("c3")
    assert snap.status == "playing" and snap.to_move == 1 and snap.moves == 1
    assert p.said() == (
        "Anna played c3. That pearl (c3) ends up hidden inside the pyramid: it will not count. "
        "Ben to move."
    )
    assert p.lit == {"seat:1": Led(BLUE)}
    assert p.events == [("move", {"cell": "c3", "colour": 0})]


def test_a_pearl_on_the_visible_ring_says_nothing_of_hiding(p: Play) -> None:
    p.play("a1")
    assert p.said() == "Anna played a1. Ben to move."


def test_every_pearl_counts_says_nothing_of_hiding() -> None:
    p = Play().new(options={"score": "all"})
    p.play("c3")
    assert p.said() == "Anna played c3. Ben to move."


def test_children_help_glows_legal_cells() -> None:
    p = Play().new(children_help=True)
    p.play("c3")
    cells = {n for n in p.lit if len(n) == 2}
    assert cells == {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
    assert set(p.snap.legal) == cells


def test_seats_and_colours_follow_first_seat_and_chosen_colours() -> None:
    p = Play().new(options={"first_seat": 2}, colours=("green", "orange", "cyan"))
    snap = p.snap
    assert [(q.name, q.seat, q.colour_name) for q in snap.players] == [
        ("Cleo", 2, "cyan"),
        ("Anna", 0, "green"),
        ("Ben", 1, "orange"),
    ]
    assert p.lit == {"seat:2": Led((0x17, 0xBE, 0xCF))}
    assert [r.name for r in p.ledger.games[1]["players"]] == ["Cleo", "Anna", "Ben"]


# -- mismatches ----------------------------------------------------------------------------


def test_a_pearl_on_an_illegal_cell_is_a_mismatch_until_lifted(p: Play) -> None:
    p.play("c3")
    snap = p.play("a1")  # not touching
    assert snap.status == "mismatch" and snap.moves == 1
    assert [(m.cell, m.kind) for m in snap.mismatches] == [("a1", "extra")]
    assert p.said() == (
        "Not on the cell with the red ✕ (a1): a pearl must touch one already on the board. "
        "Take off the pearl with the red ✕ (a1)."
    )
    assert p.lit["a1"] == Led(WHITE, LedMode.BLINK)
    snap = p.lift("a1")
    assert snap.status == "playing" and snap.to_move == 1
    assert p.lit == {"seat:1": Led(BLUE)}
    assert len(p.events) == 1


def test_several_new_pearls_at_once_never_become_a_move(p: Play) -> None:
    p.play("c3")
    snap = p.set({"c3", "d4", "b2"})
    assert snap.status == "mismatch"
    assert {m.cell for m in snap.mismatches} == {"d4", "b2"}
    assert p.said() == "Take off the pearls with the red ✕ (b2 and d4)."
    # Lifting one leaves a single legal new pearl: still no move, the board must match first.
    assert p.lift("b2").status == "mismatch" and p.snap.moves == 1
    assert p.lift("d4").status == "playing"
    snap = p.play("d4")
    assert (
        snap.moves == 2
        and perlen_parts(snap).pearls[-1].pos == "1:d4"
        and perlen_parts(snap).pearls[-1].colour == 1
    )


def test_a_missing_pearl_blinks_in_its_colour_until_put_back(p: Play) -> None:
    p.play("c3", "d4", "b2")
    snap = p.lift("c3")  # not the last pearl: no take-back
    assert snap.status == "mismatch"
    assert [(m.cell, m.kind, m.colour) for m in snap.mismatches] == [("c3", "missing", 0)]
    assert p.said() == "Put Anna's red pearl back on c3."
    assert p.lit["c3"] == Led(RED, LedMode.BLINK)
    assert p.wait(5).moves == 3  # however long it stays off
    snap = p.put("c3")
    assert snap.status == "playing" and snap.to_move == 0
    assert p.said() == "Anna to move."  # what the mismatch said is over


def test_a_new_pearl_while_another_is_missing_is_no_move(p: Play) -> None:
    p.play("c3", "d4")
    snap = p.set({"d4", "c4"})  # c3 gone, c4 new
    assert snap.status == "mismatch" and snap.moves == 2


def test_two_pearls_in_quick_succession_are_placed_together(p: Play) -> None:
    p.play("c3")
    p.wait(0.1)
    snap = p.put("d4")
    assert snap.status == "mismatch" and snap.moves == 1
    assert p.said() == (
        "Two pearls at once: place one at a time. Take off the pearl with the red ✕ (d4)."
    )
    p.lift("d4")
    assert p.play("d4").moves == 2


def test_a_new_game_on_a_board_with_pearls_waits_for_it_to_be_cleared(p: Play) -> None:
    p.play("c3")
    reply = p.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")))
    assert reply.ok
    assert p.snap.status == "mismatch"
    assert p.said() == (
        "Game 1 was aborted. Game 2 has started: Anna, Ben and Cleo. Take off the pearl with "
        "the red ✕ (c3)."
    )
    snap = p.lift("c3")
    assert snap.status == "playing" and snap.moves == 0
    assert p.said() == "Anna to move."


# -- take-backs ----------------------------------------------------------------------------


def test_lifting_the_last_pearl_takes_the_move_back(p: Play) -> None:
    p.play("c3", "d4")
    snap = p.lift("d4")
    assert snap.status == "mismatch" and snap.moves == 2  # waits settle_s first
    assert p.said() == (
        "Ben's last pearl (d4) is off. Leave it off to take the move back; put it back to keep "
        "the move."
    )
    assert p.lit["d4"] == Led(BLUE, LedMode.BLINK)
    snap = p.wait(0.5)
    assert snap.status == "playing" and snap.moves == 1 and snap.to_move == 1
    assert p.said() == "Took back Ben's pearl on d4. Ben to move."
    assert p.events[-1] == ("undo", {"by": "lift", "what": "d4"})
    assert any(q.pos == "1:b2" and q.colour == 1 for q in perlen_parts(p.play("b2")).pearls)


def test_a_brief_lift_of_the_last_pearl_takes_nothing_back(p: Play) -> None:
    p.play("c3", "d4")
    p.lift("d4")
    p.wait(0.3)
    snap = p.put("d4")
    assert snap.status == "playing" and snap.moves == 2
    assert p.said() == "Cleo to move."  # the take-back's question is gone with it
    p.wait(5)
    assert [k for k, _ in p.events] == ["move", "move"]


def test_a_flickering_last_pearl_is_not_taken_back(p: Play) -> None:
    p.play("c3", "d4")
    for _ in range(10):  # flickers for a second, never off for long at a time
        p.lift("d4")
        p.wait(0.03)
        p.put("d4")
        p.wait(0.07)
    p.wait(1)
    assert p.snap.moves == 2 and p.snap.status == "playing"


def test_moving_the_last_pearl_to_another_cell_moves_it(p: Play) -> None:
    p.play("c3", "d4")
    snap = p.set({"c3", "b4"})
    assert p.said() == "Moving Ben's pearl from d4 to b4…"
    snap = p.wait(0.5)
    assert snap.status == "playing" and snap.moves == 2 and snap.to_move == 2
    assert perlen_parts(snap).pearls[-1].pos == "1:b4"
    assert p.said().startswith("Ben moved the pearl from d4 to b4.")
    assert p.events[-2:] == [
        ("undo", {"by": "lift", "what": "d4"}),
        ("move", {"cell": "b4", "colour": 1}),
    ]


def test_undo_takes_back_and_the_pearl_blinks_until_lifted(p: Play) -> None:
    p.play("c3", "d4")
    snap = p.press("button:undo")
    assert snap.moves == 1 and snap.to_move == 1 and snap.status == "mismatch"
    assert [(m.cell, m.kind) for m in snap.mismatches] == [("d4", "extra")]
    assert p.lit["d4"] == Led(WHITE, LedMode.BLINK)
    assert p.events[-1] == ("undo", {"by": "button", "what": "d4"})
    assert p.said() == "Took back Ben's pearl on d4. Take off the pearl with the red ✕ (d4)."
    # The pearl still lying there is not taken as Ben's move again.
    assert p.wait(5).moves == 1
    snap = p.lift("d4")
    assert snap.status == "playing" and snap.to_move == 1


def test_undo_refuses_with_a_reason(p: Play) -> None:
    reply = p.do(Undo())
    assert not reply.ok and p.snap.moves == 0
    p.press("button:undo")
    assert p.said() == "There is nothing to take back. Anna to move."


# -- noise ---------------------------------------------------------------------------------


def test_a_bumped_board_makes_no_move(p: Play) -> None:
    board = {"c3", "d4", "d3"}
    p.play("c3", "d4", "d3")
    # A bump: readings drop and come back, ghosts appear next to pearls, over several
    # frames a few milliseconds apart, and the board settles as it was.
    for reading in (
        {"c3", "d3"},
        {"c3"},
        {"c3", "c4", "d3"},
        {"c3", "c4", "d3", "d4", "e5"},
        {"c4", "d4", "d3"},
        {"d3"},
        {"d3", "d4"},
        board,
        {"c3", "d4"},  # the last pearl flickers off briefly
        board,
    ):
        p.wait(0.02)
        p.set(reading)
    snap = p.wait(2)
    assert snap.status == "playing" and snap.moves == 3 and snap.to_move == 0
    assert [k for k, _ in p.events] == ["move"] * 3


def test_placing_during_a_bump_is_no_move_until_the_board_matched(p: Play) -> None:
    p.play("c3")
    p.set(set())  # the board was lifted a moment
    snap = p.set({"c3", "d4"})  # and comes back with a new pearl at the same time
    assert snap.status == "mismatch" and snap.moves == 1


def test_a_pearl_put_back_with_a_new_one_is_no_move_until_the_board_matched(p: Play) -> None:
    # Hypothesis found it (issue 30: readings [{a1}, {}, {a1, b1}]): long after the move
    # (not two at once), the last pearl is lifted, a take-back settles, and one frame has
    # it back with a new pearl. The board did not match just before, so b1 is no move.
    p.play("a1")
    p.wait(0.3)
    p.set(set())
    p.wait(0.3)  # less than settle_s: nothing taken back yet
    snap = p.set({"a1", "b1"})
    assert snap.status == "mismatch" and snap.moves == 1
    assert [(m.cell, m.kind) for m in snap.mismatches] == [("b1", "extra")]
    p.wait(5)
    assert p.snap.moves == 1 and [k for k, _ in p.events] == ["move"]
    p.lift("b1")  # the board matches again: now b1 is Ben's move
    p.wait(0.3)
    assert p.put("b1").moves == 2


def test_rules_are_checked() -> None:
    import pytest

    with pytest.raises(ValueError):
        dataclasses.replace(FAST, settle_s=-1)
    with pytest.raises(ValueError):
        dataclasses.replace(FAST, sweep_step_s=0)
