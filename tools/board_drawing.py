"""Draw each sensor board's drilling template at 1:1 and write the guide's geometry numbers,
all from ``hardware/geometry.toml``.

    .venv/bin/python tools/board_drawing.py            # (re)write them
    .venv/bin/python tools/board_drawing.py --check    # exit 1 if any is out of date

It writes ``hardware/drilling-<board>.svg`` and ``.pdf`` (the underside seen from below, as
you drill it: cell centres, sensor holes with their orientation, LED light holes with their
chain number, button and mounting holes, dimensions and a 100 mm bar to check the print's
scale) and the blocks of ``hardware/README.md`` between ``<!-- geometry: NAME -->`` and
``<!-- end geometry: NAME -->``: the pearl magnet's field, the magnet model's margins for
each build (:mod:`tools.magnets`), the drilling depths, the parts that follow from the
geometry and the 3.3 V budget. ``tests/hardware/test_board_drawing.py`` fails when any of
them no longer matches the geometry file.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, cast
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportlab.lib.units import mm  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from controller.config import load_config  # noqa: E402
from controller.games.perlen.rules import POOL  # noqa: E402
from hardware.geometry import Geometry, Place, load_geometry  # noqa: E402
from hardware.pcb.mechanics import SCREW  # noqa: E402
from hardware.physical import Hall, Point, Reed, Reflective, Sensor  # noqa: E402
from tools import magnets, sensing  # noqa: E402
from tools import rest as rest_model  # noqa: E402

OUT = ROOT / "hardware"
GUIDE = OUT / "README.md"
BOARDS: dict[str, str] = {
    "pico": "configs/serial.toml",
    "matrix": "configs/matrix.toml",
    "mux": "configs/mux.toml",
}
"""The boards drawn, each with the config whose LED chain it numbers: the chosen build's
(the pico board: a reflective sensor in a pocket under every cell and target) and the two
magnet builds; a direct (Pyramidos) board is the matrix board's target corner."""
PAGE = (297.0, 210.0)
"""A4 landscape, mm."""
COLOURS = 3
"""Perlen-Pyramide: three colours of ``POOL`` pearls each."""
FIELD_DISTANCES = (1.0, 2.0, 3.0, 4.0, 5.0, 8.0, 10.0)
CROSS = 3.0
SMALL, NORMAL, LARGE = 2.2, 2.8, 4.0


# -- shapes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    dashed: bool = False


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float
    dashed: bool = False


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size: float = NORMAL
    anchor: Literal["start", "middle", "end"] = "start"


Shape = Line | Circle | Text


class Page:
    """Board coordinates (mm, seen from above) onto the page (mm, y down), mirrored in x:
    the template shows the underside as you see it when you drill it."""

    def __init__(self, geometry: Geometry) -> None:
        xs = [p.x for p in geometry.outline]
        ys = [p.y for p in geometry.outline]
        width, height = max(xs) - min(xs), max(ys) - min(ys)
        if width > PAGE[0] - 30 or height > PAGE[1] - 30:
            raise ValueError(f"board.outline: {width:g} × {height:g} mm does not fit on A4")
        self.right, self.top = max(xs), max(ys)
        self.left_margin = (PAGE[0] - width) / 2
        self.top_margin = (PAGE[1] - height) / 2
        self.shapes: list[Shape] = []

    def at(self, point: Point) -> tuple[float, float]:
        return self.left_margin + self.right - point.x, self.top_margin + self.top - point.y

    def line(self, a: Point, b: Point, *, dashed: bool = False) -> None:
        (x1, y1), (x2, y2) = self.at(a), self.at(b)
        self.shapes.append(Line(x1, y1, x2, y2, dashed))

    def circle(self, centre: Point, diameter: float, *, dashed: bool = False) -> None:
        x, y = self.at(centre)
        self.shapes.append(Circle(x, y, diameter / 2, dashed))

    def cross(self, centre: Point) -> None:
        self.line(centre + Point(-CROSS, 0), centre + Point(CROSS, 0))
        self.line(centre + Point(0, -CROSS), centre + Point(0, CROSS))

    def text(
        self,
        point: Point,
        text: str,
        size: float = NORMAL,
        anchor: Literal["start", "middle", "end"] = "start",
    ) -> None:
        x, y = self.at(point)
        self.shapes.append(Text(x, y, text, size, anchor))

    def dimension(self, a: Point, b: Point, label: str, *, offset: Point) -> None:
        """A dimension line from a to b, drawn ``offset`` away, with extension lines."""
        a2, b2 = a + offset, b + offset
        self.line(a, a2, dashed=True)
        self.line(b, b2, dashed=True)
        self.line(a2, b2)
        for end in (a2, b2):
            self.line(end + Point(-1, -1), end + Point(1, 1))
        mid = Point((a2.x + b2.x) / 2, (a2.y + b2.y) / 2)
        self.text(mid + Point(0, 1.2), label, SMALL, "middle")


# -- the template --------------------------------------------------------------------------


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def template(geometry: Geometry, board: str) -> list[Shape]:
    """Every shape of ``board``'s drilling template, in page millimetres."""
    page = Page(geometry)
    build = geometry.build(board)
    leds = load_config(ROOT / BOARDS[board]).board.channel_map.led_by_name
    outline = geometry.outline
    for a, b in zip(outline, (*outline[1:], outline[0]), strict=True):
        page.line(a, b)
    for hole in geometry.mounting_holes:
        if board == "pico":  # tapping screws into the wood (hardware/pcb/mechanics.py)
            pilot = f"Ø{_f(SCREW.pilot)} × {_f(SCREW.pilot_depth)} deep"
            page.circle(hole, SCREW.pilot)
            page.text(hole + Point(-3, -1), f"{pilot} (ST{_f(SCREW.thread)})", SMALL)
            continue
        page.circle(hole, geometry.mounting_hole_diameter)
        page.text(hole + Point(-3, -1), f"M3 Ø{_f(geometry.mounting_hole_diameter)}", SMALL)
    sensor = build.cell_sensor
    places: list[tuple[str, Point, Sensor | None]] = []
    if sensor is not None:
        places += [(name, centre, sensor) for name, centre in geometry.cells.items()]
    module = board == "pico"  # its targets and top are the Pyramidos module's (drawn apart)
    if build.target_sensor is not None and not module:
        places += [(n, c, build.target_sensor) for n, c in geometry.targets.items()]
    for name, centre, place_sensor in places:
        page.cross(centre)
        page.circle(centre, geometry.hollow.diameter, dashed=True)
        page.text(centre + Point(-4, 4.5), name, NORMAL)
        if place_sensor is not None:
            _sensor_marks(page, place_sensor, centre)
    if build.top_sensor is not None and not module:
        page.cross(geometry.top)
        page.text(geometry.top + Point(0, -4.5), "top: IR from above", SMALL, "middle")
    for name, centre in geometry.buttons.items():
        page.circle(centre, geometry.button_hole_diameter)
        page.text(centre + Point(0, -9), name.split(":")[1].replace("_", " "), SMALL, "middle")
    for name, centre in geometry.seats.items():
        page.text(centre + Point(0, -4.5), name.replace(":", " "), SMALL, "middle")
    for name in geometry.led_names:
        if name not in leds or (name in geometry.targets and build.target_sensor is None):
            continue
        if name == "top" and build.top_sensor is None:
            continue
        if module and (name in geometry.targets or name == "top"):
            continue
        spot = geometry.led_position(name)
        page.circle(spot, geometry.leds.light_hole_diameter)
        page.text(spot + Point(2.6, -1), str(leds[name]), SMALL)
    _dimensions(page, geometry, has_targets=build.target_sensor is not None and not module)
    _legend(page, geometry, board)
    return page.shapes


class SitePage(Page):
    """The Pyramidos site's frame onto the page: its centre in the page's middle, seen
    from below (mirrored in x)."""

    def __init__(self) -> None:
        self.right, self.top = 0.0, 0.0
        self.left_margin, self.top_margin = PAGE[0] / 2, PAGE[1] / 2
        self.shapes = []


def module_template(geometry: Geometry) -> list[Shape]:
    """The Pyramidos module's drilling and mounting drawing: the underside of HABA's upper
    level at the building site, seen from below, 1:1 (hardware/pcb/module.py)."""
    # the module's own figures: imported here, where the drawing needs them, since the
    # board's generator is not otherwise this tool's
    from hardware.pcb.inputs import TOP_LED_AT, module_spec
    from hardware.pcb.mechanics import SURFACE_COVER, site_screw, site_spacer

    site, page = geometry.pyramidos, SitePage()
    sensor = geometry.sensor("pico", "target")
    assert isinstance(sensor, Reflective)
    spacer, gap = site_spacer(site, sensor.peak_distance, sensor.span)
    screw, bite = site_screw(site, spacer)
    half = site.module_size / 2
    corners = [Point(-half, -half), Point(half, -half), Point(half, half), Point(-half, half)]
    for a, b in zip(corners, (*corners[1:], corners[0]), strict=True):
        page.line(a, b, dashed=True)
    for name, centre in site.targets.items():
        page.circle(centre, site.hole_diameter)
        page.cross(centre)
        page.text(centre + Point(0, -site.hole_diameter / 2 - 3), name, NORMAL, "middle")
    for hole in site.neighbour_holes:
        page.circle(hole, site.hole_diameter, dashed=True)
        page.circle(hole, site.hole_diameter + 2 * site.finger_room, dashed=True)
    page.circle(TOP_LED_AT, geometry.leds.light_hole_diameter)
    page.text(TOP_LED_AT + Point(3, -1), f"top's light: Ø{_f(geometry.leds.light_hole_diameter)} "
              "through", SMALL)  # fmt: skip
    page.cross(Point(0, 0))
    spec = module_spec(geometry)
    for mount in spec.holes:
        at = Point(mount.x - half, half - mount.y)
        page.circle(at, 2.0)
        page.text(at + Point(3, -1), f"Ø2 × {_f(site.board_thickness - SURFACE_COVER)} deep",
                  SMALL)  # fmt: skip
    t1, t2, t4 = site.targets["t1"], site.targets["t2"], site.targets["t4"]
    page.dimension(t1, t2, f"{_f(site.hole_spacing)}", offset=Point(0, -half - 6))
    page.dimension(t1, t4, f"{_f(site.hole_spacing)}", offset=Point(half + 6, 0))
    page.dimension(corners[0], corners[1], f"module {_f(site.module_size)}",
                   offset=Point(0, -half - 14))  # fmt: skip
    lines = [
        "pyramid-board: the Pyramidos module, HABA's upper level",
        "seen from BELOW at the building site, 1:1 (A4, print at 100 %).",
        f"Site centre (the cross): {_f(site.place.x)} mm from the level's left edge,",
        f"{_f(site.place.y)} mm from its front edge (seen from above).",
        f"Target holes Ø{_f(site.hole_diameter)}, {_f(site.hole_spacing)} apart; balls "
        f"Ø{_f(site.ball_diameter)}; level {_f(site.board_thickness)} mm.",
        "Dashed square: the module (its parts face the level).",
        "Dashed: the holes around the site, and the room",
        f"kept for a fingertip ({_f(site.finger_room)} mm) around each.",
        f"Pilot holes for ST2.9 × {_f(screw)} mm screws ({_f(bite)} mm of thread",
        f"in the level) through {_f(spacer)} mm M3 nylon spacers:",
        f"each sensor {_f(gap)} mm under its ball's lowest point.",
        "The top's TCRT1000 hangs over the top ball on a bridge,",
        f"its face {_f(sensor.peak_distance)} mm over the ball "
        f"({_f(site.top_apex + sensor.peak_distance)} mm above the level).",
    ]
    for i, line in enumerate(lines):
        page.text(Point(-half - 38, half + 20 - i * 3.4), line, SMALL)
    bar_y = PAGE[1] - 15
    page.shapes.append(Line(20, bar_y, 120, bar_y))
    for tick in (0, 50, 100):
        page.shapes.append(Line(20 + tick, bar_y - 1.5, 20 + tick, bar_y + 1.5))
    page.shapes.append(Text(122, bar_y + 1, "100 mm: measure it on the print", SMALL))
    return page.shapes


def _sensor_marks(page: Page, sensor: Sensor, centre: Point) -> None:
    if sensor.kind == "ir":
        page.circle(centre, sensor.hole_diameter)
        return
    if sensor.kind == "reflective":  # the pocket from below, and the window up to the hollow
        page.circle(centre, sensor.hole_diameter)
        page.circle(centre, sensor.window_diameter)
        return
    for element in sensor.elements:
        spot = centre + element.offset
        page.circle(spot, sensor.hole_diameter)
        if element.orientation == "flat" and isinstance(sensor, Reed):
            angle = math.radians(element.azimuth)
            half = Point(math.cos(angle), math.sin(angle))
            length = sensor.glass_length / 2
            page.line(spot - Point(half.x * length, half.y * length),
                      spot + Point(half.x * length, half.y * length))  # fmt: skip


def _dimensions(page: Page, g: Geometry, *, has_targets: bool) -> None:
    xs = [p.x for p in g.outline]
    ys = [p.y for p in g.outline]
    low = Point(min(xs), min(ys))
    page.dimension(low, Point(max(xs), low.y), f"{_f(max(xs) - low.x)} mm", offset=Point(0, -8))
    page.dimension(low, Point(low.x, max(ys)), f"{_f(max(ys) - low.y)} mm", offset=Point(-8, 0))
    a1, b1, a2 = g.cells["a1"], g.cells["b1"], g.cells["a2"]
    page.dimension(a1, b1, f"pitch {_f(g.pitch)}", offset=Point(0, -17))
    page.dimension(a1, a2, f"{_f(g.pitch)}", offset=Point(-15, 0))
    page.dimension(Point(low.x, a1.y), a1, f"{_f(a1.x - low.x)}", offset=Point(0, -20))
    page.dimension(Point(a1.x, low.y), a1, f"{_f(a1.y - low.y)}", offset=Point(-20, 0))
    if has_targets:
        t1, t2 = g.targets["t1"], g.targets["t2"]
        page.dimension(t1, t2, f"{_f(t1.distance(t2))}", offset=Point(0, -12))


def _legend(page: Page, g: Geometry, board: str) -> None:
    build = g.build(board)
    sensor = build.cell_sensor or build.target_sensor
    assert sensor is not None
    lines = [
        f"pyramid-board: the {board} board",
        "seen from BELOW, 1:1 (A4, print at 100 %).",
        "Drill from this side. Dashed: the hollows,",
        f"cut from above, Ø{_f(g.hollow.diameter)} × {_f(g.hollow.depth)} mm, spherical.",
        f"Wood {_f(build.wood_thickness)} mm. Light holes Ø{_f(g.leds.light_hole_diameter)} "
        "through,",
        f"frosted plug Ø{_f(g.leds.plug_diameter)} × {_f(g.plug_length(board))} mm.",
    ]
    if sensor.kind == "reflective":
        left = build.wood_thickness - sensor.hole_depth - g.hollow.depth
        window = f"Ø{_f(sensor.window_diameter)}" if sensor.window_diameter else "a"
        lines += [
            f"Sensor pockets Ø{_f(sensor.hole_diameter)} × {_f(sensor.hole_depth)} mm deep,",
            f"then {window} window through the {_f(left)} mm of wood left",
            f"to the hollow: a {sensor.part} in each, looking up.",
        ]
    elif sensor.kind != "ir" and sensor.elements:
        depth = sensor.elements[0].depth
        left = build.wood_thickness - sensor.hole_depth - g.hollow.depth
        lines += [
            f"Sensor holes Ø{_f(sensor.hole_diameter)} × {_f(sensor.hole_depth)} mm deep,",
            f"{_f(left)} mm of wood left under each hollow;",
            f"the sensing part {_f(depth - g.hollow.depth)} mm under the hollow:",
            f"{sensor.part}, {sensor.elements[0].orientation}.",
        ]
    if build.target_sensor is not None and build.target_sensor.kind == "ir":
        lines.append(f"Targets: Ø{_f(build.target_sensor.hole_diameter)} through, IR looks up.")
    lines += [
        f"Numbers: LED chain order of {BOARDS[board]}.",
        f"Buttons Ø{_f(g.button_hole_diameter)}; seat LEDs over the seat names.",
    ]
    xs = [p.x for p in g.outline]
    ys = [p.y for p in g.outline]
    for i, line in enumerate(lines):
        page.text(Point(max(xs) - 4, max(ys) - 12 - i * 3.4), line, SMALL)
    x0 = page.left_margin
    # A bar to check the printer's scale.
    bar_y = PAGE[1] - page.top_margin + 13
    page.shapes.append(Line(x0, bar_y, x0 + 100, bar_y))
    for tick in (0, 50, 100):
        page.shapes.append(Line(x0 + tick, bar_y - 1.5, x0 + tick, bar_y + 1.5))
    page.shapes.append(Text(x0 + 102, bar_y + 1, "100 mm: measure it on the print", SMALL))


# -- rendering -----------------------------------------------------------------------------


def to_svg(shapes: Sequence[Shape], title: str) -> str:
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{PAGE[0]:g}mm" height="{PAGE[1]:g}mm" viewBox="0 0 {PAGE[0]:g} {PAGE[1]:g}" '
        'font-family="DejaVu Sans, Helvetica, sans-serif">',
        f"<title>{escape(title)}</title>",
        '<rect width="100%" height="100%" fill="white"/>',
        '<g fill="none" stroke="black" stroke-width="0.25">',
    ]
    for shape in shapes:
        dash = ' stroke-dasharray="1 1"' if getattr(shape, "dashed", False) else ""
        if isinstance(shape, Line):
            out.append(
                f'<line x1="{shape.x1:.2f}" y1="{shape.y1:.2f}" x2="{shape.x2:.2f}" '
                f'y2="{shape.y2:.2f}"{dash}/>'
            )
        elif isinstance(shape, Circle):
            out.append(f'<circle cx="{shape.x:.2f}" cy="{shape.y:.2f}" r="{shape.r:.2f}"{dash}/>')
    out.append("</g>")
    out.append('<g fill="black">')
    for shape in shapes:
        if isinstance(shape, Text):
            out.append(
                f'<text x="{shape.x:.2f}" y="{shape.y:.2f}" font-size="{shape.size:g}" '
                f'text-anchor="{shape.anchor}">{escape(shape.text)}</text>'
            )
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_pdf(shapes: Sequence[Shape], title: str) -> bytes:
    """The same shapes as a one-page PDF at 1:1 (reportlab; invariant, so reproducible)."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(PAGE[0] * mm, PAGE[1] * mm), invariant=True)
    canvas.setTitle(title)
    canvas.setLineWidth(0.25 * mm)
    height = PAGE[1]
    for shape in shapes:
        if isinstance(shape, Text):
            canvas.setFont("Helvetica", shape.size * mm)
            x, y = shape.x * mm, (height - shape.y) * mm
            if shape.anchor == "middle":
                canvas.drawCentredString(x, y, shape.text)
            elif shape.anchor == "end":
                canvas.drawRightString(x, y, shape.text)
            else:
                canvas.drawString(x, y, shape.text)
            continue
        canvas.setDash(1 * mm, 1 * mm) if shape.dashed else canvas.setDash()
        if isinstance(shape, Line):
            canvas.line(shape.x1 * mm, (height - shape.y1) * mm,
                        shape.x2 * mm, (height - shape.y2) * mm)  # fmt: skip
        else:
            canvas.circle(shape.x * mm, (height - shape.y) * mm, shape.r * mm, stroke=1, fill=0)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


# -- the guide's numbers -------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _g(value: float) -> str:
    return f"{value:.3g}"


def field_block(g: Geometry) -> str:
    magnet = g.pearl.magnet
    values = magnets.axial_field(magnet, FIELD_DISTANCES)
    return (
        f"Field on the axis of the pearls' {_f(magnet.diameter)} × {_f(magnet.height)} mm "
        f"{magnet.grade} disc, by distance from its face:\n\n"
        + _table(
            ["distance", *(f"{_f(d)} mm" for d in FIELD_DISTANCES)],
            [["field", *(f"{_g(v)} mT" for v in values)]],
        )
    )


def _placement(sensor: Sensor) -> str:
    if sensor.kind == "hall":
        return "flat, branded face up" if sensor.orientation == "upright" else "on edge"
    return str(sensor.orientation)


def margins_block(g: Geometry) -> str:
    rows = []
    for build in ("matrix", "mux"):
        sensor = g.sensor(build)
        checks = magnets.check_cells(g, sensor)
        own = min(checks, key=lambda c: c.own_margin)
        near = min(checks, key=lambda c: c.neighbour_margin)
        names = build
        rows.append([
            names,
            f"{sensor.part} ({_placement(sensor)})",
            f"{_g(own.operate)} / {_g(own.release)} {own.unit}",
            f"{_g(own.own)} {own.unit} (×{own.own_margin:.2f})",
            f"{_g(near.neighbours)} {near.unit} (×{near.neighbour_margin:.2f})",
        ])  # fmt: skip
    flips = [magnets.flip_check(g, name) for name in g.cells]
    flip = min(flips, key=lambda f: f.ratio)
    old = g.magnets["old-pearl"]
    tilted = replace(g, pearl=replace(g.pearl, tilt=2 * g.pearl.tilt))
    at_double = {
        build: min(c.own_margin for c in magnets.check_cells(tilted, g.sensor(build)))
        for build in ("matrix", "mux")
    }
    old_flip = magnets.flip_check(replace(g, pearl=replace(g.pearl, magnet=old)), flip.place)
    top = magnets.check_top(g, g.sensor("matrix"))
    old_reed = g.sensors["old-reed-flat"]
    old_g = replace(g, pearl=replace(g.pearl, magnet=old))
    shares = []
    for below in (3.0, 8.0):
        element = replace(old_reed.elements[0], depth=g.hollow.depth + below)
        shares.append(magnets.neighbour_share(old_g, replace(old_reed, elements=(element,))))
    new_share = magnets.neighbour_share(g, g.sensor("matrix"))
    return "\n".join([
        f"One neighbour alone gives the old flat reed (one end under the centre, along a "
        f"file, 3 mm and 8 mm under the hollow) {shares[0]:.0%} and {shares[1]:.0%} of the "
        f"own pearl's weakest drive; the upright reed {new_share:.1%}. What decides is all "
        "eight together against the sensor's release point:",
        "",
        _table(
            ["build", "cell sensor", "operate / release (worst case)",
             "own pearl, weakest rest (× operate)", "8 full neighbours, worst (release ×)"],
            rows,
        ),
        "",
        f"The pearl's rest matters most: this old model allows it up to {_f(g.pearl.tilt)}° "
        f"off magnet-down, {_f(g.pearl.rise)} mm high and {_f(g.pearl.lateral_offset)} mm "
        f"off centre. Resting {_f(2 * g.pearl.tilt)}° off, its weakest drive falls to "
        f"×{at_double['matrix']:.2f} (matrix) and ×{at_double['mux']:.2f} (mux) the "
        "operate point, and pearls rest in any orientation: so neither build sees them "
        "(the comparison above).",
        "",
        f"Turning a pearl over costs gravity {flip.ratio:.1f} times what its fullest "
        f"neighbourhood's magnets give back (cell {flip.place}; 2 is the least the tests "
        f"accept). With the old {_f(old.diameter)} × {_f(old.height)} mm discs that is "
        f"{old_flip.ratio:.2f}: the neighbours win, and the tests reject them.",
        "",
        f"Magnets in Pyramidos balls ({_f(g.ball.magnet.diameter)} mm {g.ball.magnet.grade} "
        f"spheres) fail: the other balls pull a ball "
        f"{magnets.pull_ratio(g, g.ball, g.targets):.1f} times harder than half of what "
        "its hollow holds (a pearl's neighbours: "
        f"{magnets.pull_ratio(g, g.pearl, g.cells):.2f} times), and under the top the four "
        f"base balls drive a reed {top.neighbours / top.own:.0f} times harder than the top "
        "ball itself. Targets and the top are therefore seen by IR modules.",
    ])  # fmt: skip


def drilling_block(g: Geometry) -> str:
    rows = []
    for board in BOARDS:
        build = g.build(board)
        sensor = build.cell_sensor
        assert sensor is not None
        depth = sensor.elements[0].depth
        rows.append([
            board,
            f"{_f(build.wood_thickness)} mm",
            f"Ø{_f(g.hollow.diameter)} × {_f(g.hollow.depth)} mm",
            f"Ø{_f(sensor.hole_diameter)} × {_f(sensor.hole_depth)} mm",
            f"{_f(build.wood_thickness - sensor.hole_depth - g.hollow.depth)} mm "
            f"(the {sensor.kind} senses {_f(depth - g.hollow.depth)} mm down)",
            f"Ø{_f(g.leds.light_hole_diameter)} through",
            f"Ø{_f(g.leds.plug_diameter)} × {_f(g.plug_length(board))} mm",
        ])  # fmt: skip
    offset = g.leds.cell_offset
    return "\n".join([
        _table(
            ["board", "wood", "hollow (from above)", "sensor hole (from below)",
             "wood left under the hollow", "light hole", "frosted plug"],
            rows,
        ),
        "",
        f"Cells {_f(g.pitch)} mm apart; each cell's LED {_f(abs(offset.x))} mm towards file a "
        f"and {_f(abs(offset.y))} mm towards rank 1 from the cell's centre "
        f"({_f(g.cells['a1'].distance(g.led_position('a1')))} mm off the centre, outside a "
        f"{_f(g.pearl.diameter)} mm pearl's shadow); mounting holes "
        f"Ø{_f(g.mounting_hole_diameter)} (M3); buttons Ø{_f(g.button_hole_diameter)}.",
    ])  # fmt: skip


def parts_block(g: Geometry) -> str:
    pearls = COLOURS * POOL
    cells = len(g.cells)
    matrix, mux, cell_ir = g.sensor("matrix"), g.sensor("mux"), g.sensor("pico")
    target, top = g.sensor("matrix", "target"), g.sensor("matrix", "top")
    assert isinstance(matrix, Reed) and isinstance(mux, Hall) and isinstance(cell_ir, Reflective)
    magnet = g.pearl.magnet
    led_counts: dict[str, list[str]] = {}  # each LED part: its count on each build using it
    for build, path in (*BOARDS.items(), ("direct", "configs/direct.toml")):
        part = g.build(build).led_part or g.leds.part
        count = load_config(ROOT / path).board.channel_map.led_count
        led_counts.setdefault(part, []).append(f"{count} ({build})")
    glass, (pull_low, pull_high) = matrix.glass_length, matrix.pull_in
    hole = _f(g.leds.light_hole_diameter)
    rows = [
        [f"{matrix.manufacturer} **{matrix.part}** reed switch", str(cells), "matrix, Pico",
         f"one per cell, upright under its centre: {_f(glass)} mm glass, "
         f"pull-in {_f(pull_low)}–{_f(pull_high)} AT"],
        [f"{mux.manufacturer} **{mux.part}** hall switch (SOT-23)", str(cells), "mux",
         f"one per cell, branded face up under its centre; B_OP ≤ {_f(mux.operate_max)} "
         f"mT, B_RP ≥ {_f(mux.release_min)} mT"],
        [f"{cell_ir.manufacturer} **{cell_ir.part}** reflective IR sensor",
         str(cells + len(g.targets) + 1),
         "Pico (the chosen build)",
         f"one per cell, looking up through a Ø{_f(cell_ir.window_diameter)} "
         f"mm window in the hollow's bottom from a {_f(cell_ir.hole_depth)} mm pocket; one "
         "under each target hole of HABA's tower and one on a bridge over the top ball (the "
         "Pyramidos module); the pieces stay as they are"],
        [f"{target.part}", str(len(g.targets)), "matrix, direct",
         f"one per target, looking up through a Ø{_f(target.hole_diameter)} mm hole"],
        [f"{top.part}", "1", "matrix, direct", "on a bridge over the top, looking down"],
        [f"neodymium disc magnet {_f(magnet.diameter)} × {_f(magnet.height)} mm, {magnet.grade}",
         str(pearls), "matrix, mux (rejected)", f"one per pearl ({COLOURS} colours × {POOL}), in a "
         f"Ø{_f(magnet.diameter + 0.1)} × {_f(magnet.height)} mm hole, flush"],
        *([f"{part} LED", ", ".join(counts), ", ".join(c.split(" (")[1][:-1] for c in counts),
           f"one per cell, target, top, button and seat, under a Ø{hole} mm light hole"]
          for part, counts in led_counts.items()),
        [f"frosted plug: {g.leds.plug_material}", "one per LED", "all",
         f"Ø{_f(g.leds.plug_diameter)} mm, {_f(g.plug_length('matrix'))} mm long "
         f"({_f(g.plug_length('mux'))} mm on the mux board)"],
    ]  # fmt: skip
    return _table(["part", "qty", "builds", "where it goes"], rows)


def budget_block(g: Geometry) -> str:
    rows = []
    for build in ("matrix", "mux", "direct"):
        b = g.build(build)
        parts = []
        total = 0.0
        counts: tuple[tuple[Place, int], ...] = (
            ("cell", len(g.cells)),
            ("target", len(g.targets)),
            ("top", 1),
        )
        for place, count in counts:
            sensor = b.sensor(place)
            if sensor is None or sensor.current == 0:
                continue
            total += count * sensor.current
            parts.append(f"{count} × {_f(sensor.current)} mA ({sensor.part})")
        rows.append([build, " + ".join(parts) or "nothing (reeds are passive)", f"{_f(total)} mA"])
    return _table(["build", "sensors on 3.3 V", "total"], rows)


def _fine() -> dict[str, object]:
    data: dict[str, object] = json.loads(sensing.FINE_SWEEP.read_text(encoding="utf-8"))
    return data


def _rolling_range(g: Geometry) -> float:
    """Degrees a pearl turns rolling from the hollow's rim to its bottom."""
    big = rest_model.hollow_radius(g.hollow)
    r = g.pearl.diameter / 2
    return math.degrees((big - r) * math.asin(g.hollow.diameter / 2 / big) / r)


def rest_block(g: Geometry) -> str:
    """How today's pearls come to rest, from the committed fine sweep."""
    r = cast(dict[str, float], _fine()["rest"])
    return (
        f"Put down {r['placements']:.0f} ways (uniform over the sphere, anywhere in the hollow, "
        f"up to {_f(g.pearl.rise)} mm high) amid eight full neighbours, a pearl with the "
        f"{_f(g.pearl.magnet.diameter)} × {_f(g.pearl.magnet.height)} mm magnet flush in it "
        f"(its centre of mass {r['offset_mm']:.2f} mm off centre) rolls to the bottom of its "
        f"hollow and stops. On the way its magnet comes at most "
        f"{r['nearer_down_max_deg']:.0f}° nearer to straight down (median "
        f"{r['nearer_down_median_deg']:.1f}°): rolling without slipping, a Ø"
        f"{_f(g.pearl.diameter)} mm pearl in a Ø{_f(g.hollow.diameter)} × "
        f"{_f(g.hollow.depth)} mm hollow turns at most {_rolling_range(g):.0f}° before its "
        "contact reaches the rim, and the neighbours' magnets turn it a few degrees more. "
        f"{r['rolls_share']:.0%} of them roll without slipping at wood's lowest static "
        f"friction ({r['friction']:g}); to turn in place they would need "
        f"{1 / r['slip_torque_max']:.0f} times the torque gravity and the neighbours' "
        f"magnets give. So only {r['magnet_down_share']:.1%} rest within the "
        f"{_f(r['tilt_assumed_deg'])}° of magnet-down that the old model assumed: a pearl "
        "keeps the orientation the hand gave it."
    )


def sensing_block(g: Geometry) -> str:
    """The candidates compared at the rests, from the committed fine sweep."""
    fine = cast(dict[str, dict[str, object]], _fine()["candidates"])
    judged = {
        name: sensing.Judgement(**{k: v for k, v in row.items()  # type: ignore[arg-type]
                                   if k in sensing.Judgement.__dataclass_fields__})
        for name, row in fine.items()
    }  # fmt: skip
    header = [
        "candidate",
        "own pearl, weakest rest amid 8 full neighbours (× worst-case operate point)",
        "empty cell, 8 full neighbours (× under the worst-case release point)",
        "rests seen",
        "parts per board",
        "fitting by hand",
        "the family's 75 pearls",
        "",
    ]
    t = cast(dict[str, float], _fine()["targets"])
    target = sensing.Judgement(**t)  # type: ignore[arg-type]
    return (
        _table(header, sensing.table(judged, g))
        + "\n\nThe same sensor under a Pyramidos target (`[builds.pico] target_sensor`): the "
        f"darkest ball up to {_f(g.ball.rise)} mm high gives at least {target.own:.3g} µA "
        f"(×{target.own_margin:.2f} the worst-case operate point), and the other three balls "
        f"with the top ball on them at most {target.neighbours:.2g} µA (the release point "
        f"×{target.neighbour_margin:.2f} that)."
    )


def module_block(g: Geometry) -> str:
    """The Pyramidos module's figures as the geometry's ``[pyramidos]`` gives them."""
    # the module's own figures (hardware/pcb/): imported here, where the guide needs them
    from hardware.pcb.mechanics import SURFACE_COVER, site_screw, site_spacer, site_standoff
    from hardware.pcb.module import top_gap

    site = g.pyramidos
    sensor = g.sensor("pico", "target")
    assert isinstance(sensor, Reflective)
    spacer, gap = site_spacer(site, sensor.peak_distance, sensor.span)
    screw, bite = site_screw(site, spacer)
    rows = [
        ["module", f"{_g(site.module_size)} mm square, its parts facing the level"],
        ["a ball's lowest point", f"{site.rest_depth:.2f} mm under the level's top face "
         f"(level {_g(site.board_thickness)} mm)"],
        ["spacers", f"{_g(spacer)} mm, M3 nylon (the standoff wanted: "
         f"{site_standoff(site, sensor.peak_distance):.2f} mm)"],
        ["each target's sensor", f"{_g(gap)} mm under its ball (the TCRT1000 reads "
         f"{_g(sensor.span[0])}–{_g(sensor.span[1])} mm, peak at {_g(sensor.peak_distance)})"],
        ["screws", f"ST2.9 × {_g(screw)} mm, {_g(bite)} mm of thread in the level, into "
         f"Ø2.0 × {_g(site.board_thickness - SURFACE_COVER)} mm pilot holes"],
        ["the top ball's apex", f"{site.top_apex:.1f} mm above the level: its sensor's face "
         f"{_g(top_gap(g, below=False))} mm over it (from below it would be "
         f"{_g(top_gap(g, below=True))} mm)"],
    ]  # fmt: skip
    return _table(["", "from `[pyramidos]`"], rows)


BLOCKS: dict[str, Callable[[Geometry], str]] = {
    "module": module_block,
    "field": field_block,
    "margins": margins_block,
    "rest": rest_block,
    "sensing": sensing_block,
    "drilling": drilling_block,
    "parts": parts_block,
    "budget": budget_block,
}


def fill_guide(text: str, g: Geometry) -> str:
    """``text`` with every geometry block rewritten; an error if a block is missing."""
    for name, make in BLOCKS.items():
        pattern = re.compile(
            rf"(<!-- geometry: {name} -->\n)(?:.*?\n)?(<!-- end geometry: {name} -->)", re.DOTALL
        )
        if not pattern.search(text):
            raise ValueError(f"hardware/README.md has no <!-- geometry: {name} --> block")
        body = make(g)

        def replace(found: re.Match[str], body: str = body) -> str:
            return found.group(1) + body + "\n" + found.group(2)

        text = pattern.sub(replace, text)
    return text


def outputs(g: Geometry) -> dict[str, bytes]:
    made: dict[str, bytes] = {}
    for board in BOARDS:
        title = f"pyramid-board: {board} board drilling template, seen from below, 1:1"
        shapes = template(g, board)
        made[f"drilling-{board}.svg"] = to_svg(shapes, title).encode()
        made[f"drilling-{board}.pdf"] = to_pdf(shapes, title)
    title = "pyramid-board: Pyramidos module drilling and mounting drawing, seen from below, 1:1"
    shapes = module_template(g)
    made["drilling-pyramidos.svg"] = to_svg(shapes, title).encode()
    made["drilling-pyramidos.pdf"] = to_pdf(shapes, title)
    return made


def main(argv: Sequence[str] | None = None, out: Path = OUT, guide: Path = GUIDE,
         geometry: Path | None = None) -> int:  # fmt: skip
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    g = load_geometry(geometry)
    wanted = outputs(g)
    wanted[guide.name] = fill_guide(guide.read_text(encoding="utf-8"), g).encode()
    stale = []
    for name, data in wanted.items():
        path = guide if name == guide.name else out / name
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
            continue
        path.write_bytes(data)
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if stale:
        print("out of date (run tools/board_drawing.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
