"""A store that cannot write (a full or read-only card): nothing is played, nothing
stored is lost, and play goes on by itself once writing works again.

Pure: the referee with the in-memory ledger of ``rigs/referee.py``, whose write
fault refuses every write as the real store's ``StoreWriteError`` does (the real SQLite
faults are in ``tests/table/test_store_faults.py``).
"""

from __future__ import annotations

from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.referee.messages import english
from rigs.referee import Play


def test_a_move_the_store_cannot_keep_is_not_played_and_is_tried_again(p: Play) -> None:
    p.play("c3")
    p.ledger.fault = "full"
    snap = p.play("d4")
    assert snap.moves == 1 and snap.status == "mismatch" and snap.fault
    assert p.said() == (
        "The game cannot be saved (the memory card is full): nothing more is played until it "
        "can. Every move so far is kept."
    )
    p.wait(10)
    assert p.snap.moves == 1  # still refused while the card is full
    p.ledger.fault = None
    snap = p.wait(2.5)
    assert snap.moves == 2 and snap.status == "playing" and not snap.fault
    assert "The game can be saved again: play goes on." in p.said()
    assert [k for k, _ in p.events] == ["move", "move"]


def test_a_command_the_store_cannot_keep_is_refused(p: Play) -> None:
    p.play("c3", "d4", "d3", "c4")
    p.ledger.fault = "read-only"
    reply = p.do(ConfirmBonus())
    assert not reply.ok and reply.message is not None
    assert "the memory card is read-only" in english(reply.message)
    assert perlen_parts(p.snap).pending  # still waiting
    p.ledger.fault = None
    assert p.do(ConfirmBonus()).ok


def test_a_new_game_the_store_cannot_start_is_refused() -> None:
    p = Play()
    p.ledger.fault = "other"
    from controller.referee.commands import NewGame

    reply = p.do(NewGame("perlen-pyramide", ("a", "b", "c")))
    assert not reply.ok and p.snap.game is None
