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
that with the config. :func:`trace_pico` follows the pico board's copper from every
reflective sensor through its multiplexer and emitter switch to the Pico's pins, from
each button and the top's IR module to its GPIO, and along the LED chain from the
Pico's LED pin through the buffer; :func:`against_firmware` compares that with the
firmware's config. :func:`with_module` joins the Pyramidos module's copper to the pico
board's through their ribbon cable (pin *n* to pin *n*), so that the same trace follows
the targets and the top to the Pico.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hardware.pcb.design import BaseSpec, Board, PinMap
from hardware.pcb.library import PI_HEADER, PICO_PINS
from hardware.pcb.parts import CATALOGUE, MUX_INPUT_PAD
from hardware.pcb.pico import PicoPins

__all__ = [
    "Traced",
    "TracedPico",
    "against_config",
    "against_firmware",
    "erc",
    "erc_pins",
    "pads_against_netlist",
    "trace",
    "trace_pico",
    "with_module",
]

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


@dataclass(frozen=True)
class TracedPico:
    sensors: dict[str, tuple[int, int, int, tuple[int, ...]]]
    """Place → (ADC GPIO its multiplexer's COM reaches, the multiplexer input its
    sensor's emitter is on, the GPIO of its emitter group's MOSFET gate, the GPIOs on
    that multiplexer's S0–S3), all found by following the copper."""
    switches: dict[str, int]
    """Place → the GPIO its button or IR module reaches."""
    leds: list[str]
    """The LEDs in chain order from the Pico's LED pin, each named by where it sits."""
    problems: list[str]


def trace_pico(dump: Dump, spec: BaseSpec, pins: PicoPins) -> TracedPico:
    """Follow the pico board's copper from every sensor found at its place to the Pico's
    pins (see :func:`against_firmware`)."""
    problems: list[str] = []
    by_net, pads = _index(dump)
    values = {p["ref"]: p["value"] for p in dump["parts"]}
    where = {p["ref"]: (p["x"], p["y"]) for p in dump["parts"]}
    pico = next(ref for ref, v in values.items() if v == CATALOGUE["pico"].value)
    ground, supply = pads[pico]["3"], pads[pico]["36"]
    fuse = next(ref for ref, v in values.items() if v == CATALOGUE["fuse"].value)
    rail = pads[fuse]["2"]
    input_of = {pad: n for n, pad in MUX_INPUT_PAD.items()}

    def at(point: tuple[float, float], value: str) -> str | None:
        near = [r for r, (x, y) in where.items() if values[r] == value
                and abs(x - point[0]) < 0.01 and abs(y - point[1]) < 0.01]  # fmt: skip
        return near[0] if near else None

    def gpio_of(net: str) -> int | None:
        for ref, pad in by_net.get(net, []):
            if ref == pico and PICO_PINS[pad].startswith("GP"):
                return int(PICO_PINS[pad][2:])
        return None

    def on(net: str, value: str, pad: str | None = None) -> list[tuple[str, str]]:
        return [(r, p) for r, p in by_net.get(net, []) if values[r] == value
                and (pad is None or p == pad)]  # fmt: skip

    def across(net: str, value: str, other: str) -> bool:
        """A two-pin part of ``value`` between ``net`` and ``other``."""
        return any(other in pads[r].values() for r, _ in on(net, value))

    sensors: dict[str, tuple[int, int, int, tuple[int, ...]]] = {}
    switches: dict[str, int] = {}
    for site in spec.sites:
        if site.sensor is None or site.kind == "none":
            continue
        if site.kind == "reflective":
            # the top's sensor hangs over the top ball: the module has its lead's header
            ref = at(site.sensor, CATALOGUE["tcrt"].value) or at(
                site.sensor, CATALOGUE["tcrt_lead"].value
            )
            if ref is None:
                problems.append(f"{site.name}: no TCRT1000 at its place {site.sensor}")
                continue
            anode, cathode, emitter, collector = (pads[ref][p] for p in ("1", "2", "3", "4"))
            if collector != supply:
                problems.append(f"{site.name}: its collector is not on the Pico's 3V3")
            if not across(anode, "150", rail):
                problems.append(f"{site.name}: no 150 Ω from the LED rail to its emitter")
            if not across(emitter, "10k", ground):
                problems.append(f"{site.name}: no 10 kΩ load to ground")
            muxes = on(emitter, CATALOGUE["mux"].value)
            switch = on(cathode, CATALOGUE["nfet"].value, "3")
            if len(muxes) != 1 or len(switch) != 1:
                problems.append(f"{site.name}: on {len(muxes)} multiplexer inputs and "
                                f"{len(switch)} emitter switches, not one each")  # fmt: skip
                continue
            (mux, pad), (q, _) = muxes[0], switch[0]
            adc, gate = gpio_of(pads[mux]["1"]), gpio_of(pads[q]["1"])
            select = tuple(gpio_of(pads[mux][p]) for p in ("10", "11", "14", "13"))
            if pads[q]["2"] != ground or adc is None or gate is None or None in select:
                problems.append(f"{site.name}: its multiplexer or switch reaches no GPIO")
                continue
            sensors[site.name] = (adc, input_of[pad], gate,
                                  tuple(g for g in select if g is not None))  # fmt: skip
        elif site.kind == "button":
            sx, sy = site.sensor
            ref = min((r for r in where if values[r] == "button"),
                      key=lambda r: (where[r][0] - sx) ** 2 + (where[r][1] - sy) ** 2)  # fmt: skip
            nets = set(pads[ref].values())
            gpio = next((g for n in nets - {ground} if (g := gpio_of(n)) is not None), None)
            if ground not in nets or gpio is None:
                problems.append(f"{site.name}: its button is not between a GPIO and ground")
                continue
            switches[site.name] = gpio
        elif site.kind == "ir":
            ref = at(site.sensor, CATALOGUE["ir"].value)
            if ref is None:
                problems.append(f"{site.name}: no IR module header at {site.sensor}")
                continue
            out = pads[ref]["3"]
            gpio = next((gpio_of(n) for r, _ in on(out, "1k") for n in pads[r].values()
                         if n != out and gpio_of(n) is not None), None)  # fmt: skip
            if gpio is None or pads[ref]["1"] != supply or pads[ref]["2"] != ground:
                problems.append(f"{site.name}: its IR module reaches no GPIO")
                continue
            switches[site.name] = gpio

    led_names = {s.led: s.name for s in spec.sites if s.led is not None}
    order: list[str] = []
    # GPIO → the 74AHCT125 (on the LED rail) → 330 Ω → LED 0's DIN → its DOUT → …
    start = next((p for p, name in PICO_PINS.items() if name == f"GP{pins.led_gpio}"), "")
    net = pads[pico].get(start, "")
    buffers = on(net, CATALOGUE["buffer"].value)
    if len(buffers) == 1:
        buffer, a_pad = buffers[0]
        if pads[buffer]["14"] != rail:
            problems.append("the LED buffer is not on the LED rail")
        out = pads[buffer].get({"2": "3", "5": "6", "9": "8", "12": "11"}.get(a_pad, ""), "")
        series = on(out, "330")
        net = next((n for n in pads[series[0][0]].values() if n != out), "") if series else ""
        while len(order) <= 200:
            led = on(net, CATALOGUE["ws2812"].value, "3")
            if len(led) != 1:
                break
            ref = led[0][0]
            order.append(led_names.get(where[ref], f"? {ref} at {where[ref]}"))
            net = pads[ref]["1"]
    return TracedPico(sensors, switches, order, problems)


def against_firmware(traced: TracedPico, pins: PicoPins) -> list[str]:
    """Where the pico board's copper and the firmware's config disagree (empty: agree)."""
    problems = list(traced.problems)
    for name, (mux, channel_in, group) in sorted(pins.sensors.items()):
        want = (pins.adc[mux], channel_in, pins.emitters[group], pins.select)
        got = traced.sensors.get(name)
        if got is None:
            problems.append(f"{name}: no sensor found on the board")
        elif got != want:
            problems.append(
                f"{name}: the firmware reads it on ADC GPIO {want[0]}, multiplexer input "
                f"{want[1]}, lit by GPIO {want[2]}, selected by {want[3]}; the board wires "
                f"ADC GPIO {got[0]}, input {got[1]}, GPIO {got[2]}, select {got[3]}"
            )
    for name, gpio in sorted(pins.switches.items()):
        if traced.switches.get(name) != gpio:
            problems.append(f"{name}: the firmware reads GPIO {gpio}; the board wires "
                            f"{traced.switches.get(name)}")  # fmt: skip
    want_leds = [n for n, _ in sorted(pins.leds.items(), key=lambda kv: kv[1])]
    if traced.leds != want_leds:
        problems.append(f"LED data chain {traced.leds} differs from the config's {want_leds}")
    return problems


MODULE_AT = 1000.0
"""mm: the module's parts are moved this far along x when joined to the pico board's."""


def with_module(
    pico: Dump, module: Dump, spec: BaseSpec, module_spec: BaseSpec
) -> tuple[dict[str, Any], BaseSpec, list[str]]:
    """The pico board's and the module's copper as one (the module's parts moved by
    :data:`MODULE_AT`, its references prefixed ``M:``), each module net that reaches the
    cable's header named as the pico board's net on the same pin (others kept apart as
    ``M:net``); both boards' places as one spec; and what does not join."""
    header = CATALOGUE["idc20smd"].value
    problems: list[str] = []

    def pins_of(dump: Dump, where: str) -> dict[str, str]:
        found = [p for p in dump["parts"] if p["value"] == header]
        if len(found) != 1:
            problems.append(f"{where}: {len(found)} ribbon cable headers, not one")
            return {}
        return {pad["pad"]: pad["net"] for pad in found[0]["pads"]}

    main, far = pins_of(pico, "the pico board"), pins_of(module, "the module")
    joined: dict[str, str] = {}
    for pad, net in sorted(far.items()):
        if net and pad in main and joined.setdefault(net, main[pad]) != main[pad]:
            problems.append(f"the module's {net} meets both {joined[net]} and {main[pad]}")
    parts = list(pico["parts"])
    for part in module["parts"]:
        pads = [{**pad, "net": joined.get(pad["net"], f"M:{pad['net']}") if pad["net"] else ""}
                for pad in part["pads"]]  # fmt: skip
        parts.append({**part, "ref": f"M:{part['ref']}", "x": part["x"] + MODULE_AT, "pads": pads})

    def moved(point: tuple[float, float] | None) -> tuple[float, float] | None:
        return None if point is None else (point[0] + MODULE_AT, point[1])

    sites = spec.sites + tuple(
        replace(s, sensor=moved(s.sensor), led=moved(s.led)) for s in module_spec.sites
    )
    return {**pico, "parts": parts}, replace(spec, sites=sites), problems
