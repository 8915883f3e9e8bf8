"""A scripted game in a process of its own, for the SIGKILL test (``test_kill.py``).

    python -m tests.table.driver --store FILE --game perlen-pyramide --seed 3 --board c3,d4

Starts a Table on a SimBoard whose sensors read ``--board`` (what physically lies on the
board), resumes the unfinished game from the store or starts one, makes the board match
the stored game as a family would after a power cut, then plays the rest of the script.
The Table runs on real time here (short holds), as ``pyramid run`` does.
It prints, flushed, one line per fact the test needs:

- ``RESUMED k``: k steps of the script are in the store; play goes on from step k;
- ``SENT i``: a person is about to do step i on the board (or the page);
- ``ACK i n``: the page shows step i done; the store holds n events;
- ``DONE``: the game is over (in the store).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from controller.games.perlen.snapshot import parts_of as perlen_parts
from controller.games.pyramidos.snapshot import parts_of as pyramidos_parts
from controller.referee.commands import NewGame
from rigs.scripts import NAMES, expected_events, play, script_for
from rigs.table import Harness, fast_rules


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True, type=Path)
    parser.add_argument("--game", required=True, choices=sorted(NAMES))
    parser.add_argument("--seed", required=True, type=int)
    parser.add_argument("--board", default="")
    parser.add_argument("--pace", type=float, default=0.0, help="seconds between steps")
    args = parser.parse_args(argv)
    steps = script_for(args.game, args.seed)
    per_step = expected_events(args.game, steps)
    done_after = [0]
    for events in per_step:
        done_after.append(done_after[-1] + len(events))

    settings = fast_rules()
    h = Harness(args.store, settings, clock=settings.clock)
    h.board.set_active(h.cmap.channel(n) for n in args.board.split(",") if n)
    latest = h.store.games(limit=1)
    if latest and latest[0].status == "over":
        say("DONE")
        return 0
    h.start()
    if h.snap.game_id is None:
        reply = h.do(NewGame(args.game, NAMES[args.game]))
        assert reply.ok, reply.message
    stored = h.store.game(h.snap.game_id or 0)
    assert stored is not None
    k = done_after.index(len(stored.events))  # ValueError: the store holds a torn step
    # After the power cut: make the board match the stored game, as the LEDs ask.
    snap = h.snap
    if args.game == "perlen-pyramide":
        want = {q.pos.split(":")[1] for q in perlen_parts(snap).pearls if q.pos.startswith("1:")}
    else:
        want = {t for t, owner in pyramidos_parts(snap).targets.items() if owner is not None}
    h.set_names(want)
    h.wait(lambda s: s.status != "mismatch")
    say(f"RESUMED {k}")
    for i in range(k, len(steps)):
        # Real time on purpose: this process is killed by SIGKILL at a random wall-clock
        # moment (test_kill.py), and the pause is what lets that moment fall between, or
        # inside, the store's writes; a virtual clock cannot be killed mid-write.
        time.sleep(args.pace)
        say(f"SENT {i}")
        play(h, steps[i])
        say(f"ACK {i} {done_after[i + 1]}")
    h.wait(lambda s: s.status == "over")
    h.stop()
    say("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
