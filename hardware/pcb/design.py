"""The two printed boards as values: which part goes where, and which pad is on which net.

The base board lies flat under the wood. Its side facing the wood (KiCad's front, F)
carries only what sits in a hole of the wood: each cell's sensor (the block the geometry
file's build names, :func:`cell_block`), one SK9822-EC20 (APA102-2020) LED under every
light hole, and a 5.1 mm tactile switch inside every button's hole. Everything else is
on the other side (B): each sensor's diode, the targets' IR headers and optocouplers, the
LEDs' 100 nF, the LED supply (USB-C, fuse, ESD diode, bulk capacitors), the 74AHCT125
that lifts the LEDs' clock and data to 5 V (on the LED rail itself, so that nothing
back-feeds it), the 3.3 V regulator and the ribbon cable's header. The front copper is a
+5V pour, the back a ground pour. The controller is a Raspberry Pi HAT: the row and
column resistors, the column pull-ups, the series resistors of the LEDs' clock and data,
the ID EEPROM, the sounder's driver, and the same header. One ribbon cable (pin *n* to
pin *n*) joins the two headers; :data:`CABLE` says what runs on each wire.

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
    "HAT_HOLES",
    "HAT_RADIUS",
    "HAT_SIZE",
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

POWER_NETS = frozenset({"GND", "+5V", "VBUS", "3V3", "+5V_PI"})
"""Nets routed with wide tracks."""

Side = Literal["F", "B"]
"""A part's side: F faces the wood on the base board (KiCad's front), B the other."""


@dataclass(frozen=True)
class Hole:
    x: float
    y: float
    diameter: float


@dataclass(frozen=True)
class Site:
    """One sensed place or lit place of the base board, in board millimetres (y down)."""

    name: str
    """``a1``…``e5``, ``t1``…``t4``, ``top``, ``button:…``, ``seat:0``…``seat:3``."""
    kind: Literal["reed", "reflective", "ir", "button", "none"]
    sensor: Point | None
    """Where the reed stands, the IR module's socket goes, or the button's centre is."""
    led: Point | None
    hole: Hole | None = None
    """A hole through the board the site needs (an IR module's lead comes down it)."""


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
    side: Side = "F"

    @property
    def footprint(self) -> Footprint:
        return load_footprint(self.kind.footprint)

    def local(self, x: float, y: float) -> Point:
        """A point of the footprint's own frame on the board (a part on the back is
        mirrored top to bottom first, as KiCad flips it, then turned)."""
        dx, dy = rotate(x, -y if self.side == "B" else y, self.angle)
        return (round(self.x + dx, 4), round(self.y + dy, 4))

    def pad_positions(self) -> list[tuple[str, float, float]]:
        """(pad, x, y) on the board for every copper pad, as KiCad places it."""
        out = []
        for pad in self.footprint.pads:
            if pad.kind == "hole":
                continue
            x, y = self.local(pad.x, pad.y)
            out.append((pad.name, x, y))
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
    corner_radius: float = 0.0
    """The outline's corners, rounded (0: square)."""
    pours: tuple[tuple[Literal["F.Cu", "B.Cu"], str], ...] = (("F.Cu", "GND"), ("B.Cu", "GND"))
    """The copper pour of each layer and its net."""
    keepouts: tuple[tuple[Literal["F.Cu", "B.Cu"], tuple[float, float, float, float]], ...] = ()
    """Boxes (x0, y0, x1, y1) the router lays no track through on that layer (under a
    chip, between its rows of pins)."""
    route_first: tuple[str, ...] = ()
    """Nets the router takes, in this order, before all but the LEDs' (the pins of a
    crowded chip, which the nets routed before them would otherwise wall in)."""
    loose: tuple[tuple[PartKind, int, str], ...] = ()
    """What the BOM orders that is not on the board: (part, how many, what for), e.g. the
    buttons' plungers and the screws that hold the board to the wood."""

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


def courtyard(
    kind: PartKind, at: Point, angle: float, side: Side = "F"
) -> tuple[float, float, float, float]:
    """The part's courtyard on the board (the box around it when turned)."""
    x0, y0, x1, y1 = load_footprint(kind.footprint).courtyard
    if side == "B":
        y0, y1 = -y1, -y0
    corners = [rotate(x, y, angle) for x in (x0, x1) for y in (y0, y1)]
    xs = [at[0] + c[0] for c in corners]
    ys = [at[1] + c[1] for c in corners]
    return (min(xs), min(ys), max(xs), max(ys))


Box = tuple[float, float, float, float]


def _through(kind: PartKind) -> bool:
    """A part with holes through the board takes room on both sides."""
    return any(p.kind != "smd" for p in load_footprint(kind.footprint).pads)


class _Parts:
    """Numbers references per prefix in the order parts are added, and finds free room
    (on the part's own side; a through-hole part or a hole takes both)."""

    def __init__(self, width: float, height: float, holes: tuple[Hole, ...] = ()) -> None:
        self.parts: list[Placed] = []
        self._count: dict[str, int] = {}
        self.width, self.height = width, height
        self.taken: list[tuple[Box, frozenset[str]]] = [
            ((h.x - h.diameter / 2 - 1, h.y - h.diameter / 2 - 1,
              h.x + h.diameter / 2 + 1, h.y + h.diameter / 2 + 1), frozenset("FB"))
            for h in holes
        ]  # fmt: skip

    def block(self, box: Box, sides: str = "FB") -> None:
        self.taken.append((box, frozenset(sides)))

    def free(self, box: Box, side: Side = "F", gap: float = 0.6, both: bool = False) -> bool:
        x0, y0, x1, y1 = box
        if x0 < 1.0 or y0 < 1.0 or x1 > self.width - 1.0 or y1 > self.height - 1.0:
            return False
        return all(
            x1 + gap <= a0 or a1 + gap <= x0 or y1 + gap <= b0 or b1 + gap <= y0
            for (a0, b0, a1, b1), sides in self.taken
            if both or side in sides
        )

    def near(self, kind: PartKind, want: Point, angle: float = 0.0, side: Side = "F") -> Point:
        """The free spot nearest ``want`` (0.5 mm steps, outward) for this part."""
        both = _through(kind)
        for radius in range(0, 120):
            ring = sorted(
                {(dx, dy) for dx in range(-radius, radius + 1) for dy in (-radius, radius)}
                | {(dx, dy) for dy in range(-radius, radius + 1) for dx in (-radius, radius)},
                key=lambda d: (abs(d[0]) + abs(d[1]), d),
            )
            for dx, dy in ring:
                at = (round(want[0] + dx * 0.5, 3), round(want[1] + dy * 0.5, 3))
                if self.free(courtyard(kind, at, angle, side), side, both=both):
                    return at
        raise ValueError(f"no room for a {kind.value} near ({want[0]:.1f}, {want[1]:.1f})")

    def add_near(
        self,
        kind: PartKind,
        want: Point,
        nets: Mapping[str, str],
        role: str,
        angle: float = 0.0,
        side: Side = "F",
    ) -> Placed:
        return self.add(kind, self.near(kind, want, angle, side), nets, role, angle, side)

    def add(
        self,
        kind: PartKind,
        at: Point,
        nets: Mapping[str, str],
        role: str,
        angle: float = 0.0,
        side: Side = "F",
    ) -> Placed:
        missing = set(load_footprint(kind.footprint).pad_names) - set(nets)
        assert not missing, f"{role}: pads {sorted(missing)} have no net"
        n = self._count.get(kind.prefix, 0) + 1
        self._count[kind.prefix] = n
        part = Placed(
            f"{kind.prefix}{n}", kind, round(at[0], 3), round(at[1], 3), angle, nets, role, side
        )
        self.parts.append(part)
        self.block(courtyard(kind, at, angle, side), "FB" if _through(kind) else side)
        return part


def _centre_offset(kind: PartKind) -> Point:
    """From the footprint's origin to the middle of its courtyard."""
    x0, y0, x1, y1 = load_footprint(kind.footprint).courtyard
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def channel_nets(pins: PinMap, name: str) -> tuple[str, str]:
    """The row and column nets of the switch the config numbers ``name``."""
    row, col = divmod(pins.channels[name], len(pins.cols))
    return f"ROW{row}", f"COL{col}"


def _between(site: Site) -> str:
    return f"SW_{site.name.replace(':', '_')}"


def cell_block(parts: _Parts, sensor: PartKind, site: Site, pins: PinMap) -> Placed:
    """One cell's sensor block as the geometry's build names it: today a switch standing
    in its hole (pad 1 to the column, pad 2 to the diode), on the side facing the wood.
    Its diode is added with the others (:func:`_switch_helpers`)."""
    assert site.sensor is not None
    col = channel_nets(pins, site.name)[1]
    nets = {"1": col, "2": _between(site)}
    return parts.add(sensor, site.sensor, nets, f"{sensor.value} {site.name}")


def begin(
    spec: BaseSpec, leds: Mapping[str, int], source: str
) -> tuple[tuple[Hole, ...], _Parts, list[tuple[int, Site]]]:
    """What every base board starts from: its holes (the mounting holes and those the
    sensors need), the parts placed so far (none), and the LED chain in the config's
    order, checked to run 0, 1, 2, … without a gap (``source`` names the config)."""
    holes = spec.holes + tuple(s.hole for s in spec.sites if s.hole is not None)
    chain = sorted((leds[s.name], s) for s in spec.sites if s.led is not None and s.name in leds)
    if [i for i, _ in chain] != list(range(len(chain))):
        raise ValueError(f"{source}: the LED numbers must run 0, 1, 2, … without a gap")
    return holes, _Parts(spec.width, spec.height, holes), chain


def base_board(spec: BaseSpec, pins: PinMap) -> Board:
    """The base board: every site's sensor, diode and LED, the supply and the header."""
    if len(pins.rows) != MATRIX_SIZE or len(pins.cols) != MATRIX_SIZE:
        raise ValueError(
            f"{pins.source}: the printed boards carry a {MATRIX_SIZE} × {MATRIX_SIZE} matrix; "
            f"the config has {len(pins.rows)} rows and {len(pins.cols)} columns"
        )
    sensor = sensor_kind(
        spec.sensor.footprint, spec.sensor.description, spec.sensor.manufacturer, spec.sensor.mpn
    )
    holes, parts, chain = begin(spec, pins.leds, pins.source)
    # first what the geometry fixes: sensors, sockets, buttons, LEDs; then their helpers
    switches: list[tuple[Site, Placed]] = []
    for site in spec.sites:
        if site.sensor is None or site.kind == "none":
            continue
        if site.name not in pins.channels:
            raise ValueError(f"{pins.source}: no channel number for {site.name!r}")
        col = channel_nets(pins, site.name)[1]
        if site.kind == "button":
            # inside the button's hole in the wood, pressed by its dowel
            kind = CATALOGUE["button"]
            part = parts.add(
                kind, site.sensor, {"1": col, "2": _between(site)},
                f"button {site.name.removeprefix('button:')}",
            )  # fmt: skip
        elif site.kind == "ir":
            # the module's lead comes down through the hole beside it, to this header
            kind = CATALOGUE["ir"]
            part = parts.add(
                kind, site.sensor, {"1": "3V3", "2": "GND", "3": f"IR_{site.name}"},
                f"IR module {site.name}", 90.0, "B",
            )  # fmt: skip
        else:
            part = cell_block(parts, sensor, site, pins)
        switches.append((site, part))
    leds: list[tuple[Site, Placed]] = []
    for n, (_, site) in enumerate(chain):
        assert site.led is not None
        before = chain[n - 1][1].led if n else None
        after = chain[n + 1][1].led if n + 1 < len(chain) else None
        # the first LED takes the buffer's clock and data; the last one's outputs go nowhere
        last = n + 1 == len(chain)
        nets = {
            "1": "+5V",
            "2": "unconnected-LED-CKO" if last else f"LED_C{n + 1}",
            "3": "unconnected-LED-SDO" if last else f"LED_D{n + 1}",
            "4": f"LED_D{n}",
            "5": f"LED_C{n}",
            "6": "GND",
        }
        angle = _facing(site.led, after, before)
        leds.append((site, parts.add(CATALOGUE["led"], site.led, nets, f"LED {site.name}", angle)))
    for site, sw in switches:
        _switch_helpers(parts, site, sw, pins)
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
        for v in _led_fanout(led, None)[1]:
            parts.block(_via_box(v))
        # the 100 nF right behind the LED on the back, VDD (pad 1) and GND (pad 6) over it
        want = led.local(0.0, -CAP_OFFSET)
        cap = parts.add_near(
            CATALOGUE["c100n"], want, {"1": "+5V", "2": "GND"}, f"decoupling {site.name}",
            led.angle, "B",
        )  # fmt: skip
        tracks, vias = _led_fanout(led, cap if (cap.x, cap.y) == want else None)
        fanout += tracks
        fan_vias += vias
        for v in vias:
            parts.block(_via_box(v))
    supply_tracks, supply_vias = _base_supply(parts, spec, leds[-1][1] if leds else None)
    return Board(
        "base",
        "pyramid-board base board",
        spec.width,
        spec.height,
        tuple(parts.parts),
        holes,
        tuple(fanout + supply_tracks),
        tuple(fan_vias + supply_vias),
        pours=(("F.Cu", "+5V"), ("B.Cu", "GND")),
    )


CAP_OFFSET = 2.2
"""From an LED's centre to its 100 nF's on the back, towards the LED's supply pads."""


def _switch_helpers(parts: _Parts, site: Site, sw: Placed, pins: PinMap) -> None:
    """The back side's parts of one crossing: the diode (band towards the row), and for
    an IR module the optocoupler and its LED's resistor, for a button its ESD diode."""
    row, col = channel_nets(pins, site.name)
    between = _between(site)
    x0, y0, x1, y1 = courtyard(sw.kind, (sw.x, sw.y), sw.angle, sw.side)
    cx = (x0 + x1) / 2
    if site.kind == "ir":
        # the module's output lights the optocoupler's LED (3.3 V → 330 Ω → A, K → OUT);
        # its transistor is the crossing's switch: C to the column, E to the diode
        opto = parts.add_near(
            CATALOGUE["opto"], (cx, y1 + 5.5),
            {"1": f"IR_A_{site.name}", "2": f"IR_{site.name}", "3": between, "4": col},
            f"optocoupler {site.name}", 0.0, "B",
        )  # fmt: skip
        x0, y0, x1, y1 = courtyard(opto.kind, (opto.x, opto.y), opto.angle, "B")
        parts.add_near(
            CATALOGUE["R330"], (x1 + 2.5, (y0 + y1) / 2),
            {"1": "3V3", "2": f"IR_A_{site.name}"}, f"optocoupler LED resistor {site.name}",
            0.0, "B",
        )  # fmt: skip
        cx = (x0 + x1) / 2
    if site.kind == "button":
        parts.add_near(
            CATALOGUE["tvs"], (cx, y0 - 1.5), {"1": col, "2": "GND"}, f"ESD diode {site.name}",
            0.0, "B",
        )  # fmt: skip
    # the band (cathode, pad 1) towards the row: current flows column → row
    parts.add_near(
        CATALOGUE["diode"], (cx, y1 + 1.5), {"1": row, "2": between}, f"diode {site.name}",
        0.0, "B",
    )  # fmt: skip


def _via_box(via: Via) -> Box:
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
FEED_WIDTH = 1.5
"""The supply's own tracks, from the USB-C socket through the fuse to its vias."""


def _snap(v: float) -> float:
    return round(round(v / GRID) * GRID, 3)


def _led_fanout(led: Placed, cap: Placed | None) -> tuple[list[Track], list[Via]]:
    """The tracks and vias every LED gets before routing. Its clock and data pads sit
    between the supply pads and each other: a via just outside each keeps its way out
    open (on either layer) whatever the router lays nearby. The centre GND pad (between
    the data pads) drops through a via of its own to the back's ground pour, the centre
    VDD pad is tied to its corner (the front is the +5V pour). When the 100 nF sits
    where it should (on the back, under the supply pads), a via beside its + pad joins
    it to the VDD corner, and its − pad is in the back's ground pour."""
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
        c5v = next((x, y) for n, x, y in cap.pad_positions() if n == "1")
        ox, oy = rotate(-1.3, 0.0, led.angle)
        cap_via = (_snap(c5v[0] + ox), _snap(c5v[1] + oy))
        tracks += [
            Track("+5V", "B.Cu", POWER_WIDTH, c5v, cap_via),
            Track("+5V", "F.Cu", POWER_WIDTH, cap_via, vdd[1]),
        ]
        vias.append(Via("+5V", cap_via))
    return tracks, vias


def _dist(to: Point) -> Callable[[Point], float]:
    return lambda p: (p[0] - to[0]) ** 2 + (p[1] - to[1]) ** 2


FEED_VIAS = 9
"""Vias from the supply's back-side copper into the front's +5V pour (3 × 3, 1 mm apart):
2.6 A in nine 0.3 mm vias."""


def led_supply_input(
    parts: _Parts, spec: BaseSpec, last_led: Placed | None
) -> tuple[Placed, list[Track], list[Via]]:
    """The LEDs' supply input, the same on every base board, on the back near the front
    edge: USB-C (5 V only: the sink's 5.1 kΩ on CC1 and CC2 ask no more) → PTC fuse →
    +5V, which a field of nine vias takes into the front's +5V pour; an ESD diode across
    the input, and a 1 µF ceramic at the input and at the chain's end (``last_led``): with
    the LEDs' 100 nF each, what a USB port sees at attach stays within the 10 µF a device
    may show (:func:`hardware.pcb.mechanics.attach_capacitance`). The fuse is returned for
    what is placed beside it."""
    tracks: list[Track] = []
    vias: list[Via] = []
    usb = parts.add(
        CATALOGUE["usbc"], (_snap(spec.width - 40.0) - 0.25, spec.height - 3.2),
        {**{p: "VBUS" for p in ("A4", "A9", "B4", "B9")},
         **{p: "GND" for p in ("A1", "A12", "B1", "B12", "S1")},
         "A5": "USB_CC1", "B5": "USB_CC2",
         **{p: f"unconnected-USB-{p}" for p in ("A6", "B6", "A7", "B7", "A8", "B8")}},
        "LED supply input (USB-C, 5 V)", 180.0, "B",
    )  # fmt: skip
    fuse = parts.add_near(
        CATALOGUE["fuse"], (usb.x, usb.y - 10.0), {"1": "VBUS", "2": "+5V"}, "LED supply fuse",
        0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["tvs"], (usb.x - 8.0, usb.y - 6.0), {"1": "VBUS", "2": "GND"},
        "ESD diode at the LED supply input", 90.0, "B",
    )  # fmt: skip
    # the feed: fuse output → a wide track → nine vias into the front's +5V pour
    out = next((x, y) for n, x, y in fuse.pad_positions() if n == "2")
    fx, fy = _snap(out[0] + 4.0), _snap(out[1])
    tracks.append(Track("+5V", "B.Cu", FEED_WIDTH, out, (fx, fy)))
    for i in range(3):
        for j in range(3):
            at = (fx + i * 1.0, fy + (j - 1) * 1.0)
            vias.append(Via("+5V", at))
            parts.block(_via_box(Via("+5V", at)))
    tracks += [
        Track("+5V", "B.Cu", FEED_WIDTH, (fx, fy - 1.0), (fx + 2.0, fy - 1.0)),
        Track("+5V", "B.Cu", FEED_WIDTH, (fx, fy + 1.0), (fx + 2.0, fy + 1.0)),
        Track("+5V", "B.Cu", FEED_WIDTH, (fx, fy - 1.0), (fx, fy + 1.0)),
        Track("+5V", "B.Cu", FEED_WIDTH, (fx + 2.0, fy - 1.0), (fx + 2.0, fy + 1.0)),
    ]
    parts.block((fx - 1.5, fy - 2.0, fx + 3.0, fy + 2.0), "B")
    for cc, dx in (("USB_CC1", 5.0), ("USB_CC2", -5.0)):
        parts.add_near(
            CATALOGUE["R5k1"], (usb.x + dx, usb.y - 7.0), {"1": cc, "2": "GND"},
            f"USB-C sink's {cc[-3:]} resistor (asks for 5 V only)", 90.0, "B",
        )  # fmt: skip
    parts.add_near(
        CATALOGUE["c1u"], (fx + 10.0, fy), {"1": "+5V", "2": "GND"},
        "capacitor at the supply", 0.0, "B",
    )  # fmt: skip
    if last_led is not None:
        parts.add_near(
            CATALOGUE["c1u"], (last_led.x, last_led.y + 8.0), {"1": "+5V", "2": "GND"},
            "capacitor at the chain's end", 0.0, "B",
        )  # fmt: skip
    return fuse, tracks, vias


def _base_supply(
    parts: _Parts, spec: BaseSpec, last_led: Placed | None
) -> tuple[list[Track], list[Via]]:
    """The LED supply, the LEDs' buffer, the 3.3 V regulator and the header, near the
    front edge (rank 1's side, where the buttons are), all on the back.

    USB-C (5 V only: the sink's 5.1 kΩ on CC1 and CC2 ask no more) → PTC fuse → +5V,
    which a field of vias takes into the front's +5V pour; an ESD diode across the
    input and a 1 µF at the input and at the chain's end. The 74AHCT125 runs on +5V,
    the LEDs' own rail: with the LED supply unplugged it has no supply, and its inputs
    (no clamp to V_CC: SN74AHCT125 datasheet, absolute maximum V_I −0.5 to 7 V whatever
    V_CC) feed nothing from the Pi's 3.3 V."""
    tracks: list[Track] = []
    vias: list[Via] = []
    header = parts.add_near(
        CATALOGUE["idc20smd"], (8.0, spec.height - 75.0), dict(CABLE), "ribbon cable header",
        0.0, "B",
    )  # fmt: skip
    fuse, feed_tracks, feed_vias = led_supply_input(parts, spec, last_led)
    tracks += feed_tracks
    vias += feed_vias
    ldo = parts.add_near(
        CATALOGUE["ldo"], (fuse.x - 22.0, fuse.y),
        {"1": "+5V", "2": "GND", "3": "+5V", "4": "unconnected-LDO-NC", "5": "3V3"},
        "3.3 V regulator for the IR modules", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c1u"], (ldo.x - 3.0, ldo.y + 3.0), {"1": "+5V", "2": "GND"},
        "regulator input capacitor", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c1u"], (ldo.x + 3.0, ldo.y + 3.0), {"1": "3V3", "2": "GND"},
        "regulator output capacitor", 0.0, "B",
    )  # fmt: skip
    # the LEDs' clock and data: cable (3.3 V) → 10 kΩ to ground (dark while the Pi boots
    # or the cable is out) → 74AHCT125 → 47 Ω → the first LED
    hx0, _, hx1, hy1 = courtyard(header.kind, (header.x, header.y), header.angle, "B")
    buf = parts.add_near(
        CATALOGUE["buffer"], ((hx0 + hx1) / 2 + 3.0, hy1 + 12.0),
        {"1": "GND", "2": "LED_CLK", "3": "CLK_5V", "4": "GND", "5": "LED_DATA",
         "6": "DATA_5V", "7": "GND", "8": "unconnected-U-3Y", "9": "GND", "10": "GND",
         "11": "unconnected-U-4Y", "12": "GND", "13": "GND", "14": "+5V"},
        "LED clock and data buffer (on the LED rail)", 0.0, "B",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c100n"], (buf.x + 8.0, buf.y), {"1": "+5V", "2": "GND"},
        "buffer decoupling", 90.0, "B",
    )  # fmt: skip
    for net, dy, what in (("LED_CLK", -2.0, "clock"), ("LED_DATA", 2.0, "data")):
        parts.add_near(
            CATALOGUE["R10k"], (buf.x + 2.0 * dy, buf.y - 8.0), {"1": net, "2": "GND"},
            f"LED {what} pull-down", 0.0, "B",
        )  # fmt: skip
    for net, led, dy, what in (("CLK_5V", "LED_C0", -2.0, "clock"),
                               ("DATA_5V", "LED_D0", 2.0, "data")):  # fmt: skip
        parts.add_near(
            CATALOGUE["R47"], (buf.x + 2.0 * dy, buf.y + 8.0), {"1": net, "2": led},
            f"LED {what} series resistor", 0.0, "B",
        )  # fmt: skip
    return tracks, vias


HAT_SIZE = (65.0, 56.5)
"""A Raspberry Pi HAT: 65 × 56.5 mm (Raspberry Pi's HAT specification, raspberrypi/hats,
``hat-board-mechanical.pdf``)."""
HAT_HOLES = ((3.5, 3.5), (61.5, 3.5), (3.5, 52.5), (61.5, 52.5))
"""Its four M2.5 holes, 58 × 49 mm apart, 3.5 mm in from the sides (the same drawing)."""
HAT_HOLE_DIAMETER = 2.7
HAT_RADIUS = 3.0
"""Its corners' radius (the same drawing)."""


def controller_board(pins: PinMap) -> Board:
    """The Pi HAT: protection, pull-ups, the LED lines' resistors, the ID EEPROM, the
    sounder's driver and the cable header."""
    width, height = HAT_SIZE
    used = {*pins.rows, *pins.cols, pins.clock_gpio, pins.data_gpio, pins.buzzer_gpio}
    if used & {0, 1}:
        raise ValueError(
            f"{pins.source}: GPIO 0 and 1 are the HAT's ID EEPROM's (Raspberry Pi's HAT "
            "design guide): no matrix line, LED line or buzzer on them"
        )
    holes = tuple(Hole(x, y, HAT_HOLE_DIAMETER) for x, y in HAT_HOLES)
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
            CATALOGUE["R100"], (head.x - 30.0, 12.0 + 4.0 * r),
            {"1": f"ROW{r}", "2": f"GPIO{gpio}"}, f"row {r} series resistor (GPIO {gpio})",
            90.0,
        )  # fmt: skip
    for c, gpio in enumerate(pins.cols):
        parts.add_near(
            CATALOGUE["R1k"], (head.x - 22.0, 12.0 + 4.0 * c),
            {"1": f"COL{c}", "2": f"GPIO{gpio}"}, f"column {c} series resistor (GPIO {gpio})",
            90.0,
        )  # fmt: skip
        parts.add_near(
            CATALOGUE["R10k"], (head.x - 14.0, 12.0 + 4.0 * c),
            {"1": "3V3", "2": f"COL{c}"}, f"column {c} pull-up", 90.0,
        )  # fmt: skip
    # the LEDs' clock and data at 3.3 V through 47 Ω into the cable (the buffer is on the
    # base board, on the LEDs' own supply)
    for gpio, net, what in ((pins.clock_gpio, "LED_CLK", "clock"),
                            (pins.data_gpio, "LED_DATA", "data")):  # fmt: skip
        parts.add_near(
            CATALOGUE["R47"], (head.x - 14.0, 38.0 + (4.0 if what == "data" else 0.0)),
            {"1": f"GPIO{gpio}", "2": net}, f"LED {what} series resistor (GPIO {gpio})", 90.0,
        )  # fmt: skip
    # the ID EEPROM (Raspberry Pi's HAT design guide, "ID EEPROM"): a CAT24C32 at 0x50
    # (A0–A2 low), 3.9 kΩ pull-ups on ID_SD and ID_SC, WP pulled up by 1 kΩ with a test
    # point to ground it for writing
    eeprom = parts.add_near(
        CATALOGUE["eeprom"], (12.0, 34.0),
        {"1": "GND", "2": "GND", "3": "GND", "4": "GND", "5": "ID_SD", "6": "ID_SC",
         "7": "EEPROM_WP", "8": "3V3"},
        "HAT ID EEPROM",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["c100n"], (eeprom.x + 5.0, eeprom.y - 3.0), {"1": "3V3", "2": "GND"},
        "EEPROM decoupling", 90.0,
    )  # fmt: skip
    for net, dx in (("ID_SD", -4.0), ("ID_SC", -1.5)):
        parts.add_near(
            CATALOGUE["R3k9"], (eeprom.x + dx, eeprom.y - 6.0), {"1": "3V3", "2": net},
            f"{net} pull-up", 90.0,
        )  # fmt: skip
    parts.add_near(
        CATALOGUE["R1k"], (eeprom.x + 2.0, eeprom.y + 5.5), {"1": "3V3", "2": "EEPROM_WP"},
        "EEPROM write-protect pull-up", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["testpoint"], (eeprom.x + 6.0, eeprom.y + 5.5), {"1": "EEPROM_WP"},
        "EEPROM write enable: ground this pad to write",
    )  # fmt: skip
    # the sounder: GPIO → 1 kΩ → NPN (10 kΩ base pull-down) switching the speaker and its
    # 150 Ω (1206: within its rating sounding without end, as on the pico board,
    # hardware.pcb.ratings) from the Pi's 5 V, a flyback diode across the coil
    buzz = f"GPIO{pins.buzzer_gpio}"
    sounder = parts.add_near(
        CATALOGUE["sounder"], (8.0, height - 9.0), {"1": "SND+", "2": "SND-"}, "sounder leads"
    )
    q = parts.add_near(
        CATALOGUE["npn"], (sounder.x + 9.0, sounder.y), {"1": "SND_B", "2": "GND", "3": "SND-"},
        "sounder switch",
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R1k"], (q.x + 4.0, q.y - 3.0), {"1": buzz, "2": "SND_B"},
        "sounder switch base resistor", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R10k"], (q.x + 6.5, q.y - 3.0), {"1": "SND_B", "2": "GND"},
        "sounder switch base pull-down", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["R150_1206"], (sounder.x + 4.0, sounder.y - 6.0),
        {"1": "+5V_PI", "2": "SND+"},
        "sounder series resistor", 90.0,
    )  # fmt: skip
    parts.add_near(
        CATALOGUE["flyback"], (sounder.x + 5.0, sounder.y + 4.0), {"1": "SND+", "2": "SND-"},
        "sounder flyback diode",
    )  # fmt: skip
    return Board(
        "controller", "pyramid-board controller (Raspberry Pi HAT)", width, height,
        tuple(parts.parts), holes, corner_radius=HAT_RADIUS,
    )  # fmt: skip


def _pi_net(pins: PinMap, name: str) -> str:
    """The net of a header pin: its GPIO's when the config uses it, else unconnected."""
    if name == "GND":
        return "GND"
    if name == "5V":
        return "+5V_PI"
    if name == "3V3":
        return "3V3"
    if name == "GPIO0":
        return "ID_SD"
    if name == "GPIO1":
        return "ID_SC"
    used = {*pins.rows, *pins.cols, pins.clock_gpio, pins.data_gpio, pins.buzzer_gpio}
    if int(name.removeprefix("GPIO")) in used:
        return name
    return f"unconnected-J1-{name}"
