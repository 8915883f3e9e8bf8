"""Benchmark the gpio adapter: edge-to-frame latency and the scan thread's idle CPU.

Runs the real adapter (its scan thread, adaptive scanning, debouncing) on gpiozero's
MockFactory with the circuit models from ``controller.hardware.mock_circuits``:

1. latency: switches of the default 6×6 diode matrix close and open at random moments;
   the time from the switch moving to the listener getting the frame (p50, p99, max);
   with ``--bounce`` every edge also chatters for 0.5–4 ms first;
2. idle CPU: nothing moves; the scan thread's CPU time over wall time, measured with
   ``time.thread_time()`` inside the thread, for each topology;
3. scan cost: microseconds per full scan of each topology.

Mock pins cost what Python attribute calls cost, not what lgpio's calls into the kernel
cost on a Pi, so read the CPU figures as the adapter's own overhead plus the mock's.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from bench.stats import percentile
from controller.config import DEFAULT_COLS, DEFAULT_ROWS, GpioConfig, LedConfig
from controller.hardware.gpio import GpioBoard
from controller.hardware.mock_circuits import (
    BouncingContacts,
    DiodeMatrix,
    DirectWiring,
    MuxBank,
)
from controller.hardware.port import SensorFrame

NO_LEDS = LedConfig(spi=None)
MATRIX = GpioConfig()
MUX = GpioConfig("mux", rows=(), cols=(), select=(5, 6, 13, 19), signals=(26, 16), enable=20)
DIRECT = GpioConfig("direct", rows=(), cols=(), pins=(4, 17, 27, 22, 5, 6, 13, 19))


@contextmanager
def mock_pins() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = Device.pin_factory = MockFactory()
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


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


def latency(edges: int, bounce: bool, seed: int, busy: bool = False) -> None:
    rng = random.Random(seed)
    with mock_pins() as factory:
        contacts = BouncingContacts(36, time.monotonic, seed=seed) if bounce else None
        matrix = DiodeMatrix(factory, DEFAULT_ROWS, DEFAULT_COLS, contacts)
        closed: set[int] = set()
        arrivals: list[tuple[float, SensorFrame]] = []
        arrived = threading.Condition()

        def on_frame(frame: SensorFrame) -> None:
            with arrived:
                arrivals.append((time.monotonic(), frame))
                arrived.notify_all()

        results: list[float] = []
        missed = 0
        with busy_thread(busy), GpioBoard(MATRIX, NO_LEDS, 0) as board:
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


def idle_cpu(
    name: str, config: GpioConfig, circuit: Callable[[MockFactory], object] | None, seconds: float
) -> None:
    with mock_pins() as factory:
        if circuit is not None:
            circuit(factory)
        with GpioBoard(config, NO_LEDS, 0) as board:
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


def scan_cost(name: str, config: GpioConfig, circuit: Callable[[MockFactory], object]) -> None:
    with mock_pins() as factory:
        circuit(factory)
        with GpioBoard(config, NO_LEDS, 0) as board:
            for _ in range(200):
                board.scan_once()
            count = 3000
            start = time.perf_counter()
            for _ in range(count):
                board.scan_once()
            per_scan = (time.perf_counter() - start) / count
    print(f"scan cost   {name:<28} {per_scan * 1e6:6.1f} µs per full scan (scan + debounce)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
        f"timing: idle {MATRIX.scan.idle_ms:g} ms, fast {MATRIX.scan.fast_ms:g} ms, "
        f"agree {MATRIX.scan.agree}; worst case after settling "
        f"{MATRIX.scan.worst_latency_ms:g} ms + scan time"
    )
    latency(args.edges, bounce=False, seed=args.seed)
    if args.bounce:
        latency(args.edges, bounce=True, seed=args.seed)
    if args.busy_thread:
        latency(args.edges, bounce=False, seed=args.seed, busy=True)
    for name, config, circuit in (
        (
            "matrix 6×6 (circuit model)",
            MATRIX,
            lambda f: DiodeMatrix(f, DEFAULT_ROWS, DEFAULT_COLS),
        ),
        ("matrix 6×6 (plain mock pins)", MATRIX, None),
        ("mux 2×16 (circuit model)", MUX, lambda f: MuxBank(f, MUX.select, MUX.signals, enable=20)),
        ("direct 8 (circuit model)", DIRECT, lambda f: DirectWiring(f, DIRECT.pins)),
    ):
        idle_cpu(name, config, circuit, args.idle_seconds)
    scan_cost("matrix 6×6", MATRIX, lambda f: DiodeMatrix(f, DEFAULT_ROWS, DEFAULT_COLS))
    scan_cost("mux 2×16", MUX, lambda f: MuxBank(f, MUX.select, MUX.signals, enable=20))
    scan_cost("direct 8", DIRECT, lambda f: DirectWiring(f, DIRECT.pins))


if __name__ == "__main__":
    main()
