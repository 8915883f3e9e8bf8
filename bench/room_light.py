"""The reflective build in a living room: per scene of issue 35, the weakest margin at the
issue's light and the most light it survives, for today's firmware (before issue 35, from
git), the shipped one with its default marks, and the shipped one calibrated by
``pyramid diag --check``'s rule before each scene (rigs/room.py, ``Rig.calibrate``: each
cell's empty level and the darkest pearl measured on that scene's part and wall).

    .venv/bin/python bench/room_light.py

Both firmwares' own scan, Levels and Debouncer run under CPython against
rigs/room.py on a virtual clock (τ 200 µs, the slowest phototransistor; a pin
write and an ADC read cost what they cost on the emulated chip), so the figures do not
depend on this machine's load. A margin is ON over the highest empty reading, or the
lowest pearl reading over ON (above 1: it holds). "Survives" is the most light (or the
least pearl) of the swept values at which it, and every gentler value, holds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rigs import room
from rigs.room import DARK_PEARL_UA, HAND_UA, TODAYS, Outcome, firmware_files

Scene = tuple[str, str, float, Sequence[float], Callable[[Path, float], Outcome]]

SCENES: list[Scene] = [
    ("ripple 100 Hz", "µA amplitude", 50.0, (5, 10, 20, 30, 50, 100, 150),
     lambda fw, x: room.ripple(fw, x, 100.0)),
    ("ripple 120 Hz", "µA amplitude", 50.0, (5, 10, 20, 30, 50, 100, 150),
     lambda fw, x: room.ripple(fw, x, 120.0)),
    ("sun on an empty cell", "µA steady", 4000.0, (100, 200, 240, 280, 320, 400, 1000, 4000),
     lambda fw, x: room.sun(fw, x)),
    ("hand 5 mm over, still 2 s (typical part)", "µA (minimum part)", HAND_UA,
     (3, 5, 7, 9, 11, 13), lambda fw, x: room.hand(fw, x, False)),
    ("hand passing to and fro 2 s (typical part)", "µA (minimum part)", HAND_UA,
     (3, 5, 7, 9, 11, 13), lambda fw, x: room.hand(fw, x, True)),
    ("window wall (typical part)", "reflectance", 0.3, (0.1, 0.2, 0.3, 0.4, 0.5, 0.6),
     lambda fw, x: room.wall(fw, x)),
]  # fmt: skip

PEARLS = (48.0, 40.0, 32.0, 28.0, 24.0, 20.0, 16.0)


def survives(fw: Path, values: Sequence[float], run: Callable[[Path, float], Outcome]) -> str:
    best = None
    for value in values:
        if not run(fw, value).holds:
            break
        best = value
    return "none" if best is None else f"{best:g}"


def least_pearl(fw: Path) -> str:
    best = None
    for value in PEARLS:
        if not room.dark_pearl(fw, value).holds:
            break
        best = value
    return "none" if best is None else f"{best:g} µA"


def slowest_tau(fw: Path) -> str:
    """The slowest phototransistor at which a pearl on a1 (first of its group) is seen."""
    best = None
    for tau in (50.0, 100.0, 150.0, 200.0):
        rig = room.Rig(fw, room.Part(tau_us=tau))
        rig.run(100)
        rig.front.reflection[0] = DARK_PEARL_UA
        rig.run(500)
        if not rig.state & 1:
            break
        best = tau
    return "none" if best is None else f"{best:g} µs"


def main() -> None:
    firmwares = {
        "today's": firmware_files(TODAYS),
        "shipped": firmware_files(),
        "calibrated": room.calibrated(),
    }
    print(
        "| scene | at | "
        + " | ".join(f"{label}: margin | {label}: survives" for label in firmwares)
        + " |"
    )
    print("| --- | --- |" + " --- | --- |" * len(firmwares))
    for name, unit, level, values, run in SCENES:
        cells = []
        for fw in firmwares.values():
            outcome = run(fw, level)
            verdict = "" if outcome.holds else " (fails)"
            cells += [f"{outcome.margin:.2f}{verdict}", f"{survives(fw, values, run)} {unit}"]
        print(f"| {name} | {level:g} {unit} | " + " | ".join(cells) + " |")
    cells = []
    for fw in firmwares.values():
        outcome = room.dark_pearl(fw, DARK_PEARL_UA)
        verdict = "" if outcome.holds else " (fails)"
        cells += [f"{outcome.margin:.2f}{verdict}", f"seen down to {least_pearl(fw)}"]
    print(
        f"| darkest pearl, 50 µA 120 Hz ripple | {DARK_PEARL_UA:g} µA | " + " | ".join(cells) + " |"
    )
    taus = " | ".join(f" | {slowest_tau(fw)}" for fw in firmwares.values())
    print(f"| slow phototransistor (a1, first of its group) | 200 µs | {taus} |")
    for label, fw in firmwares.items():
        outcome = room.ripple(fw, 0.0, 100.0)
        print(
            f"\n{label} firmware: scan {outcome.scan_ms:.1f} ms, a pearl counted "
            f"{outcome.latency_ms:.0f} ms after it is put down (debounced)"
        )


if __name__ == "__main__":
    main()
