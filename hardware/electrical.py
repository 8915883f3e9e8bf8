"""The electrical figures the matrix depends on, from the chips' datasheets, in one place.

The lgpio model (reset pulls), the mock circuits (whether a loaded column still reads
high) and the ngspice netlists (``hardware/spice/``, the settle times) all read them here.

Sources:

- **BCM2711** (Raspberry Pi 4, 400, CM4): *BCM2711 ARM Peripherals*, §5.3 "Alternative
  Function Assignments", column "Pull": GPIO 0–8 reset with the pull-up on, GPIO 9–27
  with the pull-down on (the same split as the BCM2835's table on p. 102 of its
  peripherals manual). Levels, drive and pulls from Raspberry Pi's documentation,
  "Raspberry Pi hardware" → "GPIO on Raspberry Pi" → "Voltage specifications", the table
  for BCM2711-based products: V_IL ≤ 0.8 V, V_IH ≥ 2.0 V, V_OL ≤ 0.4 V at 4 mA (the
  default 4 mA drive: at most 100 Ω pulling low), pull-up and pull-down 33–73 kΩ. That
  table gives no input capacitance; the BCM2835/2837 table beside it gives 5 pF, taken
  here.
- **RP1** (Raspberry Pi 5): *RP1 Peripherals* (Raspberry Pi Ltd, draft 2023-11), the
  pad registers of bank 0 (GPIO 0–27, the header): the reset pulls keep the BCM2711's
  split (0–8 up, 9–27 down), which ``pinctrl get`` on a freshly booted Pi 5 also shows
  (``4: no pu``, ``17: no pd``); 3.3 V levels as the BCM2711's. Its draft gives no pull
  resistance; the BCM2835/2837 table's 50–65 kΩ stay here until it does.
- **RP2040** (Raspberry Pi Pico): *RP2040 Datasheet* §5.5.3 "Pin Specifications"
  (IOVDD = 3.3 V): V_IL ≤ 0.8 V, V_IH ≥ 2.0 V, pull-up and pull-down 50–80 kΩ, input
  capacitance 5 pF (the pad's; the Pico's board traces add a few pF more, which the
  simulations add to the wire's), V_OL ≤ 0.4 V at the default 4 mA drive. Its pads
  reset with the pull-down on, but MicroPython's ``Pin(n, mode, pull)`` sets the pulls
  it is given, none for the firmware's rows.
- **BAT43** (Schottky; DO-35, and BAT43W in SOD-123 on the printed board): ST's
  *BAT42/BAT43* datasheet (Ed. 1C, October 2001), "Static characteristics": V_F
  0.26 V minimum to 0.33 V maximum at 2 mA, at most 0.45 V at 15 mA, I_R at most 0.5 µA
  at 25 V; "Dynamic characteristics": C = 7 pF typical at 1 V reverse. The SOD-123 and
  SOD-323 parts give a maximum of 10 pF at 1 V (SynSemi *BAT42WS–BAT43WS*, Rev. 03,
  "Total capacitance"). ``hardware/spice/matrix.cir`` models the diode at the maximum
  forward drops (the highest low level a column can have) and the 10 pF maximum (the
  slowest release).

>>> BCM2711.reset_pull(4), BCM2711.reset_pull(17), RP2040.pull_ohms
('up', 'down', (50000.0, 80000.0))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Pull = Literal["up", "down", "none"]

SUPPLY_V: Final = 3.3
"""The GPIO banks' supply on a Pi and a Pico (and the matrix's pull-ups)."""

SCHOTTKY_DROP_V: Final = 0.05
"""Less than the forward drop of a BAT43/BAT85 at the ten-odd microamperes a pull-down
lets through a closed crossing (about 0.17 V by the model at the datasheet's maximum
drops, ``hardware/spice/matrix.cir``; the datasheets bound the drop only from 2 mA up,
where the least is 0.26 V). Less, because a smaller drop loads a column more: the
mock circuits take it to judge a loaded column pessimistically."""


@dataclass(frozen=True, slots=True)
class Pads:
    """A chip's 3.3 V GPIO pads: input thresholds, pull resistors, reset pulls."""

    name: str
    v_il: float
    """Highest voltage guaranteed to read low."""
    v_ih: float
    """Lowest voltage guaranteed to read high."""
    pull_ohms: tuple[float, float]
    """Least and greatest resistance of the pad's pull-up and pull-down."""
    input_pf: float
    """The pad's input capacitance."""
    pulled_up_at_reset: range
    """GPIOs whose pull-up is on after reset; the others up to ``pulled_down_below``..."""
    pulled_down_below: int
    """... have the pull-down on; from here on: none."""
    r_on: float
    """The greatest resistance of an output pulling low at its default drive
    (V_OL max / I_OL)."""

    def reset_pull(self, gpio: int) -> Pull:
        """The pull ``gpio`` has after reset, until something sets another."""
        if gpio in self.pulled_up_at_reset:
            return "up"
        return "down" if gpio < self.pulled_down_below else "none"


BCM2711: Final = Pads("BCM2711", 0.8, 2.0, (33e3, 73e3), 5.0, range(0, 9), 28, 0.4 / 4e-3)
RP1: Final = Pads("RP1", 0.8, 2.0, (50e3, 65e3), 5.0, range(0, 9), 28, 0.4 / 4e-3)
RP2040: Final = Pads("RP2040", 0.8, 2.0, (50e3, 80e3), 5.0, range(0), 30, 0.4 / 4e-3)


def column_volts(pull_up_ohms: float, loads: int, pull_down_ohms: float) -> float:
    """A released column's level, pulled up by ``pull_up_ohms`` and loaded by ``loads``
    closed crossings on released rows that are pulled down by ``pull_down_ohms`` each
    (through the diode's least drop, :data:`SCHOTTKY_DROP_V`). ngspice's figures for the
    same circuit (``tests/hardware/test_circuits.py``) lie above this one.

    >>> round(column_volts(10e3, 0, 33e3), 2), round(column_volts(73e3, 1, 33e3), 2)
    (3.3, 1.06)
    """
    if loads == 0:
        return SUPPLY_V
    down = pull_down_ohms / loads
    return SCHOTTKY_DROP_V + (SUPPLY_V - SCHOTTKY_DROP_V) * down / (down + pull_up_ohms)
