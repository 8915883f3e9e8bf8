"""A power cut at every moment of two games: only the bytes SQLite had synced survive.

``tests/store/powercut.py`` plays the games through the store under a VFS that records
what each sync made durable, and leaves the files as a power cut after every sync and
after every store call would. Each of those is opened here as the next start would
(the store's own checks, no VFS): it must open undamaged, hold every move whose
``append`` had returned (none lost), and only moves that were played, in order (none
invented). With ``synchronous=NORMAL`` the same cuts lose moves that had been
acknowledged: the checks can fail, and the store's ``FULL`` is what keeps them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.store import Store
from tests.store.powercut import CELLS

ROOT = Path(__file__).resolve().parents[2]
MOVES = (CELLS[:14], CELLS[:9])


def cut_everywhere(out: Path, *extra: str) -> list[dict[str, Any]]:
    elsewhere = out.parent / "cwd"  # the VFS must make no file but the store's own
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "tests.store.powercut", str(out), *extra],
        cwd=elsewhere, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert list(elsewhere.iterdir()) == []
    if "not shared" in done.stderr + done.stdout:
        pytest.skip(f"this Python's sqlite3 cannot take a VFS from ctypes: {done.stderr}")
    assert done.returncode == 0, done.stderr
    assert "powercut:" not in done.stderr, done.stderr
    return [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]


def after_the_cut(folder: Path, scratch: Path) -> tuple[list[list[str]], str | None]:
    """The moves of each game and the language setting, as the next start finds them."""
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(folder, scratch)
    with Store(scratch / "g.sqlite3") as store:  # raises StoreError if damaged
        games = sorted(store.games(limit=10), key=lambda g: g.id)
        moves = []
        for summary in games:
            game = store.game(summary.id)
            assert game is not None
            moves.append([e.data["cell"] for e in game.events if e.kind == "move"])
        return moves, store.get_setting("web.language")


def test_no_acknowledged_move_is_lost_and_none_is_invented(tmp_path: Path) -> None:
    points = cut_everywhere(tmp_path / "run")
    syncs = [p for p in points if p["label"].startswith("sync")]
    assert len(syncs) > sum(len(m) for m in MOVES)  # one per commit (the WAL's), and more
    for point in points:
        moves, language = after_the_cut(tmp_path / "run" / "points" / point["point"],
                                        tmp_path / "open")  # fmt: skip
        acked: list[list[str]] = point["acked"]
        where = f"cut at {point['point']} ({point['label']})"
        # Games: every one whose creation returned is there; perhaps the next one too.
        assert len(acked) <= len(moves) <= len(acked) + 1, where
        for number, stored in enumerate(moves):
            played = MOVES[number]
            assert stored == played[: len(stored)], f"{where}: invented {stored}"
            told = acked[number] if number < len(acked) else []
            assert len(stored) >= len(told), f"{where}: lost {told[len(stored) :]}"
            assert len(stored) <= len(told) + 1, where  # at most the commit being synced
        if "setting" in point:
            assert language == "da", where


def test_with_synchronous_normal_the_same_cuts_lose_acknowledged_moves(tmp_path: Path) -> None:
    points = cut_everywhere(tmp_path / "run", "--synchronous", "NORMAL")
    lost = 0
    for point in points:
        if not point["label"].endswith("stored"):
            continue
        moves, _language = after_the_cut(tmp_path / "run" / "points" / point["point"],
                                         tmp_path / "open")  # fmt: skip
        acked = point["acked"]
        kept = sum(len(m) for m in moves)
        lost += kept < sum(len(a) for a in acked)
    assert lost > 10  # most moves were only in an unsynced WAL: the checks above would fail
