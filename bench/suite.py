"""The test suite as a newcomer meets it: a fresh clone, `make test` (or `make quick`) run
after run, with cores kept busy by another process, and what each run took and found.

    .venv/bin/python bench/suite.py [--runs 3] [--busy 1] [--target test] [--ref HEAD]

What it does, in the order a newcomer would:

1. ``git clone`` of this checkout at ``--ref`` into a new folder, with ``../shared`` beside
   it as CI has it (a link to this checkout's, when there is one: the emulated Pico's
   MicroPython and boot ROM are there), and ``npm ci`` in ``firmware/emulator`` as
   ``.ci/run`` does;
2. ``--busy`` processes that each keep one core busy (a Python loop) for the whole
   measurement: "another process keeps one core busy";
3. ``make <target>`` ``--runs`` times in that clone; the first run also creates ``.venv``
   and installs the project, as on a fresh machine, and the later ones find it.

Printed per run: the wall time, and pytest's closing counts (passed, failed, skipped,
errors) with the failures' names. The exit status is 1 when any run failed. Figures:
docs/performance.md ("The test suite"). Nothing here is asserted by a test: the suite's
speed is measured, not tested.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"^=+ (?P<body>.*\b(?:passed|failed|error)\b.*) in [\d.]+s", re.M)
COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|deselected|xfailed|xpassed)")
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


@dataclass(frozen=True, slots=True)
class Run:
    number: int
    seconds: float
    status: int
    counts: dict[str, int] = field(default_factory=dict)
    failures: tuple[str, ...] = ()

    def line(self) -> str:
        counts = ", ".join(f"{n} {what}" for what, n in self.counts.items()) or "no summary"
        said = f"run {self.number}: {self.seconds:6.1f} s wall, exit {self.status}: {counts}"
        return said + "".join(f"\n    {name}" for name in self.failures)


def parse(output: str) -> tuple[dict[str, int], tuple[str, ...]]:
    """pytest's closing counts and the failed tests' names in ``output``.

    >>> parse("== 2 failed, 10 passed, 1 skipped in 3.2s ==\\nFAILED t.py::a - x\\n")
    ({'failed': 2, 'passed': 10, 'skipped': 1}, ('t.py::a',))
    """
    counts: dict[str, int] = {}
    found = list(SUMMARY.finditer(output))
    if found:
        for number, what in COUNT.findall(found[-1].group("body")):
            counts["errors" if what == "error" else what] = int(number)
    return counts, tuple(FAILED.findall(output))


def busy() -> None:  # pragma: no cover - runs in its own process until terminated
    while True:
        pass


def clone(ref: str, into: Path) -> Path:
    """A fresh clone of this checkout at ``ref`` in ``into/main``, set up as CI sets it."""
    checkout = into / "main"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "checkout", "--quiet", ref], check=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (into / "shared").symlink_to(shared)
    emulator = checkout / "firmware" / "emulator"
    if shutil.which("npm") and (emulator / "package-lock.json").is_file():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=emulator,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return checkout


def measure(checkout: Path, target: str, number: int, log: Path) -> Run:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    started = time.monotonic()
    with log.open("w") as out:
        status = subprocess.run(
            ["make", target], cwd=checkout, env=env, stdout=out, stderr=subprocess.STDOUT
        ).returncode
    seconds = time.monotonic() - started
    counts, failures = parse(log.read_text(errors="replace"))
    return Run(number, seconds, status, counts, failures)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy", type=int, default=1, help="cores kept busy meanwhile")
    parser.add_argument("--target", choices=("test", "quick"), default="test")
    parser.add_argument("--ref", default="HEAD", help="what to clone (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and the logs")
    args = parser.parse_args(argv)
    ref = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.ref],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix="pyramid-suite-"))
    print(f"make {args.target} on a fresh clone of {ref} in {folder}, {args.busy} core(s) busy")
    hogs = [multiprocessing.Process(target=busy, daemon=True) for _ in range(args.busy)]
    runs: list[Run] = []
    try:
        checkout = clone(ref, folder)
        for hog in hogs:
            hog.start()
        for number in range(1, args.runs + 1):
            run = measure(checkout, args.target, number, folder / f"run-{number}.log")
            runs.append(run)
            print(run.line(), flush=True)
    finally:
        for hog in hogs:
            hog.terminate()
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"kept: {folder}")
    failed = [r for r in runs if r.status != 0]
    print(f"{len(runs) - len(failed)} of {len(runs)} runs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
