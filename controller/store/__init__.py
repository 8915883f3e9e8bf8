"""The game store: every game and every event of it, durable before anyone sees it.

One SQLite file (standard :mod:`sqlite3`) in WAL mode with ``synchronous=FULL`` on every
connection: when :meth:`Store.append` returns, the events are in the WAL and it is
fsynced, so a power cut a moment later loses nothing the LEDs or the page showed
(``docs/architecture.md``, "What a power cut can lose", says what that rests on). The
Table appends; the web page reads the history and the leaderboard and keeps its own
settings here.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> store = Store(folder / "games.sqlite3")
>>> game_id = store.create_game("perlen-pyramide", [
...     PlayerRecord(0, 0, "Anna", "red", "#d62728"),
...     PlayerRecord(1, 1, "Ben", "blue", "#1f77b4"),
...     PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500")], {}, children_help=False)
>>> from controller.referee.events import TakeBack, By
>>> [e.seq for e in store.append(game_id, [TakeBack(By.PAGE, "c3")])]
[1]
>>> store.unfinished().events[0].data
{'by': 'page', 'what': 'c3'}
>>> store.close()

A file that is not one of ours (another program's database, a damaged one, a text file)
is never written to: it is renamed aside with a timestamp and :class:`StoreError` says so;
opening the path again then starts an empty store.

Schema changes go through :data:`~controller.store.schema.MIGRATIONS` (``PRAGMA
user_version`` counts them); a file written by a newer version is refused and left alone.

The store is a ledger: it keeps games, their events and settings as it is told, knows no
game's rules (a game is a name, an event a kind and its JSON) and decides nothing about a
game (the referee ends one, with an ``abort`` event, before it
starts the next). One class owns the file's one writer
connection and its lock; the file's schema, migrations and setting aside are
:mod:`controller.store.schema`, the reads of the games played are
:class:`controller.store.history.History` (``store.history``), and the values it returns
live in :mod:`controller.store.values`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from controller.referee.events import Aborted, Event, Result
from controller.store.history import History
from controller.store.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    connect,
    open_checked,
)
from controller.store.values import (
    GameSummary,
    LeaderRow,
    PlayerRecord,
    StoredEvent,
    StoredGame,
    StoreError,
    StoreWriteError,
    write_fault,
)

log = logging.getLogger(__name__)

MAX_SETTING_BYTES: Final = 64 * 1024


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Store:
    """The SQLite game store at ``path`` (created, with its folder, when missing).

    Thread-safe: writes go through one connection under a lock; each reading thread has
    its own connection, so the web page's history queries never hold up the Table (WAL
    lets readers and the writer run side by side).
    """

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._write_lock = threading.Lock()
        self._readers_lock = threading.Lock()
        self._readers: list[sqlite3.Connection] = []
        self._local = threading.local()
        self._closed = False
        self._conn = open_checked(self.path, clock)
        self.history = History(self._read)
        """The games played, for reading (the history, a game, the leaderboard)."""

    def close(self) -> None:
        """Close every connection (the WAL is checkpointed into the main file)."""
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
            # Readers first: the last connection to close checkpoints the WAL into the
            # file and removes it, and that should be the writer, whose settings are ours.
            with self._readers_lock:
                for conn in self._readers:
                    conn.close()
                self._readers.clear()
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections -------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; a file that cannot be written is :class:`StoreWriteError`."""
        with self._write_lock:
            if self._closed:
                raise StoreError(self.path, "is closed")
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:  # SQLite may have rolled back already (a full disk)
                        conn.execute("ROLLBACK")
                    raise
            except (sqlite3.OperationalError, OSError) as exc:
                raise StoreWriteError(
                    self.path, write_fault(exc), f"cannot be written: {exc}"
                ) from exc

    def _read(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(self.path, "is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            conn.execute("PRAGMA query_only=ON")
            # A reader never commits, but any connection may run a checkpoint (the last
            # one to close does): it must sync as the writer does.
            conn.execute("PRAGMA synchronous=FULL")
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    # -- the Table's side ----------------------------------------------------------------------
    def create_game(
        self,
        game: str,
        players: Sequence[PlayerRecord],
        options: Mapping[str, Any],
        *,
        children_help: bool,
    ) -> int:
        """Start a game and give it its number. A game still being played is left as it
        is: the referee ends it first (an ``abort`` event), the store decides nothing."""
        if not isinstance(game, str) or not 0 < len(game) <= 40:
            raise ValueError(f"game must be a game's name, not {game!r}")
        now = self._clock()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO games (game, options, children_help, started) VALUES (?, ?, ?, ?)",
                (game, _dumps(dict(options)), int(children_help), now),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            conn.executemany(
                "INSERT INTO players (game_id, number, seat, name, colour, hex, computer) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, p.number, p.seat, p.name, p.colour, p.hex, p.computer) for p in players],
            )
        self.checkpoint()
        return game_id

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (between games, not mid-move)."""
        with self._write_lock:
            if not self._closed:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def append(
        self,
        game_id: int,
        events: Sequence[Event],
        *,
        result: Result | None = None,
    ) -> tuple[StoredEvent, ...]:
        """Commit ``events`` in one transaction; durable when this returns.

        With ``result`` the game is finished in the same transaction (its points and
        winners go to the players, for the leaderboard); an :class:`Aborted` event ends
        it without one. Raises :class:`StoreWriteError` when the file cannot be written
        (a full or read-only card): nothing of the transaction is kept.
        """
        now = self._clock()
        stored: list[StoredEvent] = []
        with self._write() as conn:
            row = conn.execute("SELECT status FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None or row["status"] != "playing":
                raise StoreError(self.path, f"game {game_id} is not being played")
            seq = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM events WHERE game_id=?", (game_id,)
            ).fetchone()[0]
            for event in events:
                seq += 1
                data = event.data()
                conn.execute(
                    "INSERT INTO events (game_id, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seq, now, event.kind, _dumps(data)),
                )
                stored.append(StoredEvent(seq, now, event.kind, data))
                if isinstance(event, Aborted):
                    conn.execute(
                        "UPDATE games SET status='aborted', finished=?, result=? WHERE id=?",
                        (now, _dumps({"reason": event.reason}), game_id),
                    )
            if result is not None:
                conn.execute(
                    "UPDATE games SET status='over', finished=?, result=? WHERE id=?",
                    (now, _dumps(dict(result.details)), game_id),
                )
                for number, score in enumerate(result.points):
                    conn.execute(
                        "UPDATE players SET points=?, won=? WHERE game_id=? AND number=?",
                        (score, int(number in result.winners), game_id, number),
                    )
        return tuple(stored)

    def rewind(
        self,
        game_id: int,
        first: int,
        settings: Mapping[str, str | None] | None = None,
        events: Sequence[Event] = (),
    ) -> None:
        """Drop game ``game_id``'s events from number ``first`` on and append ``events``,
        in one transaction with ``settings`` (None deletes one); a game finished or ended
        by them is being played again. Only a game played with another board is rewound:
        the two boards acted while apart and the other board's order stood, or this board
        takes the other board's record (:mod:`controller.remote.link`)."""
        if first < 1:
            raise ValueError(f"events are numbered from 1, not {first}")
        for key, value in (settings or {}).items():
            _check_setting(key, value)
        with self._write() as conn:
            row = conn.execute("SELECT status FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(self.path, f"game {game_id} is not kept")
            conn.execute("DELETE FROM events WHERE game_id=? AND seq>=?", (game_id, first))
            conn.execute(
                "UPDATE games SET status='playing', finished=NULL, result=NULL WHERE id=?",
                (game_id,),
            )
            conn.execute("UPDATE players SET points=NULL, won=NULL WHERE game_id=?", (game_id,))
            now = self._clock()
            for seq, event in enumerate(events, start=first):
                conn.execute(
                    "INSERT INTO events (game_id, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seq, now, event.kind, _dumps(event.data())),
                )
            for key, value in (settings or {}).items():
                _put_setting(conn, key, value)

    def unfinished(self) -> StoredGame | None:
        """The game being played when the program stopped, if any (the newest)."""
        row = (
            self._read()
            .execute("SELECT id FROM games WHERE status='playing' ORDER BY id DESC LIMIT 1")
            .fetchone()
        )
        return None if row is None else self.game(row["id"])

    def on_the_table(self) -> StoredGame | None:
        """The game the table showed when the program stopped: the newest game, if it is
        being played or over (a finished game stays on the page until a new one starts;
        after an abort the table was empty)."""
        row = self._read().execute("SELECT id, status FROM games ORDER BY id DESC LIMIT 1")
        newest = row.fetchone()
        if newest is None or newest["status"] not in ("playing", "over"):
            return None
        return self.game(newest["id"])

    # -- the games played: History's reads, here too for the Table and the tools ----------------
    def game(self, game_id: int) -> StoredGame | None:
        """One whole game, or None (:meth:`History.game`)."""
        return self.history.game(game_id)

    def games(self, limit: int = 50, offset: int = 0) -> list[GameSummary]:
        """Games, newest first (:meth:`History.games`)."""
        return self.history.games(limit, offset)

    def count_games(self) -> int:
        return self.history.count_games()

    def leaderboard(self, game: str | None = None) -> list[LeaderRow]:
        """Players of finished games by wins, then points (:meth:`History.leaderboard`)."""
        return self.history.leaderboard(game)

    # -- the household's settings (controller.settings gives them meaning) ----------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        """A setting the web page keeps (admin PIN hash, session secret, language…)."""
        _check_key(key)
        row = self._read().execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return default if row is None else str(row["value"])

    def set_setting(self, key: str, value: str | None) -> None:
        """Set (or with None, delete) a setting; durable when this returns."""
        _check_setting(key, value)
        with self._write() as conn:
            _put_setting(conn, key, value)


def _check_setting(key: str, value: str | None) -> None:
    _check_key(key)
    if value is not None:
        if not isinstance(value, str):
            raise ValueError(f"a setting is text, not {type(value).__name__}")
        if len(value.encode()) > MAX_SETTING_BYTES:
            raise ValueError(f"a setting holds at most {MAX_SETTING_BYTES} bytes")


def _put_setting(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Set (or with None, delete) one setting in the open transaction."""
    if value is None:
        conn.execute("DELETE FROM settings WHERE key=?", (key,))
    else:
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (key, value),
        )


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ValueError(f"a setting key is text of 1 to 200 characters, not {key!r}")


__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "GameSummary",
    "LeaderRow",
    "PlayerRecord",
    "Store",
    "StoreError",
    "StoreWriteError",
    "StoredEvent",
    "StoredGame",
    "write_fault",
]
