"""The game store on real SQLite files: durability settings, history, damaged files."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.games.registry import GAMES, parse_record
from controller.referee.events import By, Event, Result, TakeBack
from controller.referee.fold import from_stored, kept_record, kinds_of
from controller.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    PlayerRecord,
    Store,
    StoreError,
)
from controller.store.history import History


def recorded(store: Store) -> History:
    """The store's history with each game's record, as the Table reads it (the store knows
    no game's rules: the games' registry folds the events)."""
    return store.history.with_records(lambda kept: kept_record(GAMES, kept))


def ev(kind: str, data: dict[str, object]) -> Event:
    """The event of whichever game has events of ``kind``."""
    game = next(g for g in GAMES.values() if kind in kinds_of(g))
    return from_stored(game, kind, data)


PLAYERS = [
    PlayerRecord(0, 1, "Anna", "red", "#d62728"),
    PlayerRecord(1, 2, "Ben", "blue", "#1f77b4"),
    PlayerRecord(2, 0, "Cleo", "yellow", "#f2c500", computer="easy"),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "games.sqlite3") as s:
        yield s


def test_wal_full_sync_and_our_ids(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "games.sqlite3"
    with Store(path) as store:
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_events_are_visible_to_another_connection_when_append_returns(store: Store) -> None:
    game = store.create_game("perlen-pyramide", PLAYERS, {"pools": "strict"}, children_help=True)
    store.append(game, [ev("move", {"cell": "c3", "colour": 0})])
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT kind, data FROM events").fetchall() == [
        ("move", '{"cell":"c3","colour":0}')
    ]


def test_a_whole_game_with_undo_history_result_and_record(store: Store) -> None:
    game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
    store.append(game, [ev("move", {"cell": "c3", "colour": 0})])
    store.append(game, [ev("move", {"cell": "d4", "colour": 1})])
    store.append(game, [ev("undo", {"by": "lift", "what": "d4"})])
    store.append(game, [ev("move", {"cell": "c4", "colour": 1})])
    store.append(
        game,
        [ev("move", {"cell": "d4", "colour": 2})],
        result=Result((3, 1, 1), (0,), {"scores": [3, 1, 1], "winners": [0]}),
    )
    assert store.game(game) is not None and store.game(game).record == {}  # type: ignore[union-attr]
    # The store knows no game's rules: the record comes from whoever does (the Table).
    stored = store.history.with_records(lambda kept: kept_record(GAMES, kept)).game(game)
    assert stored is not None
    assert stored.summary.status == "over" and stored.summary.finished is not None
    assert [e.kind for e in stored.events] == ["move", "move", "undo", "move", "move"]
    assert all(e.at >= stored.summary.started for e in stored.events)
    assert stored.record["moves"] == ["c3", "c4", "d4"]
    assert stored.record["players"] == ["Anna", "Ben", "Cleo"]
    assert parse_record(dict(stored.record)).summary()["placements"][0]["pos"] == "1:c3"
    assert stored.summary.winners == ("Anna",)
    assert [p.points for p in stored.players] == [3, 1, 1]
    assert stored.to_dict()["players"][2]["computer"] == "easy"
    assert store.unfinished() is None
    with pytest.raises(StoreError, match="not being played"):
        store.append(game, [ev("move", {"cell": "a1", "colour": 0})])


def test_the_store_keeps_what_it_is_told_and_decides_nothing(store: Store) -> None:
    first = store.create_game("pyramidos", PLAYERS[:2], {"first_seat": 1}, children_help=False)
    store.append(first, [ev("land", {"target": "t1", "seat": 1})])
    unfinished = store.unfinished()
    assert unfinished is not None and unfinished.id == first
    # A new game leaves the old one as it is: ending it is the referee's decision.
    second = store.create_game("pyramidos", PLAYERS[:2], {}, children_help=False)
    old = recorded(store).game(first)
    assert old is not None and old.summary.status == "playing"
    store.append(first, [ev("abort", {"reason": "a new game was started"})])
    unfinished = store.unfinished()
    assert unfinished is not None and unfinished.id == second
    old = recorded(store).game(first)
    assert old is not None
    assert old.summary.status == "aborted" and old.result == {"reason": "a new game was started"}
    assert old.record == {
        "game": "pyramidos",
        "version": 1,
        "seats": 2,
        "events": ["land t1"],
        "options": {"first_seat": 1, "variant": "standard"},
        "players": ["Anna", "Ben"],
    }


def test_history_pages_and_leaderboard(store: Store) -> None:
    for n in range(5):
        g = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        winners = [n % 3]
        store.append(
            g,
            [ev("move", {"cell": "c3", "colour": 0})],
            result=Result((10 + n, 5, 5), tuple(winners), {"winners": winners}),
        )
    g = store.create_game("pyramidos", PLAYERS[:2], {}, children_help=False)
    store.append(g, [ev("land", {"target": "top", "seat": 0})], result=Result((2, 0), (0,), {}))
    assert store.count_games() == 6
    page = store.games(limit=4)
    assert [s.id for s in page] == [6, 5, 4, 3]
    assert [s.id for s in store.games(limit=4, offset=4)] == [2, 1]
    board = {r.name: r for r in store.leaderboard()}
    assert (board["Anna"].games, board["Anna"].wins, board["Anna"].points) == (6, 3, 62)
    assert board["Cleo"].computer and not board["Anna"].computer
    perlen_only = {r.name: r for r in store.leaderboard("perlen-pyramide")}
    assert perlen_only["Anna"].wins == 2
    assert store.leaderboard()[0].name == "Anna"
    with pytest.raises(ValueError):
        store.games(limit=0)
    assert store.leaderboard("chess") == []  # a game nobody played here
    with pytest.raises(ValueError):
        store.leaderboard(7)  # type: ignore[arg-type]
    assert store.game(999) is None


def test_the_leaderboard_keeps_computers_apart_and_counts_unnamed_ones_by_level(
    store: Store,
) -> None:
    games = [
        # Today's games store an unnamed seat as an empty name (a person's too).
        ("Anna", "", "", "strong"),
        # Releases before stored the English default of a computer seat.
        ("Anna", "Computer (strong)", "Ben", "strong"),
        ("Anna", "Computer 3 (strong)", "Ben", "strong"),
        ("Anna", "HAL", "Ben", "strong"),
    ]
    for anna, second, third, level in games:
        players = [
            PlayerRecord(0, 0, anna, "red", "#d62728"),
            PlayerRecord(1, 1, second, "blue", "#1f77b4", computer=level),
            PlayerRecord(2, 2, third, "yellow", "#f2c500"),
        ]
        g = store.create_game("perlen-pyramide", players, {}, children_help=False)
        store.append(
            g, [ev("move", {"cell": "c3", "colour": 0})], result=Result((9, 8, 1), (0,), {})
        )
    rows = [(r.name, r.level, r.computer, r.games, r.points) for r in store.leaderboard()]
    assert rows == [
        ("Anna", None, False, 4, 36),
        ("Ben", None, False, 3, 3),
        ("", "strong", True, 3, 24),
        ("HAL", None, True, 1, 8),
    ]
    # The unnamed person is nobody in particular: not on the board.
    assert store.leaderboard()[2].to_dict()["level"] == "strong"


def test_settings_round_trip_and_limits(store: Store) -> None:
    assert store.get_setting("pin_hash") is None
    assert store.get_setting("pin_hash", "x") == "x"
    store.set_setting("pin_hash", "scrypt:abc")
    store.set_setting("pin_hash", "scrypt:def")
    assert store.get_setting("pin_hash") == "scrypt:def"
    store.set_setting("pin_hash", None)
    assert store.get_setting("pin_hash") is None
    with pytest.raises(ValueError):
        store.set_setting("", "x")
    with pytest.raises(ValueError):
        store.set_setting("k", 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        store.set_setting("k", "x" * 70_000)


def test_reading_threads_do_not_block_the_writer(store: Store) -> None:
    game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(50):
                store.games()
                store.leaderboard()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for i, cell in enumerate(["c3", "d4", "d3", "c4", "b2"]):
        store.append(game, [ev("move", {"cell": cell, "colour": i % 3})])
    for t in threads:
        t.join()
    assert not errors
    stored = store.game(game)
    assert stored is not None and len(stored.events) == 5


def test_a_game_is_a_name_the_store_keeps_and_nothing_more(store: Store) -> None:
    """The store knows no game's rules: any game's name is kept (the referee decides which
    games there are); what is not a name is refused."""
    for bad in ("", "x" * 41, 7, None):
        with pytest.raises(ValueError):
            store.create_game(bad, PLAYERS, {}, children_help=False)  # type: ignore[arg-type]
    assert store.count_games() == 0
    game = store.create_game("a-third-game", PLAYERS, {}, children_help=False)
    assert store.game(game) is not None and store.count_games() == 1


def test_a_store_of_schema_1_loses_its_list_of_games_and_keeps_every_game(
    tmp_path: Path,
) -> None:
    """Release 0.1.0's file (schema 1) named the two games a store could hold in a CHECK;
    opened now, it is made again without it (schema 2), every game and event kept, and
    a third game's name can be stored."""
    path = tmp_path / "games.sqlite3"
    shutil.copyfile(Path(__file__).resolve().parents[1] / "fixtures" / "store-0.1.0.sqlite3", path)
    before = sqlite3.connect(path)
    old_rows = before.execute("SELECT * FROM games ORDER BY id").fetchall()
    old_events = before.execute("SELECT * FROM events ORDER BY game_id, seq").fetchall()
    assert (
        "CHECK (game IN"
        in before.execute("SELECT sql FROM sqlite_master WHERE name='games'").fetchone()[0]
    )
    before.close()
    with Store(path) as store:
        conn = store._conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name='games'").fetchone()[0]
        assert "perlen" not in sql
        rows = [tuple(r) for r in conn.execute("SELECT * FROM games ORDER BY id")]
        events = [tuple(r) for r in conn.execute("SELECT * FROM events ORDER BY game_id, seq")]
        assert rows == old_rows and events == old_events
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        store.create_game("a-third-game", PLAYERS, {}, children_help=False)


# -- files that are not ours ---------------------------------------------------------------


def _aside(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.iterdir() if ".unusable-" in p.name)


def test_a_text_file_is_set_aside_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_text("my shopping list\n" * 100)
    with pytest.raises(StoreError) as info:
        Store(path)
    message = str(info.value)
    assert str(path) in message and "not an SQLite database" in message
    (aside,) = _aside(tmp_path)
    assert info.value.set_aside == aside
    assert aside.read_text() == "my shopping list\n" * 100
    assert not path.exists()
    with Store(path) as fresh:  # the next start begins empty
        assert fresh.count_games() == 0


def test_another_programs_database_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, title TEXT)")
    other.execute("INSERT INTO photos (title) VALUES ('holiday')")
    other.commit()
    other.close()
    with pytest.raises(StoreError, match="belongs to another program"):
        Store(path)
    (aside,) = _aside(tmp_path)
    assert sqlite3.connect(aside).execute("SELECT title FROM photos").fetchall() == [("holiday",)]


def test_a_damaged_store_is_set_aside_with_its_wal(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Store(path) as store:
        game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        for _ in range(200):
            store.append(game, [TakeBack(By.PAGE, "x" * 200)])
    data = bytearray(path.read_bytes())
    assert len(data) > 8192
    data[4096:8192] = b"\xff" * 4096  # a torn page in the middle of the file
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged") as info:
        Store(path)
    assert info.value.set_aside is not None and info.value.set_aside.exists()
    assert not path.exists()


def test_a_newer_schema_is_refused_and_left_in_place(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer") as info:
        Store(path)
    assert info.value.set_aside is None
    assert path.exists() and not _aside(tmp_path)


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.touch()
    with Store(path) as store:
        assert store.games() == []


def test_the_record_is_the_events_folded_and_an_abort_is_an_event(store: Store) -> None:
    game = store.create_game("pyramidos", PLAYERS[:2], {}, children_help=False)
    store.append(game, [ev("land", {"target": "t1", "seat": 0}), ev("end", {"seat": 1,
                        "by": "page"}), ev("undo", {"by": "page", "what": "end"})])  # fmt: skip
    store.append(game, [ev("leave", {"target": "t1", "seat": 0})])
    store.append(game, [ev("abort", {"reason": "a new game was started"})])
    old = recorded(store).game(game)
    assert old is not None and old.record["events"] == ["land t1", "leave t1"]
    assert [e.kind for e in old.events][-1] == "abort" and old.summary.status == "aborted"


def test_an_older_store_is_migrated_keeping_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import controller.store.schema as store_module

    path = tmp_path / "games.sqlite3"
    with Store(path) as old:
        game = old.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        old.append(game, [ev("move", {"cell": "c3", "colour": 0})])
    # A later version adds a column: the file written by version 1 is brought up to date.
    migrations = {**store_module.MIGRATIONS, 3: ("ALTER TABLE games ADD COLUMN note TEXT",)}
    monkeypatch.setattr(store_module, "MIGRATIONS", migrations)
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 3)
    with Store(path) as new:
        migrated = new.history.with_records(lambda kept: kept_record(GAMES, kept)).game(game)
        assert migrated is not None and migrated.record["moves"] == ["c3"]
        columns = [r[1] for r in new._conn.execute("PRAGMA table_info(games)")]
        assert "note" in columns
        assert new._conn.execute("PRAGMA user_version").fetchone()[0] == 3


def test_the_log_is_checkpointed_between_games_not_during_moves(
    store: Store, tmp_path: Path
) -> None:
    def events_in_the_main_file() -> int:
        # The database file alone, without its write-ahead log: what checkpoints copied.
        copy = tmp_path / "copy.sqlite3"
        copy.write_bytes(store.path.read_bytes())
        with sqlite3.connect(copy) as conn:
            count: int = conn.execute("SELECT count(*) FROM events").fetchone()[0]
            return count

    assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] >= 10_000
    game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
    for n in range(40):
        store.append(game, [ev("move", {"cell": "c3", "colour": n % 3})])
    assert events_in_the_main_file() == 0  # the moves sit in the log, synced there
    store.create_game("pyramidos", PLAYERS[:2], {}, children_help=False)
    assert events_in_the_main_file() == 40  # copied into the file at the new game
