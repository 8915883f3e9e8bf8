"""Checks of the boards against their netlist and against the config, all pure.

KiCad 6 cannot run its ERC without the schematic editor's window (no ``kicad-cli``, no
Python API in Eeschema), so :func:`erc` applies the rules of KiCad's ERC pin matrix that
this design can break to the netlist: every pin on a net (or marked not connected), no
net with one pin, no two outputs driving one net, no input or power input without
anything that can drive it.

:func:`pads_against_netlist` compares what a ``.kicad_pcb`` says (KiCad's own reading of
it, from ``kicad.py dump``) with the design's nets. :func:`trace` follows the copper of
both boards, from each sensor found at its place on the base board through its diode,
the ribbon cable and the HAT's resistors to the Pi's header, and along the LED chain
from the Pi's SPI pins through the base board's buffer; :func:`against_config` compares
that with the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hardware.pcb.design import BaseSpec, Board, PinMap
from hardware.pcb.library import PI_HEADER
from hardware.pcb.parts import CATALOGUE

__all__ = ["Traced", "against_config", "erc", "erc_pins", "pads_against_netlist", "trace"]

OPTO = CATALOGUE["opto"].value
LED = CATALOGUE["led"].value

Dump = Mapping[str, Any]
"""``kicad.py dump``'s answer: {"parts": [{"ref", "value", "x", "y", "pads": [...]}]}."""


def erc(board: Board) -> list[str]:
    """What KiCad's ERC would report on this board's netlist (empty: clean)."""
    pins: dict[tuple[str, str], tuple[str | None, str]] = {}
    for part in board.parts:
        for pad, pin in part.kind.pins.items():
            pins[(part.ref, pad)] = (part.nets.get(pad), pin.type)
    return erc_pins(pins)


def erc_pins(pins: Mapping[tuple[str, str], tuple[str | None, str]]) -> list[str]:
    """The same rules over (reference, pin) → (net or None, electrical type): a
    schematic's netlist as :func:`hardware.pcb.schematic.read` finds it, or a board's."""
    problems = []
    types: dict[str, list[tuple[str, str]]] = {}
    for (ref, pad), (net, kind) in sorted(pins.items()):
        if net is None:
            problems.append(f"{ref} pin {pad} is on no net")
            continue
        types.setdefault(net, []).append((f"{ref}.{pad}", kind))
    for net, members in sorted(types.items()):
        if net.startswith("unconnected-"):
            continue
        kinds = [t for _, t in members]
        refs = ", ".join(r for r, _ in members)
        if len(members) < 2:
            problems.append(f"net {net} has one pin only ({refs})")
        drivers = sum(k in ("output", "power_out") for k in kinds)
        if sum(k == "output" for k in kinds) > 1:
            problems.append(f"net {net}: more than one output drives it ({refs})")
        can_drive = drivers + sum(k in ("passive", "bidirectional") for k in kinds)
        if any(k in ("input", "power_in") for k in kinds) and not can_drive:
            problems.append(f"net {net}: inputs with nothing to drive them ({refs})")
    return problems


def pads_against_netlist(dump: Dump, board: Board) -> list[str]:
    """Every pad of the ``.kicad_pcb`` on the net the design gives it, every part where
    the design puts it (empty: they agree)."""
    problems = []
    want = {p.ref: p for p in board.parts}
    seen = set()
    for part in dump["parts"]:
        ref = part["ref"]
        if part["value"] == "mounting hole":
            continue
        seen.add(ref)
        if ref not in want:
            problems.append(f"{ref} is on the board but not in the netlist")
            continue
        placed = want[ref]
        if abs(part["x"] - placed.x) > 1e-3 or abs(part["y"] - placed.y) > 1e-3:
            problems.append(f"{ref} at ({part['x']:.2f}, {part['y']:.2f}), the design puts it "
                            f"at ({placed.x:.2f}, {placed.y:.2f})")  # fmt: skip
        for pad in part["pads"]:
            expected = placed.nets.get(pad["pad"], "")
            if expected.startswith("unconnected-"):
                expected = ""
            if pad["net"] != expected:
                problems.append(
                    f"{ref} pad {pad['pad']} is on {pad['net'] or 'no net'!r}, "
                    f"the netlist says {expected or 'none'!r}"
                )
    problems += [f"{ref} is in the netlist but not on the board" for ref in want if ref not in seen]
    return problems


@dataclass(frozen=True)
class Traced:
    switches: dict[str, tuple[int, int]]
    """Place name → (row GPIO, column GPIO) its switch and diode reach through the copper."""
    leds: list[str]
    """The LEDs in chain order from the Pi's SPI data pin, each named by where it sits."""
    clock: list[str]
    """The same, along the clock line."""
    problems: list[str]


def _index(dump: Dump) -> tuple[dict[str, list[tuple[str, str]]], dict[str, dict[str, str]]]:
    by_net: dict[str, list[tuple[str, str]]] = {}
    pads: dict[str, dict[str, str]] = {}
    for part in dump["parts"]:
        for pad in part["pads"]:
            if pad["net"]:
                by_net.setdefault(pad["net"], []).append((part["ref"], pad["pad"]))
            pads.setdefault(part["ref"], {})[pad["pad"]] = pad["net"]
    return by_net, pads


def trace(base: Dump, hat: Dump, spec: BaseSpec, pins: PinMap) -> Traced:
    """Follow the copper of both boards as a signal would (see the module's doc)."""
    problems: list[str] = []
    b_net, b_pads = _index(base)
    h_net, h_pads = _index(hat)
    values = {p["ref"]: p["value"] for p in base["parts"]}
    h_values = {p["ref"]: p["value"] for p in hat["parts"]}
    where = {p["ref"]: (p["x"], p["y"]) for p in base["parts"]}

    def at(point: tuple[float, float]) -> str | None:
        for ref, (x, y) in where.items():
            if abs(x - point[0]) < 0.01 and abs(y - point[1]) < 0.01:
                return str(ref)
        return None

    def header(board: Mapping[str, str], value: str) -> str:
        return next(ref for ref, v in board.items() if v == value)

    base_j = header(values, "2x10 IDC")
    hat_j = header(h_values, "2x10 IDC")
    pi = header(h_values, "Raspberry Pi GPIO")

    def gpio_of(base_net: str, resistor: str) -> int | None:
        """Base net → cable pin → HAT net → through ``resistor`` → the Pi header's GPIO."""
        pin = next((pad for ref, pad in b_net.get(base_net, []) if ref == base_j), None)
        if pin is None:
            return None
        hat_net = h_pads[hat_j].get(pin, "")
        for ref, pad in h_net.get(hat_net, []):
            if h_values.get(ref) != resistor:
                continue
            other = next(n for p, n in h_pads[ref].items() if p != pad)
            for r2, p2 in h_net.get(other, []):
                if r2 == pi:
                    name = PI_HEADER[p2]
                    return int(name.removeprefix("GPIO")) if name.startswith("GPIO") else None
        return None

    switches: dict[str, tuple[int, int]] = {}
    for site in spec.sites:
        if site.sensor is None or site.kind == "none":
            continue
        if site.kind == "button":
            sx, sy = site.sensor
            buttons = [r for r in where if values[r] == "button"]
            ref = min(buttons, key=lambda r: (where[r][0] - sx) ** 2 + (where[r][1] - sy) ** 2)
            if (where[ref][0] - sx) ** 2 + (where[ref][1] - sy) ** 2 > 100:
                ref = None
        else:
            ref = at(site.sensor)
        if ref is None:
            problems.append(f"{site.name}: no part at its place {site.sensor}")
            continue
        if site.kind == "ir":
            signal = b_pads[ref].get("3", "")
            opto = next((r for r, p in b_net.get(signal, []) if values[r] == OPTO), None)
            if opto is None:
                problems.append(f"{site.name}: its IR socket drives no {OPTO}")
                continue
            column, between = b_pads[opto]["4"], b_pads[opto]["3"]
        else:
            column, between = b_pads[ref].get("1", ""), b_pads[ref].get("2", "")
        diode = next((r for r, p in b_net.get(between, []) if values[r] == "BAT43W" and p == "2"),
                     None)  # fmt: skip
        if diode is None:
            problems.append(f"{site.name}: no diode's anode on {between!r}")
            continue
        row = b_pads[diode]["1"]
        row_gpio, col_gpio = gpio_of(row, "100"), gpio_of(column, "1k")
        if row_gpio is None or col_gpio is None:
            problems.append(f"{site.name}: {row}/{column} reach no GPIO through the cable")
            continue
        switches[site.name] = (row_gpio, col_gpio)

    led_names = {s.led: s.name for s in spec.sites if s.led is not None}

    def chain(gpio: int, in_pad: str, out_pad: str) -> list[str]:
        # GPIO → the HAT's 47 Ω → the cable → the base board's 74AHCT125 → 47 Ω → LED 0 …
        start = next((p for p, name in PI_HEADER.items() if name == f"GPIO{gpio}"), "")
        net = h_pads[pi].get(start, "")
        resistor = next((r for r, p in h_net.get(net, []) if h_values[r] == "47"), None)
        if resistor is None:
            return []
        cable = next(n for p, n in h_pads[resistor].items() if n != net)
        pin = next((p for r, p in h_net.get(cable, []) if r == hat_j), "")
        net = b_pads[base_j].get(pin, "")
        buffer = next((r for r, p in b_net.get(net, []) if values[r] == "74AHCT125"), None)
        if buffer is None:
            return []
        a_pad = next(p for r, p in b_net[net] if r == buffer)
        y_pad = {"2": "3", "5": "6", "9": "8", "12": "11"}.get(a_pad, "")
        out = b_pads[buffer].get(y_pad, "")
        resistor = next((r for r, p in b_net.get(out, []) if values[r] == "47"), None)
        if resistor is None:
            return []
        net = next(n for p, n in b_pads[resistor].items() if n != out)
        order: list[str] = []
        while True:
            led = next((r for r, p in b_net.get(net, []) if values[r] == LED
                        and p == in_pad), None)  # fmt: skip
            if led is None or len(order) > 200:
                return order
            order.append(led_names.get(where[led], f"? {led} at {where[led]}"))
            net = b_pads[led][out_pad]

    return Traced(
        switches,
        chain(pins.data_gpio, "4", "3"),
        chain(pins.clock_gpio, "5", "2"),
        problems,
    )


def against_config(traced: Traced, pins: PinMap) -> list[str]:
    """Where the copper and the config disagree (empty: they agree)."""
    problems = list(traced.problems)
    for name, channel in sorted(pins.channels.items()):
        row, col = divmod(channel, len(pins.cols))
        want = (pins.rows[row], pins.cols[col])
        got = traced.switches.get(name)
        if got is None:
            problems.append(f"{name}: channel {channel} has no switch on the board")
        elif got != want:
            problems.append(
                f"{name}: channel {channel} should be on row GPIO {want[0]} and column GPIO "
                f"{want[1]}; the board puts it on {got[0]} and {got[1]}"
            )
    want_leds = [n for n, _ in sorted(pins.leds.items(), key=lambda kv: kv[1])]
    if traced.leds != want_leds:
        problems.append(f"LED data chain {traced.leds} differs from the config's {want_leds}")
    if traced.clock != want_leds:
        problems.append(f"LED clock chain {traced.clock} differs from the config's {want_leds}")
    return problems
