"""Wrong, then right (issue 37): a wrong pearl on the board, then the right one beside it;
lifting the wrong one leaves the right one as the move, for a person's move and a
computer seat's, and no cell is ever marked both as the choice and as wrong.

Pure: the referee in virtual time; random games and mistakes from hypothesis.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.perlen.game import PerlenGame
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import Led, LedMode
from controller.palette import WHITE
from controller.referee.snapshot import Snapshot
from controller.vocabulary import CELLS
from rigs.referee import Play

BLUE = (0x1F, 0x77, 0xB4)
WRONG = Led(WHITE, LedMode.BLINK)
"""How the LEDs mark a pearl that does not belong."""


def _marked(snap: Snapshot) -> set[str]:
    return {m.cell for m in snap.mismatches}


def test_a_persons_right_pearl_stays_the_move_when_the_wrong_one_is_lifted(p: Play) -> None:
    p.play("c3")
    p.play("a1")  # not touching c3: wrong
    snap = p.play("b2")  # Ben's legal cell, beside the wrong pearl
    assert snap.status == "mismatch" and snap.moves == 1
    assert [(m.cell, m.kind) for m in snap.mismatches] == [("a1", "extra")]
    assert p.said() == (
        "Not on the cell with the red ✕ (a1): a pearl must touch one already on the board. "
        "Take off the pearl with the red ✕ (a1)."
    )
    assert p.lit["a1"] == WRONG and "b2" not in p.lit
    snap = p.lift("a1")
    assert snap.status == "playing" and snap.moves == 2 and snap.to_move == 2
    assert ("1:b2", 1) in {(q.pos, q.colour) for q in perlen_parts(snap).pearls}
    assert p.said().startswith("Ben played b2.") and p.said().endswith("Cleo to move.")
    assert p.events[-1] == ("move", {"cell": "b2", "colour": 1})


def test_a_computer_seats_cell_stays_its_move_when_the_wrong_one_is_lifted() -> None:
    p = Play().new(computer={1: "medium"})
    p.play("c3")
    p.answer("b4")
    snap = p.play("b2")  # the family's mistake
    assert [m.cell for m in snap.mismatches] == ["b2"] and snap.computer_move == "b4"
    snap = p.play("b4")  # then the computer's cell
    assert snap.status == "mismatch" and snap.moves == 1
    assert [m.cell for m in snap.mismatches] == ["b2"] and snap.computer_move == "b4"
    assert p.said() == "Ben (computer) chose b4, not b2. Take off the pearl with the red ✕ (b2)."
    assert p.lit["b2"] == WRONG and p.lit.get("b4") != WRONG
    snap = p.lift("b2")
    assert snap.status == "playing" and snap.moves == 2 and snap.to_move == 2
    assert ("1:b4", 1) in {(q.pos, q.colour) for q in perlen_parts(snap).pearls}
    assert snap.computer_move is None
    assert p.events[-1] == ("move", {"cell": "b4", "colour": 1})


def test_two_right_pearls_beside_a_wrong_one_make_no_move(p: Play) -> None:
    p.play("c3")
    p.play("a1", "b2", "d4")  # a1 wrong; b2 and d4 both legal: which one is meant?
    assert _marked(p.snap) == {"a1", "b2", "d4"}
    p.lift("a1")
    assert p.lift("d4").status == "mismatch" and p.snap.moves == 1  # the board must match
    p.lift("b2")
    assert p.play("d4").moves == 2


def _game(p: Play) -> PerlenGame:
    session = p.state.session
    assert session is not None and isinstance(session.game, PerlenGame)
    return session.game


@settings(max_examples=40, deadline=None)
@given(
    computer=st.booleans(),
    rounds=st.integers(0, 4),
    picks=st.randoms(use_true_random=False),
    wrongs=st.integers(1, 3),
    right_after=st.integers(1, 3),
)
def test_lifting_the_wrong_pearls_leaves_the_right_one_as_the_move(
    computer: bool, rounds: int, picks: random.Random, wrongs: int, right_after: int
) -> None:
    """Any position, one to three wrong pearls (on cells the mover may not use, or not the
    computer's cell), the right pearl after one of them, the wrong ones lifted in any
    order: the right one is the move, and it is never marked wrong meanwhile."""
    p = Play().new(computer={1: "medium"} if computer else {})
    for _ in range(rounds * 3 + 1):  # Ben (the computer seat, if any) is to move then
        if p.snap.to_move == 1 and computer:
            p.answer(picks.choice(sorted(_game(p).legal_cells())))
        cell = p.snap.computer_move or picks.choice(sorted(_game(p).legal_cells()))
        p.play(cell)
        p.wait(5)  # bonus pearls placed by going on; nothing pending is shown wrong
    assert p.snap.to_move == 1
    game = _game(p)
    right = picks.choice(sorted(game.legal_cells()))
    if computer:
        p.answer(right)
        wrong_cells = sorted(set(CELLS) - game.expected - {right})
    else:
        wrong_cells = sorted(set(CELLS) - game.expected - game.legal_cells())
    wrong = picks.sample(wrong_cells, min(wrongs, len(wrong_cells)))
    if not wrong:  # every empty cell is legal here: nothing can be wrong
        return
    moves = p.snap.moves
    order = [*wrong[: min(right_after, len(wrong))], right, *wrong[min(right_after, len(wrong)) :]]
    for cell in order:
        snap = p.play(cell)
        assert snap.moves == moves and snap.status == "mismatch"
        marked = _marked(snap)
        assert marked <= set(wrong) and right not in marked
        assert snap.computer_move not in marked
        assert p.lit.get(right) != WRONG
    for cell in picks.sample(wrong, len(wrong)):
        snap = p.lift(cell)
        assert right not in _marked(snap) and snap.computer_move not in _marked(snap)
    assert snap.moves == moves + 1 and snap.status != "mismatch"
    assert p.events[-1] == ("move", {"cell": right, "colour": 1})
