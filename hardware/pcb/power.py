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

The pico board's LEDs are WS2812B-2020s: :data:`WS2812_COLOUR_AMPS` per colour (Worldsemi,
WS2812B-2020 data sheet, "LED characteristic" table: each colour's luminous intensity and
wavelength are given at 12 mA, its constant-current drive) and :data:`DARK_AMPS` for the
controller, taken as on the base board (the data sheet's quiescent figure is lower). Its
+5V also lights one emitter group at a time (six TCRT1000s at most, each
:data:`EMITTER_AMPS` at most through its 150 Ω) and the speaker (:data:`SPEAKER_AMPS`,
5 V across its 8 Ω and 47 Ω). The top's IR module runs from the Pico's 3V3, not +5V.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hardware.pcb.design import Board, Placed

__all__ = [
    "COLOUR_AMPS",
    "DARK_AMPS",
    "DROP_LIMIT",
    "EMITTER_AMPS",
    "FUSE_HOLD",
    "LED_KINDS",
    "SPEAKER_AMPS",
    "WS2812_COLOUR_AMPS",
    "Budget",
    "budget",
    "led_pads",
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
WS2812_COLOUR_AMPS = 0.012
"""Per colour at full brightness, WS2812B-2020 (Worldsemi's data sheet, see above)."""
EMITTER_AMPS = round((5.0 - 1.0) / 150.0, 4)
"""A TCRT1000 emitter through its 150 Ω at most: (5 V − 1.0 V) / 150 Ω (the forward
voltage taken low: :data:`hardware.pcb.pico.EMITTER_VF_LOW`)."""
SPEAKER_AMPS = round(5.0 / (8.0 + 150.0), 4)
"""The speaker switched on: 5 V across its 8 Ω coil and 150 Ω series resistor."""
LED_KINDS: dict[str, tuple[float, str, str]] = {
    "led": (COLOUR_AMPS, "1", "6"),
    "ws2812": (WS2812_COLOUR_AMPS, "4", "2"),
}
"""LED part key → (amps per colour at full brightness, its VDD pad, its GND pad)."""


def _led_amps(board: Board) -> dict[str, float]:
    return {
        p.ref: 3 * LED_KINDS[p.kind.key][0] + DARK_AMPS
        for p in board.parts
        if p.kind.key in LED_KINDS
    }


def led_pads(board: Board) -> tuple[str, str]:
    """The board's LEDs' VDD and GND pads."""
    (kind,) = {p.kind.key for p in board.parts if p.kind.key in LED_KINDS}
    return LED_KINDS[kind][1], LED_KINDS[kind][2]


def _groups(board: Board) -> dict[str, list[Placed]]:
    """Emitter group net → its emitter resistors (the pico board; empty elsewhere)."""
    anode = {p.nets["1"]: p.nets["2"] for p in board.parts if p.kind.key == "tcrt"}
    out: dict[str, list[Placed]] = {}
    for p in board.parts:
        if p.kind.key.startswith("R150") and p.nets["2"] in anode:
            out.setdefault(anode[p.nets["2"]], []).append(p)
    return out


@dataclass(frozen=True)
class Budget:
    leds: int
    ir_modules: int
    full_white: float
    """A: every LED white at full brightness, and the IR modules."""
    at_brightness: dict[float, float]


def budget(board: Board, *fed: Board) -> Budget:
    """The +5V rail's current: every LED at brightness b, and the rest as it draws at most
    (the base board: the IR modules through its regulator; the pico board: the largest
    emitter group lit, and the speaker), with what the boards it ``fed`` draw through
    their cable (the Pyramidos module's LEDs and emitters, in the pico board's groups)."""
    board = replace(board, parts=board.parts + tuple(p for b in fed for p in b.parts))
    amps = [(LED_KINDS[p.kind.key][0], p) for p in board.parts if p.kind.key in LED_KINDS]
    ir = sum(1 for p in board.parts if p.kind.key == "ir")
    pico = any(p.kind.key == "pico" for p in board.parts)
    groups = _groups(board)
    rest = (
        max((len(g) for g in groups.values()), default=0) * EMITTER_AMPS + SPEAKER_AMPS
        if pico
        else ir * IR_MODULE_AMPS
    )

    def at(b: float) -> float:
        return round(sum(3 * a * b + DARK_AMPS for a, _ in amps) + rest, 3)

    return Budget(len(amps), ir, at(1.0), {b: at(b) for b in (0.25, 0.5, 1.0)})


def loads(
    board: Board, *fed: Board
) -> tuple[dict[str, float], list[tuple[str, str, str, str, float]], dict[str, tuple[str, str]]]:
    """(LED reference → amps at full white, the other loads, where the supply enters each
    net) for :func:`hardware.pcb.copper.solve`; what the boards it ``fed`` draw (their
    LEDs white and every emitter lit) leaves at their cable's header, from its first +5V
    pin to its first ground pin."""
    leds = _led_amps(board)
    fuse = next(p for p in board.parts if p.kind.key == "fuse")
    usb = next(p for p in board.parts if p.kind.key == "usbc")
    entry = {"+5V": (fuse.ref, "2"), "GND": (usb.ref, "A1")}
    ldo = next((p for p in board.parts if p.kind.key == "ldo"), None)
    if ldo is not None:
        ir = sum(1 for p in board.parts if p.kind.key == "ir")
        return leds, [(ldo.ref, "1", ldo.ref, "2", ir * IR_MODULE_AMPS)], entry
    # the pico board: every emitter lit at once (more than the firmware ever lights: one
    # group at a time), each from its resistor's +5V pad back through its group's MOSFET,
    # and the speaker through its 150 Ω and transistor
    switch = {p.nets["3"]: p for p in board.parts if p.kind.key == "nfet"}
    others = [
        (r.ref, "1", switch[group].ref, "2", EMITTER_AMPS)
        for group, resistors in sorted(_groups(board).items())
        for r in resistors
    ]
    speaker = next(p for p in board.parts if p.role == "sounder series resistor")
    npn = next(p for p in board.parts if p.kind.key == "npn")
    others.append((speaker.ref, "1", npn.ref, "2", SPEAKER_AMPS))
    for other in fed:
        header = next(p for p in board.parts if p.kind.key == "idc20smd")
        plus = min((pad for pad, net in header.nets.items() if net == "+5V"), key=int)
        ground = min((pad for pad, net in header.nets.items() if net == "GND"), key=int)
        emitters = sum(1 for p in other.parts if p.kind.key.startswith("R150"))
        amps = sum(_led_amps(other).values()) + emitters * EMITTER_AMPS
        others.append((header.ref, plus, header.ref, ground, round(amps, 4)))
    return leds, others, entry
