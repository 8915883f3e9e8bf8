"""Benchmark the gpio adapter on what a Pi runs: lgpio calls, scan time, latency, idle CPU.

Runs the real adapter (scan thread, adaptive scanning, debouncing) under gpiozero's real
``LGPIOFactory`` over the lgpio model (``rigs/lgpio_model.py``) with the
circuit models of ``rigs/circuits.py`` attached to its lines:

1. lgpio calls per scan, by function, for each topology; and, for comparison, the matrix
   read through gpiozero's own pins (what the adapter did before it used line groups);
2. lgpio calls per LED picture: 37 APA102s on the kernel's SPI0, and bit-banged;
3. edge-to-frame latency: switches of the default 6×6 diode matrix close and open at
   random moments; the time from the switch moving to the listener getting the frame
   (p50, p99, max); ``--bounce`` makes every edge chatter for 0.5–4 ms first;
4. idle CPU: nothing moves; the scan thread's CPU time over wall time
   (``time.thread_time()`` inside the thread), per topology;
5. scan cost: microseconds per full scan (scan + debounce).

The model's calls are Python functions: each costs what a Python call costs here, not
what lgpio's C call and its ioctl cost on a Pi (a few microseconds). Read the CPU and
scan-time figures as the adapter's own cost plus the model's, and the call counts as
what a Pi pays.

    .venv/bin/python bench/gpio_scan.py [--edges 400] [--idle-seconds 10] [--bounce]
                                        [--busy-thread] [--switch-interval 0.005]

``--busy-thread`` adds a thread that spins in pure Python (as a busy web request would),
to show what sharing the GIL does to latency; ``--switch-interval`` sets
``sys.setswitchinterval`` (Python's default is 0.005 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero import Device

from bench.stats import percentile
from controller.config import DEFAULT_COLS, DEFAULT_ROWS, GpioConfig, LedConfig, SpiConfig
from controller.hardware.gpio import GpioBoard, MatrixScanner, PinClaim
from controller.hardware.port import Led, LedFrame, SensorFrame
from rigs.circuits import (
    Apa102Strip,
    BouncingContacts,
    DiodeMatrix,
    DirectWiring,
    MuxBank,
)
from rigs.lgpio_model import LgpioModel, close_factory, lgpio_factory

if TYPE_CHECKING:  # importing it needs lgpio, which lgpio_factory() installs (the model)
    from gpiozero.pins.lgpio import LGPIOFactory

NO_LEDS = LedConfig(spi=None)
MATRIX = GpioConfig()
MUX = GpioConfig("mux", select=(5, 6, 13, 19), signals=(26, 16), enable=20)
DIRECT = GpioConfig("direct", pins=(4, 17, 27, 22, 5, 6, 13, 19))
Circuit = Callable[[LgpioModel], object]
TOPOLOGIES: tuple[tuple[str, GpioConfig, Circuit], ...] = (
    ("matrix 6×6", MATRIX, lambda m: DiodeMatrix(m, DEFAULT_ROWS, DEFAULT_COLS)),
    ("mux 2×16", MUX, lambda m: MuxBank(m, MUX.select, MUX.signals, enable=20)),
    ("direct 8", DIRECT, lambda m: DirectWiring(m, DIRECT.pins)),
)


@contextmanager
def pi(spi: bool = False) -> Iterator[tuple[LgpioModel, LGPIOFactory]]:
    """A Pi 4B on the lgpio model, gpiozero's real LGPIOFactory as the default factory."""
    model = LgpioModel(spi_devices={"/dev/spidev0.0"} if spi else ())
    factory = lgpio_factory(model)
    saved, Device.pin_factory = Device.pin_factory, factory
    try:
        yield model, factory
    finally:
        Device.pin_factory = saved
        close_factory(factory)


@contextmanager
def busy_thread(enabled: bool) -> Iterator[None]:
    """A thread that keeps the GIL busy with pure Python, like a slow web request."""
    stop = threading.Event()

    def spin() -> None:
        total = 0
        while not stop.is_set():
            for i in range(10_000):
                total += i * i

    thread = threading.Thread(target=spin, daemon=True)
    if enabled:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if enabled:
            thread.join()


def describe(calls: Counter[str], per: int) -> str:
    total = sum(calls.values()) / per
    parts = ", ".join(f"{name} {count / per:g}" for name, count in sorted(calls.items()))
    return f"{total:5.1f} lgpio calls ({parts})"


def calls_per_scan() -> None:
    scans = 100
    for name, config, circuit in TOPOLOGIES:
        with pi() as (model, factory):
            circuit(model)
            with GpioBoard(config, NO_LEDS, 0, pin_factory=factory) as board:
                board.scan_once()
                model.calls.clear()
                model.requests = 0
                for _ in range(scans):
                    board.scan_once()
                calls, requests = Counter(model.calls), model.requests
        print(
            f"per scan    {name:<28} {describe(calls, scans)}; {requests / scans:g} line requests"
        )
    with pi() as (model, factory):
        DiodeMatrix(model, DEFAULT_ROWS, DEFAULT_COLS)
        scanner = MatrixScanner(factory, PinClaim("bench"), DEFAULT_ROWS, DEFAULT_COLS)
        scanner.scan()
        model.calls.clear()
        model.requests = 0
        for _ in range(scans):
            scanner.scan()
        calls, requests = Counter(model.calls), model.requests
        scanner.close()
    print(
        f"per scan    {'matrix 6×6, gpiozero pins':<28} {describe(calls, scans)}; "
        f"{requests / scans:g} line requests (before line groups)"
    )


def calls_per_picture() -> None:
    pictures = 20
    for label, spi, leds in (
        ("37 LEDs, SPI0 (kernel)", True, LedConfig(brightness=1.0)),
        (
            "37 LEDs, bit-banged GPIO 24/23",
            False,
            LedConfig(brightness=1.0, spi=SpiConfig(clock=24, mosi=23, select=25)),
        ),
    ):
        with pi(spi=spi) as (model, factory):
            DiodeMatrix(model, DEFAULT_ROWS, DEFAULT_COLS)
            if spi:
                Apa102Strip(model, 37)
            with GpioBoard(MATRIX, leds, 37, pin_factory=factory) as board:
                model.calls.clear()
                start = time.perf_counter()
                for i in range(pictures):
                    board.show(LedFrame(tuple(Led((i + 1, 0, j)) for j in range(37))))
                seconds = (time.perf_counter() - start) / pictures
                calls = Counter(model.calls)
        print(
            f"per picture {label:<28} {describe(calls, pictures)}; "
            f"{seconds * 1e3:6.2f} ms of Python each"
        )


def latency(edges: int, bounce: bool, seed: int, busy: bool = False) -> None:
    rng = random.Random(seed)
    with pi() as (model, factory):
        contacts = BouncingContacts(36, time.monotonic, seed=seed) if bounce else None
        matrix = DiodeMatrix(model, DEFAULT_ROWS, DEFAULT_COLS, contacts)
        closed: set[int] = set()
        arrivals: list[tuple[float, SensorFrame]] = []
        arrived = threading.Condition()

        def on_frame(frame: SensorFrame) -> None:
            with arrived:
                arrivals.append((time.monotonic(), frame))
                arrived.notify_all()

        results: list[float] = []
        missed = 0
        with busy_thread(busy), GpioBoard(MATRIX, NO_LEDS, 0, pin_factory=factory) as board:
            board.start(on_frame)
            time.sleep(0.1)
            for _ in range(edges):
                time.sleep(rng.uniform(0.015, 0.045))  # out of step with the idle scans
                switch = rng.randrange(36)
                closing = switch not in closed
                (closed.add if closing else closed.discard)(switch)
                wanted = frozenset(closed)
                with arrived:
                    before = len(arrivals)
                    moved = time.monotonic()
                    if contacts is not None:
                        contacts.set(switch, closing, at=moved)
                    else:
                        matrix.switches.set_closed(wanted)
                    ok = arrived.wait_for(
                        lambda: len(arrivals) > before and arrivals[-1][1].active == wanted,  # noqa: B023
                        timeout=1.0,
                    )
                    if not ok:
                        missed += 1
                        continue
                    extra = len(arrivals) - before - 1
                    if extra:
                        raise SystemExit(f"false frames: {arrivals[before:]}")
                    results.append(arrivals[-1][0] - moved)
            counters = board.status().counters
    label = "matrix 6×6" + (", bouncing 0.5–4 ms" if bounce else "")
    label += ", busy thread" if busy else ""
    ms = [r * 1000 for r in results]
    print(
        f"edge→frame  {label:<28} n={len(ms):4d}  p50 {percentile(ms, 50):5.2f} ms  "
        f"p99 {percentile(ms, 99):5.2f} ms  max {max(ms):5.2f} ms  "
        f"mean {statistics.fmean(ms):5.2f} ms  missed {missed}  "
        f"scans {counters['scans']} ({counters['fast_scans']} fast)"
    )


def idle_cpu(name: str, config: GpioConfig, circuit: Circuit, seconds: float) -> None:
    with pi() as (model, factory):
        circuit(model)
        with GpioBoard(config, NO_LEDS, 0, pin_factory=factory) as board:
            board.start()
            time.sleep(0.5)
            first = board.status().counters
            time.sleep(seconds)
            last = board.status().counters
    cpu = last["scan_cpu_us"] - first["scan_cpu_us"]
    wall = last["scan_wall_us"] - first["scan_wall_us"]
    scans = last["scans"] - first["scans"]
    print(
        f"idle CPU    {name:<28} {100 * cpu / wall:5.2f} % of one core  "
        f"({scans / (wall / 1e6):5.1f} scans/s, {cpu / max(1, scans):6.1f} µs CPU per scan)"
    )


def scan_cost(name: str, config: GpioConfig, circuit: Circuit) -> None:
    with pi() as (model, factory):
        circuit(model)
        with GpioBoard(config, NO_LEDS, 0, pin_factory=factory) as board:
            for _ in range(200):
                board.scan_once()
            count = 3000
            start = time.perf_counter()
            for _ in range(count):
                board.scan_once()
            per_scan = (time.perf_counter() - start) / count
    print(f"scan cost   {name:<28} {per_scan * 1e6:6.1f} µs per full scan (scan + debounce)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=400)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--bounce", action="store_true", help="also run with bouncing contacts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--busy-thread", action="store_true", help="also run beside a busy thread")
    parser.add_argument("--switch-interval", type=float, help="sys.setswitchinterval (seconds)")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    print(f"python switch interval {sys.getswitchinterval() * 1000:g} ms")
    print(
        f"timing: idle {MATRIX.idle_ms:g} ms, fast {MATRIX.fast_ms:g} ms, "
        f"agree {MATRIX.agree}; worst case after settling "
        f"{MATRIX.worst_latency_ms:g} ms + scan time"
    )
    calls_per_scan()
    calls_per_picture()
    latency(args.edges, bounce=False, seed=args.seed)
    if args.bounce:
        latency(args.edges, bounce=True, seed=args.seed)
    if args.busy_thread:
        latency(args.edges, bounce=False, seed=args.seed, busy=True)
    for name, config, circuit in TOPOLOGIES:
        idle_cpu(name, config, circuit, args.idle_seconds)
    # Without a circuit the model's lines only answer their pull: what is left is the
    # adapter's own cost plus the bare model's calls.
    idle_cpu("matrix 6×6, no circuit model", MATRIX, lambda m: None, args.idle_seconds)
    for name, config, circuit in TOPOLOGIES:
        scan_cost(name, config, circuit)


if __name__ == "__main__":
    main()
