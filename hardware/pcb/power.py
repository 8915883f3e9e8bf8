"""The base board's LED supply budget, and its loads on the copper.

Per LED (SK9822-EC20 / APA102-2020) at full brightness: :data:`COLOUR_AMPS` per colour, so
three times that for white, plus :data:`DARK_AMPS` for its controller. The APA102 family's
outputs are constant-current sinks of about 20 mA per colour (the APA102 datasheet, "built
in constant current 20 mA"); a third-party table gives about 10 mA per colour for the
2 × 2 mm part. The board is sized for the larger: the fuse, the supply and the copper
stay right whichever the part in hand draws. The IR modules' 3.3 V (the geometry file's
figures, 20 mA each) comes through the regulator from the same rail.

The fuse (:data:`FUSE_HOLD`) holds the whole full-white budget; the supply asked for is a
5 V USB-C source of 3 A (its sink resistors ask for 5 V only, never more).
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.pcb.design import Board

__all__ = [
    "COLOUR_AMPS",
    "DARK_AMPS",
    "DROP_LIMIT",
    "FUSE_HOLD",
    "Budget",
    "budget",
    "loads",
]

COLOUR_AMPS = 0.020
"""Per colour at full brightness (the APA102 family's constant-current outputs)."""
DARK_AMPS = 0.001
"""An LED's controller, all colours off."""
IR_MODULE_AMPS = 0.020
"""Each IR module at 3.3 V (hardware/geometry.toml, the sensors' ``current``)."""
FUSE_HOLD = 2.6
"""The PTC's hold current, A (LUTE 1812L260/30GR: 2.6 A hold, 5 A trip)."""
DROP_LIMIT = 0.25
"""The most an LED's supply may lose to the copper at full white, V."""
WARM_COPPER = 60.0
"""°C: the copper's temperature the drop is solved at (warm: more resistance)."""


@dataclass(frozen=True)
class Budget:
    leds: int
    ir_modules: int
    full_white: float
    """A: every LED white at full brightness, and the IR modules."""
    at_brightness: dict[float, float]


def budget(board: Board) -> Budget:
    leds = sum(1 for p in board.parts if p.kind.key == "led")
    ir = sum(1 for p in board.parts if p.kind.key == "ir")

    def at(b: float) -> float:
        return round(leds * (3 * COLOUR_AMPS * b + DARK_AMPS) + ir * IR_MODULE_AMPS, 3)

    return Budget(leds, ir, at(1.0), {b: at(b) for b in (0.25, 0.5, 1.0)})


def loads(
    board: Board,
) -> tuple[dict[str, float], list[tuple[str, str, str, str, float]], dict[str, tuple[str, str]]]:
    """(LED reference → amps at full white, the other loads, where the supply enters each
    net) for :func:`hardware.pcb.copper.solve`."""
    leds = {p.ref: 3 * COLOUR_AMPS + DARK_AMPS for p in board.parts if p.kind.key == "led"}
    ir = sum(1 for p in board.parts if p.kind.key == "ir")
    ldo = next(p for p in board.parts if p.kind.key == "ldo")
    fuse = next(p for p in board.parts if p.kind.key == "fuse")
    usb = next(p for p in board.parts if p.kind.key == "usbc")
    others = [(ldo.ref, "1", ldo.ref, "2", ir * IR_MODULE_AMPS)]
    return leds, others, {"+5V": (fuse.ref, "2"), "GND": (usb.ref, "A1")}
