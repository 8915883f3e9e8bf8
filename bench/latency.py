"""How fast the board answers, and what it costs while nobody plays.

    .venv/bin/python bench/latency.py [--moves 300] [--idle-seconds 20]

1. **Sensor edge to LED frame**, through the real pieces: a reed switch closes in a diode
   matrix on gpiozero mock pins (``rigs.circuits``); the gpio adapter's
   scan thread finds and debounces it (default timing: 8 ms idle scans, 1 ms confirmation
   scans, 4 agreeing); the Table reconciles, commits the move to an SQLite store on disk
   (WAL, synchronous=FULL: an fsync per move) and hands the answering LED frame to the
   adapter, which clocks it out over SPI to a mock APA102 chain that decodes it. Random
   Perlen-Pyramide games, one move every 0.26–0.3 s (the Table's default settings, so a
   pearl is never "placed together" with the last), p50/p99 over ``--moves`` moves, split
   into edge → debounced frame (adapter), frame → LED frame handed over (Table, store
   included) and → frame on the wires (SPI; bit-banged through mock pins in Python here,
   so much slower than the Pi's hardware SPI, which sends the 37 LEDs in about 0.6 ms).
2. **Idle CPU of ``pyramid run``**: a real process on the sim board and on the gpio
   adapter with gpiozero's mock pins (``GPIOZERO_PIN_FACTORY=mock``: the scan thread runs
   as on a Pi), measured from ``/proc/<pid>/stat`` over ``--idle-seconds`` once it has
   started; also its start-to-serving time and resident memory.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from controller.games.perlen.snapshot import parts_of as perlen_parts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stats import latency_ms  # noqa: E402
from controller.config import GpioConfig, LedConfig  # noqa: E402
from controller.games.perlen.commands import ConfirmBonus  # noqa: E402
from controller.hardware.channels import ChannelMap  # noqa: E402
from controller.hardware.port import LedFrame, SensorFrame  # noqa: E402
from controller.referee.commands import NewGame  # noqa: E402
from controller.referee.events import Event, Result  # noqa: E402
from controller.store import Store, StoredEvent  # noqa: E402
from controller.table import Table, TableSettings  # noqa: E402
from pyramid_board.games import games as product_games  # noqa: E402


def latency(moves: int, seed: int, store_dir: Path) -> None:
    # gpiozero and the gpio adapter, imported only for this part (the idle part measures
    # `pyramid run` processes).
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from controller.hardware.apa102 import apparent
    from controller.hardware.gpio import GpioBoard
    from rigs.circuits import Apa102Strip, DiodeMatrix

    factory = MockFactory()
    Device.pin_factory = factory  # gpiozero's software SPI asks for it
    cmap = ChannelMap.default()
    gpio = GpioConfig()
    matrix = DiodeMatrix(factory, gpio.rows, gpio.cols)
    strip = Apa102Strip(factory, cmap.led_count)
    leds = LedConfig()
    brightness = leds.brightness
    board = GpioBoard(gpio, leds, cmap.led_count, pin_factory=factory)

    frames_at: list[float] = []
    shows: list[tuple[float, float, LedFrame]] = []
    show = board.show

    def timed_show(frame: LedFrame) -> None:
        handed = time.perf_counter()
        show(frame)  # the mock chain decodes as the bits are clocked: done when this returns
        shows.append((handed, time.perf_counter(), frame))

    board.show = timed_show  # type: ignore[method-assign]
    store = Store(store_dir / "latency.sqlite3")
    commits: list[float] = []
    append = store.append

    def timed_append(
        game_id: int, events: Sequence[Event], *, result: Result | None = None
    ) -> tuple[StoredEvent, ...]:
        start = time.perf_counter()
        try:
            return append(game_id, events, result=result)
        finally:
            commits.append(time.perf_counter() - start)

    store.append = timed_append  # type: ignore[method-assign]
    table = Table(board, cmap, store, TableSettings(games=product_games()))
    deliver = table._on_frame

    def timed_frame(frame: SensorFrame) -> None:
        frames_at.append(time.perf_counter())
        deliver(frame)

    table._on_frame = timed_frame  # type: ignore[method-assign]
    table.start()
    sub = table.subscribe()
    rng = random.Random(seed)
    to_frame: list[float] = []
    to_show: list[float] = []
    to_wire: list[float] = []
    games = 0
    try:
        while len(to_wire) < moves:
            assert table.submit(NewGame("perlen-pyramide", ("A", "B", "C"))).ok
            games += 1
            snap = table.snapshot
            while len(to_wire) < moves and snap.legal:
                cell = rng.choice(snap.legal)
                n_frames, n_shows, played = len(frames_at), len(shows), snap.moves
                n_pictures = len(strip.pictures)
                edge = time.perf_counter()
                matrix.switches.press(cmap.channel(cell))
                while True:
                    got = sub.get(timeout=2.0)
                    if got is None:
                        raise RuntimeError(f"no answer to {cell}: {table.snapshot.to_json()}")
                    if got.moves == played + 1:
                        snap = got
                        break
                to_frame.append(frames_at[n_frames] - edge)
                handed, sent, frame = shows[n_shows]
                to_show.append(handed - edge)
                to_wire.append(sent - edge)
                # The chain received what the Table asked for (in one blink phase or other).
                wanted = [
                    [apparent(frame.colour_at(i, on), brightness) for i in range(len(frame))]
                    for on in (True, False)
                ]
                pictures = list(strip.pictures)[n_pictures:]
                if not any([p.apparent for p in picture] in wanted for picture in pictures):
                    raise RuntimeError(f"the LED chain did not show the frame for {cell}")
                time.sleep(0.26 + rng.uniform(0.0, 0.04))
            while perlen_parts(table.snapshot).pending:
                assert table.submit(ConfirmBonus()).ok
            matrix.switches.set_closed(())
            deadline = time.monotonic() + 2
            while table.snapshot.sensors and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        table.stop()
        store.close()
        board.close()
        factory.reset()
    counters = board.status().counters
    print(f"sensor edge to LED frame, gpio adapter (matrix 6×6, mock pins), {len(to_wire)} moves"
          f" in {games} games:")  # fmt: skip
    for label, values in (
        ("edge -> debounced frame (adapter)", to_frame),
        ("edge -> LED frame handed to adapter (Table + store fsync)", to_show),
        ("edge -> LED frame on the SPI wires (mock, bit-banged)", to_wire),
    ):
        p50, p99, worst = latency_ms(values)
        print(f"  {label:58s} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {worst:6.2f} ms")
    table_part = [s - f for s, f in zip(to_show, to_frame, strict=True)]
    p50, p99, worst = latency_ms(table_part)
    print(f"  {'debounced frame -> LED frame handed over (Table alone)':58s} p50 {p50:6.2f} ms"
          f"  p99 {p99:6.2f} ms  max {worst:6.2f} ms")  # fmt: skip
    p50, p99, worst = latency_ms(commits)
    print(f"  {'of which: store commit (WAL, synchronous=FULL)':58s} p50 {p50:6.2f} ms"
          f"  p99 {p99:6.2f} ms  max {worst:6.2f} ms")  # fmt: skip
    print(f"  adapter counters: {dict(sorted(counters.items()))}")


# -- idle CPU ------------------------------------------------------------------------------

GPIO_CONFIG = '[board]\nadapter = "gpio"\n[board.gpio]\ntopology = "matrix"\n'


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime + stime, all threads
    return ticks / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def idle(label: str, config: str | None, env: dict[str, str], seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        args = [sys.executable, "-m", "pyramid_board.cli", "run", "--data-dir", str(data),
                "--host", "127.0.0.1", "--port", "0"]  # fmt: skip
        if config is not None:
            (data / "config.toml").write_text(config)
            args += ["--config", str(data / "config.toml")]
        launched = time.monotonic()
        proc = subprocess.Popen(
            args, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
            env={**os.environ, **env},
        )  # fmt: skip
        log: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                log.append(line)
                if "open the page at" in line:
                    ready.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            if not ready.wait(30):
                raise RuntimeError("pyramid run did not start:\n" + "".join(log))
            wall_ready = time.monotonic() - launched
            own = re.search(r"ready in (\d+\.\d+) s", "".join(log))
            time.sleep(2.0)  # let start-up work (imports, first frames) finish
            cpu0, t0 = _proc_cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            cpu1, t1 = _proc_cpu_seconds(proc.pid), time.monotonic()
            rss = _rss_mb(proc.pid)
            threads = len(os.listdir(f"/proc/{proc.pid}/task"))
        finally:
            proc.terminate()
            proc.wait(15)
    share = (cpu1 - cpu0) / (t1 - t0) * 100
    print(
        f"  {label:34s} idle CPU {share:5.2f} % of one core over {t1 - t0:.0f} s; "
        f"start to serving {wall_ready:.2f} s (own log: {own.group(1) if own else '?'} s); "
        f"RSS {rss:.1f} MB; {threads} threads"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument(
        "--store-dir", type=Path, default=None, help="folder for the latency run's store"
    )
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    args = parser.parse_args()
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.machine(),
    )  # fmt: skip
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}")
    # Other work on the machine shows in the tails: say how busy it was.
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if not args.skip_latency:
        with tempfile.TemporaryDirectory(dir=args.store_dir) as folder:
            latency(args.moves, args.seed, Path(folder))
    if not args.skip_idle:
        print("idle `pyramid run` (no game; page served, nobody connected):")
        idle("sim board", None, {}, args.idle_seconds)
        idle("gpio adapter, mock pins, matrix", GPIO_CONFIG, {"GPIOZERO_PIN_FACTORY": "mock"},
             args.idle_seconds)  # fmt: skip
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
