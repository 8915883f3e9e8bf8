"""The firmware's memory in the simulated Pico's heap: this checkout's and a commit's.

    .venv/bin/python bench/firmware_memory.py [COMMIT]   (default: 2fd2f14, before the
                                                          levels and unreadable lines)

The MicroPython unix port with a 192 KB heap (a Pico's free heap, as firmware/sim runs
the firmware) compiles main.py from its whole text, as firmware/sim/pico_boot.py does
(the harder case: a Pico's import reads the file in pieces), then runs it as a module
without calling ``main()``. Printed: the file sizes, the heap's peak while compiling
and importing, and the bytes still in use once loaded (after a collection). The figures
are the interpreter's own counts: they do not depend on the machine's load.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.sim.harness import FIRMWARE_DIR, PICO_HEAP, find_micropython

FILES = ("main.py", "protocol.py", "debounce.py", "usbpower.py", "calib.py", "config.py")
PROBE = """
import sys, gc, micropython
sys.path.insert(0, {sim!r})
sys.path.insert(0, '.')
with open('main.py') as source:
    code = compile(source.read(), 'main.py', 'exec')
exec(code, {{'__name__': 'measured'}})
gc.collect()
print(gc.mem_alloc())
micropython.mem_info()
"""


def measure(directory: Path, micropython: str) -> tuple[int, int]:
    """(peak, in use once loaded), in bytes."""
    done = subprocess.run(
        [micropython, "-X", f"heapsize={PICO_HEAP}", "-c",
         PROBE.format(sim=str(FIRMWARE_DIR / "sim"))],
        cwd=directory, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    peak = next(int(line.split("peak=")[1]) for line in lines if "peak=" in line)
    return peak, int(lines[0])


def files_of(commit: str) -> Path:
    where = Path(tempfile.mkdtemp(prefix=f"firmware-{commit}-"))
    for name in FILES:
        done = subprocess.run(
            ["git", "show", f"{commit}:firmware/{name}"],
            cwd=FIRMWARE_DIR, capture_output=True, check=False,
        )  # fmt: skip
        if done.returncode == 0:  # usbpower.py came with issue 35
            (where / name).write_bytes(done.stdout)
    return where


def main() -> None:
    micropython = find_micropython()
    if micropython is None:
        sys.exit("the MicroPython unix port does not run here (make quick installs it)")
    commit = sys.argv[1] if len(sys.argv) > 1 else "2fd2f14"
    print(f"heap {PICO_HEAP}; main.py compiled from its whole text, then run")
    print("| firmware | main.py bytes | protocol.py bytes | peak | in use once loaded |")
    print("| --- | --- | --- | --- | --- |")
    for label, directory in ((commit, files_of(commit)), ("this checkout", FIRMWARE_DIR)):
        peak, used = measure(directory, micropython)
        sizes = [(directory / name).stat().st_size for name in ("main.py", "protocol.py")]
        print(f"| {label} | {sizes[0]:,} | {sizes[1]:,} | {peak:,} | {used:,} |")


if __name__ == "__main__":
    main()
