"""The Pyramidos module: the pico build's four targets and the top on a board of their own.

A family's Pyramidos is HABA's tower, whose building site (the four target holes and the
top ball on the four balls in them) is on its upper level; a finger reaches that level's
holes from below to nudge a ball. The module is screwed under the site on four nylon
spacers (:func:`hardware.pcb.mechanics.site_spacer`), its size, place and holes from
the geometry file's ``[pyramidos]`` table, which the maker measures on their own set. Its
side facing the level (KiCad's front, F) carries a Vishay TCRT1000 under each target hole,
looking up at the ball resting in it, and a WS2812B-2020 beside it in the same hole (the
target's light), and the top's LED under a Ø4 light hole; everything else is on the
back: each sensor's 150 Ω emitter resistor and 10 kΩ load, the LEDs' 100 nF, the header
of the top's sensor (a TCRT1000 on a bridge over the top ball, looking down at it) and the
2 × 10 box header of the ribbon cable to the pico board. (From under the site's centre the top
ball's lowest point lies about 14 mm from a TCRT1000's face, :func:`top_gap`, where it
gives a few per cent of its peak: hence the bridge.)

The module has no chip: the pico board's multiplexers read its five sensors and its
MOSFETs light them, in the emitter groups ``firmware/config.py`` gives them, and its LEDs
are a stretch of the pico board's chain (the config's LED numbers), out and back along
the cable (:func:`cable`). Its nets are named as on the pico board, so that one netlist
name means one signal on both.
"""

from __future__ import annotations

from hardware.geometry import Geometry
from hardware.pcb.design import BaseSpec, Board, Placed, Site, Track, Via, _facing, begin
from hardware.pcb.mechanics import BODY, site_screw, site_spacer
from hardware.pcb.parts import CATALOGUE, PartKind
from hardware.pcb.pico import CABLE, CAP_OFFSET, MODULE_NAMES, PicoPins, _ws2812_fanout, cable
from hardware.physical import Reflective

__all__ = ["CABLE", "MODULE_NAMES", "cable", "loose", "module_board", "top_gap"]

CABLE_KIND = PartKind(
    "cable", "", "ribbon cable 2x10", "", {}, "ribbon cable assembly, 20 ways, 2.54 mm IDC "
    "sockets (2 × 10, keyed) at both ends, 300 mm: the pico board's J to the Pyramidos "
    "module's J", "Samtec", "TCSD-10-D-12.00-01-N", "", "hand", 4.0,
    "estimate (catalogue price of a 12-inch assembly)",
)  # fmt: skip
"""What joins the module to the pico board."""

SPACER = PartKind(
    "spacer", "", "spacer M3", "", {}, "nylon spacer, round, Ø3.2 mm bore, M3 (its length "
    "from the geometry: hardware/README.md, The Pyramidos module): the module off the level",
    "any", "nylon spacer M3", "", "hand", 0.05, "estimate",
)  # fmt: skip

TOP_SENSOR = PartKind(
    "top_sensor", "", "TCRT1000", "", {}, "the top's reflective sensor on its bridge over the "
    "top ball, looking down, its four leads on a 4-core lead to the module's header",
    "Vishay", "TCRT1000", "", "hand", 0.90, "estimate (hardware/README.md: about EUR 0.9)",
)  # fmt: skip


def top_gap(geo: Geometry, below: bool) -> float:
    """mm from a TCRT1000's face to the top ball: from its bridge (the data sheet's peak
    distance over the apex), or from under the site's centre (the module's face on its
    spacer), which the module does not do.

    >>> from hardware.geometry import load_geometry
    >>> top_gap(load_geometry(), below=False), top_gap(load_geometry(), below=True)
    (1.0, 13.9)
    """
    site, sensor = geo.pyramidos, geo.sensor("pico", "top")
    assert isinstance(sensor, Reflective)
    if not below:
        return sensor.peak_distance
    spacer, _ = site_spacer(site, sensor.peak_distance, sensor.span)
    lowest = site.top_apex - site.ball_diameter  # the top ball's lowest point
    return round(lowest + site.board_thickness + spacer - BODY[2], 2)


def loose(geo: Geometry) -> tuple[tuple[PartKind, int, str], ...]:
    """What the BOM orders for the module that is not on it."""
    site, sensor = geo.pyramidos, geo.sensor("pico", "target")
    assert isinstance(sensor, Reflective)
    spacer, _ = site_spacer(site, sensor.peak_distance, sensor.span)
    length, _ = site_screw(site, spacer)
    screw = PartKind(
        "site_screw", "", f"ST2.9x{length:g}", "", {}, f"pan-head tapping screw ST2.9 × "
        f"{length:g} mm, ISO 7049, stainless A2: the module under the level, through its "
        "spacer, into a Ø2.0 mm pilot hole", "any", f"ISO 7049 ST2.9x{length:g} A2", "",
        "hand", 0.03, "estimate (a box of 100 for about $3)",
    )  # fmt: skip
    parts: tuple[tuple[PartKind, int, str], ...] = (
        (screw, 4, "the module to the level"),
        (SPACER, 4, f"{spacer:g} mm long, between the module and the level"),
        (TOP_SENSOR, 1, "over the top ball"),
        (CABLE_KIND, 1, "the module to the pico board"),
    )
    return parts


def module_board(spec: BaseSpec, pins: PicoPins, geo: Geometry) -> Board:
    """The Pyramidos module (see the module's doc)."""
    names = [s.name for s in spec.sites]
    if sorted(names) != sorted(MODULE_NAMES):
        raise ValueError(f"the module's places are {', '.join(MODULE_NAMES)}, not {names}")
    leds = {n: pins.leds[n] - pins.leds["t1"] for n in MODULE_NAMES}
    holes, parts, chain = begin(spec, leds, pins.source)
    wires = cable(pins)
    first = min(pins.leds[n] for n in MODULE_NAMES)
    sensors: list[tuple[Site, Placed]] = []
    for site in spec.sites:
        assert site.sensor is not None
        _, _, group = pins.sensors[site.name]
        nets = {"1": f"EA_{site.name}", "2": f"EMIT{group}", "3": f"SNS_{site.name}", "4": "3V3"}
        if site.name == "top":
            part = parts.add(CATALOGUE["tcrt_lead"], site.sensor, nets, "top's TCRT1000 lead",
                             90.0, "B")  # fmt: skip
        else:
            part = parts.add(CATALOGUE["tcrt"], site.sensor, nets, f"TCRT1000 {site.name}")
        sensors.append((site, part))
    fanout: list[Track] = []
    fan_vias: list[Via] = []
    for n, (_, site) in enumerate(chain):
        assert site.led is not None
        before = chain[n - 1][1].led if n else None
        after = chain[n + 1][1].led if n + 1 < len(chain) else None
        number = first + n
        led = parts.add(
            CATALOGUE["ws2812"], site.led,
            {"1": f"LED_D{number + 1}", "2": "GND", "3": f"LED_D{number}", "4": "+5V"},
            f"LED {site.name}", _facing(site.led, after, before),
        )  # fmt: skip
        tracks, vias = _ws2812_fanout(led)
        for v in vias:
            parts.block((v.at[0] - 0.6, v.at[1] - 0.6, v.at[0] + 0.6, v.at[1] + 0.6))
        parts.add_near(
            CATALOGUE["c100n"], led.local(0.0, -CAP_OFFSET), {"1": "+5V", "2": "GND"},
            f"decoupling {site.name}", (led.angle + 180.0) % 360.0, "B",
        )  # fmt: skip
        # the VDD via's track waits for the router (the 100 nF may sit elsewhere)
        vdd = next(v for v in vias if v.net == "+5V")
        vias.remove(vdd)
        fanout += [t for t in tracks if t.end != vdd.at]
        fan_vias += vias
    # each sensor's emitter resistor and load on the back, outwards from the square
    for site, part in sensors:
        out = 1.0 if part.x > spec.width / 2 else -1.0
        for kind, dy, nets, role in (
            ("R150_0805", -1.6, {"1": "+5V", "2": f"EA_{site.name}"}, "emitter resistor"),
            ("R10k", 1.6, {"1": f"SNS_{site.name}", "2": "GND"}, "sensor load"),
        ):
            want = (
                (part.x + out * 6.0, part.y + dy)
                if site.name != "top"
                else (part.x + 6.0 * (1 if dy > 0 else -1), part.y + 3.0)
            )
            at = parts.near(CATALOGUE[kind], want, 0.0, "B")
            parts.add(CATALOGUE[kind], at, nets, f"{role} {site.name}", 0.0, "B")
    parts.add_near(
        CATALOGUE["idc20smd"], (spec.width / 2, spec.height / 2), wires,
        "ribbon cable header (to the pico board)", 90.0, "B",
    )  # fmt: skip
    return Board(
        "pyramidos",
        "pyramid-board Pyramidos module (targets and top under HABA's building site)",
        spec.width,
        spec.height,
        tuple(parts.parts),
        holes,
        tuple(fanout),
        tuple(fan_vias),
        pours=(("F.Cu", "GND"), ("B.Cu", "GND")),
        loose=loose(geo),
    )
