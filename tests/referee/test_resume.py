"""After a restart: the stored game meets the board as the power cut left it.

Pure: the referee in virtual time (``rigs/referee.py``), the game read back from
a real store file as the Table reads it. A pearl placed while the power was off (its move
never answered) is the move when it is exactly one more pearl, on a legal cell of the
person to move; every other case waits for the board to match, so nothing is invented.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.referee.commands import PlayAgain
from controller.referee.resume import resume
from controller.rules.notation import BASE
from controller.store import Store
from rigs.referee import Play


def restarted(first: Play, tmp_path: Path, board: Iterable[str]) -> Play:
    """``first``'s game stored, the program started again, its first look at ``board``."""
    record = first.ledger.games[1]
    with Store(tmp_path / "g.sqlite3") as store:
        number = store.create_game(
            record["game"], record["players"], record["options"], children_help=False
        )
        store.append(number, record["events"], result=record["result"])
        p = Play()
        p.ledger.games = {number: {**record, "events": list(record["events"])}}
        p.adopt(resume(p.state, store.on_the_table(), p.now))
    p.set(set(board))
    return p


def kinds(p: Play) -> list[str]:
    return [e.kind for e in p.ledger.games[1]["events"]]


def test_one_pearl_more_on_a_legal_cell_of_the_person_to_move_is_the_move(
    tmp_path: Path,
) -> None:
    first = Play().new()
    first.play("c3", "d4")
    p = restarted(first, tmp_path, {"c3", "d4", "d3"})  # Cleo put hers on d3 in the dark
    snap = p.snap
    assert snap.moves == 3 and snap.status == "playing" and snap.last_move == "d3"
    assert "Cleo played d3." in p.said() and p.said().endswith("Anna to move.")
    assert kinds(p) == ["move", "move", "move"]
    p.play("c4")  # and play goes on as ever
    assert p.snap.moves == 4


def test_the_move_after_the_cut_places_the_waiting_bonus_pearls_as_any_move_does(
    tmp_path: Path,
) -> None:
    first = Play().new()
    first.play("c3", "d4", "d3", "c4")  # 2:c3 waits to be placed
    assert perlen_parts(first.snap).pending
    p = restarted(first, tmp_path, {"c3", "d4", "d3", "c4", "b4"})
    assert p.snap.moves == 5 and perlen_parts(p.snap).pending == ()
    assert kinds(p)[-2:] == ["bonus", "move"]


def test_anything_else_after_a_cut_waits_for_the_board_to_match(tmp_path: Path) -> None:
    first = Play().new()
    first.play("c3", "d4")
    cases = {
        "two more": {"c3", "d4", "d3", "c4"},
        "one on an illegal cell": {"c3", "d4", "a1"},
        "one more, one missing": {"c3", "d3"},
    }
    for n, (what, board) in enumerate(cases.items()):
        p = restarted(first, tmp_path / str(n), board)
        assert p.snap.moves == 2 and p.snap.status == "mismatch", what
        assert kinds(p) == ["move", "move"], what
    illegal = restarted(first, tmp_path / "illegal", cases["one on an illegal cell"])
    assert "Not on the cell with the red ✕ (a1)" in illegal.said()
    # Put right, the game goes on from where it was: the next pearl is Cleo's move.
    illegal.lift("a1")
    illegal.play("d3")
    assert illegal.snap.moves == 3 and kinds(illegal)[-1] == "move"


def test_only_the_first_reading_after_a_restart_can_hold_the_move(tmp_path: Path) -> None:
    first = Play().new()
    first.play("c3", "d4")
    p = restarted(first, tmp_path, {"c3"})  # d4 missing: a mismatch
    p.put("d3")  # a pearl placed now, while d4 is still missing, is no move
    p.put("d4")
    assert p.snap.status == "mismatch" and p.snap.moves == 2
    p.lift("d3")
    assert p.snap.status == "playing"


def test_a_computer_seat_to_move_is_not_guessed(tmp_path: Path) -> None:
    first = Play().new(players=("Anna", "Ben", ""), computer={"2": "easy"})
    first.play("c3", "d4")
    p = restarted(first, tmp_path, {"c3", "d4", "d3"})
    # Its choice was lost with the power: the pearl must come off until it chooses again.
    assert p.snap.status == "mismatch" and p.snap.moves == 2
    assert "Easy computer is still choosing" in p.said()
    p.lift("d3")
    p.answer("d3")
    p.play("d3")
    assert p.snap.moves == 3


def test_a_pyramidos_ball_after_a_cut_is_not_guessed(tmp_path: Path) -> None:
    first = Play().new("pyramidos", ("Anna", "Ben"))
    first.play("t1")
    p = restarted(first, tmp_path, {"t1", "t2"})
    assert p.snap.status == "mismatch" and p.snap.moves == 1
    assert kinds(p) == ["land"]


def test_a_finished_game_stays_on_the_page_after_a_restart(tmp_path: Path) -> None:
    first = Play().new()
    for cell in BASE:
        first.play(cell.short)
        if perlen_parts(first.snap).pending and not first.snap.over:
            first.do(ConfirmBonus())
    assert first.snap.over
    ended = first.snap
    p = restarted(first, tmp_path, {c.short for c in BASE})
    snap = p.snap
    assert snap.over and snap.status == "over" and snap.game_id == 1
    assert snap.winners == ended.winners and perlen_parts(snap).scores == perlen_parts(ended).scores
    assert p.said().startswith("Finish the pyramid with the last")
    # Its last bonus pearls were never stored: listed again until Confirm.
    assert perlen_parts(snap).pending == perlen_parts(ended).pending and snap.commands == (
        "confirm",
        "play_again",
    )
    assert p.do(ConfirmBonus()).ok and p.snap.over
    # Until a new game starts.
    assert p.do(PlayAgain()).ok
    assert p.snap.game_id == 2 and not p.snap.over
