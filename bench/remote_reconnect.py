"""How soon two boards are linked again after the broker was away.

    .venv/bin/python bench/remote_reconnect.py [--outage 17] [--runs 3]

Two :class:`~controller.remote.mqtt.RemoteLink`s in this process and a Mosquitto on a
free loopback port started for the run (rigs/mosquitto.py, no persistence). Each
run stops the broker, waits until both links say unreachable, makes a move at Oma's board
(kept, "not yet delivered"), keeps the broker away for ``--outage`` seconds and starts
it again. Printed per run: from the broker listening again until both links are
connected, and until Tim's board has acknowledged the move (Oma's "not yet delivered"
gone); then the median and the worst.

Needs ``mosquitto`` (apt-get install mosquitto).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.remote_latency import CODE, Board  # noqa: E402
from controller.config import RemoteConfig  # noqa: E402
from controller.remote.link import Connection  # noqa: E402
from controller.remote.mqtt import RemoteLink  # noqa: E402
from controller.remote.wire import Side, derive_keys  # noqa: E402
from rigs.mosquitto import Mosquitto  # noqa: E402

TIMEOUT = 30.0


def wait_on(remote: RemoteLink, probe: Callable[[], bool], what: str) -> None:
    with remote.changed:
        if not remote.changed.wait_for(probe, TIMEOUT):
            raise SystemExit(f"timed out: {what}")


def unreachable(board: Board) -> bool:
    return board.remote.report().connection is Connection.UNREACHABLE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage", type=float, default=17.0, help="seconds the broker is away")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    keys = derive_keys(CODE)
    with tempfile.TemporaryDirectory() as folder, Mosquitto(Path(folder)) as broker:

        def config(name: str) -> RemoteConfig:
            return RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name=name)

        oma = Board(config("Oma"), Side.INVITER, keys)
        tim = Board(config("Tim"), Side.JOINER, keys)
        boards = (oma, tim)
        connected, delivered = [], []
        try:
            for board in boards:
                wait_on(board.remote, board.connected, "both connect")
            for run in range(1, args.runs + 1):
                broker.stop()
                for board in boards:
                    wait_on(board.remote, partial(unreachable, board), "unreachable")
                oma.make(run)
                threading.Event().wait(args.outage)  # the outage itself
                broker.start()
                start = time.monotonic()
                for board in boards:
                    wait_on(board.remote, board.connected, "connected again")
                connected.append(time.monotonic() - start)
                wait_on(oma.remote, lambda: oma.remote.report().unsent == 0, "delivered")
                delivered.append(time.monotonic() - start)
                print(
                    f"run {run}: broker away {args.outage:.0f} s; both connected "
                    f"{connected[-1]:.3f} s after it was back, the move kept meanwhile "
                    f"acknowledged after {delivered[-1]:.3f} s",
                    flush=True,
                )
        finally:
            for board in boards:
                board.remote.close()
    print(
        f"connected again: median {statistics.median(connected):.3f} s, "
        f"worst {max(connected):.3f} s; move delivered: median "
        f"{statistics.median(delivered):.3f} s, worst {max(delivered):.3f} s"
    )


if __name__ == "__main__":
    main()
