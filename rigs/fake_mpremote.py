"""A stand-in for the ``mpremote`` command line, for a simulated Pico (host side, CPython).

It understands the commands `pyramid flash` gives, with mpremote's own grammar::

    python rigs/fake_mpremote.py connect DEVICE resume fs cp SOURCE :TARGET
    python rigs/fake_mpremote.py connect DEVICE resume reset

and does to a :class:`~firmware.sim.harness.SimPico` what mpremote does to a Pico:
connecting stops the running firmware with Ctrl-C, ``fs cp`` writes the file into the
Pico's flash (the directory in the environment variable ``PYRAMID_SIM_FLASH``), ``reset``
resets it. DEVICE must exist, as a serial port must. Every command line is appended to
``.mpremote.log`` in the flash directory so that a test can read exactly what was asked.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from firmware.sim.harness import INTERRUPT_REQUEST, RESET_REQUEST

LOG = ".mpremote.log"


def _request(flash: Path, name: str, timeout: float = 5.0) -> None:
    """Leave a request for the simulated Pico and wait until it has been carried out."""
    request = flash / name
    request.touch()
    deadline = time.monotonic() + timeout
    while request.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"mpremote: the device did not respond ({name[1:]})")
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    flash = Path(os.environ["PYRAMID_SIM_FLASH"])
    with open(flash / LOG, "a", encoding="utf-8") as log:
        log.write(" ".join(argv) + "\n")
    if len(argv) < 4 or argv[0] != "connect" or argv[2] != "resume":
        print(f"mpremote (simulated): unsupported command line {argv}", file=sys.stderr)
        return 2
    device, command = argv[1], argv[3:]
    if not os.path.exists(device):
        print(f"mpremote: failed to access {device}", file=sys.stderr)
        return 1
    _request(flash, INTERRUPT_REQUEST)  # mpremote's Ctrl-C before entering the raw REPL
    if command == ["reset"]:
        _request(flash, RESET_REQUEST)
        return 0
    if len(command) == 4 and command[:2] == ["fs", "cp"] and command[3].startswith(":"):
        target = command[3][1:]
        if "/" in target or not target:
            print(
                f"mpremote (simulated): only the root directory is modelled: {target}",
                file=sys.stderr,
            )
            return 2
        shutil.copyfile(command[2], flash / target)
        print(f"cp {command[2]} {command[3]}")
        return 0
    print(f"mpremote (simulated): unsupported command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
