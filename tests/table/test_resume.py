"""Starting again after a stop: the unfinished game comes back and is compared with the board."""

from __future__ import annotations

from pathlib import Path

from controller.games.perlen.commands import ConfirmBonus
from controller.games.perlen.events import BasePearl
from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.hardware.port import Led, LedMode
from controller.palette import WHITE
from controller.referee.commands import NewGame
from controller.store import PlayerRecord, Store
from rigs.table import Harness

RED, BLUE = (0xD6, 0x27, 0x28), (0x1F, 0x77, 0xB4)


def played(path: Path, cells: tuple[str, ...], confirm: int = 0) -> set[str]:
    """Play ``cells`` in a first Table, stop it; return what lies on the board."""
    with Harness(path) as h:
        assert h.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        for cell in cells:
            h.settle(1)
            h.put(cell)
        for _ in range(confirm):
            assert h.submit(ConfirmBonus()).ok
        return h.active()


def restarted(path: Path, board: set[str]) -> Harness:
    """A new Table on the same store, over a board that reads ``board`` (start it with
    ``with``)."""
    h = Harness(path)
    h.board.set_active(h.cmap.channel(n) for n in board)
    return h


def test_a_matching_board_goes_on_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    board = played(path, ("c3", "d4", "d3"))
    with restarted(path, board) as h:
        snap = h.snap
        assert snap.status == "playing" and snap.moves == 3 and snap.to_move == 0
        assert h.said() == "Game 1 resumed after 3 moves. Anna to move."
        assert h.lit == {"seat:0": Led(RED)}
        assert h.put("c4").status == "bonus"


def test_waiting_bonuses_come_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    board = played(path, ("c3", "d4", "d3", "c4"))
    with restarted(path, board) as h:
        snap = h.snap
        assert snap.status == "bonus" and [b.pos for b in perlen_parts(snap).pending] == ["2:c3"]
        assert h.lit["c3"] == Led(RED, LedMode.BLINK)
        assert h.press("button:confirm").status == "playing"


def test_a_board_that_differs_shows_the_mismatch_until_fixed(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    played(path, ("c3", "d4", "d3"))
    with restarted(path, {"c3", "d3", "e5"}) as h:  # d4 fell off, e5 was put on meanwhile
        snap = h.snap
        assert snap.status == "mismatch" and snap.moves == 3
        assert {(m.cell, m.kind) for m in snap.mismatches} == {
            ("d4", "missing"),
            ("e5", "extra"),
        }
        assert h.lit["d4"] == Led(BLUE, LedMode.BLINK) and h.lit["e5"] == Led(WHITE, LedMode.BLINK)
        h.put("d4")
        assert h.lift("e5").status == "playing"
        assert h.snap.moves == 3  # nothing was played or taken back by the differences


def test_a_pearl_placed_during_the_power_cut_is_the_move(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    board = played(path, ("c3", "d4"))
    with restarted(path, board | {"d3"}) as h:  # Cleo's pearl, its move never answered
        assert h.snap.status == "playing" and h.snap.moves == 3
        assert h.said().startswith("Game 1 resumed after 2 moves. Cleo played d3.")
        stored = h.store.unfinished()
        assert stored is not None and stored.events[-1].data == {"cell": "d3", "colour": 2}


def test_two_pearls_placed_during_the_power_cut_are_no_move(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    board = played(path, ("c3", "d4"))
    with restarted(path, board | {"d3", "c4"}) as h:
        assert h.snap.status == "mismatch" and h.snap.moves == 2
        h.lift("c4")
        assert h.snap.status == "mismatch"  # only the first reading after the cut counts
        h.lift("d3")
        h.settle(1)
        assert h.put("d3").moves == 3


def test_a_stored_game_that_cannot_be_replayed_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with Store(path) as store:
        people = [("A", "red", "#d62728"), ("B", "blue", "#1f77b4"), ("C", "yellow", "#f2c500")]
        players = [PlayerRecord(n, n, *person) for n, person in enumerate(people)]
        game = store.create_game("perlen-pyramide", players, {}, children_help=False)
        store.append(game, [BasePearl("c3", 0)])
        store.append(game, [BasePearl("c3", 1)])  # impossible
    with restarted(path, {"c3"}) as h:
        assert h.snap.status == "idle"
        assert h.said() == ("Game 1 could not be resumed and was set aside (the log says why).")
        stored = h.store.game(game)
        assert stored is not None and stored.summary.status == "aborted"
        assert stored.result is not None
        assert "could not be resumed" in stored.result["reason"]
        assert "occupied" in stored.result["reason"]


def test_a_finished_game_stays_on_the_table_until_a_new_one_starts(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with Harness(path) as h:
        assert h.submit(NewGame("pyramidos", ("A", "B"))).ok
        for target in ("t1", "t2", "t3", "t4", "top"):
            h.settle(1)
            h.put(target)
        assert h.snap.status == "over"
        ended = h.snap
    with restarted(path, set()) as h:
        snap = h.snap
        assert snap.status == "over" and snap.game_id == ended.game_id
        assert snap.winners == ended.winners and snap.points == ended.points
        assert h.said().startswith("Game over: A wins with")
        assert h.submit(NewGame("pyramidos", ("A", "B"))).ok
        assert h.snap.game_id == 2 and h.snap.status == "playing"
    with restarted(path, set()) as h:  # the newest game is being played: it is resumed
        assert h.snap.game_id == 2 and h.snap.status == "playing"
