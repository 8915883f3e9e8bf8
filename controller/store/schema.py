"""The game store's file: its schema, its migrations, and how a file is opened or set aside.

:class:`controller.store.Store` opens its writer connection with :func:`open_checked`: an
empty file is made ours (``PRAGMA application_id``) at :data:`SCHEMA_VERSION`; an older
file is migrated through :data:`MIGRATIONS` (``PRAGMA user_version`` counts them); a file
that is not ours or is damaged is renamed aside with a timestamp and never written; a
file written by a newer version is refused and left alone. Every connection runs in WAL
mode with ``synchronous=FULL``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from controller.store.values import StoreError

log = logging.getLogger("controller.store")

APPLICATION_ID: Final = 0x50595244
"""``PRAGMA application_id`` of our files ("PYRD"): tells ours from other SQLite files."""
SCHEMA_VERSION: Final = 2
"""``PRAGMA user_version`` this code writes; older files are migrated, newer refused."""

WAL_SAFETY_PAGES: Final = 20_000
"""Pages (80 MB) after which SQLite checkpoints by itself; games checkpoint far sooner."""

_SCHEMA_1: Final = (
    # As released, version 1 named the games a store could hold in a CHECK on ``game``;
    # migration 2 makes the table again without it, so what version 1 said there no longer
    # matters to a new file, which goes through both.
    """CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL,
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

_SCHEMA_2: Final = (
    # Version 1 named the games a store could hold in a CHECK; the store decides nothing
    # about games (a game's name is whatever the referee gives it), so the table is made
    # again without it, as SQLite's documentation says a table is changed
    # ("Making Other Kinds Of Table Schema Changes": foreign keys off, a new table, the
    # rows copied, the old one dropped, the new one renamed, the keys checked).
    """CREATE TABLE games_2 (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL CHECK (length(game) BETWEEN 1 AND 40),
        options TEXT NOT NULL,
        children_help INTEGER NOT NULL DEFAULT 0,
        started REAL NOT NULL,
        finished REAL,
        status TEXT NOT NULL DEFAULT 'playing'
            CHECK (status IN ('playing', 'over', 'aborted')),
        result TEXT
    )""",
    "INSERT INTO games_2 SELECT id, game, options, children_help, started, finished, status, "
    "result FROM games",
    "DROP TABLE games",
    "ALTER TABLE games_2 RENAME TO games",
    "CREATE INDEX games_by_status ON games (status, id)",
)

MIGRATIONS: Final[Mapping[int, tuple[str, ...]]] = {1: _SCHEMA_1, 2: _SCHEMA_2}
"""Statements that take a file from ``user_version`` n-1 to n, applied in order."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection to ``path`` as the store uses it (autocommit, rows by name)."""
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def open_checked(path: Path, clock: Callable[[], float]) -> sqlite3.Connection:
    """The writer's connection to ``path``: a new file made ours, an older one migrated,
    one that is not ours or damaged set aside (:class:`StoreError`), a newer one refused."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(path, f"cannot create its folder: {exc}") from None
    if path.exists() and not path.is_file():
        raise StoreError(path, "is not a file")
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise StoreError(path, f"cannot be opened: {exc}") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _set_aside(path, clock, f"is not an SQLite database or is damaged ({exc})") from None
    try:
        if app_id == 0 and tables == 0:
            _prepare(conn, path)
            _migrate(conn, path, 0)
        elif app_id != APPLICATION_ID:
            conn.close()
            raise _set_aside(
                path,
                clock,
                f"belongs to another program (SQLite application id {app_id:#x}, "
                f"ours is {APPLICATION_ID:#x})",
            )
        elif version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(
                path,
                f"was written by a newer pyramid-board (schema {version}; this one "
                f"reads up to {SCHEMA_VERSION}); it is left untouched — update the program",
            )
        else:
            problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                conn.close()
                raise _set_aside(path, clock, f"is damaged ({'; '.join(problems[:3])})")
            _prepare(conn, path)
            _migrate(conn, path, version)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _set_aside(path, clock, f"is damaged ({exc})") from None
    return conn


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(path, f"cannot use write-ahead logging (journal mode {mode})")
    # FULL: a commit returns only once the WAL is synced, so nothing shown is ever lost.
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    # The WAL is copied into the file when a game starts (see create_game), not in the
    # middle of a move: a checkpoint syncs the main file too, and moves must be quick.
    # This limit is only the safety net for one endless game.
    conn.execute(f"PRAGMA wal_autocheckpoint={WAL_SAFETY_PAGES}")


def _migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    # Tables are made again with the foreign keys off (they can only be switched outside
    # a transaction); every key is checked before the migration commits.
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[target]:
                    conn.execute(statement)
                broken = conn.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StoreError(path, f"has {len(broken)} rows whose game is missing")
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={target}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            log.info("game store %s: schema version %d", path, target)
    finally:
        conn.execute("PRAGMA foreign_keys=ON")


def _set_aside(path: Path, clock: Callable[[], float], problem: str) -> StoreError:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
    target = path.with_name(f"{path.name}.unusable-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.unusable-{stamp}-{n}")
    try:
        path.rename(target)
    except OSError as exc:
        return StoreError(path, f"{problem}; it could not be set aside ({exc})")
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            try:
                companion.rename(target.with_name(target.name + suffix))
            except OSError:
                log.exception("could not set aside %s", companion)
    log.error("game store %s %s; renamed to %s", path, problem, target)
    return StoreError(path, problem, set_aside=target)
