"""Start-up: ``pyramid --help``, and ``pyramid run`` from launch to serving the page.

Runs each ``--runs`` times, alternating between this checkout and, with ``--before
DIR``, another copy of the code (``git archive HEAD~1 | tar -x -C DIR``) on the same
interpreter and packages, so both see the same load. Prints the median and the least of
the wall time, and of the CPU time (user + system) the process used, which load
disturbs less.

    .venv/bin/python bench/startup.py --runs 10 --before /tmp/before
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code), "PYRAMID_CONFIG": "",
            "XDG_CONFIG_HOME": tempfile.gettempdir() + "/no-config"}  # fmt: skip


def helps(code: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``pyramid --help``."""
    wall, cpu = time.monotonic(), _cpu()
    subprocess.run([sys.executable, "-m", "pyramid_board.cli", "--help"], cwd=code,
                   env=_env(code), stdout=subprocess.DEVNULL, check=True)  # fmt: skip
    return time.monotonic() - wall, _cpu() - cpu


def serves(code: Path, config: Path | None) -> tuple[float, float]:
    """Wall seconds from launch to the log's "open the page at", and the CPU seconds the
    process used by the time it is stopped (start-up, then at rest)."""
    with tempfile.TemporaryDirectory() as data:
        args = [sys.executable, "-m", "pyramid_board.cli", "run", "--data-dir", data,
                "--host", "127.0.0.1", "--port", "0"]  # fmt: skip
        args += ["--config", str(config)] if config else []
        wall, cpu = time.monotonic(), _cpu()
        proc = subprocess.Popen(args, cwd=code, env=_env(code), stderr=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, text=True)  # fmt: skip
        assert proc.stderr is not None
        ready = None
        for line in proc.stderr:
            if "open the page at" in line:
                ready = time.monotonic() - wall
                break
        proc.terminate()
        proc.communicate(timeout=15)
        if ready is None:
            raise RuntimeError(f"pyramid run in {code} did not serve")
        return ready, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--before", type=Path, help="another copy of the code to compare")
    args = parser.parse_args()
    codes = {"now": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    config = ROOT / "configs" / "serial.toml"
    jobs: dict[str, Callable[[Path], tuple[float, float]]] = {
        "pyramid --help": helps,
        "pyramid run (no config file) to serving": lambda code: serves(code, None),
        "pyramid run --config configs/serial.toml to serving": lambda code: serves(code, config),
    }
    with open("/proc/loadavg") as load:
        print(f"load average at the start: {load.read().split()[0]}")
    for what, job in jobs.items():
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
        for _ in range(args.runs):
            for name, code in codes.items():
                times[name].append(job(code))
        for name, got in times.items():
            walls, cpus = [w for w, _ in got], [c for _, c in got]
            print(f"{what:52s} {name:6s} wall median {statistics.median(walls):.3f} s "
                  f"(least {min(walls):.3f}), CPU median {statistics.median(cpus):.3f} s "
                  f"(least {min(cpus):.3f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
