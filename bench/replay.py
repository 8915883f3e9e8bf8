"""How long reading stored games back takes: the store's rows to events, and the fold.

    .venv/bin/python bench/replay.py [--copies 100] [--rounds 5]

Copies the four games of release 0.1.0's file (``tests/fixtures/store-0.1.0.sqlite3``: a
finished Perlen-Pyramide game of 57 events, a Pyramidos game of 24, an aborted game and an
unfinished one, every event kind) ``--copies`` times into a new SQLite store on disk, then
reads every game back as the history does (:func:`controller.referee.fold.kept_record`:
the store's rows, each event read back through its game's schema, folded onto a new game,
its record made) and, apart, only the events read back
(:func:`controller.referee.fold.from_stored`, the part the schema does). Prints the best
of ``--rounds`` for each: the time per game and per event, in CPU seconds of this
process (the work is single-threaded; on a machine shared with other work, wall time
would measure the others too).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.referee.fold import from_stored, kept_record  # noqa: E402
from controller.store import Store, StoredGame  # noqa: E402
from pyramid_board.games import games as product_games  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "store-0.1.0.sqlite3"


def fill(store: Store, copies: int, folder: Path) -> None:
    """``copies`` copies of the fixture's games, as their own games in ``store``."""
    games = product_games()
    old = Store(shutil.copyfile(FIXTURE, folder / "0.1.0.sqlite3"))  # opening it migrates it
    try:
        kept = [g for g in (old.game(s.id) for s in old.games()) if g is not None]
    finally:
        old.close()
    for _ in range(copies):
        for game in kept:
            kind = games[game.game]
            number = store.create_game(
                game.game, game.players, game.options, children_help=game.children_help
            )
            store.append(number, [from_stored(kind, e.kind, e.data) for e in game.events])


def best(rounds: int, work: object) -> float:
    assert callable(work)
    times = []
    for _ in range(rounds):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    games = product_games()
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as folder:
        store = Store(Path(folder) / "games.sqlite3")
        try:
            fill(store, args.copies, Path(folder))
            numbers = [s.id for s in store.games(limit=1000)]
            while len(numbers) < store.count_games():
                numbers += [s.id for s in store.games(limit=1000, offset=len(numbers))]
            kept: list[StoredGame] = [g for g in map(store.game, numbers) if g is not None]
            events = sum(len(g.events) for g in kept)

            def read_events() -> None:
                for game in kept:
                    kind = games[game.game]
                    for e in game.events:
                        from_stored(kind, e.kind, e.data)

            def replay() -> None:
                for game in kept:
                    kept_record(games, game)

            read_events()  # the first read builds each game's schema: not counted
            read = best(args.rounds, read_events)
            whole = best(args.rounds, replay)
        finally:
            store.close()
    print(f"{len(kept)} games, {events} events (best of {args.rounds}, CPU time)")
    print(f"events read back: {read * 1e3:.1f} ms, {read / events * 1e6:.2f} µs an event")
    print(
        f"whole replay (read back, fold, record): {whole * 1e3:.1f} ms, "
        f"{whole / len(kept) * 1e3:.3f} ms a game, {whole / events * 1e6:.2f} µs an event"
    )


if __name__ == "__main__":
    main()
