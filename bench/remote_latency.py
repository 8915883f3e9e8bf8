"""How long an event takes from one board's link to the other's, through a real broker.

    .venv/bin/python bench/remote_latency.py [--events 300] [--gap 0.1] [--broker-nodelay]
                                             [--catch-up 50]

Two :class:`~controller.remote.mqtt.RemoteLink`s (paho-mqtt, the pure link, sealed
envelopes) in this process, a Mosquitto on a free loopback port started for the run
(rigs/mosquitto.py), each board's store a ``MemoryJournal``:

1. **Event → delivered at the other board**: ``RemoteLink.send`` on one side until the
   other side's ``on_step`` has the event, one event at a time, ``--gap`` seconds apart
   (moves are seconds apart; ``--gap 0`` sends the next the moment the last arrived),
   over ``mqtt://`` and over ``mqtts://`` (TLS with a CA made for the run). p50 / p99 /
   max. ``--broker-nodelay`` turns off Nagle's algorithm in the broker too.
2. **The key from the code**: ``derive_keys`` (scrypt, N = 2¹⁵, r = 8), what each board
   pays once per game and start.
3. **A restart's catch-up**: a board closed while the other made ``--catch-up`` events,
   rebuilt from its journal (keys derived again): from ``start()`` until every missing
   event is delivered.

Needs ``mosquitto`` (apt-get install mosquitto).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import latency_ms  # noqa: E402
from controller.config import RemoteConfig  # noqa: E402
from controller.remote.link import Connection, Link, Report  # noqa: E402
from controller.remote.mqtt import RemoteLink  # noqa: E402
from controller.remote.outcomes import Delivered, Outcome  # noqa: E402
from controller.remote.wire import LinkKeys, Side, derive_keys  # noqa: E402
from rigs.journal import MemoryJournal  # noqa: E402
from rigs.mosquitto import Mosquitto, Tls  # noqa: E402
from rigs.network import secret_of  # noqa: E402

CODE = "5A4L-KPRX-AC7H"
TIMEOUT = 10.0


class Board:
    """One side: a journal, a RemoteLink, and the time each of the other's events came."""

    def __init__(self, config: RemoteConfig, side: Side, keys: LinkKeys) -> None:
        self.config, self.side, self.keys = config, side, keys
        self.journal = MemoryJournal()
        self.lock = threading.Lock()
        self.arrived: dict[int, float] = {}
        self.changed = threading.Condition(self.lock)
        self.remote = self.open()

    def open(self) -> RemoteLink:
        name = self.config.name
        link = Link.restore(
            self.journal,
            keys=self.keys,
            side=self.side,
            board=name,
            secret=secret_of(name),
            name=name,
            now=time.monotonic(),
        )
        remote = RemoteLink(self.config, link, self.kept)
        remote.start()
        return remote

    def kept(self, happened: tuple[Outcome, ...], report: Report) -> None:
        now = time.perf_counter()
        with self.changed:
            self.journal.apply(happened)
            for outcome in happened:
                if isinstance(outcome, Delivered):
                    self.arrived[outcome.event["n"]] = now
            self.changed.notify_all()

    def make(self, n: int) -> float:
        with self.lock:
            self.journal.made({"kind": "move", "n": n})
        start = time.perf_counter()
        self.remote.send({"kind": "move", "n": n})
        return start

    def wait_for(self, n: int) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: n in self.arrived, TIMEOUT):
                raise SystemExit(f"event {n} did not arrive in {TIMEOUT} s")
            return self.arrived[n]

    def connected(self) -> bool:
        return self.remote.report().connection is Connection.CONNECTED


def wait(probe: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + TIMEOUT
    while not probe():
        if time.monotonic() > end:
            raise SystemExit(f"timed out: {what}")
        time.sleep(0.01)


def latency(
    broker: Mosquitto, keys: LinkKeys, events: int, gap: float, tls: Tls | None
) -> list[float]:
    host = "localhost" if tls else "127.0.0.1"
    ca = tls.ca_file if tls else None

    def config(name: str) -> RemoteConfig:
        return RemoteConfig(
            broker=f"{'mqtts' if tls is not None else 'mqtt'}://{host}:{broker.port}",
            name=name,
            ca_file=ca,
        )

    oma, tim = Board(config("Oma"), Side.INVITER, keys), Board(config("Tim"), Side.JOINER, keys)
    try:
        wait(lambda: oma.connected() and tim.connected(), "both connect")
        for n in range(1, 21):  # warm up: connections, the first acks
            oma.make(n)
            tim.wait_for(n)
        times = []
        for n in range(21, 21 + events):
            start = oma.make(n)
            times.append(tim.wait_for(n) - start)
            time.sleep(gap)
        return times
    finally:
        oma.remote.close()
        tim.remote.close()


def catch_up(broker: Mosquitto, events: int) -> tuple[float, float]:
    """(seconds to derive the keys again, seconds from start() to caught up)."""
    keys = derive_keys(CODE)

    def config(name: str) -> RemoteConfig:
        return RemoteConfig(broker=f"mqtt://127.0.0.1:{broker.port}", name=name)

    oma, tim = Board(config("Oma"), Side.INVITER, keys), Board(config("Tim"), Side.JOINER, keys)
    try:
        wait(lambda: oma.connected() and tim.connected(), "both connect")
        tim.remote.close()
        for n in range(1, events + 1):
            oma.make(n)
        wait(lambda: oma.remote.report().unsent == events, "events made")
        started = time.perf_counter()
        tim.keys = derive_keys(CODE)
        derived = time.perf_counter()
        tim.remote = tim.open()
        tim.wait_for(events)
        return derived - started, time.perf_counter() - derived
    finally:
        oma.remote.close()
        tim.remote.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between events")
    parser.add_argument("--catch-up", type=int, default=50)
    parser.add_argument("--broker-nodelay", action="store_true",
                        help="Mosquitto's set_tcp_nodelay true (its default is false)")  # fmt: skip
    args = parser.parse_args()
    extra = ("set_tcp_nodelay true",) if args.broker_nodelay else ()
    derive = []
    for _ in range(5):
        start = time.perf_counter()
        keys = derive_keys(CODE)
        derive.append(time.perf_counter() - start)
    print(f"derive_keys (scrypt N=2^15 r=8): min {min(derive) * 1000:.0f} ms, "
          f"max {max(derive) * 1000:.0f} ms over 5")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        tls = Tls.make(Path(folder))
        for name, chosen in (("mqtt://", None), ("mqtts://", tls)):
            with Mosquitto(Path(folder), tls=chosen, extra=extra) as broker:
                times = latency(broker, keys, args.events, args.gap, chosen)
            p50, p99, top = latency_ms(times)
            print(f"{name:9} event -> delivered at the other board, {len(times)} events: "
                  f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {top:.2f} ms")  # fmt: skip
        with Mosquitto(Path(folder)) as broker:
            derived, caught = catch_up(broker, args.catch_up)
        print(f"restart: keys derived again in {derived * 1000:.0f} ms, then start() to "
              f"{args.catch_up} missing events delivered in {caught * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
