"""The two printed boards as values: which part goes where, and which pad is on which net.

The base board lies under the wood: for every cell an upright reed switch and its diode,
for every target and the top a socket for its IR module and the PC817 that puts the
module's output in the matrix crossing, the three buttons with their diodes and ESD
diodes, one APA102-2020 LED (with its 100 nF) under every light hole, the LED supply's
jack, fuse and bulk capacitors, a 3.3 V regulator for the IR modules, and the ribbon
cable's header. The controller is a Raspberry Pi HAT: the row and column resistors, the
column pull-ups, the 74AHCT125 that lifts the LEDs' clock and data to 5 V, the piezo,
and the same header. One ribbon cable (pin *n* to pin *n*) joins the two headers;
:data:`CABLE` says what runs on each wire.

Everything is computed from a :class:`BaseSpec` (where the geometry file puts things) and
a :class:`PinMap` (what the shipped config says: GPIOs, channel numbers, LED order), so a
change of pitch, sensor or pin map is one edit there and one ``make board``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from hardware.pcb.footprints import Footprint, load_footprint, rotate
from hardware.pcb.library import PI_HEADER
from hardware.pcb.parts import CATALOGUE, PartKind, sensor_kind

__all__ = [
    "CABLE",
    "Board",
    "Hole",
    "PinMap",
    "Placed",
    "Site",
    "Track",
    "Via",
    "base_board",
    "controller_board",
]

Point = tuple[float, float]

MATRIX_SIZE = 6
CABLE: dict[str, str] = {
    **{str(2 * r + 1): f"ROW{r}" for r in range(MATRIX_SIZE)},
    **{str(2 * c + 2): f"COL{c}" for c in range(MATRIX_SIZE)},
    "13": "GND",
    "14": "LED_CLK",
    "15": "GND",
    "16": "LED_DATA",
    "17": "GND",
    "18": "GND",
    "19": "GND",
    "20": "GND",
}
"""The ribbon cable: header pin → signal, the same on both boards (the matrix rows on the
odd pins 1–11, the columns on the even pins 2–12, the LEDs' clock and data each beside
a ground)."""

POWER_NETS = frozenset({"GND", "+5V", "+5V_IN", "3V3", "+5V_PI"})
"""Nets routed with wide tracks."""


@dataclass(frozen=True)
class Site:
    """One sensed place or lit place of the base board, in board millimetres (y down)."""

    name: str
    """``a1``…``e5``, ``t1``…``t4``, ``top``, ``button:…``, ``seat:0``…``seat:3``."""
    kind: Literal["reed", "ir", "button", "none"]
    sensor: Point | None
    """Where the reed stands, the IR module's socket goes, or the button's centre is."""
    led: Point | None


@dataclass(frozen=True)
class Hole:
    x: float
    y: float
    diameter: float


@dataclass(frozen=True)
class SensorPart:
    """The cells' sensor as the geometry file chose it: footprint and what to order."""

    footprint: str
    description: str
    manufacturer: str
    mpn: str
    footprint_text: str
    """The footprint's ``.kicad_mod`` (written into the project's library)."""


@dataclass(frozen=True)
class BaseSpec:
    width: float
    height: float
    sites: tuple[Site, ...]
    holes: tuple[Hole, ...]
    sensor: SensorPart


@dataclass(frozen=True)
class PinMap:
    """What the controller's config says: GPIOs, channel numbers and LED order."""

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    clock_gpio: int
    data_gpio: int
    buzzer_gpio: int
    channels: Mapping[str, int]
    leds: Mapping[str, int]
    source: str
    """Which files these came from (for messages and the board's title block)."""


@dataclass(frozen=True)
class Placed:
    ref: str
    kind: PartKind
    x: float
    y: float
    angle: float
    nets: Mapping[str, str]
    """Pad number → net name (every pad of the part)."""
    role: str
    """What it is for, e.g. ``sensor a1``, ``LED seat:0``, ``row 3 series resistor``."""

    @property
    def footprint(self) -> Footprint:
        return load_footprint(self.kind.footprint)

    def pad_positions(self) -> list[tuple[str, float, float]]:
        """(pad, x, y) on the board for every copper pad, as KiCad places it."""
        out = []
        for pad in self.footprint.pads:
            if pad.kind == "hole":
                continue
            dx, dy = rotate(pad.x, pad.y, self.angle)
            out.append((pad.name, round(self.x + dx, 4), round(self.y + dy, 4)))
        return out


@dataclass(frozen=True)
class Track:
    net: str
    layer: Literal["F.Cu", "B.Cu"]
    width: float
    start: Point
    end: Point


@dataclass(frozen=True)
class Via:
    net: str
    at: Point


@dataclass(frozen=True)
class Board:
    name: str
    title: str
    width: float
    height: float
    parts: tuple[Placed, ...]
    holes: tuple[Hole, ...]
    tracks: tuple[Track, ...] = field(default=())
    vias: tuple[Via, ...] = field(default=())

    def nets(self) -> dict[str, list[tuple[str, str]]]:
        """Net name → its (ref, pad) pairs, sorted."""
        out: dict[str, list[tuple[str, str]]] = {}
        for part in self.parts:
            for pad, net in part.nets.items():
                out.setdefault(net, []).append((part.ref, pad))
        return {n: sorted(v, key=_natural) for n, v in sorted(out.items())}

    def part(self, ref: str) -> Placed:
        return next(p for p in self.parts if p.ref == ref)

    def routed(self, tracks: tuple[Track, ...], vias: tuple[Via, ...]) -> Board:
        return replace(self, tracks=tracks, vias=vias)


def _natural(pair: tuple[str, str]) -> tuple[str, int, str]:
    ref, pad = pair
    letters = ref.rstrip("0123456789")
    return (letters, int(ref[len(letters) :] or 0), pad.zfill(3))


def courtyard(kind: PartKind, at: Point, angle: float) -> tuple[float, float, float, float]:
    """The part's courtyard on the board (the box around it when turned)."""
    x0, y0, x1, y1 = load_footprint(kind.footprint).courtyard
    corners = [rotate(x, y, angle) for x in (x0, x1) for y in (y0, y1)]
    xs = [at[0] + c[0] for c in corners]
    ys = [at[1] + c[1] for c in corners]
    return (min(xs), min(ys), max(xs), max(ys))


class _Parts:
    """Numbers references per prefix in the order parts are added, and finds free room."""

    def __init__(self, width: float, height: float, holes: tuple[Hole, ...] = ()) -> None:
        self.parts: list[Placed] = []
        self._count: dict[str, int] = {}
        self.width, self.height = width, height
        self.taken: list[tuple[float, float, float, float]] = [
            (h.x - h.diameter / 2 - 1, h.y - h.diameter / 2 - 1,
             h.x + h.diameter / 2 + 1, h.y + h.diameter / 2 + 1)
            for h in holes
        ]  # fmt: skip

    def free(self, box: tuple[float, float, float, float], gap: float = 0.6) -> bool:
        x0, y0, x1, y1 = box
        if x0 < 1.0 or y0 < 1.0 or x1 > self.width - 1.0 or y1 > self.height - 1.0:
            return False
        return all(
            x1 + gap <= a0 or a1 + gap <= x0 or y1 + gap <= b0 or b1 + gap <= y0
            for a0, b0, a1, b1 in self.taken
        )

    def near(self, kind: PartKind, want: Point, angle: float = 0.0) -> Point:
        """The free spot nearest ``want`` (0.5 mm steps, outward) for this part."""
        for radius in range(0, 120):
            ring = sorted(
                {(dx, dy) for dx in range(-radius, radius + 1) for dy in (-radius, radius)}
                | {(dx, dy) for dy in range(-radius, radius + 1) for dx in (-radius, radius)},
                key=lambda d: (abs(d[0]) + abs(d[1]), d),
            )
            for dx, dy in ring:
                at = (round(want[0] + dx * 0.5, 3), round(want[1] + dy * 0.5, 3))
                if self.free(courtyard(kind, at, angle)):
                    return at
        raise ValueError(f"no room for a {kind.value} near ({want[0]:.1f}, {want[1]:.1f})")

    def add_near(
        self, kind: PartKind, want: Point, nets: Mapping[str, str], role: str, angle: float = 0.0
    ) -> Placed:
        return self.add(kind, self.near(kind, want, angle), nets, role, angle)

    def add(
        self,
        kind: PartKind,
        at: Point,
        nets: Mapping[str, str],
        role: str,
        angle: float = 0.0,
    ) -> Placed:
        missing = set(load_footprint(kind.footprint).pad_names) - set(nets)
        assert not missing, f"{role}: pads {sorted(missing)} have no net"
        n = self._count.get(kind.prefix, 0) + 1
        self._count[kind.prefix] = n
        part = Placed(
            f"{kind.prefix}{n}", kind, round(at[0], 3), round(at[1], 3), angle, nets, role
        )
        self.parts.append(part)
        self.taken.append(courtyard(kind, at, angle))
        return part


def _centre_offset(kind: PartKind) -> Point:
    """From the footprint's origin to the middle of its courtyard."""
    x0, y0, x1, y1 = load_footprint(kind.footprint).courtyard
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def channel_nets(pins: PinMap, name: str) -> tuple[str, str]:
    """The row and column nets of the switch the config numbers ``name``."""
    row, col = divmod(pins.channels[name], len(pins.cols))
    return f"ROW{row}", f"COL{col}"


def base_board(spec: BaseSpec, pins: PinMap) -> Board:
    """The base board: every site's sensor, diode and LED, the supply and the header."""
    if len(pins.rows) != MATRIX_SIZE or len(pins.cols) != MATRIX_SIZE:
        raise ValueError(
            f"{pins.source}: the printed boards carry a {MATRIX_SIZE} × {MATRIX_SIZE} matrix; "
            f"the config has {len(pins.rows)} rows and {len(pins.cols)} columns"
        )
    reed = sensor_kind(
        spec.sensor.footprint, spec.sensor.description, spec.sensor.manufacturer, spec.sensor.mpn
    )
    parts = _Parts(spec.width, spec.height, spec.holes)
    chain = sorted(
        (pins.leds[s.name], s) for s in spec.sites if s.led is not None and s.name in pins.leds
    )
    if [i for i, _ in chain] != list(range(len(chain))):
        raise ValueError(f"{pins.source}: the LED numbers must run 0, 1, 2, … without a gap")
    # first what the geometry fixes: switches, sockets, LEDs; then their helpers beside them
    switches: list[tuple[Site, Placed]] = []
    for site in spec.sites:
        if site.sensor is None or site.kind == "none":
            continue
        if site.name not in pins.channels:
            raise ValueError(f"{pins.source}: no channel number for {site.name!r}")
        col = channel_nets(pins, site.name)[1]
        between = f"SW_{site.name.replace(':', '_')}"
        if site.kind == "button":
            kind = CATALOGUE["button"]
            cx, cy = _centre_offset(kind)
            at = (site.sensor[0] - cx, site.sensor[1] - cy)
            nets, role = {"1": col, "2": between}, f"button {site.name.removeprefix('button:')}"
        elif site.kind == "ir":
            kind, at = CATALOGUE["ir"], site.sensor
            nets, role = {"1": "3V3", "2": "GND", "3": f"IR_{site.name}"}, f"IR module {site.name}"
        else:
            kind, at = reed, site.sensor
            nets, role = {"1": col, "2": between}, f"reed {site.name}"
        switches.append((site, parts.add(kind, at, nets, role)))
    leds: list[tuple[Site, Placed]] = []
    for n, (_, site) in enumerate(chain):
        assert site.led is not None
        before = chain[n - 1][1].led if n else None
        after = chain[n + 1][1].led if n + 1 < len(chain) else None
        # the first LED takes the cable's clock and data; the last one's outputs go nowhere
        last = n + 1 == len(chain)
        nets = {
            "1": "+5V",
            "2": "unconnected-LED-CKO" if last else f"LED_C{n + 1}",
            "3": "unconnected-LED-SDO" if last else f"LED_D{n + 1}",
            "4": f"LED_D{n}" if n else "LED_DATA",
            "5": f"LED_C{n}" if n else "LED_CLK",
            "6": "GND",
        }
        angle = _facing(site.led, after, before)
        leds.append((site, parts.add(CATALOGUE["led"], site.led, nets, f"LED {site.name}", angle)))
    for site, sw in switches:
        row, col = channel_nets(pins, site.name)
        between = f"SW_{site.name.replace(':', '_')}"
        x0, y0, x1, y1 = courtyard(sw.kind, (sw.x, sw.y), sw.angle)
        if site.kind == "ir":
            # the module's output lights the PC817's LED (3.3 V → 330 Ω → A, K → OUT);
            # its transistor is the crossing's switch: C to the column, E to the diode
            opto = parts.add_near(
                CATALOGUE["opto"], ((x0 + x1) / 2, y1 + 5.5),
                {"1": f"IR_A_{site.name}", "2": f"IR_{site.name}", "3": between, "4": col},
                f"optocoupler {site.name}",
            )  # fmt: skip
            x0, y0, x1, y1 = courtyard(opto.kind, (opto.x, opto.y), opto.angle)
            parts.add_near(
                CATALOGUE["R330"], (x1 + 2.5, (y0 + y1) / 2),
                {"1": "3V3", "2": f"IR_A_{site.name}"}, f"optocoupler LED resistor {site.name}",
            )  # fmt: skip
        if site.kind == "button":
            parts.add_near(
                CATALOGUE["tvs"], ((x0 + x1) / 2, y0 - 1.5), {"1": col, "2": "GND"},
                f"ESD diode {site.name}",
            )  # fmt: skip
        # the band (cathode, pad 1) towards the row: current flows column → row
        parts.add_near(
            CATALOGUE["diode"], ((x0 + x1) / 2, y1 + 1.5), {"1": row, "2": between},
            f"diode {site.name}",
        )  # fmt: skip
    fanout: list[Track] = []
    fan_vias: list[Via] = []
    obstacles = [
        (x, y, pad.width / 2, pad.height / 2)
        for part in parts.parts
        if part.kind.key not in ("led",)
        for pad, (_, x, y) in zip(
            [p for p in part.footprint.pads if p.kind != "hole"], part.pad_positions(), strict=True
        )
    ]
    for n, (site, led) in enumerate(leds):
        # the turn whose fan-out vias keep clear of everything placed so far
        led = _turn_clear(led, fan_vias, obstacles, parts)
        leds[n] = (site, led)
        parts.taken += [_via_box(v) for v in _led_fanout(led, None)[1]]
        # the 100 nF on the LED's supply side: VDD (pad 1) and GND (pad 6) face it
        ox, oy = rotate(0.0, -_cap_distance(), led.angle)
        want = (round(led.x + ox, 3), round(led.y + oy, 3))
        cap = parts.add_near(
            CATALOGUE["c100n"], want, {"1": "+5V", "2": "GND"}, f"decoupling {site.name}",
            led.angle,
        )  # fmt: skip
        tracks, vias = _led_fanout(led, cap if (cap.x, cap.y) == want else None)
        fanout += tracks
        fan_vias += vias
        parts.taken += [_via_box(v) for v in vias]
    _base_supply(parts, spec, leds[-1][1] if leds else None, pins)
    return Board(
        "base",
        "pyramid-board base board",
        spec.width,
        spec.height,
        tuple(parts.parts),
        spec.holes,
        tuple(fanout),
        tuple(fan_vias),
    )


def _via_box(via: Via) -> tuple[float, float, float, float]:
    r = 0.3 + 0.2
    return (via.at[0] - r, via.at[1] - r, via.at[0] + r, via.at[1] + r)


def _turn_clear(
    led: Placed,
    vias: list[Via],
    obstacles: list[tuple[float, float, float, float]],
    parts: _Parts,
) -> Placed:
    """``led`` turned (its best turn first, see :func:`_facing`) so that its fan-out vias
    stay 1.2 mm from every via placed before and 0.45 mm clear of every other pad."""
    preferred = [led.angle] + [a for a in (0.0, 90.0, 180.0, 270.0) if a != led.angle]
    for angle in preferred:
        turned = replace(led, angle=angle)
        new = _led_fanout(turned, None)[1]
        if all(
            math.hypot(v.at[0] - o.at[0], v.at[1] - o.at[1]) >= 1.2 for v in new for o in vias
        ) and all(
            abs(v.at[0] - x) >= hw + 0.75 or abs(v.at[1] - y) >= hh + 0.75
            for v in new
            for x, y, hw, hh in obstacles
        ):
            break
    else:
        turned = led
    parts.parts[parts.parts.index(led)] = turned
    return turned


def _cap_distance() -> float:
    """From an LED's centre to its capacitor's: their courtyards 0.6 mm apart."""
    led = load_footprint(CATALOGUE["led"].footprint).courtyard
    cap = load_footprint(CATALOGUE["c100n"].footprint).courtyard
    return math.ceil((-led[1] + cap[3] + 0.6) * 2) / 2


def _facing(at: Point, after: Point | None, before: Point | None) -> float:
    """The LED's turn (0, 90, 180, 270) that best points its outputs (pads 2, 3, on its
    local −x side) at the next LED and its inputs (pads 4, 5, +x) at the previous one."""

    def unit(dx: float, dy: float) -> Point:
        n = math.hypot(dx, dy) or 1.0
        return (dx / n, dy / n)

    nxt = unit(after[0] - at[0], after[1] - at[1]) if after else (0.0, 0.0)
    prv = unit(before[0] - at[0], before[1] - at[1]) if before else (0.0, 0.0)

    def score(angle: float) -> float:
        ox, oy = rotate(-1.0, 0.0, angle)
        return ox * nxt[0] + oy * nxt[1] - (ox * prv[0] + oy * prv[1])

    return max((0.0, 90.0, 180.0, 270.0), key=lambda a: (score(a), -a))


GRID = 0.5
"""The router's grid (mm); fan-out vias sit on it."""
POWER_WIDTH = 0.4


def _snap(v: float) -> float:
    return round(round(v / GRID) * GRID, 3)


def _led_fanout(led: Placed, cap: Placed | None) -> tuple[list[Track], list[Via]]:
    """The tracks and vias every LED gets before routing. Its clock and data pads sit
    between the supply pads and each other: a via just outside each keeps its way out
    open (on either layer) whatever the router lays nearby. The centre GND pad (between
    the data pads) drops through a via of its own, the centre VDD pad is tied to its
    corner, and when the capacitor sits where it should, the VDD and GND corners run
    straight to it and its GND drops to the bottom layer."""
    tracks: list[Track] = []
    vias: list[Via] = []
    pads = led.pad_positions()
    for pad, (lx, ly) in (("2", (-2.2, 0.0)), ("5", (2.2, 0.0)), ("3", (-2.0, 2.0)),
                          ("4", (2.0, 2.0))):  # fmt: skip
        if led.nets[pad].startswith("unconnected-"):
            continue
        ((px, py),) = [(x, y) for n, x, y in pads if n == pad]
        ex, ey = rotate(lx, ly, led.angle)
        via = (_snap(led.x + ex), _snap(led.y + ey))
        tracks.append(Track(led.nets[pad], "F.Cu", 0.25, (px, py), via))
        vias.append(Via(led.nets[pad], via))
    vdd = sorted(((x, y) for n, x, y in pads if n == "1"), key=_dist((led.x, led.y)))
    gnd = sorted(((x, y) for n, x, y in pads if n == "6"), key=_dist((led.x, led.y)))
    # [0]: the centre pad, [1]: the corner
    bx, by = rotate(0.0, 2.3, led.angle)
    centre_via = (_snap(led.x + bx), _snap(led.y + by))
    tracks += [
        Track("+5V", "F.Cu", 0.3, vdd[0], vdd[1]),
        Track("GND", "F.Cu", 0.3, gnd[0], centre_via),
    ]
    vias.append(Via("GND", centre_via))
    if cap is not None:
        c5v, cgnd = [(x, y) for _, x, y in sorted(cap.pad_positions())]
        ox, oy = rotate(0.0, -1.3, led.angle)
        cap_via = (_snap(cgnd[0] + ox), _snap(cgnd[1] + oy))
        tracks += [
            Track("+5V", "F.Cu", POWER_WIDTH, vdd[1], c5v),
            Track("GND", "F.Cu", POWER_WIDTH, gnd[1], cgnd),
            Track("GND", "F.Cu", POWER_WIDTH, cgnd, cap_via),
        ]
        vias.append(Via("GND", cap_via))
    return tracks, vias


def _dist(to: Point) -> Callable[[Point], float]:
    return lambda p: (p[0] - to[0]) ** 2 + (p[1] - to[1]) ** 2


def _base_supply(parts: _Parts, spec: BaseSpec, last_led: Placed | None, pins: PinMap) -> None:
    """Header, LED supply (jack, fuse, bulk capacitors) and the 3.3 V regulator, near the
    front edge (rank 1's side, where the buttons are)."""
    y = spec.height - 8.0
    parts.add_near(
        CATALOGUE["idc20"], (6.0, spec.height - 75.0), dict(CABLE), "ribbon cable header"
    )
    jack = parts.add_near(
        CATALOGUE["jack"], (spec.width - 14.7, y - 3.0),
        {"1": "+5V_IN", "2": "GND", "3": "GND"}, "LED supply jack", 90.0,
    )  # fmt: skip
    fuse = parts.add_near(
        CATALOGUE["fuse"], (jack.x - 6.0, jack.y), {"1": "+5V_IN", "2": "+5V"}, "LED supply fuse"
    )
    parts.add_near(
        CATALOGUE["c1000u"], (fuse.x - 10.0, fuse.y), {"1": "+5V", "2": "GND"},
        "bulk capacitor at the supply",
    )  # fmt: skip
    if last_led is not None:
        parts.add_near(
            CATALOGUE["c1000u"], (last_led.x, last_led.y + 8.0), {"1": "+5V", "2": "GND"},
            "bulk capacitor at the chain's end",
        )  # fmt: skip
    ldo = parts.add_near(
        CATALOGUE["ldo"], (fuse.x - 22.0, fuse.y),
        {"1": "+5V", "2": "GND", "3": "+5V", "4": "unconnected-LDO-NC", "5": "3V3"},
        "3.3 V regulator for the IR modules",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c1u"], (ldo.x - 3.0, ldo.y + 3.0), {"1": "+5V", "2": "GND"},
        "regulator input capacitor",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c1u"], (ldo.x + 3.0, ldo.y + 3.0), {"1": "3V3", "2": "GND"},
        "regulator output capacitor",
    )  # fmt: skip
    # the first LED's clock and data arrive from the HAT's 47 Ω resistors
    del pins


HAT_SIZE = (65.0, 56.5)
"""A Raspberry Pi HAT: 65 × 56.5 mm, M2.5 holes 3.5 mm in from each corner."""


def controller_board(pins: PinMap) -> Board:
    """The Pi HAT: protection, pull-ups, the LED buffer, the piezo and the cable header."""
    width, height = HAT_SIZE
    holes = tuple(Hole(x, y, 2.7) for x in (3.5, width - 3.5) for y in (3.5, height - 3.5))
    parts = _Parts(width, height, holes)
    header_nets = {pad: _pi_net(pins, name) for pad, name in PI_HEADER.items()}
    # the header centred between the top holes, 3.5 mm from the top edge (pin 1's row
    # 1.27 mm further in)
    parts.add(CATALOGUE["pi"], (32.5 - 24.13, 3.5 + 1.27), header_nets, "Raspberry Pi header")
    head = parts.add_near(
        CATALOGUE["idc20"], (width - 8.0, 30.0), dict(CABLE), "ribbon cable header"
    )
    # the matrix lines: the row's 100 Ω; the column's 1 kΩ with its pull-up on the cable side
    for r, gpio in enumerate(pins.rows):
        parts.add_near(
            CATALOGUE["R100"], (head.x - 30.0, 12.0 + 3.0 * r),
            {"1": f"ROW{r}", "2": f"GPIO{gpio}"}, f"row {r} series resistor (GPIO {gpio})",
            90.0,
        )  # fmt: skip
    for c, gpio in enumerate(pins.cols):
        parts.add_near(
            CATALOGUE["R1k"], (head.x - 22.0, 12.0 + 3.0 * c),
            {"1": f"COL{c}", "2": f"GPIO{gpio}"}, f"column {c} series resistor (GPIO {gpio})",
            90.0,
        )  # fmt: skip
        parts.add_near(
            CATALOGUE["R10k"], (head.x - 14.0, 12.0 + 3.0 * c),
            {"1": "3V3", "2": f"COL{c}"}, f"column {c} pull-up", 90.0,
        )  # fmt: skip
    # the LEDs' clock and data: GPIO → 74AHCT125 (5 V from the Pi) → 47 Ω → cable; a 10 kΩ
    # holds each input low while the Pi boots (the LEDs stay dark)
    clk, data = f"GPIO{pins.clock_gpio}", f"GPIO{pins.data_gpio}"
    buf = parts.add_near(
        CATALOGUE["buffer"], (20.0, 38.0),
        {"1": "GND", "2": clk, "3": "CLK_5V", "4": "GND", "5": data, "6": "DATA_5V",
         "7": "GND", "8": "unconnected-U1-3Y", "9": "GND", "10": "GND",
         "11": "unconnected-U1-4Y", "12": "GND", "13": "GND", "14": "+5V_PI"},
        "LED clock and data buffer",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c100n"], (buf.x + 5.5, buf.y - 4.0), {"1": "+5V_PI", "2": "GND"},
        "buffer decoupling", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R10k"], (buf.x - 6.0, buf.y - 2.0), {"1": clk, "2": "GND"},
        "LED clock pull-down", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R10k"], (buf.x - 8.5, buf.y - 2.0), {"1": data, "2": "GND"},
        "LED data pull-down", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R47"], (buf.x + 8.0, buf.y + 1.0), {"1": "CLK_5V", "2": "LED_CLK"},
        "LED clock series resistor", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R47"], (buf.x + 10.5, buf.y + 1.0), {"1": "DATA_5V", "2": "LED_DATA"},
        "LED data series resistor", 90.0,
    )  # fmt: skip
    buzz = f"GPIO{pins.buzzer_gpio}"
    piezo = parts.add_near(
        CATALOGUE["piezo"], (8.0, height - 10.0), {"1": "BUZZER", "2": "GND"}, "piezo"
    )
    parts.add_near(
        CATALOGUE["R220"], (piezo.x + 4.0, piezo.y - 7.0), {"1": buzz, "2": "BUZZER"},
        "piezo resistor", 90.0,
    )  # fmt: skip
    return Board(
        "controller", "pyramid-board controller (Raspberry Pi HAT)", width, height,
        tuple(parts.parts), holes,
    )  # fmt: skip


def _pi_net(pins: PinMap, name: str) -> str:
    """The net of a header pin: its GPIO's when the config uses it, else unconnected."""
    if name == "GND":
        return "GND"
    if name == "5V":
        return "+5V_PI"
    if name == "3V3":
        return "3V3"
    used = {*pins.rows, *pins.cols, pins.clock_gpio, pins.data_gpio, pins.buzzer_gpio}
    if int(name.removeprefix("GPIO")) in used:
        return name
    return f"unconnected-J1-{name}"
