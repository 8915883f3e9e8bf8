"""The virtual board keeps its pieces across a restart, as real wood keeps its pearls."""

from __future__ import annotations

from pathlib import Path

from controller.config import Config
from controller.games.registry import GAMES
from controller.hardware.adapters import build_board
from controller.hardware.sim import SimBoard
from controller.referee.commands import NewGame
from controller.store import Store
from controller.table import Table, TableSettings
from rigs.poll import wait_until


def test_the_pieces_come_back_and_the_buttons_do_not(tmp_path: Path) -> None:
    board, cmap = build_board(Config(), data_dir=tmp_path)
    assert isinstance(board, SimBoard)
    board.set_active([cmap.channel("c3"), cmap.channel("t2"), cmap.channel("button:confirm")])
    again, _ = build_board(Config(), data_dir=tmp_path)
    assert set(cmap.names_of(again.read().active)) == {"c3", "t2"}


def test_a_damaged_or_foreign_file_starts_an_empty_board(tmp_path: Path) -> None:
    (tmp_path / "virtual-board.json").write_text("{not json")
    board, _ = build_board(Config(), data_dir=tmp_path)
    assert board.read().active == frozenset()
    (tmp_path / "virtual-board.json").write_text('{"version": 9, "pieces": ["c3"]}')
    board, _ = build_board(Config(), data_dir=tmp_path)
    assert board.read().active == frozenset()
    (tmp_path / "virtual-board.json").write_text('{"version": 1, "pieces": ["c3", "z9", 7]}')
    board, cmap = build_board(Config(), data_dir=tmp_path)
    assert cmap.names_of(board.read().active) == frozenset({"c3"})


def test_without_a_place_to_keep_them_the_board_starts_empty(tmp_path: Path) -> None:
    board, cmap = build_board(Config())
    board_ = board
    assert isinstance(board_, SimBoard)
    board_.set_channel(cmap.channel("c3"), True)
    assert build_board(Config())[0].read().active == frozenset()
    assert not list(tmp_path.iterdir())


def test_a_resumed_game_finds_its_pearls_on_the_virtual_board(tmp_path: Path) -> None:
    store = Store(tmp_path / "games.sqlite3")
    board, cmap = build_board(Config(), data_dir=tmp_path)
    table = Table(board, cmap, store, TableSettings(games=GAMES))
    table.start()
    assert table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
    assert isinstance(board, SimBoard)
    frame = board.set_channel(cmap.channel("c3"), True)
    assert frame is not None and table.handled(frame.seq, 5) is not None
    table.stop()
    store.close()
    # The program starts again: the store has the move, the virtual board its pearl.
    store = Store(tmp_path / "games.sqlite3")
    board, cmap = build_board(Config(), data_dir=tmp_path)
    table = Table(board, cmap, store, TableSettings(games=GAMES))
    table.start()
    try:
        snap = wait_until(lambda: table.snapshot if table.snapshot.sensor_seq >= 0 else None)
        snap = wait_until(lambda: table.snapshot if table.snapshot.sensors else None)
        assert snap.moves == 1 and snap.status == "playing" and snap.sensors == ("c3",)
    finally:
        table.stop()
        store.close()
