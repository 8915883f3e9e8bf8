"""Every part of the pico board within its rating, computed from the board's own values.

The worst case, held without end: the LED rail at the most a USB port gives, and every
switch left on. Both happen: ``pyramid flash`` stops the firmware with Ctrl-C wherever it
is, which can leave an emitter group lit, and a REPL (mpremote, Thonny) can set the
speaker's GPIO high. So each resistor is held to its size's rated power, each emitter to
the TCRT1000's forward current, the speaker's transistor and diode to their currents and
dissipation, and the Pico's pin to its drive strength, with nothing averaged over a duty
cycle. Where a figure comes from is in hardware/README.md, "Data-sheet values used here".
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.pcb.design import Board, Placed
from hardware.pcb.parts import RESISTOR_WATTS, resistor_size
from hardware.pcb.pico import EMITTER_VF_LOW

__all__ = [
    "BASE_VBE",
    "GPIO_DRIVE_AMPS",
    "SPEAKER_DC_OHMS",
    "SUPPLY_MAX",
    "Rating",
    "base_overdrive",
    "ratings",
]

SUPPLY_MAX = 5.25
"""V: the most a USB port's VBUS gives (USB 2.0 specification, §7.3.2, Table 7-7:
4.75–5.25 V at a port), on the LED rail through the fuse taken as no drop."""
GPIO_HIGH = 3.3
"""V: a Pico GPIO driven high (its 3V3 rail)."""
GPIO_DRIVE_AMPS = 0.004
"""A: the RP2040 pads' drive strength after reset, which MicroPython keeps (Raspberry Pi
Ltd, RP2040 Datasheet, §2.19.6.3 Pad Control, DRIVE: 4 mA by default)."""
BASE_VBE = 0.65
"""V: the speaker transistor's base-emitter voltage taken low (so its base current is an
upper bound)."""
SPEAKER_DC_OHMS = 6.0
"""Ω: the 8 Ω speaker's coil taken at three quarters of its nominal impedance (a dynamic
speaker's DC resistance is below its nominal impedance), so that the current is an upper
bound."""
TCRT_IF_MAX = 0.050
"""A: TCRT1000 emitter, absolute maximum forward current (Vishay, doc. 83752 Rev. 1.8,
p. 2, absolute maximum ratings, input: I_F 50 mA)."""
TCRT_VF_MAX = 1.6
"""V: its forward voltage at most (p. 2, basic characteristics: 1.6 V max at 50 mA)."""
TCRT_PV_MAX = 0.100
"""W: its emitter's power dissipation (p. 2, absolute maximum ratings, input: P_V 100 mW
at 25 °C)."""
NPN_IC_MAX = 0.200
"""A: MMBT3904 collector current (onsemi, MMBT3904LT1/D, maximum ratings: 200 mAdc)."""
NPN_PD_MAX = 0.225
"""W: MMBT3904 total dissipation on FR-5 at 25 °C (the same, thermal characteristics)."""
NPN_VCE_SAT = 0.3
"""V: its saturation voltage at I_C 50 mA, I_B 5 mA at most (the same, on
characteristics)."""
DIODE_IO_MAX = 0.150
"""A: 1N4148W average forward current (Diodes Inc., 1N4148W data sheet DS30086, maximum
ratings: I_O 150 mA)."""
NFET_ID_MAX = 5.7
"""A: AO3400A continuous drain current at 25 °C (Alpha & Omega, AO3400A data sheet,
absolute maximum ratings)."""


@dataclass(frozen=True)
class Rating:
    ref: str
    what: str
    value: float
    limit: float
    unit: str

    @property
    def within(self) -> bool:
        return self.value <= self.limit

    def __str__(self) -> str:
        return (
            f"{self.ref} {self.what}: {self.value:.3g} {self.unit} of {self.limit:g} "
            f"{self.unit} ({100 * self.value / self.limit:.0f} %)"
        )


def _ohms(part: Placed) -> float:
    value = part.kind.value
    scale = {"k": 1e3, "M": 1e6}
    for suffix, factor in scale.items():
        if suffix in value:
            whole, _, frac = value.partition(suffix)
            return float(f"{whole}.{frac or 0}") * factor
    return float(value)


def _resistor(ref: str, part: Placed, amps: float, what: str) -> Rating:
    return Rating(ref, what, amps**2 * _ohms(part), RESISTOR_WATTS[resistor_size(part.kind)], "W")


def ratings(board: Board) -> list[Rating]:
    """Each part of the pico board's emitters and speaker driver against its rating."""
    by_net: dict[str, list[Placed]] = {}
    for p in board.parts:
        for net in set(p.nets.values()):
            by_net.setdefault(net, []).append(p)
    out: list[Rating] = []
    emitter_amps: dict[str, float] = {}
    for tcrt in (p for p in board.parts if p.kind.key == "tcrt"):
        (r,) = [p for p in by_net[tcrt.nets["1"]] if p is not tcrt]
        amps = (SUPPLY_MAX - EMITTER_VF_LOW) / _ohms(r)
        emitter_amps[tcrt.ref] = amps
        out.append(_resistor(r.ref, r, amps, "emitter resistor, lit without end"))
        out.append(Rating(tcrt.ref, "emitter forward current", amps, TCRT_IF_MAX, "A"))
        out.append(Rating(tcrt.ref, "emitter dissipation", amps * TCRT_VF_MAX, TCRT_PV_MAX, "W"))
    for q in (p for p in board.parts if p.kind.key == "nfet"):
        lit = sum(emitter_amps[p.ref] for p in by_net[q.nets["3"]] if p.kind.key == "tcrt")
        out.append(Rating(q.ref, "drain current, its group lit", lit, NFET_ID_MAX, "A"))
    npn = next((p for p in board.parts if p.kind.key == "npn"), None)
    if npn is None:
        return out
    series = next(p for p in board.parts if p.role == "sounder series resistor")
    base = next(p for p in board.parts if p.role == "sounder switch base resistor")
    diode = next(p for p in board.parts if p.kind.key == "flyback")
    coil = SUPPLY_MAX / (_ohms(series) + SPEAKER_DC_OHMS)  # the transistor taken as 0 V
    out.append(_resistor(series.ref, series, coil, "speaker's series resistor, on without end"))
    out.append(Rating(npn.ref, "collector current", coil, NPN_IC_MAX, "A"))
    out.append(Rating(npn.ref, "dissipation", coil * NPN_VCE_SAT, NPN_PD_MAX, "W"))
    out.append(Rating(diode.ref, "flyback current (the coil's at turn-off)", coil, DIODE_IO_MAX,
                      "A"))  # fmt: skip
    drive = (GPIO_HIGH - BASE_VBE) / _ohms(base)
    out.append(Rating(base.ref, "the GPIO's current into the base", drive, GPIO_DRIVE_AMPS, "A"))
    out.append(_resistor(base.ref, base, drive, "base resistor"))
    return out


def base_overdrive(board: Board) -> float:
    """The speaker transistor's forced gain: collector over base current, the base's least
    (its pull-down takes its share). Below 10–20 it is saturated as the data sheet's
    V_CE(sat) assumes."""
    series = next(p for p in board.parts if p.role == "sounder series resistor")
    base = next(p for p in board.parts if p.role == "sounder switch base resistor")
    pull = next(p for p in board.parts if p.role == "sounder switch base pull-down")
    ib = (GPIO_HIGH - 0.85) / _ohms(base) - 0.85 / _ohms(pull)
    ic = 5.0 / (_ohms(series) + 8.0)
    return ic / ib
