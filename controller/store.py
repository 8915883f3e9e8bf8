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
>>> from controller.referee.events import BasePearl
>>> [e.seq for e in store.append(game_id, [BasePearl("c3", 0)])]
[1]
>>> store.unfinished().events[0].data
{'cell': 'c3', 'colour': 0}
>>> store.game(game_id).record["moves"]
['c3']
>>> store.close()

A file that is not one of ours (another program's database, a damaged one, a text file)
is never written to: it is renamed aside with a timestamp and :class:`StoreError` says so;
opening the path again then starts an empty store.

Schema changes go through :data:`MIGRATIONS` (``PRAGMA user_version`` counts them); a
file written by a newer version is refused and left alone.

One class owns one file, its one writer connection and its lock, from opening and
setting aside to the last query; the values it returns live in
:mod:`controller.store_values`. It is a ledger: it keeps games, their events and settings
as it is told, and decides nothing about a game (the referee ends one, with an ``abort``
event, before it starts the next).
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

from controller.referee.events import (
    Aborted,
    Event,
    EventError,
    Result,
    record_of,
)
from controller.rules import perlen, pyramidos
from controller.rules.records import (
    PERLEN,
    PYRAMIDOS,
    record_to_dict,
)
from controller.store_values import (
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

APPLICATION_ID: Final = 0x50595244
"""``PRAGMA application_id`` of our files ("PYRD"): tells ours from other SQLite files."""
SCHEMA_VERSION: Final = 1
"""``PRAGMA user_version`` this code writes; older files are migrated, newer refused."""

GAMES: Final = (PERLEN, PYRAMIDOS)
STATUSES: Final = ("playing", "over", "aborted")
MAX_SETTING_BYTES: Final = 64 * 1024
WAL_SAFETY_PAGES: Final = 20_000
"""Pages (80 MB) after which SQLite checkpoints by itself; games checkpoint far sooner."""

_SCHEMA_1: Final = (
    """CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL CHECK (game IN ('perlen-pyramide', 'pyramidos')),
        options TEXT NOT NULL,
        children_help INTEGER NOT NULL DEFAULT 0,
        started REAL NOT NULL,
        finished REAL,
        status TEXT NOT NULL DEFAULT 'playing'
            CHECK (status IN ('playing', 'over', 'aborted')),
        result TEXT
    )""",
    "CREATE INDEX games_by_status ON games (status, id)",
    """CREATE TABLE players (
        game_id INTEGER NOT NULL REFERENCES games (id),
        number INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        colour TEXT NOT NULL,
        hex TEXT NOT NULL,
        computer TEXT,
        points INTEGER,
        won INTEGER,
        PRIMARY KEY (game_id, number)
    )""",
    "CREATE INDEX players_by_name ON players (name)",
    """CREATE TABLE events (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seq INTEGER NOT NULL,
        at REAL NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)

MIGRATIONS: Final[Mapping[int, tuple[str, ...]]] = {1: _SCHEMA_1}
"""Statements that take a file from ``user_version`` n-1 to n, applied in order."""


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
        self._conn = self._open_checked()

    # -- opening ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        return conn

    def _open_checked(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(self.path, f"cannot create its folder: {exc}") from None
        if self.path.exists() and not self.path.is_file():
            raise StoreError(self.path, "is not a file")
        try:
            conn = self._connect()
        except sqlite3.Error as exc:
            raise StoreError(self.path, f"cannot be opened: {exc}") from None
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise self._set_aside(f"is not an SQLite database or is damaged ({exc})") from None
        try:
            if app_id == 0 and tables == 0:
                self._prepare(conn)
                self._migrate(conn, 0)
            elif app_id != APPLICATION_ID:
                conn.close()
                raise self._set_aside(
                    f"belongs to another program (SQLite application id {app_id:#x}, "
                    f"ours is {APPLICATION_ID:#x})"
                )
            elif version > SCHEMA_VERSION:
                conn.close()
                raise StoreError(
                    self.path,
                    f"was written by a newer pyramid-board (schema {version}; this one "
                    f"reads up to {SCHEMA_VERSION}); it is left untouched — update the program",
                )
            else:
                problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    conn.close()
                    raise self._set_aside(f"is damaged ({'; '.join(problems[:3])})")
                self._prepare(conn)
                self._migrate(conn, version)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise self._set_aside(f"is damaged ({exc})") from None
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(self.path, f"cannot use write-ahead logging (journal mode {mode})")
        # FULL: a commit returns only once the WAL is synced, so nothing shown is ever lost.
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        # The WAL is copied into the file when a game starts (see create_game), not in the
        # middle of a move: a checkpoint syncs the main file too, and moves must be quick.
        # This limit is only the safety net for one endless game.
        conn.execute(f"PRAGMA wal_autocheckpoint={WAL_SAFETY_PAGES}")

    def _migrate(self, conn: sqlite3.Connection, version: int) -> None:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[target]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={target}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            log.info("game store %s: schema version %d", self.path, target)

    def _set_aside(self, problem: str) -> StoreError:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self._clock()))
        target = self.path.with_name(f"{self.path.name}.unusable-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.unusable-{stamp}-{n}")
        try:
            self.path.rename(target)
        except OSError as exc:
            return StoreError(self.path, f"{problem}; it could not be set aside ({exc})")
        for suffix in ("-wal", "-shm"):
            companion = self.path.with_name(self.path.name + suffix)
            if companion.exists():
                try:
                    companion.rename(target.with_name(target.name + suffix))
                except OSError:
                    log.exception("could not set aside %s", companion)
        log.error("game store %s %s; renamed to %s", self.path, problem, target)
        return StoreError(self.path, problem, set_aside=target)

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
            conn = self._connect()
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
        if game not in GAMES:
            raise ValueError(f"game must be one of {GAMES}, not {game!r}")
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

    # -- the web page's side ------------------------------------------------------------------
    def games(self, limit: int = 50, offset: int = 0) -> list[GameSummary]:
        """Games, newest first."""
        limit = _bounded(limit, "limit", 1, 1000)
        offset = _bounded(offset, "offset", 0, 1 << 40)
        conn = self._read()
        rows = conn.execute(
            "SELECT g.*, (SELECT count(*) FROM events e WHERE e.game_id=g.id) AS n "
            "FROM games g ORDER BY g.id DESC LIMIT ? OFFSET ?",
            (limit, offset),
        ).fetchall()
        return [_summary(conn, row) for row in rows]

    def count_games(self) -> int:
        return int(self._read().execute("SELECT count(*) FROM games").fetchone()[0])

    def game(self, game_id: int) -> StoredGame | None:
        """One whole game, or None when there is no game ``game_id``."""
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise ValueError(f"a game id is a whole number, not {game_id!r}")
        conn = self._read()
        row = conn.execute(
            "SELECT g.*, (SELECT count(*) FROM events e WHERE e.game_id=g.id) AS n "
            "FROM games g WHERE g.id=?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        summary = _summary(conn, row)
        events = tuple(
            StoredEvent(e["seq"], e["at"], e["kind"], json.loads(e["data"]))
            for e in conn.execute(
                "SELECT seq, at, kind, data FROM events WHERE game_id=? ORDER BY seq", (game_id,)
            )
        )
        options = json.loads(row["options"])
        return StoredGame(
            summary=summary,
            options=options,
            children_help=bool(row["children_help"]),
            events=events,
            result=None if row["result"] is None else json.loads(row["result"]),
            record=_record(summary, options, events),
        )

    def leaderboard(self, game: str | None = None) -> list[LeaderRow]:
        """Players of finished games by wins, then points (``game`` limits to one kind):
        the people first, then the computers. Unnamed computer seats count together by
        level (also those that older releases stored as ``Computer (strong)``); unnamed
        people are nobody in particular and are left out."""
        if game is not None and game not in GAMES:
            raise ValueError(f"game must be one of {GAMES} or None, not {game!r}")
        unnamed = (
            "(p.computer IS NOT NULL AND (p.name = '' OR p.name = 'Computer (' || p.computer"
            " || ')' OR p.name GLOB 'Computer [0-9] (' || p.computer || ')'))"
        )
        sql = (
            f"SELECT CASE WHEN {unnamed} THEN '' ELSE p.name END AS shown, "
            f"CASE WHEN {unnamed} THEN p.computer END AS level, "
            "p.computer IS NOT NULL AS computer, count(*) AS games, "
            "sum(p.won) AS wins, sum(p.points) AS points FROM players p "
            "JOIN games g ON g.id = p.game_id WHERE g.status = 'over' "
            "AND NOT (p.computer IS NULL AND p.name = '')"
            + (" AND g.game = ?" if game else "")
            + " GROUP BY shown, level, p.computer IS NOT NULL "
            "ORDER BY computer, wins DESC, points DESC, shown, level"
        )
        rows = self._read().execute(sql, (game,) if game else ()).fetchall()
        return [
            LeaderRow(
                r["shown"],
                r["games"],
                r["wins"] or 0,
                r["points"] or 0,
                bool(r["computer"]),
                r["level"],
            )
            for r in rows
        ]

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        """A setting the web page keeps (admin PIN hash, session secret, language…)."""
        _check_key(key)
        row = self._read().execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return default if row is None else str(row["value"])

    def set_setting(self, key: str, value: str | None) -> None:
        """Set (or with None, delete) a setting; durable when this returns."""
        _check_key(key)
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"a setting is text, not {type(value).__name__}")
            if len(value.encode()) > MAX_SETTING_BYTES:
                raise ValueError(f"a setting holds at most {MAX_SETTING_BYTES} bytes")
        with self._write() as conn:
            if value is None:
                conn.execute("DELETE FROM settings WHERE key=?", (key,))
            else:
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value=excluded.value",
                    (key, value),
                )


# -- rows to values -------------------------------------------------------------------------


def _summary(conn: sqlite3.Connection, row: sqlite3.Row) -> GameSummary:
    """A games row (with its event count ``n``) and its players, as a value."""
    players = tuple(
        PlayerRecord(
            p["number"],
            p["seat"],
            p["name"],
            p["colour"],
            p["hex"],
            p["computer"],
            p["points"],
            None if p["won"] is None else bool(p["won"]),
        )
        for p in conn.execute("SELECT * FROM players WHERE game_id=? ORDER BY number", (row["id"],))
    )
    winners = tuple(p.name for p in players if p.won)
    return GameSummary(
        id=row["id"],
        game=row["game"],
        status=row["status"],
        started=row["started"],
        finished=row["finished"],
        players=players,
        winners=winners,
        events=row["n"],
    )


def _bounded(value: int, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ValueError(f"a setting key is text of 1 to 200 characters, not {key!r}")


def _record(
    summary: GameSummary, options: Mapping[str, Any], events: Sequence[StoredEvent]
) -> dict[str, Any]:
    """The game record of the moves that stand: the stored events folded onto the game."""
    names = tuple(p.name for p in summary.players)
    try:
        return record_to_dict(record_of(summary.game, names, options, events))
    except (perlen.OptionError, pyramidos.SetupError, EventError) as exc:
        # Options or events this version cannot read: keep the game visible, without a record.
        log.warning("game %d: no record (%s)", summary.id, exc)
        return {}


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
