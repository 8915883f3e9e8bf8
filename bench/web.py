"""The web page under load: 50 live viewers, and the state API's requests per second.

    .venv/bin/python bench/web.py [--viewers 50] [--changes 200] [--seconds 5]
                                  [--clients 4] [--adapter gpio|sim]

The whole product runs in this process as ``pyramid run`` runs it: a board, the Table on
its thread, an SQLite store on disk, the Flask app under waitress on a free loopback port.
With ``--adapter gpio`` (the default) the board is the gpio adapter scanning a 6×6 reed
matrix on gpiozero's mock pins (rigs.circuits), so its scan thread
competes with the web page for the CPU exactly as on a Pi; with ``--adapter sim`` it is the
sim board the virtual board drives.

1. **Update delivered to every viewer.** A second process opens ``--viewers`` live streams
   (``/events?view=live``: the snapshot and the rendered page regions, as phones get them)
   and reports when each event arrives (CLOCK_MONOTONIC is shared by both processes). A
   sensor changes (a reed switch closes or opens, or the sim board's channel is set) every
   ~60 ms; the time from the change to its update at each viewer gives p50/p99 per
   viewer and of the slowest viewer of each change. Meanwhile the adapter's scan rate is
   compared with the same board idle, without viewers.
2. **State API.** ``--clients`` threads in another process send ``GET /api/state`` over
   keep-alive connections for ``--seconds`` while the viewers stay connected.

Only loopback addresses are used; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import percentile  # noqa: E402

ON = b'"sensors":["c3"]'
OFF = b'"sensors":[]'


# -- the viewer process ----------------------------------------------------------------------


def device(number: int) -> tuple[str, int]:
    """The loopback address viewer or client ``number`` connects from: the page serves each
    device a few live streams only (``WebSettings.streams_per_device``), and a family's
    viewers are phones of their own, so every eight come from another address."""
    return (f"127.0.0.{2 + number // 8}", 0)


def _viewer(port: int, number: int, out: Any, stop: Any) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=device(number))
    conn.request("GET", "/events?view=live", headers={"Accept-Language": "en"})
    response = conn.getresponse()
    assert response.status == 200, response.status
    out.put(("open", number, time.monotonic()))
    while not stop.is_set():
        line = response.readline()
        if not line:
            break
        if line.startswith(b"data: "):
            now = time.monotonic()
            state = "on" if ON in line else "off" if OFF in line else "?"
            out.put(("event", number, now, state, len(line)))
    conn.close()


def viewers_process(port: int, count: int, out: Any, stop: Any) -> None:
    threads = [
        threading.Thread(target=_viewer, args=(port, n, out, stop), daemon=True)
        for n in range(count)
    ]
    for thread in threads:
        thread.start()
    stop.wait(600)


def api_process(port: int, clients: int, seconds: float, out: Any) -> None:
    counts = [0] * clients
    failures = [0] * clients
    start = time.monotonic()
    end = start + seconds

    def hammer(k: int) -> None:
        conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=10, source_address=device(8 * 32 + k)
        )
        while time.monotonic() < end:
            conn.request("GET", "/api/state")
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                counts[k] += 1
            else:
                failures[k] += 1
        conn.close()

    threads = [threading.Thread(target=hammer, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put((sum(counts), sum(failures), time.monotonic() - start))


# -- the product, in this process --------------------------------------------------------------


class Rig:
    """Board, Table, store and the web page served by waitress."""

    def __init__(self, adapter: str, folder: Path) -> None:
        # The product is imported only in this, the serving process: the viewer and client
        # processes are spawned from this module and must not load it.
        from controller.config import GpioConfig, LedConfig
        from controller.hardware.channels import ChannelMap
        from controller.settings import Settings
        from controller.store import Store
        from controller.table import Table, TableSettings
        from pyramid_board.games import games, views
        from web_ui.app import create_app
        from web_ui.server import serve

        self.cmap = ChannelMap.default()
        self.adapter = adapter
        if adapter == "gpio":
            from gpiozero import Device
            from gpiozero.pins.mock import MockFactory

            from controller.hardware.gpio import GpioBoard
            from rigs.circuits import DiodeMatrix

            factory = MockFactory()
            Device.pin_factory = factory
            gpio = GpioConfig()
            self.matrix = DiodeMatrix(factory, gpio.rows, gpio.cols)
            # No LED chain: bit-banged SPI through mock pins would only measure Python.
            self.board: Any = GpioBoard(
                gpio, LedConfig(spi=None), self.cmap.led_count, pin_factory=factory
            )
        else:
            from controller.hardware.sim import SimBoard

            self.board = SimBoard(self.cmap.channel_count, self.cmap.led_count)
        self.store = Store(folder / "web-bench.sqlite3")
        Settings(self.store).set_pin("2468")
        self.table = Table(self.board, self.cmap, self.store, TableSettings(games=games()))
        self.table.start()
        self.app = create_app(table=self.table, views=views())
        ready = threading.Event()
        self.thread = threading.Thread(
            target=serve, args=(self.app, "127.0.0.1", 0, ready), daemon=True
        )
        self.thread.start()
        if not ready.wait(10):
            raise RuntimeError("the web page did not start")
        self.port = int(self.app.config["SERVER_PORT"])
        # A game in progress, so every update carries the drawn pyramid as phones get it.
        from controller.referee.commands import NewGame

        reply = self.table.submit(NewGame("perlen-pyramide", ("Anna", "Ben", "Cleo")))
        if not reply.ok:
            raise RuntimeError(reply.message)

    def set_c3(self, on: bool) -> None:
        channel = self.cmap.channel("c3")
        if self.adapter == "gpio":
            if on:
                self.matrix.switches.press(channel)
            else:
                self.matrix.switches.release(channel)
        else:
            self.board.set_channel(channel, on)

    def scans(self) -> int:
        return int(self.board.status().counters.get("scans", 0))

    def close(self) -> None:
        from web_ui.server import stop  # as in __init__: only the serving process loads it

        stop(self.app)
        self.thread.join(10)
        self.table.stop()
        self.board.close()
        self.store.close()


def run(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="web-bench-"))
    rig = Rig(args.adapter, folder)
    ctx = mp.get_context("spawn")
    events: Any = ctx.Queue()
    stop = ctx.Event()
    try:
        idle_rate = None
        if args.adapter == "gpio":
            first, t0 = rig.scans(), time.monotonic()
            time.sleep(2.0)
            idle_rate = (rig.scans() - first) / (time.monotonic() - t0)

        viewers = ctx.Process(target=viewers_process, args=(rig.port, args.viewers, events, stop))
        viewers.start()
        opened = 0
        deadline = time.monotonic() + 30
        arrivals: dict[int, list[tuple[float, str, int]]] = {n: [] for n in range(args.viewers)}
        while opened < args.viewers and time.monotonic() < deadline:
            item = events.get(timeout=30)
            if item[0] == "open":
                opened += 1
            else:
                arrivals[item[1]].append((item[2], item[3], item[4]))
        if opened < args.viewers:
            raise RuntimeError(f"only {opened} of {args.viewers} viewers connected")
        time.sleep(0.5)
        cpu0 = time.process_time()
        scans0, wall0 = rig.scans(), time.monotonic()

        per_viewer: list[float] = []
        slowest: list[float] = []
        missed = 0
        sizes: list[int] = []
        on = False
        for _ in range(args.changes):
            on = not on
            want = "on" if on else "off"
            changed = time.monotonic()
            rig.set_c3(on)
            got: dict[int, float] = {}
            limit = changed + 2.0
            while len(got) < args.viewers and time.monotonic() < limit:
                try:
                    item = events.get(timeout=max(0.01, limit - time.monotonic()))
                except Exception:
                    break
                if item[0] != "event":
                    continue
                _kind, number, at, state, size = item
                if state == want and at >= changed and number not in got:
                    got[number] = at - changed
                    sizes.append(size)
            missed += args.viewers - len(got)
            per_viewer.extend(got.values())
            if got:
                slowest.append(max(got.values()))
            time.sleep(0.06)
        wall = time.monotonic() - wall0
        busy_rate = (rig.scans() - scans0) / wall
        cpu = time.process_time() - cpu0

        api_out: Any = ctx.Queue()
        api = ctx.Process(target=api_process, args=(rig.port, args.clients, args.seconds, api_out))
        api.start()
        done, failed, took = api_out.get(timeout=args.seconds + 60)
        api.join(10)
        stop.set()
        viewers.join(10)
        if viewers.is_alive():
            viewers.terminate()

        ms = 1000.0
        python = platform.python_version()
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {python}")
        print(
            f"adapter: {args.adapter}; viewers: {args.viewers} (view=live); "
            f"changes: {args.changes}; load average {os.getloadavg()[0]:.1f}"
        )
        print(f"update payload: {statistics.mean(sizes) / 1024:.1f} KiB per event per viewer")
        print(
            "sensor change -> update at a viewer:  "
            f"p50 {percentile(per_viewer, 50) * ms:.1f} ms  "
            f"p99 {percentile(per_viewer, 99) * ms:.1f} ms  "
            f"max {max(per_viewer) * ms:.1f} ms"
        )
        print(
            f"sensor change -> update at every viewer (slowest of {args.viewers}):  "
            f"p50 {percentile(slowest, 50) * ms:.1f} ms  p99 {percentile(slowest, 99) * ms:.1f} ms"
        )
        print(f"updates missed (none in 2 s): {missed}")
        if idle_rate is not None:
            print(
                f"scan rate: idle {idle_rate:.0f}/s, with {args.viewers} viewers and changes "
                f"{busy_rate:.0f}/s ({busy_rate / idle_rate * 100:.0f} %)"
            )
        print(f"server process CPU during the changes: {cpu / wall * 100:.0f} % of one core")
        print(
            f"GET /api/state with {args.viewers} viewers connected: "
            f"{done / took:.0f} requests/s over {took:.1f} s ({args.clients} clients, "
            f"{failed} failed)"
        )
    finally:
        stop.set()
        rig.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--adapter", choices=("gpio", "sim"), default="gpio")
    args = parser.parse_args()
    if not 1 <= args.viewers <= 60:
        parser.error("--viewers must be 1 to 60 (the page serves at most 64 streams)")
    if not 1 <= args.changes <= 5000 or not 0.5 <= args.seconds <= 120:
        parser.error("--changes 1..5000 and --seconds 0.5..120")
    run(args)


if __name__ == "__main__":
    main()
