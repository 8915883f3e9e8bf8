"""The chosen build on one printed board: reflective sensors read by a Raspberry Pi Pico.

The pico board has the base board's outline and mounting holes and lies flat under the
wood the same way. Its side facing the wood (KiCad's front, F) carries only what sits in
a hole of the wood: a Vishay TCRT1000 standing in the pocket under every cell and
target, one WS2812B-2020 under every light hole and the 5.1 mm tactile switches inside
the buttons' holes. Everything else is on the other side (B): each sensor's 150 Ω
emitter resistor and 10 kΩ load, the two CD74HC4067 that take the 29 sensors to the
Pico's ADC0 and ADC1, the five AO3400A that light the emitter groups, the LEDs' 100 nF,
the 74AHCT125 that lifts the LED data to 5 V (on the LED rail: nothing back-feeds it),
the top's IR module header, the speaker's driver, the LED supply (USB-C, fuse, ESD
diode, bulk capacitors) and the Pico itself, soldered flat by its castellated edge with
its micro-USB at the board's edge: the computer connects there. The front copper is a
+5V pour, the back a ground pour, as on the base board.

Two supplies, never joined: the USB-C socket's 5 V (+5V) feeds the LEDs, the emitters,
the buffer and the speaker; the Pico runs from the computer's USB, and its 3V3 output
feeds the multiplexers, the phototransistors' collectors and the top's IR module.
Nothing connects +5V to the Pico's VBUS or VSYS. Only the grounds are common.

What goes on which pin is the firmware's (``firmware/config.py``: ``EMITTER_PINS``,
``MUX_SELECT_PINS``, ``MUX_ADC_PINS``, ``SENSORS``, ``SWITCHES``, ``LED_PIN``,
``BUZZER_PIN``), read by :func:`hardware.pcb.inputs.pico_pins`; which channel is which
place and the LEDs' order are the host config's (``configs/serial.toml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hardware.pcb.design import (
    POWER_NETS,
    POWER_WIDTH,
    BaseSpec,
    Board,
    Placed,
    Point,
    Site,
    Track,
    Via,
    _facing,
    _Parts,
    _snap,
    _via_box,
    begin,
    courtyard,
    led_supply_input,
)
from hardware.pcb.footprints import load_footprint, rotate
from hardware.pcb.library import PICO_PINS
from hardware.pcb.mechanics import loose_parts
from hardware.pcb.parts import CATALOGUE, MUX_INPUT_PAD

__all__ = ["CABLE", "MODULE_NAMES", "PICO_AT", "PicoPins", "cable", "pico_board"]


@dataclass(frozen=True)
class PicoPins:
    """What the Pico's firmware config says, by place name where it names places."""

    emitters: tuple[int, ...]
    """GPIO of each emitter group's MOSFET gate, group 0 first."""
    select: tuple[int, ...]
    """GPIO of S0–S3 of both multiplexers."""
    adc: tuple[int, ...]
    """GPIO (an ADC input) of multiplexer 0's and 1's COM."""
    sensors: Mapping[str, tuple[int, int, int]]
    """Place → (multiplexer, input, emitter group) of its reflective sensor."""
    switches: Mapping[str, int]
    """Place → GPIO of the switches on their own pins (the top's IR module, the buttons)."""
    led_gpio: int
    buzzer_gpio: int
    leds: Mapping[str, int]
    """Place → its LED's number in the chain."""
    source: str
    cc_inputs: tuple[tuple[int, int], ...] = ()
    """(multiplexer, input) reading the LED supply's USB-C CC1 and CC2 through 10 kΩ
    (``USB_CC_INPUTS``): what the source offers (:mod:`firmware.usbpower`)."""


PICO_AT: Point = (160.0, 148.2)
"""The Pico's centre on the board (on the back, its micro-USB towards the front edge,
beside the LED supply's USB-C: both cables leave on player 1's side): the micro-USB's
mouth, 26.8 mm from the Pico's centre, at the board's edge, so that a plug seats
(:func:`hardware.pcb.mechanics.usb_mouths`)."""

EMITTER_OHMS = 150.0
"""Each TCRT1000 emitter's series resistor from +5V (hardware/README.md, "What the chosen
build asks of the board")."""
EMITTER_VF_LOW = 1.0
"""V: the emitter's forward voltage taken low, so that its current is an upper bound:
Vishay's TCRT1000 data sheet (doc. 83752 Rev. 1.8, p. 2, basic characteristics, input)
gives 1.25 V typ. at 50 mA; at 20–27 mA it is lower, not below 1.0 V for an IR diode of
this kind."""


def gpio_net(gpio: int) -> str:
    return f"GP{gpio}"


def _pico_nets(pins: PicoPins) -> dict[str, str]:
    used = {*pins.emitters, *pins.select, *pins.adc, *pins.switches.values(), pins.led_gpio,
            pins.buzzer_gpio}  # fmt: skip
    nets = {}
    for pad, name in PICO_PINS.items():
        if name in ("GND", "AGND"):
            nets[pad] = "GND"
        elif name == "3V3":
            nets[pad] = "3V3"
        elif name.startswith("GP") and int(name[2:]) in used:
            nets[pad] = gpio_net(int(name[2:]))
        else:
            nets[pad] = f"unconnected-PICO-{name}"
    return nets


def pico_board(spec: BaseSpec, pins: PicoPins, remote: tuple[str, ...] = ()) -> Board:
    """The one board of the pico build (see the module's doc); the places in ``remote``
    (the Pyramidos module's) are sensed and lit through its cable's header."""
    for name in pins.sensors:
        if name not in remote and not any(
            s.name == name and s.kind == "reflective" for s in spec.sites
        ):
            raise ValueError(f"{pins.source}: sensor {name!r} has no reflective place")
    if len(pins.select) != 4 or len(pins.adc) != 2:
        raise ValueError(f"{pins.source}: two CD74HC4067 need four select pins and two ADCs")
    holes, parts, _ = begin(spec, {}, pins.source)
    chain = sorted((pins.leds[s.name], s) for s in spec.sites if s.led is not None)
    if sorted([*(i for i, _ in chain), *(pins.leds[n] for n in remote)]) != list(
        range(len(pins.leds))
    ):
        raise ValueError(f"{pins.source}: the LED numbers must run 0, 1, 2, … without a gap")
    sensors: list[tuple[Site, Placed]] = []
    for site in spec.sites:
        if site.sensor is None or site.kind == "none":
            continue
        if site.kind == "reflective":
            if site.name not in pins.sensors:
                raise ValueError(f"{pins.source}: no multiplexer input for {site.name!r}")
            _, _, group = pins.sensors[site.name]
            tcrt = parts.add(
                CATALOGUE["tcrt"], site.sensor,
                {"1": f"EA_{site.name}", "2": f"EMIT{group}", "3": f"SNS_{site.name}",
                 "4": "3V3"},
                f"TCRT1000 {site.name}",
            )  # fmt: skip
            sensors.append((site, tcrt))
        elif site.kind == "button":
            gpio = _switch_gpio(pins, site.name)
            parts.add(
                CATALOGUE["button"], site.sensor, {"1": gpio_net(gpio), "2": "GND"},
                f"button {site.name.removeprefix('button:')}",
            )  # fmt: skip
        elif site.kind == "ir":
            parts.add(
                CATALOGUE["ir"], site.sensor, {"1": "3V3", "2": "GND", "3": f"IR_{site.name}"},
                f"IR module {site.name}", 90.0, "B",
            )  # fmt: skip
        else:
            raise ValueError(f"{site.name}: the pico board has no {site.kind!r} sensor")
    fanout: list[Track] = []
    fan_vias: list[Via] = []
    leds: list[Placed] = []
    for n, (number, site) in enumerate(chain):
        assert site.led is not None
        before = chain[n - 1][1].led if n else None
        after = chain[n + 1][1].led if n + 1 < len(chain) else None
        last = number + 1 == len(pins.leds)
        nets = {
            "1": "unconnected-LED-DOUT" if last else f"LED_D{number + 1}",
            "2": "GND",
            "3": f"LED_D{number}",
            "4": "+5V",
        }
        led = parts.add(
            CATALOGUE["ws2812"], site.led, nets, f"LED {site.name}",
            _facing(site.led, after, before),
        )  # fmt: skip
        leds.append(led)
        tracks, vias = _ws2812_fanout(led)
        for v in vias:
            parts.block(_via_box(v))
        want = led.local(0.0, -CAP_OFFSET)
        cap = parts.add_near(
            CATALOGUE["c100n"], want, {"1": "+5V", "2": "GND"}, f"decoupling {site.name}",
            (led.angle + 180.0) % 360.0, "B",
        )  # fmt: skip
        vdd = next(v for v in vias if v.net == "+5V")
        if (cap.x, cap.y) == want:
            # the VDD via down to the 100 nF's + pad under it
            c5v = next((x, y) for p, x, y in cap.pad_positions() if p == "1")
            tracks.append(Track("+5V", "B.Cu", POWER_WIDTH, vdd.at, c5v))
        else:
            # the 100 nF found room elsewhere: the router joins it; no via to nothing
            vias.remove(vdd)
            tracks = [t for t in tracks if t.end != vdd.at]
        fanout += tracks
        fan_vias += vias
    # the Pico, where PICO_AT puts it: on the back, its USB towards the front edge
    pico = CATALOGUE["pico"]
    # its courtyard up to a millimetre inside the edge: the socket itself reaches the edge
    x0, y0, x1, y1 = courtyard(pico, PICO_AT, 0.0, "B")
    if not parts.free((x0, y0, x1, min(y1, spec.height - 1.0)), "B"):
        raise ValueError(f"the Pico has no room at {PICO_AT}")
    parts.add(pico, PICO_AT, _pico_nets(pins), "Raspberry Pi Pico", 0.0, "B")
    # each sensor's emitter resistor (+5V side towards the front) and load, on the back
    for site, tcrt in sensors:
        tcrt_pads = {n: (x, y) for n, x, y in tcrt.pad_positions()}
        for kind, want, nets, role, toward in (
            ("R150_0805", (tcrt.x - 1.27, tcrt.y - 4.5), {"1": "+5V", "2": f"EA_{site.name}"},
             f"emitter resistor {site.name}", ("2", "1")),
            ("R10k", (tcrt.x + 1.27, tcrt.y + 4.5), {"1": f"SNS_{site.name}", "2": "GND"},
             f"sensor load {site.name}", ("1", "3")),
        ):  # fmt: skip
            # turned so that the pad on the sensor's net faces the sensor's pad
            at = parts.near(CATALOGUE[kind], want, 90.0, "B")
            angle = min(
                (90.0, 270.0),
                key=lambda a: _distance(
                    _pad_at(CATALOGUE[kind].footprint, at, a, toward[0]), tcrt_pads[toward[1]]
                ),
            )
            parts.add(CATALOGUE[kind], at, nets, role, angle, "B")
    mux_tracks, mux_vias = _multiplexers(parts, pins, sensors, remote)
    fanout += mux_tracks
    fan_vias += mux_vias
    _emitter_switches(parts, pins, sensors)
    supply_tracks, supply_vias = _supply(parts, spec, leds[-1] if leds else None)
    _cc_sense(parts, pins)
    _led_data(parts, pins, leds[0])
    _switch_lines(parts, pins, spec)
    _sounder(parts, pins)
    if remote:
        _module_header(parts, pins, spec)
    return Board(
        "pico",
        "pyramid-board pico board (reflective sensors, Raspberry Pi Pico)",
        spec.width,
        spec.height,
        tuple(parts.parts),
        holes,
        tuple(fanout + supply_tracks),
        tuple(fan_vias + supply_vias),
        pours=(("F.Cu", "+5V"), ("B.Cu", "GND")),
        keepouts=tuple(("B.Cu", _between_rows(p)) for p in parts.parts if p.kind.key == "mux"),
        # the sensors' lines out of the multiplexers first, then their select and ADC lines
        loose=loose_parts(sum(1 for s in spec.sites if s.kind == "button"), len(spec.holes)),
        route_first=tuple(
            sorted(
                {n for p in parts.parts if p.kind.key == "mux" for n in p.nets.values()}
                - POWER_NETS,
                key=lambda n: (not n.startswith("SNS_"), n),
            )
        ),
    )


CAP_OFFSET = 3.0
"""From a WS2812B-2020's centre to its 100 nF's on the back, towards its VDD pad's side."""


FANOUT_BOX = (-8.6, -8.0, 8.6, 8.0)
"""The multiplexer's pins and their fan-out vias (turned 90°: pins along x), around its
centre."""


def _room(parts: _Parts, want: Point, box: tuple[float, float, float, float]) -> Point:
    """The free spot nearest ``want`` (0.5 mm steps) where ``box`` around it is free on
    both sides."""
    for radius in range(0, 80):
        ring = sorted(
            {(dx, dy) for dx in range(-radius, radius + 1) for dy in (-radius, radius)}
            | {(dx, dy) for dy in range(-radius, radius + 1) for dx in (-radius, radius)},
            key=lambda d: (abs(d[0]) + abs(d[1]), d),
        )
        for dx, dy in ring:
            at = (want[0] + dx * 0.5, want[1] + dy * 0.5)
            x0, y0, x1, y1 = box
            if parts.free((at[0] + x0, at[1] + y0, at[0] + x1, at[1] + y1), "B", both=True):
                return at
    raise ValueError(f"no room for a multiplexer near {want}")


def _pad_at(footprint: str, at: Point, angle: float, pad: str) -> Point:
    return Placed("?", CATALOGUE["R10k"], at[0], at[1], angle, {}, "", "B").local(
        *next((p.x, p.y) for p in load_footprint(footprint).pads if p.name == pad)
    )


def _distance(a: Point, b: Point) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)


def _between_rows(chip: Placed) -> tuple[float, float, float, float]:
    """The room under a SOIC between its two rows of pins (no track there: one would
    wall the pins in)."""
    x0, y0 = chip.local(-3.6, -7.3)
    x1, y1 = chip.local(3.6, 7.3)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _switch_gpio(pins: PicoPins, name: str) -> int:
    if name not in pins.switches:
        raise ValueError(f"{pins.source}: no GPIO for the switch {name!r}")
    return pins.switches[name]


def _ws2812_fanout(led: Placed) -> tuple[list[Track], list[Via]]:
    """A via beside each of the LED's data pads (DOUT pad 1 and DIN pad 3, out sideways),
    one under its GND pad (pad 2) into the back's ground pour and one above its VDD pad
    (pad 4, in the front's +5V pour) for the 100 nF on the back."""
    tracks: list[Track] = []
    vias: list[Via] = []
    pads = {n: (x, y) for n, x, y in led.pad_positions()}
    for pad, (lx, ly), width in (("1", (-2.1, -0.55), 0.25), ("3", (2.1, 0.55), 0.25),
                                 ("2", (-0.915, 1.9), 0.3), ("4", (0.915, -1.9), 0.3)):  # fmt: skip
        net = led.nets[pad]
        if net.startswith("unconnected-"):
            continue
        ex, ey = rotate(lx, ly, led.angle)
        via = (_snap(led.x + ex), _snap(led.y + ey))
        tracks.append(Track(net, "F.Cu", width, pads[pad], via))
        vias.append(Via(net, via))
    return tracks, vias


def _multiplexers(
    parts: _Parts, pins: PicoPins, sensors: list[tuple[Site, Placed]], remote: tuple[str, ...]
) -> tuple[list[Track], list[Via]]:
    """Both CD74HC4067 near the middle of their sensors: each sensor's SNS net on its
    input, COM to its ADC pin, S0–S3 to the select pins, ~E low, VCC the Pico's 3V3;
    inputs without a sensor to ground. Every pin gets a short stub straight out
    and a via (alternately 1 and 2.5 mm beyond the pin), so that no track laid along a
    row of pins walls the others in."""
    tracks: list[Track] = []
    vias: list[Via] = []
    for mux in range(2):
        mine = [(s, t) for s, t in sensors if pins.sensors[s.name][0] == mux]
        if not mine:
            continue
        # the module's sensors come in at its cable's header
        spots = [(t.x, t.y) for _, t in mine]
        spots += [MODULE_HEADER_AT for n in remote if pins.sensors[n][0] == mux]
        cx = sum(x for x, _ in spots) / len(spots)
        cy = sum(y for _, y in spots) / len(spots)
        nets = {MUX_INPUT_PAD[i]: "GND" for i in range(16)}
        for name in [*(s.name for s, _ in mine), *remote]:
            if pins.sensors[name][0] == mux:
                nets[MUX_INPUT_PAD[pins.sensors[name][1]]] = f"SNS_{name}"
        for k, (cc_mux, cc_input) in enumerate(pins.cc_inputs):
            if cc_mux == mux:
                nets[MUX_INPUT_PAD[cc_input]] = f"CC{k + 1}_SNS"
        nets |= {"1": gpio_net(pins.adc[mux]), "12": "GND", "15": "GND", "24": "3V3"}
        for k, pad in enumerate(("10", "11", "14", "13")):  # S0, S1, S2, S3
            nets[pad] = gpio_net(pins.select[k])
        # between two columns of cells, in a row of cells' LED-free half, with room for
        # the fan-out's vias on both sides
        want = (_snap(cx) + 12.5, _snap(cy) - 2.5)
        at = _room(parts, want, FANOUT_BOX)
        chip = parts.add(CATALOGUE["mux"], at, nets, f"multiplexer {mux}", 0.0, "B")
        for pad, px, py in chip.pad_positions():
            net = chip.nets[pad]
            n = int(pad)
            # pins 1–12 on the footprint's −x row, 13–24 on +x; alternate pins reach further
            side = -1.0 if n <= 12 else 1.0
            reach = 4.65 + 0.975 + (1.0 if n % 2 else 2.5)
            ex, ey = chip.local(side * reach, chip.footprint.pads_named(pad)[0].y)
            via = (_snap(ex), _snap(ey))
            tracks.append(Track(net, "B.Cu", 0.25, (px, py), via))
            vias.append(Via(net, via))
            parts.block(_via_box(Via(net, via)), "FB")
        # the 100 nF beyond the chip's end at VCC (pin 24), not beside a row of pins
        vx, vy = next((x, y) for p, x, y in chip.pad_positions() if p == "24")
        parts.add_near(
            CATALOGUE["c100n"], (vx - 1.0, vy + (3.0 if vy > chip.y else -3.0)),
            {"1": "3V3", "2": "GND"}, f"multiplexer {mux} decoupling", 0.0, "B",
        )  # fmt: skip
    return tracks, vias


def _emitter_switches(parts: _Parts, pins: PicoPins, sensors: list[tuple[Site, Placed]]) -> None:
    """One AO3400A per emitter group (drain to its emitters' cathodes, source to ground,
    gate from its GPIO with 10 kΩ to ground: dark while the Pico is off), at the group's
    left end."""
    for group, gpio in enumerate(pins.emitters):
        mine = [t for s, t in sensors if pins.sensors[s.name][2] == group]
        if not mine:
            raise ValueError(f"{pins.source}: emitter group {group} has no sensor")
        left = min(mine, key=lambda t: t.x)
        q = parts.add_near(
            CATALOGUE["nfet"], (left.x - 8.0, left.y),
            {"1": gpio_net(gpio), "2": "GND", "3": f"EMIT{group}"},
            f"emitter group {group} switch (GPIO {gpio})", 0.0, "B",
        )  # fmt: skip
        parts.add_near(
            CATALOGUE["R10k"], (q.x, q.y + 3.5), {"1": gpio_net(gpio), "2": "GND"},
            f"emitter group {group} gate pull-down", 0.0, "B",
        )  # fmt: skip


FEED_VIAS = 9


def _supply(
    parts: _Parts, spec: BaseSpec, last_led: Placed | None
) -> tuple[list[Track], list[Via]]:
    """The LED supply as on the base board (:func:`~hardware.pcb.design.led_supply_input`)."""
    _, tracks, vias = led_supply_input(parts, spec, last_led)
    return tracks, vias


def _cc_sense(parts: _Parts, pins: PicoPins) -> None:
    """Each CC pin of the LED supply's USB-C through 10 kΩ to its multiplexer input
    (``USB_CC_INPUTS``), beside its 5.1 kΩ: the voltage across that Rd says what the
    source offers (default USB power, 1.5 A or 3 A), which the firmware reads through the
    ADC (:mod:`firmware.usbpower`). The 10 kΩ keeps an unpowered Pico's multiplexer from
    loading the Rd (its input takes microamps) and limits what a CC pin at 2 V can push
    into it (0.2 mA)."""
    for k in range(len(pins.cc_inputs)):
        net = f"USB_CC{k + 1}"
        rd = next(p for p in parts.parts if p.kind.key == "R5k1" and net in p.nets.values())
        parts.add_near(
            CATALOGUE["R10k"], (rd.x, rd.y - 4.0), {"1": net, "2": f"CC{k + 1}_SNS"},
            f"USB-C {net[-3:]} sense resistor (to the ADC)", 90.0, "B",
        )  # fmt: skip


def _led_data(parts: _Parts, pins: PicoPins, first: Placed) -> None:
    """GPIO → 10 kΩ to ground (dark while the Pico boots or is unplugged) → 74AHCT125 on
    the LED rail → 330 Ω at the first LED → its DIN. The unused gates' inputs and enables
    to ground."""
    gpio = gpio_net(pins.led_gpio)
    px, py = PICO_AT
    buf = parts.add_near(
        CATALOGUE["buffer"], (px + 20.0, py - 20.0),
        {"1": "GND", "2": gpio, "3": "DATA_5V", "4": "GND", "5": "GND",
         "6": "unconnected-U-2Y", "7": "GND", "8": "unconnected-U-3Y", "9": "GND", "10": "GND",
         "11": "unconnected-U-4Y", "12": "GND", "13": "GND", "14": "+5V"},
        "LED data buffer (on the LED rail)", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c100n"], (buf.x + 8.0, buf.y), {"1": "+5V", "2": "GND"},
        "buffer decoupling", 90.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R10k"], (buf.x, buf.y - 7.0), {"1": gpio, "2": "GND"},
        "LED data pull-down", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R330"], first.local(4.0, 0.0), {"1": "DATA_5V", "2": first.nets["3"]},
        "LED data series resistor, at the first LED", first.angle, "B",
    )  # fmt: skip


def _switch_lines(parts: _Parts, pins: PicoPins, spec: BaseSpec) -> None:
    """Each button's ESD diode beside it; the top's IR module's output through 1 kΩ to its
    GPIO (its lead comes from off the board)."""
    for site in spec.sites:
        if site.kind == "button" and site.sensor is not None:
            gpio = _switch_gpio(pins, site.name)
            parts.add_near(
                CATALOGUE["tvs"], (site.sensor[0], site.sensor[1] - 5.0),
                {"1": gpio_net(gpio), "2": "GND"}, f"ESD diode {site.name}", 0.0, "B",
            )  # fmt: skip
        if site.kind == "ir" and site.sensor is not None:
            gpio = _switch_gpio(pins, site.name)
            parts.add_near(
                CATALOGUE["R1k"], (site.sensor[0] + 6.0, site.sensor[1]),
                {"1": f"IR_{site.name}", "2": gpio_net(gpio)},
                f"IR module {site.name} series resistor (GPIO {gpio})", 90.0, "B",
            )  # fmt: skip


# -- the ribbon cable to the Pyramidos module: both boards wire it (hardware.pcb.module
# builds the module from this file's helpers, so the cable is declared here) -----------

MODULE_NAMES = ("t1", "t2", "t3", "t4", "top")
"""The places the module senses and lights."""

CABLE: Mapping[str, str] = {
    "1": "+5V", "2": "+5V", "3": "EMIT:t1", "4": "EMIT:t2", "5": "EMIT:t3", "6": "EMIT:t4",
    "7": "EMIT:top", "8": "GND", "9": "SNS_t1", "10": "3V3", "11": "SNS_t2", "12": "GND",
    "13": "SNS_t3", "14": "GND", "15": "SNS_t4", "16": "GND", "17": "SNS_top", "18": "GND",
    "19": "LED:in", "20": "LED:out",
}  # fmt: skip
"""The ribbon cable, pin → signal, the same on both boards: the emitter groups' switched
cathodes together, then each sensor's line between a supply or ground conductor (so that
no sensor line lies beside an emitter line), the LED data out to the module and back.
``EMIT:name`` and ``LED:…`` are named by :func:`cable` from the firmware's groups and the
config's LED numbers."""


def cable(pins: PicoPins) -> dict[str, str]:
    """:data:`CABLE` with its nets named: each sensor's emitter group (``EMIT<g>``) and the
    LED chain's nets into the module's first LED and out of its last."""
    numbers = sorted(pins.leds[n] for n in MODULE_NAMES if n in pins.leds)
    if not numbers or numbers != list(range(numbers[0], numbers[0] + len(MODULE_NAMES))):
        raise ValueError(
            f"{pins.source}: the LEDs of {', '.join(MODULE_NAMES)} must follow each other in "
            "the chain (the module's stretch of it)"
        )
    named = {"LED:in": f"LED_D{numbers[0]}", "LED:out": f"LED_D{numbers[-1] + 1}"}
    for name in MODULE_NAMES:
        if name not in pins.sensors:
            raise ValueError(f"{pins.source}: no sensor for {name!r} (SENSORS)")
        named[f"EMIT:{name}"] = f"EMIT{pins.sensors[name][2]}"
    return {pin: named.get(net, net) for pin, net in CABLE.items()}


MODULE_HEADER_AT: Point = (215.0, 80.0)
"""Where the Pyramidos module's ribbon cable plugs into the pico board (on the back, in
the room the targets had)."""


def _module_header(parts: _Parts, pins: PicoPins, spec: BaseSpec) -> None:
    """The 2 × 10 box header of the ribbon cable to the Pyramidos module
    (:data:`CABLE`)."""
    parts.add_near(
        CATALOGUE["idc20smd"], MODULE_HEADER_AT, cable(pins),
        "ribbon cable header (to the Pyramidos module)", 0.0, "B",
    )  # fmt: skip


def _sounder(parts: _Parts, pins: PicoPins) -> None:
    """GPIO → 1 kΩ → NPN (10 kΩ base pull-down) switching the speaker and its 150 Ω (1206:
    within its rating sounding without end, :mod:`hardware.pcb.ratings`) from +5V, a
    flyback diode across the coil (hardware/README.md, "The buzzer")."""
    gpio = gpio_net(pins.buzzer_gpio)
    px, py = PICO_AT
    sounder = parts.add_near(
        CATALOGUE["sounder_smd"], (px + 30.0, py + 5.0), {"1": "SND+", "2": "SND-"},
        "sounder leads", 0.0, "B",
    )  # fmt: skip
    q = parts.add_near(
        CATALOGUE["npn"], (sounder.x + 8.0, sounder.y), {"1": "SND_B", "2": "GND", "3": "SND-"},
        "sounder switch", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R1k"], (q.x + 4.0, q.y - 3.0), {"1": gpio, "2": "SND_B"},
        "sounder switch base resistor", 90.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R10k"], (q.x + 6.5, q.y - 3.0), {"1": "SND_B", "2": "GND"},
        "sounder switch base pull-down", 90.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R150_1206"], (sounder.x + 4.0, sounder.y - 6.0), {"1": "+5V", "2": "SND+"},
        "sounder series resistor", 90.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["flyback"], (sounder.x + 5.0, sounder.y + 4.0), {"1": "SND+", "2": "SND-"},
        "sounder flyback diode", 0.0, "B",
    )  # fmt: skip
