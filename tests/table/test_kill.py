"""Power cuts: a real process playing a scripted game is killed with SIGKILL at random
moments and started again, many times, until the game is over.

After every kill the store must hold every event the page had shown (none lost) and only
events the players made, in their order (none invented); after the restart the game goes
on from there, once the board has been made to match the stored game.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.store import Store
from tests.support.scripts import expected_events, physical_after, script_for

ROOT = Path(__file__).resolve().parents[2]


def run_once(
    store: Path, game: str, seed: int, board: set[str], kill_after: float | None
) -> list[str]:
    """Run the driver; SIGKILL it ``kill_after`` seconds after it resumed. Returns its lines."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.table.driver", "--store", str(store), "--game", game,
         "--seed", str(seed), "--board", ",".join(sorted(board)), "--pace", "0.01"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    lines: list[str] = []
    resumed = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith(("RESUMED", "DONE")):
                resumed.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert resumed.wait(30), proc.stderr.read() if proc.stderr else ""
    if kill_after is not None:
        # Real time on purpose: the driver is another process on the real clock; the
        # kill must land at a random moment of its own run, which only real time gives.
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    code = proc.wait(60)
    reader.join(10)
    err = proc.stderr.read() if proc.stderr else ""
    if kill_after is None or code != -signal.SIGKILL:
        assert code == 0, err
    return lines


def stored_events(store: Path) -> list[tuple[str, dict[str, Any]]]:
    with Store(store) as s:
        latest = s.games(limit=1)
        if not latest:
            return []
        game = s.game(latest[0].id)
        assert game is not None
        return [(e.kind, dict(e.data)) for e in game.events]


@pytest.mark.parametrize(("game", "seed"), [("perlen-pyramide", 7), ("perlen-pyramide", 8),
                                            ("pyramidos", 4)])  # fmt: skip
def test_sigkill_at_random_moments_loses_and_invents_nothing(
    tmp_path: Path, game: str, seed: int
) -> None:
    rng = random.Random(seed)
    store = tmp_path / "games.sqlite3"
    steps = script_for(game, seed)
    expected = [e for step in expected_events(game, steps) for e in step]
    board: set[str] = set()
    acked = 0
    kills = 0
    for _ in range(60):
        lines = run_once(store, game, seed, board, kill_after=rng.uniform(0.0, 0.15))
        if "DONE" in lines:
            break
        kills += 1
        for line in lines:
            word, *rest = line.split()
            if word == "SENT":
                board = physical_after(board, steps[int(rest[0])])
            elif word == "ACK":
                acked = max(acked, int(rest[1]))
        events = stored_events(store)
        assert len(events) >= acked, "an event the page had shown was lost"
        assert events == expected[: len(events)], "the store holds an event nobody made"
    else:
        pytest.fail("the game did not finish in 60 runs")
    lines = run_once(store, game, seed, board, kill_after=None)
    assert lines[-1] == "DONE"
    assert stored_events(store) == expected
    assert kills >= 8
