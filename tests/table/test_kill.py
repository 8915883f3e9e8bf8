"""Power cuts: a real process playing a scripted game is killed with SIGKILL at random
moments and started again, twelve times over the game, until the game is over.

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
from rigs.scripts import expected_events, physical_after, script_for

ROOT = Path(__file__).resolve().parents[2]


MOMENTS = 12
"""Kills per game: one in each twelfth of the script, at a random step of it."""
PATIENCE = 120.0
"""Wall seconds a loaded machine may take to start the driver or reach a step (a wait
that ends as soon as the line arrives, so this costs nothing)."""


def run_once(
    store: Path, game: str, seed: int, board: set[str], kill: tuple[list[int], float] | None
) -> list[str]:
    """Run the driver. With ``kill = (targets, delay)``: SIGKILL it ``delay`` seconds after
    it says it is about to do the first step of ``targets`` still ahead of it (none ahead:
    it plays to the end). Returns its lines."""
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
    due = threading.Event()
    target: list[int | None] = [None]

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            word, *rest = line.split()
            if word == "RESUMED" and kill is not None:
                ahead = [t for t in kill[0] if t >= int(rest[0])]
                target[0] = ahead[0] if ahead else None
            if word == "DONE" or (word == "SENT" and int(rest[0]) == target[0]):
                due.set()

    reader = threading.Thread(target=read)
    reader.start()
    killed = False
    if kill is not None:
        assert due.wait(PATIENCE), proc.stderr.read() if proc.stderr else ""
        if "DONE" not in lines:
            # Real time on purpose: the driver is another process on the real clock; the
            # kill must land at a random moment of its step (before, inside or after the
            # store's writes), which only real time gives. The step it waits for is the
            # driver's own word, so a loaded machine reaches it too, only later.
            time.sleep(kill[1])
            proc.send_signal(signal.SIGKILL)
            killed = True
    code = proc.wait(PATIENCE)
    reader.join(10)
    err = proc.stderr.read() if proc.stderr else ""
    if not killed or code != -signal.SIGKILL:
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
    # One random step in each twelfth of the script, so that the kills fall all over the
    # game (its start, bonus pearls, the end) whatever the machine's speed.
    share = len(steps) / MOMENTS
    targets = [rng.randint(int(i * share), max(int(i * share), int((i + 1) * share) - 1))
               for i in range(MOMENTS)]  # fmt: skip
    board: set[str] = set()
    acked = 0
    kills = 0
    for _ in range(MOMENTS + 1):
        lines = run_once(store, game, seed, board, kill=(targets, rng.uniform(0.0, 0.02)))
        if "DONE" in lines:
            break
        kills += 1
        for line in lines:
            word, *rest = line.split()
            if word == "RESUMED":  # that kill's target is used: the next run aims further
                targets.remove(next(t for t in targets if t >= int(rest[0])))
            elif word == "SENT":
                board = physical_after(board, steps[int(rest[0])])
            elif word == "ACK":
                acked = max(acked, int(rest[1]))
        events = stored_events(store)
        assert len(events) >= acked, "an event the page had shown was lost"
        assert events == expected[: len(events)], "the store holds an event nobody made"
    else:
        pytest.fail(f"the game did not finish in {MOMENTS + 1} runs")
    assert stored_events(store) == expected
    lines = run_once(store, game, seed, board, kill=None)  # a finished game stays finished
    assert lines == ["DONE"]
    assert stored_events(store) == expected
    assert kills >= 8
