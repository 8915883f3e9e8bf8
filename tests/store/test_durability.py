"""What a power cut can take from the store, tested where it can be from Python.

The guarantee (docs/architecture.md, "What a power cut can lose") rests on three things,
each checked here on real SQLite files:

- every connection the store opens runs in WAL mode with ``synchronous=FULL``, so a
  commit returns only after the WAL frames that hold it were fsynced, and any
  checkpoint syncs the WAL before copying it and the database file after;
- a commit is in the WAL file, as a commit frame, when :meth:`Store.append` returns: a
  second process reads it there;
- SQLite reads a WAL only up to its last valid commit frame (salts and a running
  checksum over every frame), so a WAL cut short or torn by the power cut, at a frame
  boundary or in the middle of one, gives back a prefix of the events, never an
  invented one.

What Python cannot do is drop the page cache: the fsync itself is SQLite's and the
kernel's (``tests/table/test_kill.py`` and ``test_kill_after_answer.py`` kill the
process, which keeps the cache).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from controller.games.perlen.events import BasePearl
from controller.store import PlayerRecord, Store

PLAYERS = [
    PlayerRecord(0, 0, "Anna", "red", "#d62728"),
    PlayerRecord(1, 1, "Ben", "blue", "#1f77b4"),
    PlayerRecord(2, 2, "Cleo", "yellow", "#f2c500"),
]
CELLS = [f"{f}{r}" for r in "12345" for f in "abcde"]
WAL_HEADER = 32
FRAME_HEADER = 24


def test_every_connection_is_wal_with_full_sync(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        seen: list[tuple[str, int]] = []

        def read() -> None:
            store.count_games()  # this thread's own reading connection
            conn = store._read()
            seen.append(
                (
                    conn.execute("PRAGMA journal_mode").fetchone()[0],
                    conn.execute("PRAGMA synchronous").fetchone()[0],
                )
            )

        threads = [threading.Thread(target=read) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        read()
        writer = store._conn
        seen.append(
            (
                writer.execute("PRAGMA journal_mode").fetchone()[0],
                writer.execute("PRAGMA synchronous").fetchone()[0],
            )
        )
        assert len(store._readers) == 4
        assert seen == [("wal", 2)] * 5  # 2 is FULL
    # On reopening (a restart after a crash) the settings are made again, not inherited.
    raw = sqlite3.connect(tmp_path / "g.sqlite3")
    raw.execute("PRAGMA synchronous=OFF")
    raw.close()
    with Store(tmp_path / "g.sqlite3") as store:
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2


@dataclass(frozen=True)
class Frame:
    page: int
    commit: bool
    """The frame ends a transaction (its header holds the database size after it)."""
    end: int
    """Offset in the WAL where the frame ends."""


def frames(wal: bytes) -> list[Frame]:
    """The frames of a WAL that belong to it (its salts), read as SQLite's format says."""
    if len(wal) < WAL_HEADER:
        return []
    magic, _version, page_size, _seq, salt1, salt2 = struct.unpack(">6I", wal[:24])
    assert magic in (0x377F0682, 0x377F0683), hex(magic)
    found = []
    offset = WAL_HEADER
    while offset + FRAME_HEADER + page_size <= len(wal):
        page, size, s1, s2 = struct.unpack(">4I", wal[offset : offset + 16])
        if (s1, s2) != (salt1, salt2):
            break
        offset += FRAME_HEADER + page_size
        found.append(Frame(page, size != 0, offset))
    return found


READER = """
import json, sqlite3, sys, struct
path = sys.argv[1]
wal = open(path + "-wal", "rb").read()
conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
rows = conn.execute("SELECT seq, data FROM events ORDER BY game_id, seq").fetchall()
print(json.dumps({"wal": len(wal), "events": [[s, json.loads(d)] for s, d in rows]}))
"""


def test_a_commit_is_in_the_wal_when_append_returns(tmp_path: Path) -> None:
    """Another process finds each commit frame in the WAL file and the event through it."""
    path = tmp_path / "g.sqlite3"
    with Store(path) as store:
        game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        commits = 0
        for n, cell in enumerate(CELLS[:5], start=1):
            store.append(game, [BasePearl(cell, n % 3)])
            seen = json.loads(
                subprocess.run(
                    [sys.executable, "-c", READER, str(path)],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            assert [d["cell"] for _s, d in seen["events"]] == CELLS[:n]
            wal = (tmp_path / "g.sqlite3-wal").read_bytes()
            written = frames(wal)
            assert written and written[-1].commit  # the transaction ends in the file
            now = sum(f.commit for f in written)
            # One more commit frame per append (the first one after the new game's
            # checkpoint may start the WAL afresh, with new salts).
            assert now == commits + 1 or (n == 1 and now == 1)
            commits = now


def wal_copy(tmp_path: Path, events: int) -> tuple[Path, bytes]:
    """A store whose last ``events`` moves live only in its WAL (as at a power cut before
    the next game's checkpoint): the database file and the WAL as they were then."""
    live = tmp_path / "live"
    with Store(live / "g.sqlite3") as store:
        game = store.create_game("perlen-pyramide", PLAYERS, {}, children_help=False)
        for n in range(events):
            store.append(game, [BasePearl(CELLS[n], n % 3)])
        saved = tmp_path / "saved"
        saved.mkdir()
        shutil.copy(live / "g.sqlite3", saved / "g.sqlite3")
        wal = (live / "g.sqlite3-wal").read_bytes()
    return saved / "g.sqlite3", wal


def stored_cells(db: Path, wal: bytes) -> list[str]:
    """Open a copy of ``db`` with ``wal`` as its WAL, as the next start would."""
    folder = db.parent / "try"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    shutil.copy(db, folder / db.name)
    (folder / (db.name + "-wal")).write_bytes(wal)
    with Store(folder / db.name) as store:
        game = store.unfinished()
        return [] if game is None else [e.data["cell"] for e in game.events]


def test_a_wal_cut_short_anywhere_gives_a_prefix_never_an_invented_event(tmp_path: Path) -> None:
    db, wal = wal_copy(tmp_path, events=12)
    written = frames(wal)
    assert sum(f.commit for f in written) >= 12
    assert stored_cells(db, wal) == CELLS[:12]
    page_size = struct.unpack(">I", wal[8:12])[0]
    older = sum(f.commit for f in written) - 12  # transactions already in the file too
    # Every frame boundary, the middle of every frame (a torn write) and its header.
    cuts = sorted(
        {0, 10, WAL_HEADER}
        | {f.end for f in written}
        | {f.end - page_size // 2 for f in written}
        | {f.end - page_size - FRAME_HEADER + 7 for f in written}
    )
    kept: list[int] = []
    for cut in cuts:
        cells = stored_cells(db, wal[:cut])
        assert cells == CELLS[: len(cells)], f"cut at {cut}: {cells}"
        # Exactly the moves whose commit frame is whole come back.
        whole = sum(f.commit for f in written if f.end <= cut)
        assert len(cells) == max(0, whole - older), (cut, cells)
        kept.append(len(cells))
    assert kept == sorted(kept) and kept[-1] == 12


def test_a_torn_frame_in_the_middle_drops_it_and_everything_after(tmp_path: Path) -> None:
    """A frame whose bytes did not all reach the card: its checksum fails, so SQLite
    stops there, even though later frames are whole."""
    db, wal = wal_copy(tmp_path, events=8)
    written = frames(wal)
    commits = [i for i, f in enumerate(written) if f.commit]
    target = written[commits[-4]]  # the commit frame of the fourth-last move
    damaged = bytearray(wal)
    damaged[target.end - 100] ^= 0xFF  # one byte of its page
    cells = stored_cells(db, bytes(damaged))
    assert cells == CELLS[:4]  # moves 5 to 8 are gone, 1 to 4 kept, nothing else
