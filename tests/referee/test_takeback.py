"""Taking a move back under bonus pearls: top down, in the physical order.

Pure: the referee in virtual time (``rigs/referee.py``).
"""

from __future__ import annotations

from pathlib import Path

from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.events import BonusPlaced
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import LedMode
from controller.palette import WHITE
from controller.referee.commands import Undo
from controller.referee.events import By
from controller.referee.resume import resume
from controller.store import Store
from rigs.referee import Play

CASCADE = ("c3", "d4", "d3", "c4", "b4", "d2", "c2", "b2", "b3")


def white(p: Play) -> set[str]:
    return {n for n, led in p.lit.items() if led.colour == WHITE and led.mode is LedMode.BLINK}


def test_undo_under_placed_bonus_pearls_asks_for_them_top_down(p: Play) -> None:
    p.play(*CASCADE)
    assert p.do(ConfirmBonus()).ok
    assert p.do(Undo()).ok
    snap = p.snap
    assert [b.pos for b in perlen_parts(snap).removals] == ["3:b2", "2:b3", "2:b2"]
    assert p.said() == (
        "Took back Cleo's pearl on b3. First take off the bonus pearls from the top down, the "
        "blinking one first (3:b2, 2:b3 and 2:b2), and press “This bonus pearl is off” (or "
        "Confirm on the board) after each. Then take off the pearl on the base with the red ✕ "
        "(b3)."
    )
    # The footprint of the top one flashes white (3:b2 rests on b2–d4).
    assert white(p) == {"b2", "c2", "d2", "b3", "c3", "d3", "b4", "c4", "d4"}
    assert snap.commands[0] == "confirm"
    # Confirm: it is off; the next one's place flashes.
    assert p.do(ConfirmBonus()).ok
    assert [b.pos for b in perlen_parts(p.snap).removals] == ["2:b3", "2:b2"]
    assert white(p) == {"b3", "c3", "b4", "c4"}
    assert p.do(ConfirmBonus()).ok
    assert white(p) == {"b2", "c2", "b3", "c3"}
    # Lifting the base pearl ends it (nothing can rest on a lifted pearl).
    snap = p.lift("b3")
    assert (
        snap.status == "playing"
        and perlen_parts(snap).removals == ()
        and snap.moves == len(CASCADE) - 1
    )
    assert p.events[-1] == ("undo", {"by": "page", "what": "b3"})


def test_bonus_pearls_side_by_side_come_off_in_any_order(p: Play) -> None:
    # c2 completes b2–c3 and c2–d3 at once: two bonus pearls on layer 2, neither on the other.
    p.play("c3", "b3", "d3", "b2", "d2", "c2")
    assert [b.pos for b in perlen_parts(p.snap).pending] == ["2:b2", "2:c2"]
    assert p.do(ConfirmBonus()).ok
    assert p.do(Undo()).ok
    assert [b.pos for b in perlen_parts(p.snap).removals] == ["2:c2", "2:b2"]
    assert p.said() == (
        "Took back Cleo's pearl on c2. First take off the bonus pearls, the blinking one first "
        "(2:c2 and 2:b2), and press “This bonus pearl is off” (or Confirm on the board) after "
        "each. Then take off the pearl on the base with the red ✕ (c2)."
    )
    assert "top down" not in p.said()


def test_the_drawing_keeps_the_bonus_pearls_still_to_come_off(p: Play) -> None:
    p.play(*CASCADE)
    p.do(ConfirmBonus())
    p.do(Undo())
    from web_ui.games.perlen.drawing import layers_view

    view = layers_view(p.snap)
    upper = {q.pos: q for layer in view.layers[1:] for q in layer.places}
    assert upper["3:b2"].pearl is not None and upper["3:b2"].remove
    assert upper["2:b3"].remove and upper["2:b2"].remove


def test_unconfirmed_bonus_pearls_just_leave_the_list(p: Play) -> None:
    p.play(*CASCADE)
    assert p.do(Undo()).ok  # none of the three was placed
    assert perlen_parts(p.snap).removals == () and perlen_parts(p.snap).pending == ()
    assert p.said() == "Took back Cleo's pearl on b3. Take off the pearl with the red ✕ (b3)."


def test_a_game_of_0_1_0_that_confirmed_one_by_one_lists_only_the_placed(tmp_path: Path) -> None:
    # Release 0.1.0 acknowledged bonus pearls one per Confirm; its files say which.
    first = Play().new()
    first.play(*CASCADE)
    played = list(first.ledger.games[1]["events"])
    store = Store(tmp_path / "g.sqlite3")
    number = store.create_game(
        "perlen-pyramide", first.ledger.games[1]["players"], {}, children_help=False
    )
    store.append(
        number, [*played, BonusPlaced("2:b2", 0, By.PAGE), BonusPlaced("2:b3", 0, By.BUTTON)]
    )
    p = Play()
    p.ledger.games = {number: {**first.ledger.games[1], "events": []}}
    p.state = resume(p.state, store.unfinished(), p.now).state
    store.close()
    p.set(CASCADE)
    assert [b.pos for b in perlen_parts(p.snap).pending] == ["3:b2"]
    assert p.do(Undo()).ok
    assert [b.pos for b in perlen_parts(p.snap).removals] == [
        "2:b3",
        "2:b2",
    ]  # 3:b2 was never placed


def test_lifting_a_last_pearl_with_bonus_pearls_takes_it_back_and_says_so(p: Play) -> None:
    p.play(*CASCADE)
    p.do(ConfirmBonus())
    snap = p.lift("b3")  # the family took the three bonus pearls off first
    assert p.said() == (
        "Cleo's last pearl (b3) is off. Leave it off to take the move back; put it back to "
        "keep the move."
    )
    snap = p.wait(0.5)
    assert snap.moves == len(CASCADE) - 1 and snap.status == "playing"
    assert p.events[-1] == ("undo", {"by": "lift", "what": "b3"})
    assert p.said() == "Took back Cleo's pearl on b3. Cleo to move."
