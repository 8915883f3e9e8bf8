"""A long evening: thousands of whole games, and what stays bounded while they are played.

    .venv/bin/python bench/soak.py [--pure 2000] [--table 200] [--samples 10]

1. **The referee alone** (``--pure`` games), in virtual time as rigs/referee.py's
   ``Play`` drives it: one referee plays game after game (three Perlen-Pyramide games,
   then a Pyramidos game, each a random whole game of rigs/scripts.py, the board
   cleared between them). Measured: Python's heap (``tracemalloc``, after a collection)
   and the size of the referee's state (pickled). Its ledger keeps only the game being
   played: the history is the store's, measured in part 2.
2. **The product** (``--table`` games): the real Table on its thread over a SimBoard, the
   SQLite store on disk, and the Flask app with one live page open on ``/events`` (the
   live hub, every region rendered for every change, as a phone gets it), the history and
   the state read once per game; the Table's clock is virtual (rigs/table.py),
   so holds cost no waiting. Measured: the process's resident memory, the memory blocks
   Python's allocator holds (``sys.getallocatedblocks``: objects and their buffers), open
   file descriptors, threads, the WAL file and the database file.

   Not ``len(gc.get_objects())``: that list holds, for a moment, every object the
   collector tracks, and among them can be a tuple another thread is still building from
   an iterator; CPython then fails that thread's ``tuple(...)`` with "SystemError: bad
   argument to internal function" (the live page's stream died so in a loaded run).

Each part prints a line per sample and the growth from its first sample after warm-up to
its last. tests/table/test_soak.py runs a short soak and asserts only that these stay
bounded (no timing). Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import platform
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.referee.commands import NewGame  # noqa: E402
from controller.store import PlayerRecord  # noqa: E402
from rigs.referee import Memory, Play  # noqa: E402
from rigs.scripts import NAMES, play, script_for  # noqa: E402
from rigs.table import Harness  # noqa: E402


def game_of(n: int) -> str:
    """Three Perlen-Pyramide games, then a Pyramidos game."""
    return "pyramidos" if n % 4 == 3 else "perlen-pyramide"


class OneGameLedger(Memory):
    """The test ledger, keeping only the game being played (every game is number 1)."""

    def create_game(
        self,
        game: str,
        players: Sequence[PlayerRecord],
        options: dict[str, str | int],
        *,
        children_help: bool,
    ) -> int:
        self.games.clear()  # the earlier games are the store's business, not the referee's
        return super().create_game(game, players, options, children_help=children_help)


@dataclass(frozen=True)
class Sample:
    games: int
    values: dict[str, float]


def _sampled(count: int, samples: int) -> set[int]:
    """Game numbers after which to sample: evenly spread, the last included."""
    step = max(1, count // max(1, samples))
    return {n for n in range(step, count + 1, step)} | {count}


def pure(count: int, samples: int = 10, seed: int = 0) -> list[Sample]:
    """``count`` whole games through one referee; a sample after every ``count/samples``."""
    p = Play()
    p.ledger = OneGameLedger()
    when = _sampled(count, samples)
    out: list[Sample] = []
    tracemalloc.start()
    try:
        for n in range(1, count + 1):
            game = game_of(n)
            p.set(frozenset())  # the pieces of the last game put away
            p.new(game, NAMES[game])
            for step in script_for(game, seed + n):
                play(p, step)
            assert p.snap.status == "over", p.snap.to_json()
            p.asked.clear()
            p.sounds.clear()
            if n in when:
                gc.collect()
                heap, _peak = tracemalloc.get_traced_memory()
                state = len(pickle.dumps(p.state))
                out.append(Sample(n, {"heap_kib": heap / 1024, "state_bytes": state}))
    finally:
        tracemalloc.stop()
    return out


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_kib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1])
    return 0.0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def table(count: int, samples: int = 10, seed: int = 0, folder: Path | None = None) -> list[Sample]:
    """``count`` whole games through the Table, the store and a live page."""
    # The page and Flask, imported only for this part (the referee's part runs without).
    from controller.settings import Settings
    from pyramid_board.games import views
    from web_ui.app import WebSettings, close_app, create_app

    with tempfile.TemporaryDirectory() as scratch:
        path = (folder or Path(scratch)) / "games.sqlite3"
        h = Harness(path).start()
        Settings(h.store).set_pin("2468")  # not a new one to log
        app = create_app(table=h.table, testing=True, web=WebSettings(), views=views())
        events = [0]
        viewer = threading.Thread(target=_watch, args=(app, events), daemon=True)
        viewer.start()
        page = app.test_client()
        when = _sampled(count, samples)
        out: list[Sample] = []
        try:
            for n in range(1, count + 1):
                game = game_of(n)
                h.set_names(())
                assert h.do(NewGame(game, NAMES[game])).ok
                for step in script_for(game, seed + n):
                    play(h, step)
                assert h.snap.status == "over", h.snap.to_json()
                assert page.get("/api/state").status_code == 200
                assert page.get("/history").status_code == 200
                if n in when:
                    gc.collect()
                    values = {
                        "rss_kib": _rss_kib(),
                        "fds": _fds(),
                        "threads": threading.active_count(),
                        "wal_kib": _size(path.with_name(path.name + "-wal")) / 1024,
                        "db_kib": _size(path) / 1024,
                        "blocks": sys.getallocatedblocks(),
                        "stream_events": events[0],
                    }
                    out.append(Sample(n, values))
        finally:
            close_app(app)  # ends the stream
            viewer.join(5)
            h.stop()
            h.board.close()
        return out


def _watch(app: Any, events: list[int]) -> None:
    """One live page: read the stream as a browser does, counting its events."""
    client = app.test_client()
    response = client.get("/events?view=live")
    for chunk in response.response:
        events[0] += chunk.count(b"event: snapshot")
    response.close()


def growth(samples: list[Sample], key: str, warm: int = 1) -> float:
    """The change of ``key`` from the sample after warm-up to the last one."""
    return samples[-1].values[key] - samples[min(warm, len(samples) - 1)].values[key]


def show(title: str, samples: list[Sample], keys: list[str], seconds: float) -> None:
    print(f"\n{title}: {samples[-1].games} games in {seconds:.1f} s")
    print("  games  " + "  ".join(f"{k:>13}" for k in keys))
    for s in samples:
        print(f"  {s.games:5d}  " + "  ".join(f"{s.values[k]:13.1f}" for k in keys))
    print("  growth after the first sample: " + ", ".join(
        f"{k} {growth(samples, k, warm=0):+.1f}" for k in keys))  # fmt: skip


def timed(run: Callable[[], list[Sample]]) -> tuple[list[Sample], float]:
    started = time.perf_counter()
    samples = run()
    return samples, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pure", type=int, default=2000, help="games through the referee")
    parser.add_argument("--table", type=int, default=200, help="games through the product")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    if args.pure:
        samples, seconds = timed(lambda: pure(args.pure, args.samples, args.seed))
        show("the referee alone", samples, ["heap_kib", "state_bytes"], seconds)
    if args.table:
        samples, seconds = timed(lambda: table(args.table, args.samples, args.seed))
        keys = ["rss_kib", "blocks", "fds", "threads", "wal_kib", "db_kib", "stream_events"]
        show("Table + store + live page", samples, keys, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
