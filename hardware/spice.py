"""The matrix, the multiplexers and the Pico's scan simulated in ngspice: settle times and levels.

The netlists are ``hardware/spice/*.cir`` (each runs alone: ``ngspice -b FILE``); this
module rewrites their ``.param`` lines for each case, runs ``ngspice -b`` in a scratch
directory, reads the waveform the netlist writes with ``wrdata`` and measures it. The
figures in hardware/README.md and the default ``settle_us`` of each build
(:data:`~controller.hardware.wiring.SETTLE_US`, ``firmware/config.py``'s ``SETTLE_US``)
come from :func:`figures`; ``tests/hardware/test_circuits.py`` checks them. Print the
table with::

    .venv/bin/python -m hardware.spice

Needs ngspice (Debian: ``apt-get install ngspice``) and the checkout's ``hardware/``.

>>> netlist("matrix", {"r_ext": "1e12"}).count(".param r_ext=1e12")
1
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from hardware.electrical import BCM2711, RP2040, SUPPLY_V, Pads

NETLISTS: Final = Path(__file__).resolve().parent / "spice"
WIRES_PF: Final = (20.0, 150.0)
"""The shortest and the longest wire a board has, as capacitance (about 20 cm to 1.5 m of
ribbon or hook-up wire at ~100 pF/m)."""
OPEN: Final = "1e12"
"""A reed that is open, a pull that is off, a resistor not fitted."""
MARGIN: Final = 1.5
"""A configured settle time must be at least this many times the simulated worst."""


class SpiceError(RuntimeError):
    """ngspice is missing, refused a netlist or wrote no waveform."""


def ngspice() -> str | None:
    """The ngspice executable, or None when it is not installed."""
    return shutil.which("ngspice")


def netlist(name: str, params: Mapping[str, str]) -> str:
    """``hardware/spice/<name>.cir`` with the given ``.param`` values (SPICE numbers)."""
    text = (NETLISTS / f"{name}.cir").read_text()
    for key, value in params.items():
        text, count = re.subn(rf"(?m)^\.param {re.escape(key)}=\S+$", f".param {key}={value}", text)
        if count != 1:
            raise KeyError(f"{name}.cir has no .param {key}")
    return text


@dataclass(frozen=True, slots=True)
class Waveform:
    """One node's voltage over time, as ngspice wrote it."""

    times: tuple[float, ...]
    volts: tuple[float, ...]

    def at(self, t: float) -> float:
        """The voltage at the last sample at or before ``t``."""
        index = max(i for i, time in enumerate(self.times) if time <= t)
        return self.volts[index]

    def reaches(self, level: float, after: float, rising: bool) -> float:
        """Seconds from ``after`` until the voltage first reaches ``level`` (rising: from
        below; else from above), interpolated between samples; inf if it never does."""
        previous: tuple[float, float] | None = None
        for time, volts in zip(self.times, self.volts, strict=True):
            if time < after:
                continue
            there = volts >= level if rising else volts <= level
            if there:
                if previous is None:
                    return 0.0
                (t0, v0), (t1, v1) = previous, (time, volts)
                return t0 + (t1 - t0) * (level - v0) / (v1 - v0) - after
            previous = (time, volts)
        return math.inf


def parse_wrdata(text: str) -> Waveform:
    """``wrdata`` with ``wr_singlescale`` and ``wr_vecnames``: a header, then time, value."""
    rows = [line.split() for line in text.splitlines()[1:] if line.strip()]
    if not rows:
        raise SpiceError("ngspice wrote no samples")
    return Waveform(tuple(float(r[0]) for r in rows), tuple(float(r[1]) for r in rows))


def simulate(name: str, params: Mapping[str, str]) -> Waveform:
    """Run ``hardware/spice/<name>.cir`` with ``params`` in ngspice's batch mode."""
    program = ngspice()
    if program is None:
        raise SpiceError("ngspice is not installed: apt-get install ngspice")
    with tempfile.TemporaryDirectory(prefix="pyramid-spice-") as scratch:
        path = Path(scratch) / f"{name}.cir"
        path.write_text(netlist(name, params))
        done = subprocess.run(
            [program, "-b", path.name], cwd=scratch, capture_output=True, text=True, check=False
        )
        data = Path(scratch) / f"{name}.data"
        if done.returncode != 0 or not data.exists():
            raise SpiceError(f"ngspice failed on {name}.cir:\n{done.stdout}{done.stderr}")
        return parse_wrdata(data.read_text())


# -- the builds ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatrixBuild:
    """A matrix as one build wires and scans it (values for ``matrix.cir``)."""

    name: str
    pads: Pads
    r_on: float
    """The row pad's output resistance, pulling low."""
    pull_up_ohms: float | None
    """The board's own column pull-ups (None: not fitted)."""
    rows_pulled_up: bool
    """Released rows have the pad's pull-up (the Pi since issue 21); else none (the Pico)."""


PI_MATRIX: Final = MatrixBuild("Pi matrix, 10 kΩ pull-ups", BCM2711, BCM2711.r_on, 10.5e3, True)
"""The Pi's matrix as hardware/README.md says to build it (10 kΩ ± 5 %: 10.5 kΩ at worst)."""
PI_MATRIX_OWN_PULLS: Final = replace(PI_MATRIX, name="Pi matrix, the Pi's pulls only",
                                     pull_up_ohms=None)  # fmt: skip
PICO: Final = MatrixBuild("Pico, its own pull-ups", RP2040, RP2040.r_on, None, True)
"""The Pico at its default 4 mA drive (0.4 V at 4 mA: 100 Ω), the optional 10 kΩ left
out; its firmware claims the rows with the pull-up on (``firmware/main.py``)."""
PICO_10K: Final = replace(PICO, name="Pico, 10 kΩ pull-ups", pull_up_ohms=10.5e3)
PICO_FLOATING_ROWS: Final = replace(PICO, name="Pico, rows without pull", rows_pulled_up=False)
"""Why the Pico's rows have their pull-up: let go without one, a row floats at the low
level and every column with a closed switch on it must charge it through the diode."""
MATRIX_BUILDS: Final = (PI_MATRIX, PI_MATRIX_OWN_PULLS, PICO, PICO_10K, PICO_FLOATING_ROWS)


def _ohms(value: float | None) -> str:
    return OPEN if value is None else f"{value:g}"


def matrix_params(
    build: MatrixBuild,
    wire_pf: tuple[float, float],
    closed: str,
    row_pulls: Mapping[str, str] | None = None,
    weakest_pulls: bool = True,
) -> dict[str, str]:
    """``matrix.cir``'s values: ``closed`` names the rows (a–e) whose crossing is closed;
    ``row_pulls`` overrides a row's pull ("up", "down"); ``weakest_pulls`` takes the
    pads' greatest pull resistance (slowest rise), else their least (strongest load)."""
    least, greatest = build.pads.pull_ohms
    pad = greatest if weakest_pulls else least
    params = {
        "r_on": f"{build.r_on:g}",
        "r_pad_col": f"{greatest:g}",
        "r_pad_row": f"{pad:g}" if build.rows_pulled_up or row_pulls else OPEN,
        "r_ext": _ohms(build.pull_up_ohms),
        "c_pin": f"{build.pads.input_pf:g}p",
        "c_col": f"{wire_pf[0]:g}p",
        "c_row": f"{wire_pf[1]:g}p",
    }
    for row in "abcde":
        params[f"r_{row}"] = "0.1" if row in closed else OPEN
        pull = (row_pulls or {}).get(row, "up")
        params[f"pull_{row}"] = f"{SUPPLY_V:g}" if pull == "up" else "0"
    return params


T_RELEASE: Final = 2e-6
"""When matrix.cir lets row a go (and pulls row b low)."""


@dataclass(frozen=True, slots=True)
class MatrixFigures:
    """What the simulations give for one build, over the wires of :data:`WIRES_PF`."""

    build: MatrixBuild
    rise_us: float
    """Longest time, after a row is let go, for a column it held low to reach V_IH."""
    rise_wire_pf: tuple[float, float]
    """The (column, row) wire capacitance of that longest rise."""
    fall_us: float
    """Longest time, after a row is pulled low, for a column it closes to reach V_IL."""
    low_v: float
    """Highest level of a column held low through one closed crossing (others closed too)."""
    loaded_high_v: float
    """Lowest level of an open column with closed crossings on three released rows."""
    reset_pull_high_v: float | None
    """The same with those three rows pulled *down* (a Pi's reset pulls, least resistance);
    None for the Pico, whose firmware sets its rows' pulls (none)."""

    @property
    def settle_us(self) -> float:
        """The wait a scan needs after pulling a row low: rise or fall, whichever is longer."""
        return max(self.rise_us, self.fall_us)


def matrix_figures(build: MatrixBuild) -> MatrixFigures:
    """Simulate ``build`` at every combination of the shortest and longest wires."""
    rise, rise_wire, fall, low = 0.0, (0.0, 0.0), 0.0, 0.0
    for wires in ((c, r) for c in WIRES_PF for r in WIRES_PF):
        # Row a held the column low through its crossing (c, d, e closed on released
        # rows too: their diode capacitance loads the column); then a lets go, b pulls.
        wave = simulate("matrix", matrix_params(build, wires, "acde"))
        low = max(low, wave.at(T_RELEASE - 1e-8))
        took = wave.reaches(build.pads.v_ih, T_RELEASE, rising=True)
        if took > rise:
            rise, rise_wire = took, wires
        # Row b pulls the column low through its crossing after a lets go.
        wave = simulate("matrix", matrix_params(build, wires, "b"))
        fall = max(fall, wave.reaches(build.pads.v_il, T_RELEASE, rising=False))
    longest = (WIRES_PF[1], WIRES_PF[1])
    loaded = simulate("matrix", matrix_params(build, longest, "cde", weakest_pulls=False))
    reset: Waveform | None = None
    # MicroPython sets every pin's pulls, so an RP2040's reset pull-downs never reach a row.
    if build.pads is not RP2040:
        down = {"c": "down", "d": "down", "e": "down"}
        reset = simulate(
            "matrix", matrix_params(build, longest, "cde", row_pulls=down, weakest_pulls=False)
        )
    return MatrixFigures(
        build,
        rise * 1e6,
        rise_wire,
        fall * 1e6,
        low,
        loaded.at(T_RELEASE - 1e-8),
        reset.at(T_RELEASE - 1e-8) if reset is not None else None,
    )


T_SELECT: Final = 2e-6
"""When mux.cir changes the address."""


@dataclass(frozen=True, slots=True)
class MuxFigures:
    """What the simulations give for the mux build, over the wires of :data:`WIRES_PF`."""

    name: str
    rise_us: float
    """Longest time, after the address changes from an active sensor to an idle one, for
    SIG to reach V_IH."""
    rise_wire_pf: tuple[float, float]
    """The (SIG wire, sensor wire) capacitance of that longest rise."""
    fall_us: float
    """Longest time, after the address changes to an active sensor, to reach V_IL."""
    low_v: float
    """SIG's level while an active sensor holds it low."""

    @property
    def settle_us(self) -> float:
        """The wait a scan needs after changing the address."""
        return max(self.rise_us, self.fall_us)


def mux_figures(pull_up_ohms: float | None = 10.5e3) -> MuxFigures:
    """The Pi's mux build (DRV5033s on CD74HC4067s), SIG pulled up by ``pull_up_ohms``."""
    pads = BCM2711
    rise, rise_wire, fall, low = 0.0, (0.0, 0.0), 0.0, 0.0
    for sig, wire in ((s, w) for s in WIRES_PF for w in WIRES_PF):
        params = {
            "r_pad": f"{pads.pull_ohms[1]:g}",
            "c_pin": f"{pads.input_pf:g}p",
            "r_ext": _ohms(pull_up_ohms),
            "c_sig": f"{sig:g}p",
            "c_wire": f"{wire:g}p",
        }
        wave = simulate("mux", params | {"s0_on": "1", "s1_on": "0", "v_w1": "0"})
        low = max(low, wave.at(T_SELECT - 1e-8))
        took = wave.reaches(pads.v_ih, T_SELECT, rising=True)
        if took > rise:
            rise, rise_wire = took, (sig, wire)
        wave = simulate("mux", params | {"s0_on": "0", "s1_on": "1", "v_w1": "0"})
        fall = max(fall, wave.reaches(pads.v_il, T_SELECT, rising=False))
    name = "Pi mux, 10 kΩ SIG pull-ups" if pull_up_ohms else "Pi mux, the Pi's pulls only"
    return MuxFigures(name, rise * 1e6, rise_wire, fall * 1e6, low)


def derived_settle_us(worst_us: float) -> float:
    """The default settle time for a build whose worst simulated settling is ``worst_us``:
    twice it, rounded up to a whole microsecond (so at least :data:`MARGIN` times it)."""
    return float(math.ceil(2 * worst_us))


def _table(rows: Sequence[MatrixFigures]) -> str:
    lines = [
        "| build | rise to V_IH after a row lets go (worst wire) | fall to V_IL | low level "
        "| open column, 3 closed on released rows | the same, rows at the reset pull-down "
        "| settle_us |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for f in rows:
        reset = "–" if f.reset_pull_high_v is None else f"{f.reset_pull_high_v:.2f} V"
        lines.append(
            f"| {f.build.name} | {f.rise_us:.1f} µs ({f.rise_wire_pf[0]:g} / "
            f"{f.rise_wire_pf[1]:g} pF) | {f.fall_us:.2f} µs | {f.low_v:.2f} V "
            f"| {f.loaded_high_v:.2f} V | {reset} "
            f"| {derived_settle_us(f.settle_us):g} |"
        )
    return "\n".join(lines)


def _mux_table(rows: Sequence[MuxFigures]) -> str:
    lines = [
        "| build | rise to V_IH after the address changes (worst wire) | fall to V_IL "
        "| low level | settle_us |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in rows:
        lines.append(
            f"| {f.name} | {f.rise_us:.1f} µs ({f.rise_wire_pf[0]:g} / {f.rise_wire_pf[1]:g} "
            f"pF) | {f.fall_us:.2f} µs | {f.low_v:.2f} V | {derived_settle_us(f.settle_us):g} |"
        )
    return "\n".join(lines)


def main() -> None:
    print(_table([matrix_figures(build) for build in MATRIX_BUILDS]))
    print()
    print(_mux_table([mux_figures(10.5e3), mux_figures(None)]))


if __name__ == "__main__":
    main()
