"""A power cut, modelled below SQLite: what the store's files hold once only synced bytes
survive.

Run as ``python -m tests.store.powercut OUT [--synchronous NORMAL]``: it registers a
SQLite VFS (``ctypes``, over the ``libsqlite3`` this Python's ``sqlite3`` module is
linked to) as the default, plays two games through :class:`controller.store.Store`, and
writes under ``OUT/points/<n>/`` the files as a power cut at that moment would leave
them, with ``OUT/points.jsonl`` saying what had been acknowledged by then.

What the model is: the VFS forwards every call to SQLite's own ``unix`` VFS and watches
two: ``xSync`` (the fsync) and ``xDelete``. A file's durable content is what it held at
its last ``xSync``; a file never synced does not exist; a deletion is durable once its
folder was synced, else it may be undone (the file is back with its durable content).
SQLite syncs the folder itself on deleting with ``syncDir`` and on the first sync of a
journal or WAL it opened (``unixSync``'s ``UNIXFILE_DIRSYNC``), which makes every
earlier deletion in that folder durable too. A power cut is taken after every sync and
after every store call returns. What it does not model: writes that reach the card
without a sync (they only make more survive), a card that lies about its syncs, the
kernel reordering the metadata of files SQLite never syncs (the database file's own
creation), and the ``-shm`` index (never synced, rebuilt from the WAL).

``--synchronous NORMAL`` sets that on the store's connection after it opened: the test
shows that its checks then catch lost moves, so they can fail.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int64, c_void_p
from pathlib import Path
from typing import Any

SQLITE_OK = 0
SQLITE_IOERR = 10
SQLITE_OPEN_CREATE = 0x4
SQLITE_OPEN_JOURNALS = 0x800 | 0x4000 | 0x80000
"""Main journal, super-journal, WAL: opened with ``CREATE``, their first sync syncs the folder."""
CELLS = [f"{f}{r}" for r in "12345" for f in "abcde"]

I64 = c_int64
P = c_void_p
METHOD_TYPES: dict[str, Any] = {
    "xClose": CFUNCTYPE(c_int, P),
    "xRead": CFUNCTYPE(c_int, P, P, c_int, I64),
    "xWrite": CFUNCTYPE(c_int, P, P, c_int, I64),
    "xTruncate": CFUNCTYPE(c_int, P, I64),
    "xSync": CFUNCTYPE(c_int, P, c_int),
    "xFileSize": CFUNCTYPE(c_int, P, POINTER(I64)),
    "xLock": CFUNCTYPE(c_int, P, c_int),
    "xUnlock": CFUNCTYPE(c_int, P, c_int),
    "xCheckReservedLock": CFUNCTYPE(c_int, P, POINTER(c_int)),
    "xFileControl": CFUNCTYPE(c_int, P, c_int, P),
    "xSectorSize": CFUNCTYPE(c_int, P),
    "xDeviceCharacteristics": CFUNCTYPE(c_int, P),
    "xShmMap": CFUNCTYPE(c_int, P, c_int, c_int, c_int, P),
    "xShmLock": CFUNCTYPE(c_int, P, c_int, c_int, c_int),
    "xShmBarrier": CFUNCTYPE(None, P),
    "xShmUnmap": CFUNCTYPE(c_int, P, c_int),
    "xFetch": CFUNCTYPE(c_int, P, I64, c_int, P),
    "xUnfetch": CFUNCTYPE(c_int, P, I64, P),
}


class IoMethods(Structure):
    """``sqlite3_io_methods``, version 3."""

    _fields_ = [("iVersion", c_int), *METHOD_TYPES.items()]


# File names pass as raw pointers: the unix VFS keeps the one xOpen gets (it derives the
# -shm file's name from it later), so it must be SQLite's own buffer, never a copy.
OPEN = CFUNCTYPE(c_int, P, P, P, c_int, POINTER(c_int))
DELETE = CFUNCTYPE(c_int, P, P, c_int)


class Vfs(Structure):
    """``sqlite3_vfs``, version 3 (the methods this module does not wrap as raw pointers)."""

    _fields_ = [
        ("iVersion", c_int),
        ("szOsFile", c_int),
        ("mxPathname", c_int),
        ("pNext", P),
        ("zName", c_char_p),
        ("pAppData", P),
        ("xOpen", OPEN),
        ("xDelete", DELETE),
        *[(name, P) for name in (
            "xAccess", "xFullPathname", "xDlOpen", "xDlError", "xDlSym", "xDlClose",
            "xRandomness", "xSleep", "xCurrentTime", "xGetLastError", "xCurrentTimeInt64",
            "xSetSystemCall", "xGetSystemCall", "xNextSystemCall",
        )],
    ]  # fmt: skip


HEADER = 16
"""Our part of each file: the methods pointer, then 8 bytes; SQLite's file follows."""


class PowerCut:
    """The VFS and its record of what is durable (see the module docstring)."""

    def __init__(self, lib: ctypes.CDLL, on_sync: Callable[[str], None]) -> None:
        lib.sqlite3_vfs_find.restype = P
        lib.sqlite3_vfs_find.argtypes = [c_char_p]
        lib.sqlite3_vfs_register.argtypes = [P, c_int]
        real_address = lib.sqlite3_vfs_find(b"unix")
        assert real_address, "no unix VFS"
        self.real_address = real_address
        self.real = Vfs.from_address(real_address)
        self.durable: dict[str, bytes] = {}
        self.paths: dict[int, str] = {}
        self.dirsync: set[int] = set()
        """Open files whose next sync also syncs their folder."""
        self.deleted: set[str] = set()
        """Deletions whose folder has not been synced since."""
        self.opened = 0
        self.on_sync = on_sync
        self._keep: list[Any] = []
        self.methods = IoMethods()
        self.methods.iVersion = 3
        for name, kind in METHOD_TYPES.items():
            callback = kind(self._forwarder(name))
            self._keep.append(callback)
            setattr(self.methods, name, callback)
        self.vfs = Vfs()
        ctypes.memmove(ctypes.addressof(self.vfs), real_address, ctypes.sizeof(Vfs))
        self._name = b"powercut"
        self.vfs.zName = self._name
        self.vfs.pNext = None
        self.vfs.szOsFile = HEADER + self.real.szOsFile
        self.vfs.xOpen = OPEN(self._open)
        self.vfs.xDelete = DELETE(self._delete)
        lib.sqlite3_vfs_register(ctypes.addressof(self.vfs), 1)  # the default from now on

    @staticmethod
    def inner(file: int) -> int:
        return file + HEADER

    def _real_methods(self, file: int) -> IoMethods:
        address = P.from_address(self.inner(file)).value
        assert address
        return IoMethods.from_address(address)

    def _forwarder(self, name: str) -> Any:
        def forward(file: int, *args: Any) -> Any:
            try:
                methods = self._real_methods(file)
                result = getattr(methods, name)(self.inner(file), *args)
                if name == "xSync" and result == SQLITE_OK:
                    path = self.paths.get(file)
                    if path is not None:
                        self.durable[path] = Path(path).read_bytes()
                        self.deleted.discard(path)
                        if file in self.dirsync:
                            self.dirsync.discard(file)
                            self._folder_synced(Path(path).parent)
                        self.on_sync(path)
                if name == "xClose":
                    self.paths.pop(file, None)
                    self.dirsync.discard(file)
                return result
            except Exception as exc:  # never let an exception cross into SQLite
                print(f"powercut: {name}: {exc!r}", file=sys.stderr)
                return None if name == "xShmBarrier" else SQLITE_IOERR

        return forward

    def _open(self, vfs: int, name: int | None, file: int, flags: int, out: Any) -> int:
        try:
            P.from_address(file).value = None
            result: int = self.real.xOpen(self.real_address, name, self.inner(file), flags, out)
            if result == SQLITE_OK and P.from_address(self.inner(file)).value:
                P.from_address(file).value = ctypes.addressof(self.methods)
                if name:
                    self.paths[file] = os.fsdecode(ctypes.string_at(name))
                    self.opened += 1
                    if flags & SQLITE_OPEN_CREATE and flags & SQLITE_OPEN_JOURNALS:
                        self.dirsync.add(file)
            return result
        except Exception as exc:
            print(f"powercut: xOpen: {exc!r}", file=sys.stderr)
            return SQLITE_IOERR

    def _delete(self, vfs: int, name: int, sync_dir: int) -> int:
        result: int = self.real.xDelete(self.real_address, name, sync_dir)
        if result == SQLITE_OK:
            path = os.fsdecode(ctypes.string_at(name))
            self.deleted.add(path)  # until its folder is synced, it may come back
            if sync_dir:
                self._folder_synced(Path(path).parent)
        return result

    def _folder_synced(self, folder: Path) -> None:
        for path in [p for p in self.deleted if Path(p).parent == folder]:
            self.deleted.discard(path)
            self.durable.pop(path, None)


def _library() -> ctypes.CDLL:
    """The libsqlite3 the ``sqlite3`` module uses (already loaded: the same instance)."""
    name = ctypes.util.find_library("sqlite3") or "libsqlite3.so.0"
    lib = ctypes.CDLL(name)
    lib.sqlite3_libversion.restype = c_char_p
    version = lib.sqlite3_libversion().decode()
    if version != sqlite3.sqlite_version:
        raise SystemExit(f"not shared: {name} is {version}, sqlite3 uses {sqlite3.sqlite_version}")
    return lib


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--synchronous", default=None)
    args = parser.parse_args(argv)
    out: Path = args.out
    live = out / "live"
    live.mkdir(parents=True)
    points = out / "points"
    points.mkdir()
    log = (out / "points.jsonl").open("w")
    state: dict[str, Any] = {"acked": [], "games": 0}
    count = [0]

    def cut(label: str) -> None:
        """Write the files as a power cut now would leave them."""
        count[0] += 1
        folder = points / f"{count[0]:04d}"
        folder.mkdir()
        for path, data in vfs.durable.items():
            if Path(path).parent == live:
                (folder / Path(path).name).write_bytes(data)
        log.write(json.dumps({"point": folder.name, "label": label, **state}) + "\n")

    vfs = PowerCut(_library(), lambda path: cut(f"sync {Path(path).name}"))

    from controller.games.perlen.events import BasePearl
    from controller.referee.events import Result
    from controller.store import PlayerRecord, Store

    players = [PlayerRecord(n, n, name, colour, "#000000") for n, (name, colour) in
               enumerate((("Anna", "red"), ("Ben", "blue"), ("Cleo", "yellow")))]  # fmt: skip
    store = Store(live / "g.sqlite3")
    if vfs.opened == 0:
        raise SystemExit("not shared: the sqlite3 module did not open its file through the VFS")
    if args.synchronous:
        store._conn.execute(f"PRAGMA synchronous={args.synchronous}")
    cut("opened")
    acked: list[list[str]] = state["acked"]
    for game_number, moves in ((1, CELLS[:14]), (2, CELLS[:9])):
        game = store.create_game("perlen-pyramide", players, {}, children_help=False)
        acked.append([])
        state["games"] = game_number
        cut(f"game {game_number} created")
        for n, cell in enumerate(moves):
            result = Result((1, 0, 0), (0,), {}) if n == len(moves) - 1 else None
            store.append(game, [BasePearl(cell, n % 3)], result=result)
            acked[-1].append(cell)
            cut(f"game {game_number} move {cell} stored")
    store.set_setting("web.language", "da")
    state["setting"] = "da"
    cut("setting stored")
    store.close()
    cut("closed")
    log.close()
    shutil.rmtree(live)
    print(count[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
