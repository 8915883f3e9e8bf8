"""A move at one board to the LEDs at the other, through a real broker, and what a
restart of a linked board costs.

    .venv/bin/python bench/remote_move.py [--games 4] [--gap 0.2] [--broker-nodelay]

The whole chain as ``pyramid run`` carries it, twice in this process: for each home a
simulated board, a SQLite store in a temporary folder, a Table and its
:class:`~controller.remote.seats.RemoteSeats`, through one Mosquitto on a free loopback
port (rigs/mosquitto.py). Oma's board invites (Tim's seat on the other board),
Tim's joins with the code; then whole games are played:

1. **Move → LEDs at the other board**: from the pearl set on the mover's simulated board
   (its sensor frame) until the other board has shown an LED frame with that cell lit
   (the Table there stored the move first). Every move of every game, ``--gap`` seconds
   apart (people take seconds; ``--gap 0`` plays back to back); p50 / p99 / max.
   The other board's pearl is then placed by hand (its sensor) so play goes on.
2. **Joining**: from ``join(code)`` until the game stands on the joining board (keys
   derived by scrypt, the broker's round trips, the game created and stored).
3. **A restart**: once per game, Tim's Table and link are stopped and built again on
   the same store (as ``pyramid run`` after a crash): from ``start()`` until the link is
   connected again and nothing is left to deliver either way.

The referee runs with ``together_s = 0`` (as the web tests do): a script places the next
pearl sooner than any hand, which ``pyramid run``'s 0.25 s would call "placed together".
Needs ``mosquitto`` (apt-get install mosquitto).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import latency_ms  # noqa: E402
from controller.clock import SystemClock  # noqa: E402
from controller.config import RemoteConfig  # noqa: E402
from controller.hardware.channels import ChannelMap  # noqa: E402
from controller.hardware.port import LedFrame  # noqa: E402
from controller.hardware.sim import SimBoard  # noqa: E402
from controller.referee import NewGame, RefereeConfig, Snapshot  # noqa: E402
from controller.remote.seats import RemoteSeats  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Inbox, Table, TableSettings  # noqa: E402
from pyramid_board.games import games  # noqa: E402
from rigs.mosquitto import Mosquitto  # noqa: E402

CMAP = ChannelMap.default()
TIMEOUT = 15.0


class TimedBoard(SimBoard):
    """The simulated board, noting when each LED frame was shown."""

    def __init__(self) -> None:
        super().__init__(CMAP.channel_count, CMAP.led_count)
        self.times: list[tuple[float, LedFrame]] = []
        self.changed = threading.Condition()

    def _show(self, frame: LedFrame) -> None:
        super()._show(frame)
        with self.changed:
            self.times.append((time.perf_counter(), frame))
            self.changed.notify_all()

    def lit_after(self, cell: str, since: float) -> float:
        """When a frame shown after ``since`` first lit ``cell``."""
        led = CMAP.led(cell)
        assert led is not None

        def found() -> float | None:
            for at, frame in self.times:
                if at >= since and frame.leds[led].lit:
                    return at
            return None

        with self.changed:
            if not self.changed.wait_for(lambda: found() is not None, TIMEOUT):
                raise TimeoutError(f"{cell} was never lit")
            at = found()
        assert at is not None
        return at


class Home:
    """One home: its board, store, Table and link, which can be stopped and built again."""

    def __init__(self, folder: Path, name: str, broker: Mosquitto) -> None:
        self.config = RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name=name)
        self.board = TimedBoard()
        self.store = Store(folder / f"{name}.sqlite3")
        self.build()

    def build(self) -> float:
        """A Table and link on the store (as a start of ``pyramid run``); when it started."""
        rules = RefereeConfig(together_s=0.0)
        settings = TableSettings(rules, clock=SystemClock(), games=games())
        inbox = Inbox()
        self.seats = RemoteSeats(inbox, self.store, self.config, games=games())
        self.table = Table(self.board, CMAP, self.store, settings, inbox=inbox, linker=self.seats)
        started = time.perf_counter()
        self.table.start()
        return started

    def stop(self) -> None:
        self.table.stop()
        self.seats.close()

    @property
    def snap(self) -> Snapshot:
        return self.table.snapshot

    def wait(self, what: str, probe: object) -> None:
        end = time.monotonic() + TIMEOUT
        while not callable(probe) or not probe():
            if time.monotonic() > end:
                raise TimeoutError(f"{what}: {self.snap.remote}")
            time.sleep(0.001)

    def put(self, cell: str) -> None:
        self.board.set_channel(CMAP.channel(cell), True)

    def settled(self) -> bool:
        remote = self.snap.remote
        return bool(
            remote
            and remote["connection"] == "connected"
            and remote["peer_online"]
            and remote["unsent"] == 0
            and remote["missing"] == 0
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--broker-nodelay", action="store_true")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between moves")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    moves: list[float] = []
    joins: list[float] = []
    restarts: list[float] = []
    extra = ("set_tcp_nodelay true",) if args.broker_nodelay else ()
    with tempfile.TemporaryDirectory() as folder, Mosquitto(Path(folder), extra=extra) as broker:
        oma = Home(Path(folder), "Oma", broker)
        tim = Home(Path(folder), "Tim", broker)
        for game in range(args.games):
            for home in (oma, tim):
                home.board.set_active(())
            reply = oma.table.submit(NewGame("perlen-pyramide", ("Oma", "Tim", "Opa"), remote=(1,)))
            assert reply.ok, reply
            code = oma.seats.view()
            assert code is not None
            before = tim.snap.game_id
            started = time.perf_counter()
            tim.seats.join(str(code["code"]))
            tim.wait("join", lambda b=before: tim.snap.game_id not in (None, b))
            joins.append(time.perf_counter() - started)
            count = 0
            while not oma.snap.over:
                mover = oma.snap.to_move
                assert mover is not None
                here, there = (tim, oma) if oma.snap.players[mover].remote else (oma, tim)
                cell = rng.choice(here.snap.legal)
                time.sleep(args.gap)  # people take a while; 0 plays back to back
                since = time.perf_counter()
                here.put(cell)
                moves.append(there.board.lit_after(cell, since) - since)
                count += 1
                there.put(cell)  # a person places it there
                there.wait(
                    "placed", lambda t=there, n=count: t.snap.moves == n and not t.snap.mismatches
                )
                here.wait(
                    "matched", lambda h=here, n=count: h.snap.moves == n and not h.snap.mismatches
                )
                if count == 10:  # Tim's program starts again on its store
                    tim.wait("settled", tim.settled)
                    tim.stop()
                    started = tim.build()
                    tim.wait("caught up", tim.settled)
                    restarts.append(time.perf_counter() - started)
            print(f"game {game + 1}: {count} moves", file=sys.stderr)
        for home in (oma, tim):
            home.stop()
            home.store.close()
    p50, p99, most = latency_ms(moves)
    print(f"move -> LEDs at the other board ({len(moves)} moves): "
          f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {most:.1f} ms")  # fmt: skip
    p50, p99, most = latency_ms(joins)
    print(f"join -> game on the joining board ({len(joins)}): p50 {p50:.0f} ms, max {most:.0f} ms")
    p50, p99, most = latency_ms(restarts)
    print(f"restart -> linked and caught up ({len(restarts)}): p50 {p50:.0f} ms, max {most:.0f} ms")


if __name__ == "__main__":
    main()
