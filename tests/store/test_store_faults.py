"""A real home's SD card fills up or turns read-only: the store says which, keeps every
event it has, and the Table refuses moves (page and LEDs say so) until it can write again.

The faults are SQLite's own: ``PRAGMA max_page_count`` caps the file (SQLITE_FULL, what a
full card gives) and ``PRAGMA query_only`` refuses writes (SQLITE_READONLY, what a card
remounted read-only gives), both on the store's writer connection.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.games.perlen.events import BasePearl
from controller.hardware.port import LedMode
from controller.palette import WHITE
from controller.referee.commands import NewGame
from controller.store import PlayerRecord, Store, StoreWriteError
from rigs.table import Harness

PLAYERS = [
    PlayerRecord(0, 0, "Anna", "red", "#d62728"),
    PlayerRecord(1, 1, "Ben", "blue", "#1f77b4"),
    PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500"),
]


def fill(store: Store) -> None:
    """Cap the file at the pages it has: the next page it needs is refused."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")


def unfill(store: Store) -> None:
    store._conn.execute("PRAGMA max_page_count = 1073741823")


def test_a_full_store_refuses_and_keeps_everything(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        store.append(game, [BasePearl("c3", 0)])
        fill(store)
        with pytest.raises(StoreWriteError) as info:
            for n in range(500):  # one of these needs a new page
                store.append(game, [BasePearl("d4", 1)] * 20)
                del n
        assert info.value.fault == "full"
        kept = store.game(game)
        assert kept is not None and kept.events[0].data == {"cell": "c3", "colour": 0}
        unfill(store)
        store.append(game, [BasePearl("d4", 1)])  # writing works again


def test_a_read_only_store_says_so(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        store._conn.execute("PRAGMA query_only = ON")
        with pytest.raises(StoreWriteError) as info:
            store.append(game, [BasePearl("c3", 0)])
        assert info.value.fault == "read-only"
        store._conn.execute("PRAGMA query_only = OFF")
        store.append(game, [BasePearl("c3", 0)])
        stored = store.game(game)
        assert stored is not None and len(stored.events) == 1


def test_the_table_waits_while_the_card_is_full_and_goes_on_after(tmp_path: Path) -> None:
    with Harness(tmp_path / "g.sqlite3") as h:
        assert h.do(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo"))).ok
        h.put("c3")
        h.store._conn.execute("PRAGMA query_only = ON")  # the card turned read-only
        h.settle(1)
        snap = h.put("d4")
        assert snap.moves == 1 and snap.fault and snap.status == "mismatch"
        assert h.said() == (
            "The game cannot be saved (the memory card is read-only): nothing more is played "
            "until it can. Every move so far is kept."
        )
        assert h.lit["d4"].colour == WHITE and h.lit["d4"].mode is LedMode.BLINK
        assert h.settle(10).moves == 1  # still waiting: retried, still refused
        h.store._conn.execute("PRAGMA query_only = OFF")  # the card works again
        snap = h.settle(2.5)
        assert snap.moves == 2 and not snap.fault
        stored = h.store.game(snap.game_id or 0)
        assert stored is not None and [e.data["cell"] for e in stored.events] == ["c3", "d4"]
