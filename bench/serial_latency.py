"""How fast the Pico board answers over the serial link, and what the link costs idle.

    .venv/bin/python bench/serial_latency.py [--samples 300] [--moves 200]
                                             [--idle-seconds 20] [--interpreter auto]

Everything real but the chip: the firmware's own files run in the MicroPython unix port
(``firmware/sim``: a fake ``machine`` whose pins model the diode matrix, a fake
``neopixel`` that reports each write), behind a pty, to the real ``SerialBoard``.

1. **Full matrix scan rate** of the firmware's ``Matrix.scan()`` in the MicroPython
   interpreter, 6×6 as shipped, with the configured 10 µs settle per row and with none.
   (The fake pins are Python, a Pico's are C; the Pico's own rate is not this.)
2. **Sensor edge → sensor frame at the host**: a switch closes (or opens) in the fake
   chip at a random moment; the time until the adapter's listener has the frame.
3. **LED frame at the host → neopixel write**: ``board.show()`` until the fake chip
   reports the write.
4. **Sensor edge → LED frame**, the DESIGN target: the switch closes, the firmware
   debounces and sends ``S``, the adapter delivers the frame to the real Table (rules,
   SQLite store with an fsync per move, guidance), the Table's LED frame goes out as
   ``F`` and the firmware writes the LEDs. Random Perlen-Pyramide games.
5. **Idle CPU of ``pyramid run``** on the serial adapter, the Pico simulated: from
   ``/proc/<pid>/stat`` over ``--idle-seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from controller.games.perlen.snapshot import parts_of as perlen_parts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import serial  # noqa: E402

from bench.stats import latency_ms  # noqa: E402
from controller.games.perlen.commands import ConfirmBonus  # noqa: E402
from controller.hardware.channels import ChannelMap  # noqa: E402
from controller.hardware.port import Led, LedFrame, LinkState, SensorFrame  # noqa: E402
from controller.hardware.serial import SerialBoard  # noqa: E402
from controller.referee.commands import NewGame  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Table, TableSettings  # noqa: E402
from firmware.sim.harness import (  # noqa: E402
    FIRMWARE_DIR,
    SIM_DIR,
    SimConfig,
    SimPico,
    find_micropython,
)
from pyramid_board.games import games as product_games  # noqa: E402

SHIPPED = SimConfig.from_file(FIRMWARE_DIR / "config.py")


def percentiles(values: list[float]) -> str:
    p50, p99, worst = latency_ms(values)
    return f"p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {worst:6.2f} ms  (n={len(values)})"


def wait(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out")
        time.sleep(0.0002)


# -- 1. scan rate ------------------------------------------------------------------------

SCAN_RATE = """
import sys, json
sys.path[:0] = [{firmware!r}, {sim!r}]
import machine, main
try:
    from time import ticks_us, ticks_diff
except ImportError:  # CPython
    from ticks import ticks_us, ticks_diff
results = []
for settle in ({settle}, 0):
    rows = [machine.Pin(g, machine.Pin.OUT, value=0) for g in {rows!r}]
    columns = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_DOWN) for g in {columns!r}]
    matrix = main.Matrix(rows, columns, settle)
    for _ in range(50):
        matrix.scan()
    count = 0
    start = ticks_us()
    while ticks_diff(ticks_us(), start) < 1000000:
        matrix.scan()
        count += 1
    results.append([settle, count * 1000000 / ticks_diff(ticks_us(), start)])
print(json.dumps(results))
"""


def scan_rate(interpreter: list[str]) -> None:
    script = SCAN_RATE.format(
        firmware=str(FIRMWARE_DIR),
        sim=str(SIM_DIR),
        settle=SHIPPED.settle_us,
        rows=SHIPPED.rows,
        columns=SHIPPED.columns,
    )
    env = {k: v for k, v in os.environ.items() if k != "PYRAMID_SIM_TTY"}
    done = subprocess.run(
        [*interpreter, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    size = f"{len(SHIPPED.rows)}×{len(SHIPPED.columns)}"
    for settle, rate in json.loads(done.stdout):
        per_scan = 1e6 / rate
        print(
            f"  full {size} matrix scan, settle {settle:2d} µs/row: {rate:8.0f} scans/s "
            f"({per_scan:6.1f} µs per scan; the firmware scans every {SHIPPED.scan_ms} ms)"
        )


# -- 2 and 3. the adapter alone ----------------------------------------------------------


def adapter_latency(pico: SimPico, samples: int, seed: int) -> None:
    cmap = ChannelMap.default()
    frames: list[SensorFrame] = []
    board = SerialBoard(pico.port, cmap.channel_count, cmap.led_count)
    board.start(frames.append)
    wait(lambda: board.status().link is LinkState.CONNECTED)
    rng = random.Random(seed)
    to_frame: list[float] = []
    to_leds: list[float] = []
    try:
        closed: set[int] = set()
        for _ in range(samples):
            channel = rng.randrange(cmap.channel_count)
            time.sleep(rng.uniform(0.0, SHIPPED.scan_ms / 1000))  # any phase of the scan
            count = len(frames)
            edge = time.monotonic()
            pico.set_switch(channel, channel not in closed)
            closed ^= {channel}
            wait(lambda: len(frames) > count)  # noqa: B023 - called before the loop moves on
            to_frame.append(frames[count].at - edge)
        for step in range(samples):
            colour = (rng.randrange(1, 256), rng.randrange(256), step % 256)
            frame = LedFrame((Led(colour),) + (Led(),) * (cmap.led_count - 1))
            wanted = (colour[0] << 16) | (colour[1] << 8) | colour[2]
            count = len(pico.leds)
            handed = time.monotonic()
            board.show(frame)
            write = pico.wait_for_led(
                lambda w: w.colours[0] == wanted,  # noqa: B023 - used at once
                after=count,
            )
            to_leds.append(write.at - handed)
            time.sleep(rng.uniform(0.0, 0.005))
    finally:
        board.close()
    print(f"  sensor edge in the chip -> sensor frame at the host   {percentiles(to_frame)}")
    print(f"  LED frame at the host -> neopixel write in the chip  {percentiles(to_leds)}")
    print(f"  adapter counters: {dict(sorted(board.status().counters.items()))}")


# -- 4. edge to LED frame through the Table ----------------------------------------------


def full_path(pico: SimPico, moves: int, seed: int, store_dir: Path) -> None:
    cmap = ChannelMap.default()
    board = SerialBoard(pico.port, cmap.channel_count, cmap.led_count)
    store = Store(store_dir / "serial-latency.sqlite3")
    table = Table(board, cmap, store, TableSettings(games=product_games()))
    table.start()
    wait(lambda: board.status().link is LinkState.CONNECTED)
    sub = table.subscribe()
    rng = random.Random(seed)
    edge_to_leds: list[float] = []
    games = 0
    try:
        while len(edge_to_leds) < moves:
            assert table.submit(NewGame("perlen-pyramide", ("A", "B", "C"))).ok
            games += 1
            snap = table.snapshot
            while len(edge_to_leds) < moves and snap.legal:
                cell = rng.choice(snap.legal)
                played = snap.moves
                count = len(pico.leds)
                edge = time.monotonic()
                pico.press(cmap.channel(cell))
                while True:
                    got = sub.get(timeout=3.0)
                    if got is None:
                        raise RuntimeError(f"no answer to {cell}")
                    if got.moves == played + 1:
                        snap = got
                        break
                # The answering frame is the first LED write after the move that differs
                # from the picture before it.
                before = pico.leds[count - 1].colours if count else None
                write = pico.wait_for_led(
                    lambda w: w.colours != before,  # noqa: B023 - used at once
                    after=count,
                    timeout=3.0,
                )
                edge_to_leds.append(write.at - edge)
                time.sleep(0.26 + rng.uniform(0.0, 0.04))
            while perlen_parts(table.snapshot).pending:
                assert table.submit(ConfirmBonus()).ok
            pico.set_active(())
            deadline = time.monotonic() + 3
            while table.snapshot.sensors and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        table.stop()
        store.close()
        board.close()
    print(f"  sensor edge -> LED write, through the Table ({games} games)  "
          f"{percentiles(edge_to_leds)}")  # fmt: skip


# -- 5. idle CPU ---------------------------------------------------------------------------


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(pico: SimPico, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        config = data / "config.toml"
        config.write_text(f'[board]\nadapter = "serial"\n[board.serial]\nport = "{pico.port}"\n')
        args = [sys.executable, "-m", "pyramid_board.cli", "run", "--data-dir", str(data),
                "--host", "127.0.0.1", "--port", "0", "--config", str(config)]  # fmt: skip
        proc = subprocess.Popen(
            args, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
        )
        log: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                log.append(line)
                if "open the page at" in line:
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        try:
            if not ready.wait(30):
                raise RuntimeError("pyramid run did not start:\n" + "".join(log))
            time.sleep(3.0)  # connected and settled
            cpu0, t0 = _proc_cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            cpu1, t1 = _proc_cpu_seconds(proc.pid), time.monotonic()
        finally:
            proc.terminate()
            proc.wait(15)
    share = (cpu1 - cpu0) / (t1 - t0) * 100
    connected = any("Pico on" in line for line in log)
    print(
        f"  idle `pyramid run`, serial adapter: {share:5.2f} % of one core over {t1 - t0:.0f} s"
        f" ({'connected to' if connected else 'NOT connected to'} the simulated Pico)"
    )


EMULATED_CYCLE_NOTE = (
    "rp2040js counts cycles per instruction close to, not equal to, a real RP2040 (flash "
    "reads never miss the XIP cache there), so these are estimates of a Pico's figures"
)


def emulated(seconds: float) -> None:
    """The shipped firmware on MicroPython for the Pico in rp2040js: scan time and period
    at the pins, the WS2812 write, and the host bytes it takes per second, on the
    emulated 125 MHz clock."""
    # The emulated Pico (rp2040js under Node), imported only when --emulated asks for it.
    from firmware import protocol
    from firmware.emulator.pico import EmulatedPico

    with EmulatedPico(SHIPPED, rate=0.25) as pico:
        pico.wait_for("out", lambda e: e.data["line"].startswith("STATS"), pico.wall(2))
        pico.stats(clear=True)
        start = pico.now
        while pico.now < start + seconds:
            time.sleep(0.2)
        idle = pico.stats(clear=True)
        span = idle["t"] - start
        busy = idle["busy_cycles"] / (span * 125e6)
        print(f"emulated Pico ({EMULATED_CYCLE_NOTE}):")
        print(
            f"  full 6x6 scan: {idle['scan_mean_time'] / 1000:.0f} us mean, "
            f"{idle['scan_max_time'] / 1000:.0f} us max ({idle['scan_mean_time'] * 0.125:,.0f} "
            f"cycles); a scan every {idle['scan_mean_gap'] / 1e6:.2f} ms "
            f"(SCAN_MS {SHIPPED.scan_ms}); CPU busy {100 * busy:.1f} % idle"
        )
        host = serial.Serial(pico.port, timeout=0.05)
        host.reset_input_buffer()
        before = len(pico.of("leds"))
        colours = tuple(0x102030 + i for i in range(SHIPPED.led_count))
        frames = [protocol.encode(protocol.Frame(n, colours, 0)) for n in range(60)]
        pico.stats(clear=True)
        t0 = pico.now
        host.write(b"".join(frames))
        deadline = time.monotonic() + pico.wall(20)
        while pico.stats()["bytesToDevice"] < sum(map(len, frames)):
            host.read(4096)
            if time.monotonic() > deadline:
                raise RuntimeError("the frames were not taken")
        flood = pico.stats()
        host.close()
        writes = pico.of("leds")[before:]
        widths = [(w.data["end"] - w.data["start"]) / 1000 for w in writes]
        taken = flood["bytesToDevice"] / (flood["t"] - t0)
        print(
            f"  WS2812 write of {SHIPPED.led_count} LEDs: {sum(widths) / len(widths):.0f} us "
            f"on the wire (interrupts off), {len(writes)} frames"
        )
        print(
            f"  host bytes taken while F lines flood in (each decoded, shown and answered): "
            f"{taken:,.0f} bytes/s = {taken / len(frames[0]):.1f} frames/s; scan every "
            f"{flood['scan_mean_gap'] / 1e6:.2f} ms (max {flood['scan_max_gap'] / 1e6:.1f} ms)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--emulated",
        type=float,
        metavar="SECONDS",
        default=None,
        help="instead: the firmware on an emulated Pico (rp2040js), idle for SECONDS",
    )
    parser.add_argument("--samples", type=int, default=300, help="edges and LED frames")
    parser.add_argument("--moves", type=int, default=200, help="moves through the Table")
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--interpreter", choices=("auto", "micropython", "cpython"), default="auto")
    parser.add_argument("--skip-table", action="store_true")
    parser.add_argument("--skip-idle", action="store_true")
    args = parser.parse_args()
    if args.emulated is not None:
        emulated(args.emulated)
        return 0
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.machine(),
    )  # fmt: skip
    print(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}")
    micropython = find_micropython() if args.interpreter != "cpython" else None
    scan_interpreter = [micropython] if micropython else [sys.executable]
    with SimPico(SHIPPED, interpreter=args.interpreter) as pico:
        print(f"firmware as shipped (firmware/config.py) in {pico.note}")
        print("firmware scan rate:")
        scan_rate(scan_interpreter)
        print("serial adapter alone (shipped timings; the firmware debounces 3 scans of 4 ms):")
        adapter_latency(pico, args.samples, args.seed)
    if not args.skip_table:
        with SimPico(SHIPPED, interpreter=args.interpreter) as pico:
            print("the whole path (target: sensor edge to LED frame, serial, p99 <= 30 ms):")
            with tempfile.TemporaryDirectory() as folder:
                full_path(pico, args.moves, args.seed, Path(folder))
    if not args.skip_idle:
        with SimPico(SHIPPED, interpreter=args.interpreter) as pico:
            print("idle (target: <= 0.5 % of one core):")
            idle_cpu(pico, args.idle_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
