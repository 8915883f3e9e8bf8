"""The board's physical geometry, read from ``hardware/geometry.toml`` and checked.

(Longer than most modules: every key of hardware/geometry.toml is checked here, one
function per table, so that each error names its dotted key, as controller/config.py does;
the values it checks are one file's, and one module keeps their checks together.)

One file describes where everything is, for every build: the magnets in the pearls and
balls and how they rest in their hollows, the sensors under each place, the cells,
targets, top, buttons and seats, the LEDs under their light holes, the mounting holes and
the outline. The magnet model in ``tests/hardware/physics/``, the drilling template and the
guide's numbers (``tools/board_drawing.py``) and the KiCad sensor boards are all made from
it. Stdlib only: the Pi never needs more to read it.

The frame: seen from above, origin at the centre of cell c3 on the playing surface, x
along the files a→e, y along the ranks 1→5, z up (the surface at z = 0); millimetres.

>>> g = load_geometry()
>>> g.cells["c3"], g.cells["e5"]
(Point(x=0.0, y=0.0), Point(x=50.0, y=50.0))
>>> g.sensor("matrix").kind, g.sensor("mux").part
('reed', 'DRV5033AJQDBZR')
>>> g.sensor("pico").kind, g.pearl_insert("pico").kind  # the chosen build: IR, pearls untouched
('reflective', 'none')

Every value is checked, and an error names its dotted key:

>>> try:
...     geometry_from_toml(DEFAULT_PATH.read_text().replace("pitch = 25.0", "pitch = -1"))
... except GeometryError as exc:
...     print(exc)
board.pitch: must be from 5 to 100, not -1
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Literal, cast

from controller.checks import choice as _choice
from controller.checks import describe as _describe
from controller.checks import known as _known
from controller.checks import number as _number
from controller.checks import string as _string
from controller.checks import table as _table
from controller.hardware.channels import BUTTONS, CELLS, SEATS, TARGETS
from controller.hardware.wiring import ConfigError

__all__ = [
    "BUILDS",
    "DEFAULT_PATH",
    "PLACES",
    "Build",
    "Candidate",
    "Geometry",
    "GeometryError",
    "Hollow",
    "Insert",
    "LedLayout",
    "Magnet",
    "Piece",
    "Place",
    "Point",
    "Sensor",
    "SensorElement",
    "geometry_from_mapping",
    "geometry_from_toml",
    "load_geometry",
]

DEFAULT_PATH: Final = Path(__file__).resolve().parent / "geometry.toml"
SCHEMA: Final = 1
BUILDS: Final = ("matrix", "mux", "direct", "pico")
PLACES: Final = ("cell", "target", "top")
Place = Literal["cell", "target", "top"]
SensorKind = Literal["reed", "hall", "ir", "linear", "reflective"]
InsertKind = Literal["magnet", "steel", "none"]
Orientation = Literal["upright", "flat"]


class GeometryError(ConfigError):
    """A geometry value that cannot be used; ``key`` is the dotted key, ``problem`` why.

    >>> str(GeometryError("cells.a1", "must be [x, y]"))
    'cells.a1: must be [x, y]'
    """


# -- values --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Point:
    """A position in the board's frame (mm, seen from above)."""

    x: float
    y: float

    def __add__(self, other: Point) -> Point:
        return Point(self.x + other.x, self.y + other.y)

    def __sub__(self, other: Point) -> Point:
        return Point(self.x - other.x, self.y - other.y)

    def distance(self, other: Point) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)


@dataclass(frozen=True, slots=True)
class Magnet:
    """``[magnets.NAME]``: a disc (axially magnetised cylinder), a ring (a disc with a
    hole of ``inner_diameter``) or a sphere."""

    name: str
    shape: Literal["disc", "sphere", "ring"]
    grade: str
    diameter: float
    height: float
    """The disc's thickness; a sphere's is its diameter."""
    remanence: tuple[float, float]
    """Br of the grade, (min, max) in mT."""
    density: float
    inner_diameter: float = 0.0
    """A ring's hole (0 for a disc or a sphere)."""

    @property
    def volume(self) -> float:
        """mm³."""
        r = self.diameter / 2
        if self.shape == "sphere":
            return 4 / 3 * math.pi * r**3
        return math.pi * (r**2 - (self.inner_diameter / 2) ** 2) * self.height

    @property
    def mass(self) -> float:
        """Grams."""
        return self.volume * self.density / 1000


@dataclass(frozen=True, slots=True)
class Hollow:
    """``[hollow]``: the spherical dip each piece settles in."""

    diameter: float
    depth: float
    reflectance: tuple[float, float] = (0.3, 0.8)
    """Its wood's diffuse reflectance at 950 nm (least, most)."""


@dataclass(frozen=True, slots=True)
class Piece:
    """``[pearl]`` or ``[ball]``: a piece, its magnet and how it may lie in its hollow."""

    name: str
    diameter: float
    density: float
    magnet: Magnet
    magnet_depth: float
    """From the piece's surface to the magnet's outer face (0 = flush)."""
    rise: float
    lateral_offset: float
    tilt: float
    """Degrees from vertical; 180 = any orientation."""
    polarity: Literal["either"]
    reflectance: tuple[float, float] = (0.2, 0.9)
    """Diffuse reflectance of its surface at 950 nm (darkest, brightest finish)."""

    def magnet_height(self, hollow: Hollow) -> float:
        """z of the magnet's centre when the piece rests at the bottom of its hollow."""
        return -hollow.depth + self.magnet_depth + self.magnet.height / 2

    @property
    def centre_to_magnet(self) -> float:
        """From the piece's centre to the magnet's centre (mm)."""
        return self.diameter / 2 - self.magnet_depth - self.magnet.height / 2

    @property
    def mass(self) -> float:
        """Grams: the wood (less the magnet's hole) and the magnet."""
        wood = 4 / 3 * math.pi * (self.diameter / 2) ** 3 - self.magnet.volume
        return wood * self.density / 1000 + self.magnet.mass


@dataclass(frozen=True, slots=True)
class Insert:
    """``[inserts.NAME]``: what a build puts into each piece for its sensor to find.

    ``magnet``: a magnet (``[magnets.…]``) whose axis points out along the piece's radius,
    its outer face ``depth`` under the surface, or at the piece's centre (``centre``);
    ``steel``: a soft-iron sphere of ``diameter`` (at the centre); ``none``: the piece as
    the family has it.
    """

    name: str
    kind: InsertKind
    magnet: Magnet | None = None
    centre: bool = False
    depth: float = 0.0
    diameter: float = 0.0
    density: float = 0.0

    @property
    def volume(self) -> float:
        """mm³ of the insert itself."""
        if self.magnet is not None:
            return self.magnet.volume
        return 4 / 3 * math.pi * (self.diameter / 2) ** 3 if self.kind == "steel" else 0.0

    @property
    def mass(self) -> float:
        """Grams."""
        if self.magnet is not None:
            return self.magnet.mass
        return self.volume * self.density / 1000

    @property
    def height(self) -> float:
        """Its extent along the piece's radius (mm)."""
        if self.magnet is not None:
            return self.magnet.height
        return self.diameter

    def centre_distance(self, piece: Piece) -> float:
        """From the piece's centre to the insert's centre (mm)."""
        if self.centre or self.kind != "magnet":
            return 0.0
        return piece.diameter / 2 - self.depth - self.height / 2


@dataclass(frozen=True, slots=True)
class SensorElement:
    """One switch of a sensor (several are wired in parallel)."""

    orientation: Orientation
    azimuth: float
    """A flat element's axis, degrees from +x towards +y."""
    offset: Point
    depth: float


@dataclass(frozen=True, slots=True)
class Sensor:
    """``[sensors.NAME]``; the fields of another kind are ``None``."""

    name: str
    kind: SensorKind
    part: str
    manufacturer: str
    elements: tuple[SensorElement, ...]
    current: float = 0.0
    """mA each draws from 3.3 V (typical)."""
    hole_diameter: float = 0.0
    """The hole drilled for it from below (0: none)."""
    hole_depth: float = 0.0
    """How deep that hole goes into the wood from below."""
    glass_length: float | None = None
    pull_in: tuple[float, float] | None = None
    """Reed: the ordered class, (min, max) AT."""
    drop_out_min: float | None = None
    test_coil_length: float | None = None
    lead_diameter: float | None = None
    """Reed: its leads' diameter (mm)."""
    bend_clearance: float | None = None
    """Reed: the least length of straight lead between the glass seal and a bend (mm)."""
    lead_offset: float | None = None
    """Reed, upright: how far the upper lead, bent down beside the glass, runs from the
    glass's axis (mm)."""
    operate_max: float | None = None
    """Hall: B_OP max, mT."""
    release_min: float | None = None
    """Hall: B_RP min, mT."""
    height: float | None = None
    """IR: above the surface looking down (> 0), or below it looking up (< 0)."""
    axes: int = 1
    """Linear hall: 1 (the field along the element's axis) or 3 (the field's size)."""
    threshold_on: float | None = None
    """Linear hall (mT) and reflective (µA): the firmware's operate threshold over the
    cell's empty baseline."""
    threshold_off: float | None = None
    """… and its release threshold (below ``threshold_on``: the hysteresis)."""
    error: float | None = None
    """The worst-case reading error after the per-cell baseline (same unit): the operate
    point is ``threshold_on + error`` at worst, the release point ``threshold_off − error``."""
    full_scale: float | None = None
    """Linear hall: the largest field it reads (mT); beyond it the reading is uncertain."""
    bias_magnet: Magnet | None = None
    """Linear hall: a magnet under the element (back-biased), axis up."""
    bias_gap: float = 0.0
    """From the hall element down to the bias magnet's top face (mm)."""
    collector_min: float | None = None
    """Reflective: the least photocurrent (µA) at ``test_distance`` from a
    ``test_reflectance`` card, at the emitter current the firmware uses."""
    test_distance: float | None = None
    test_reflectance: float | None = None
    peak_distance: float | None = None
    """Reflective: the distance of the largest photocurrent (mm)."""
    span: tuple[float, float] | None = None
    """Reflective: distances (mm) within which the photocurrent stays above
    ``span_fraction`` of its peak."""
    span_fraction: float | None = None
    crosstalk_max: float | None = None
    """Reflective: photocurrent (µA) with nothing in front (emitter on), at most."""
    dark_max: float | None = None
    """Reflective: photocurrent (µA) with the emitter off and no light, at most."""
    window_diameter: float | None = None
    """Reflective: the hole from its pocket up through the hollow's bottom (mm)."""
    load_resistor: float | None = None
    """Reflective: kΩ from the phototransistor's emitter to ground (the ADC reads it)."""
    emitter_current: float | None = None
    """Reflective: mA through the emitter while it is lit."""

    @property
    def orientation(self) -> Orientation | None:
        """The first element's orientation (``None`` for an IR module)."""
        return self.elements[0].orientation if self.elements else None

    @property
    def depth(self) -> float | None:
        return self.elements[0].depth if self.elements else None

    @property
    def offset(self) -> Point | None:
        return self.elements[0].offset if self.elements else None


@dataclass(frozen=True, slots=True)
class Build:
    """``[builds.NAME]``: the sensors of each kind of place and the wood's thickness."""

    name: str
    wood_thickness: float
    cell_sensor: Sensor | None
    target_sensor: Sensor | None
    top_sensor: Sensor | None
    pearl_insert: Insert | None = None
    """What each pearl carries for the cell sensor (``None``: the ``[pearl]`` magnet)."""
    led_part: str | None = None
    """The build's LED where it is not ``[leds] part`` (the Pico drives WS2812-type LEDs)."""

    def sensor(self, place: Place) -> Sensor | None:
        return {"cell": self.cell_sensor, "target": self.target_sensor, "top": self.top_sensor}[
            place
        ]


@dataclass(frozen=True, slots=True)
class Candidate:
    """``[candidates.NAME]``: one way of sensing the cells, compared in hardware/README.md
    by the rest model (``tools/sensing.py``)."""

    name: str
    title: str
    cell_sensor: Sensor
    pearl_insert: Insert
    wood_thickness: float
    parts_cost: float
    """EUR per board for the cells' sensing parts (an estimate; README says how)."""
    assembly_minutes: float
    """Per board: fitting the cells' sensing parts by hand."""
    pearl_minutes: float
    """Per pearl: what the family must do to it (0: nothing)."""
    pearl_work: str


@dataclass(frozen=True, slots=True)
class LedLayout:
    """``[leds]``: the LED part, where each LED sits relative to its place, the holes."""

    part: str
    cell_offset: Point
    target_offset: Point
    top_offset: Point
    button_offset: Point
    seat_offset: Point
    light_hole_diameter: float
    plug_diameter: float
    plug_gap: float
    """Room left above the LED, under its plug."""
    plug_material: str


@dataclass(frozen=True, slots=True)
class Geometry:
    """The whole file. Places are keyed by their channel/LED names (``a1``, ``t1``,
    ``top``, ``button:confirm``, ``seat:0``)."""

    pitch: float
    outline: tuple[Point, ...]
    mounting_holes: tuple[Point, ...]
    mounting_hole_diameter: float
    button_hole_diameter: float
    hollow: Hollow
    magnets: Mapping[str, Magnet]
    pearl: Piece
    ball: Piece
    cells: Mapping[str, Point]
    targets: Mapping[str, Point]
    """t1–t4 (the top is :attr:`top`)."""
    top: Point
    buttons: Mapping[str, Point]
    seats: Mapping[str, Point]
    leds: LedLayout
    sensors: Mapping[str, Sensor]
    builds: Mapping[str, Build]
    inserts: Mapping[str, Insert]
    candidates: Mapping[str, Candidate]

    @property
    def own_magnet(self) -> Insert:
        """The ``[pearl]`` table's own magnet as an insert (the builds' default)."""
        return Insert("pearl", "magnet", self.pearl.magnet, depth=self.pearl.magnet_depth)

    def pearl_insert(self, build: str) -> Insert:
        """What each pearl of ``build`` carries."""
        insert = self.build(build).pearl_insert
        return self.own_magnet if insert is None else insert

    def build(self, name: str) -> Build:
        """A build by name; ``pico`` is the matrix board's."""
        try:
            return self.builds[name]
        except KeyError:
            have = ", ".join(self.builds)
            raise GeometryError("builds", f"no build {name!r} (have {have})") from None

    def sensor(self, build: str, place: Place = "cell") -> Sensor:
        """The sensor under each ``place`` (cell, target, top) of ``build``."""
        sensor = self.build(build).sensor(place)
        if sensor is None:
            raise GeometryError(f"builds.{build}", f"has no {place} sensor")
        return sensor

    def place(self, name: str) -> Point:
        """The centre of a cell, target, the top, a button or a seat, by name."""
        for table in (self.cells, self.targets, self.buttons, self.seats):
            if name in table:
                return table[name]
        if name == "top":
            return self.top
        raise GeometryError("", f"no place called {name!r}")

    def led_position(self, name: str) -> Point:
        """Where the LED of ``name`` (any LED name) sits, under its light hole."""
        leds = self.leds
        if name in self.cells:
            return self.cells[name] + leds.cell_offset
        if name in self.targets:
            return self.targets[name] + leds.target_offset
        if name == "top":
            return self.top + leds.top_offset
        if name in self.buttons:
            return self.buttons[name] + leds.button_offset
        if name in self.seats:
            return self.seats[name] + leds.seat_offset
        raise GeometryError("leds", f"no LED called {name!r}")

    def plug_length(self, build: str) -> float:
        """The frosted plug in each light hole of ``build``'s board: the wood less the gap."""
        return self.build(build).wood_thickness - self.leds.plug_gap

    @property
    def led_names(self) -> tuple[str, ...]:
        return (*self.cells, *self.targets, "top", *self.buttons, *self.seats)


# -- reading -------------------------------------------------------------------------------


def load_geometry(path: Path | None = None) -> Geometry:
    """Read and check ``path`` (default: the project's ``hardware/geometry.toml``)."""
    path = DEFAULT_PATH if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GeometryError(str(path), f"cannot read it: {exc}") from None
    return geometry_from_toml(text, source=str(path))


def geometry_from_toml(text: str, *, source: str = "geometry") -> Geometry:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GeometryError(source, f"not valid TOML: {exc}") from None
    return geometry_from_mapping(data)


_TOP_KEYS = ("schema", "board", "hollow", "magnets", "pearl", "ball", "cells", "targets",
             "buttons", "seats", "leds", "sensors", "builds", "inserts",
             "candidates")  # fmt: skip


def geometry_from_mapping(data: Mapping[str, Any]) -> Geometry:
    try:
        return _geometry(data)
    except GeometryError:
        raise
    except ConfigError as exc:  # from the shared checks in controller.checks
        raise GeometryError(exc.key, exc.problem) from None


def _geometry(data: Mapping[str, Any]) -> Geometry:
    _known(data, "", _TOP_KEYS)
    for key in _TOP_KEYS:
        if key not in data:
            raise GeometryError(key, "is missing")
    if data["schema"] != SCHEMA:
        raise GeometryError("schema", f"must be {SCHEMA}, not {_describe(data['schema'])}")
    board = _table(data["board"], "board")
    _known(
        board,
        "board",
        ("pitch", "outline", "mounting_hole_diameter", "mounting_holes", "button_hole_diameter"),
    )
    pitch = _number(_get(board, "board", "pitch"), "board.pitch", 5, 100)
    outline = _points(_get(board, "board", "outline"), "board.outline", minimum=3)
    holes = _points(_get(board, "board", "mounting_holes"), "board.mounting_holes", minimum=0)
    hole_d = _number(
        _get(board, "board", "mounting_hole_diameter"), "board.mounting_hole_diameter", 1, 10
    )
    button_d = _number(
        _get(board, "board", "button_hole_diameter"), "board.button_hole_diameter", 3, 40
    )
    hollow_t = _table(data["hollow"], "hollow")
    _known(hollow_t, "hollow", ("diameter", "depth", "reflectance"))
    hollow = Hollow(
        _number(_get(hollow_t, "hollow", "diameter"), "hollow.diameter", 1, 50),
        _number(_get(hollow_t, "hollow", "depth"), "hollow.depth", 0, 10),
        _pair(_get(hollow_t, "hollow", "reflectance"), "hollow.reflectance", 0.01, 1),
    )
    magnets = {
        name: _magnet(name, _table(value, f"magnets.{name}"))
        for name, value in _table(data["magnets"], "magnets").items()
    }
    pearl = _piece("pearl", _table(data["pearl"], "pearl"), magnets)
    ball = _piece("ball", _table(data["ball"], "ball"), magnets)
    cells = _places(data["cells"], "cells", CELLS, CELLS)
    _check_grid(cells, pitch)
    targets_all = _places(data["targets"], "targets", TARGETS, TARGETS)
    buttons = _places(data["buttons"], "buttons", ("confirm", "end_turn", "undo"), BUTTONS)
    seats = _places(data["seats"], "seats", ("0", "1", "2", "3"), SEATS)
    leds = _leds(_table(data["leds"], "leds"))
    sensors = {
        name: _sensor(name, _table(value, f"sensors.{name}"), magnets)
        for name, value in _table(data["sensors"], "sensors").items()
    }
    inserts = {
        name: _insert(name, _table(value, f"inserts.{name}"), magnets, pearl)
        for name, value in _table(data["inserts"], "inserts").items()
    }
    builds = _builds(_table(data["builds"], "builds"), sensors, inserts)
    candidates = {
        name: _candidate(name, _table(value, f"candidates.{name}"), sensors, inserts)
        for name, value in _table(data["candidates"], "candidates").items()
    }
    targets = {name: point for name, point in targets_all.items() if name != "top"}
    return Geometry(
        pitch=pitch,
        outline=outline,
        mounting_holes=holes,
        mounting_hole_diameter=hole_d,
        button_hole_diameter=button_d,
        hollow=hollow,
        magnets=MappingProxyType(magnets),
        pearl=pearl,
        ball=ball,
        cells=MappingProxyType(cells),
        targets=MappingProxyType(targets),
        top=targets_all["top"],
        buttons=MappingProxyType(buttons),
        seats=MappingProxyType(seats),
        leds=leds,
        sensors=MappingProxyType(sensors),
        builds=MappingProxyType(builds),
        inserts=MappingProxyType(inserts),
        candidates=MappingProxyType(candidates),
    )


def _magnet(name: str, table: dict[str, Any]) -> Magnet:
    key = f"magnets.{name}"
    shape = _choice(_get(table, key, "shape"), f"{key}.shape", ("disc", "sphere", "ring"))
    ring = ("inner_diameter",) if shape == "ring" else ()
    _known(table, key, ("shape", "grade", "diameter", "height", "remanence", "density", *ring))
    diameter = _number(_get(table, key, "diameter"), f"{key}.diameter", 0.5, 50)
    inner = 0.0
    if shape == "ring":
        inner = _number(_get(table, key, "inner_diameter"), f"{key}.inner_diameter", 0.1, 49)
        if inner >= diameter:
            raise GeometryError(f"{key}.inner_diameter", f"must be under the diameter {diameter:g}")
    height = _number(_get(table, key, "height"), f"{key}.height", 0.2, 50)
    if shape == "sphere" and height != diameter:
        raise GeometryError(f"{key}.height", f"a sphere's height is its diameter ({diameter:g})")
    low, high = _pair(_get(table, key, "remanence"), f"{key}.remanence", 100, 1600)
    return Magnet(
        name=name,
        shape=cast(Literal["disc", "sphere", "ring"], shape),
        grade=_string(_get(table, key, "grade"), f"{key}.grade"),
        diameter=diameter,
        height=height,
        remanence=(low, high),
        density=_number(_get(table, key, "density"), f"{key}.density", 1, 20),
        inner_diameter=inner,
    )


def _piece(name: str, table: dict[str, Any], magnets: Mapping[str, Magnet]) -> Piece:
    keys = ("diameter", "density", "magnet", "magnet_depth", "rise", "lateral_offset", "tilt",
            "polarity", "reflectance")  # fmt: skip
    _known(table, name, keys)
    magnet_name = _string(_get(table, name, "magnet"), f"{name}.magnet")
    if magnet_name not in magnets:
        raise GeometryError(f"{name}.magnet", f"no [magnets.{magnet_name}] in the file")
    magnet = magnets[magnet_name]
    diameter = _number(_get(table, name, "diameter"), f"{name}.diameter", 5, 60)
    depth = _number(_get(table, name, "magnet_depth"), f"{name}.magnet_depth", 0, 30)
    if depth + magnet.height > diameter / 2 + magnet.height / 2 + 1e-9:
        raise GeometryError(f"{name}.magnet_depth", "puts the magnet past the piece's centre")
    _choice(_get(table, name, "polarity"), f"{name}.polarity", ("either",))
    return Piece(
        name=name,
        diameter=diameter,
        density=_number(_get(table, name, "density"), f"{name}.density", 0.1, 5),
        magnet=magnet,
        magnet_depth=depth,
        rise=_number(_get(table, name, "rise"), f"{name}.rise", 0, 20),
        lateral_offset=_number(
            _get(table, name, "lateral_offset"), f"{name}.lateral_offset", 0, 20
        ),
        tilt=_number(_get(table, name, "tilt"), f"{name}.tilt", 0, 180),
        polarity="either",
        reflectance=_pair(_get(table, name, "reflectance"), f"{name}.reflectance", 0.01, 1),
    )


def _places(
    value: object, key: str, names: tuple[str, ...], as_names: tuple[str, ...]
) -> dict[str, Point]:
    table = _table(value, key)
    _known(table, key, names)
    out: dict[str, Point] = {}
    for name, as_name in zip(names, as_names, strict=True):
        if name not in table:
            raise GeometryError(f"{key}.{name}", "is missing")
        out[as_name] = _point(table[name], f"{key}.{name}")
    return out


def _check_grid(cells: Mapping[str, Point], pitch: float) -> None:
    """The 25 cells must lie on the pitch's grid, files along x and ranks along y."""
    a1 = cells["a1"]
    for name, point in cells.items():
        file, rank = "abcde".index(name[0]), int(name[1]) - 1
        want = Point(a1.x + file * pitch, a1.y + rank * pitch)
        if point.distance(want) > 0.01:
            raise GeometryError(
                f"cells.{name}",
                f"must be [{want.x:g}, {want.y:g}]: {file} × {pitch:g} mm along x and "
                f"{rank} × {pitch:g} mm along y from a1",
            )


def _leds(table: dict[str, Any]) -> LedLayout:
    offsets = ("cell_offset", "target_offset", "top_offset", "button_offset", "seat_offset")
    sizes = ("light_hole_diameter", "plug_diameter", "plug_gap")
    _known(table, "leds", ("part", *offsets, *sizes, "plug_material"))
    points = {name: _point(_get(table, "leds", name), f"leds.{name}") for name in offsets}
    numbers = {name: _number(_get(table, "leds", name), f"leds.{name}", 0, 30) for name in sizes}
    if numbers["plug_diameter"] > numbers["light_hole_diameter"]:
        raise GeometryError("leds.plug_diameter", "is wider than leds.light_hole_diameter")
    return LedLayout(
        part=_string(_get(table, "leds", "part"), "leds.part"),
        cell_offset=points["cell_offset"],
        target_offset=points["target_offset"],
        top_offset=points["top_offset"],
        button_offset=points["button_offset"],
        seat_offset=points["seat_offset"],
        light_hole_diameter=numbers["light_hole_diameter"],
        plug_diameter=numbers["plug_diameter"],
        plug_gap=numbers["plug_gap"],
        plug_material=_string(_get(table, "leds", "plug_material"), "leds.plug_material"),
    )


_SENSOR_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "reed": ("glass_length", "pull_in", "drop_out_min", "test_coil_length", "lead_diameter",
             "bend_clearance", "lead_offset"),
    "hall": ("operate_max", "release_min"),
    "ir": ("height",),
    "linear": ("axes", "threshold_on", "threshold_off", "error", "full_scale", "bias_magnet",
               "bias_gap"),
    "reflective": ("collector_min", "test_distance", "test_reflectance", "peak_distance",
                   "span", "span_fraction", "crosstalk_max", "dark_max", "window_diameter",
                   "load_resistor", "emitter_current", "threshold_on", "threshold_off",
                   "error"),
}  # fmt: skip


def _sensor(name: str, table: dict[str, Any], magnets: Mapping[str, Magnet]) -> Sensor:
    key = f"sensors.{name}"
    kind = _choice(_get(table, key, "kind"), f"{key}.kind", tuple(_SENSOR_KEYS))
    common = ("kind", "part", "manufacturer", "elements", "current", "hole_diameter",
              "hole_depth")  # fmt: skip
    _known(table, key, (*common, *_SENSOR_KEYS[kind]))
    raw = _get(table, key, "elements")
    if not isinstance(raw, list):
        raise GeometryError(f"{key}.elements", f"must be a list of tables, not {_describe(raw)}")
    elements = tuple(
        _element(_table(item, f"{key}.elements[{i}]"), f"{key}.elements[{i}]")
        for i, item in enumerate(raw)
    )
    if kind != "ir" and not elements:
        raise GeometryError(f"{key}.elements", "must list at least one element")
    sensor = Sensor(
        name=name,
        kind=cast(SensorKind, kind),
        part=_string(_get(table, key, "part"), f"{key}.part"),
        manufacturer=_string(_get(table, key, "manufacturer"), f"{key}.manufacturer"),
        elements=elements,
        current=_number(_get(table, key, "current"), f"{key}.current", 0, 500),
        hole_diameter=_number(_get(table, key, "hole_diameter"), f"{key}.hole_diameter", 0, 30),
        hole_depth=_number(_get(table, key, "hole_depth"), f"{key}.hole_depth", 0, 60),
    )

    def num(field: str, low: float, high: float) -> float:
        return _number(_get(table, key, field), f"{key}.{field}", low, high)

    if kind == "reed":
        low, high = _pair(_get(table, key, "pull_in"), f"{key}.pull_in", 1, 200)
        drop = num("drop_out_min", 0.1, 200)
        if drop >= low:
            raise GeometryError(f"{key}.drop_out_min", f"must be below pull_in's minimum {low:g}")
        return replace(
            sensor,
            glass_length=num("glass_length", 3, 60),
            pull_in=(low, high),
            drop_out_min=drop,
            test_coil_length=num("test_coil_length", 3, 100),
            lead_diameter=num("lead_diameter", 0.1, 2),
            bend_clearance=num("bend_clearance", 0, 20),
            lead_offset=num("lead_offset", 0, 10),
        )
    if kind == "hall":
        operate = num("operate_max", 0.1, 200)
        release = num("release_min", 0.01, 200)
        if release >= operate:
            raise GeometryError(f"{key}.release_min", "must be below operate_max")
        return replace(sensor, operate_max=operate, release_min=release)
    if kind in ("linear", "reflective"):
        sensor = _thresholds(sensor, table, key)
    if kind == "linear":
        axes = _get(table, key, "axes")
        if axes not in (1, 3) or isinstance(axes, bool):
            raise GeometryError(f"{key}.axes", f"must be 1 or 3, not {_describe(axes)}")
        bias_name = _string(_get(table, key, "bias_magnet"), f"{key}.bias_magnet")
        if bias_name and bias_name not in magnets:
            raise GeometryError(f"{key}.bias_magnet", f"no [magnets.{bias_name}] in the file")
        return replace(
            sensor,
            axes=int(cast(float, axes)),
            full_scale=num("full_scale", 1, 1000),
            bias_magnet=magnets[bias_name] if bias_name else None,
            bias_gap=num("bias_gap", 0, 30),
        )
    if kind == "reflective":
        near, far = _pair(_get(table, key, "span"), f"{key}.span", 0, 50)
        peak = num("peak_distance", 0, 50)
        if not near <= peak <= far:
            raise GeometryError(f"{key}.peak_distance", f"must lie within span [{near:g}, {far:g}]")
        return replace(
            sensor,
            collector_min=num("collector_min", 0.01, 100000),
            test_distance=num("test_distance", 0, 50),
            test_reflectance=num("test_reflectance", 0.01, 1),
            peak_distance=peak,
            span=(near, far),
            span_fraction=num("span_fraction", 0.01, 1),
            crosstalk_max=num("crosstalk_max", 0, 1000),
            dark_max=num("dark_max", 0, 1000),
            window_diameter=num("window_diameter", 0.5, 30),
            load_resistor=num("load_resistor", 0.01, 10000),
            emitter_current=num("emitter_current", 0.1, 100),
        )
    height = num("height", -60, 300)
    if height == 0:
        raise GeometryError(f"{key}.height", "must be above (> 0) or below (< 0) the surface")
    return replace(sensor, height=height)


def _thresholds(sensor: Sensor, table: dict[str, Any], key: str) -> Sensor:
    """A linear or reflective sensor's firmware thresholds and reading error."""
    on = _number(_get(table, key, "threshold_on"), f"{key}.threshold_on", 0.001, 100000)
    off = _number(_get(table, key, "threshold_off"), f"{key}.threshold_off", 0, 100000)
    error = _number(_get(table, key, "error"), f"{key}.error", 0, 100000)
    if off >= on:
        raise GeometryError(f"{key}.threshold_off", f"must be below threshold_on ({on:g})")
    if off - error <= 0:
        raise GeometryError(
            f"{key}.threshold_off", f"less its error ({error:g}) leaves no release point"
        )
    return replace(sensor, threshold_on=on, threshold_off=off, error=error)


def _insert(
    name: str, table: dict[str, Any], magnets: Mapping[str, Magnet], pearl: Piece
) -> Insert:
    key = f"inserts.{name}"
    kind = _choice(_get(table, key, "kind"), f"{key}.kind", ("magnet", "steel", "none"))
    if kind == "none":
        _known(table, key, ("kind",))
        return Insert(name, "none")
    if kind == "steel":
        _known(table, key, ("kind", "diameter", "density"))
        diameter = _number(_get(table, key, "diameter"), f"{key}.diameter", 0.5, 30)
        if diameter >= pearl.diameter - 2:
            raise GeometryError(
                f"{key}.diameter", f"leaves too little of a {pearl.diameter:g} mm pearl"
            )
        return Insert(
            name, "steel", centre=True, diameter=diameter,
            density=_number(_get(table, key, "density"), f"{key}.density", 1, 20),
        )  # fmt: skip
    _known(table, key, ("kind", "magnet", "depth"))
    magnet_name = _string(_get(table, key, "magnet"), f"{key}.magnet")
    if magnet_name not in magnets:
        raise GeometryError(f"{key}.magnet", f"no [magnets.{magnet_name}] in the file")
    raw = _get(table, key, "depth")
    if raw == "centre":
        return Insert(name, "magnet", magnets[magnet_name], centre=True)
    depth = _number(raw, f"{key}.depth", 0, 30)
    if depth + magnets[magnet_name].height > pearl.diameter / 2 + 1e-9:
        raise GeometryError(f"{key}.depth", "puts the magnet past the pearl's centre")
    return Insert(name, "magnet", magnets[magnet_name], depth=depth)


def _candidate(
    name: str, table: dict[str, Any], sensors: Mapping[str, Sensor], inserts: Mapping[str, Insert]
) -> Candidate:
    key = f"candidates.{name}"
    fields = ("title", "cell_sensor", "pearl_insert", "wood_thickness", "parts_cost",
              "assembly_minutes", "pearl_minutes", "pearl_work")  # fmt: skip
    _known(table, key, fields)
    sensor_name = _string(_get(table, key, "cell_sensor"), f"{key}.cell_sensor")
    if sensor_name not in sensors:
        raise GeometryError(f"{key}.cell_sensor", f"no [sensors.{sensor_name}] in the file")
    insert_name = _string(_get(table, key, "pearl_insert"), f"{key}.pearl_insert")
    if insert_name not in inserts:
        raise GeometryError(f"{key}.pearl_insert", f"no [inserts.{insert_name}] in the file")
    sensor = sensors[sensor_name]
    if sensor.kind == "ir":
        raise GeometryError(f"{key}.cell_sensor", "an IR module has no model to compare")
    wood = _number(_get(table, key, "wood_thickness"), f"{key}.wood_thickness", 1, 60)
    _fits_wood(sensor, wood, key)
    return Candidate(
        name=name,
        title=_string(_get(table, key, "title"), f"{key}.title"),
        cell_sensor=sensor,
        pearl_insert=inserts[insert_name],
        wood_thickness=wood,
        parts_cost=_number(_get(table, key, "parts_cost"), f"{key}.parts_cost", 0, 1000),
        assembly_minutes=_number(
            _get(table, key, "assembly_minutes"), f"{key}.assembly_minutes", 0, 10000
        ),
        pearl_minutes=_number(_get(table, key, "pearl_minutes"), f"{key}.pearl_minutes", 0, 600),
        pearl_work=_string(_get(table, key, "pearl_work"), f"{key}.pearl_work"),
    )


def _element(table: dict[str, Any], key: str) -> SensorElement:
    _known(table, key, ("orientation", "azimuth", "offset", "depth"))
    orientation = _choice(
        _get(table, key, "orientation"), f"{key}.orientation", ("upright", "flat")
    )
    return SensorElement(
        orientation=cast(Orientation, orientation),
        azimuth=_number(_get(table, key, "azimuth"), f"{key}.azimuth", -360, 360),
        offset=_point(_get(table, key, "offset"), f"{key}.offset"),
        depth=_number(_get(table, key, "depth"), f"{key}.depth", 0, 60),
    )


def _builds(
    table: dict[str, Any], sensors: Mapping[str, Sensor], inserts: Mapping[str, Insert]
) -> dict[str, Build]:
    _known(table, "builds", BUILDS)
    out: dict[str, Build] = {}
    aliases: dict[str, str] = {}
    for name in BUILDS:
        if name not in table:
            raise GeometryError(f"builds.{name}", "is missing")
        key = f"builds.{name}"
        build = _table(table[name], key)
        if "same_as" in build:
            _known(build, key, ("same_as",))
            aliases[name] = _choice(build["same_as"], f"{key}.same_as", BUILDS)
            continue
        _known(
            build,
            key,
            (
                "wood_thickness",
                "cell_sensor",
                "target_sensor",
                "top_sensor",
                "pearl_insert",
                "led_part",
            ),
        )
        led_part = _string(build["led_part"], f"{key}.led_part") if "led_part" in build else None
        insert: Insert | None = None
        if "pearl_insert" in build:
            insert_name = _string(build["pearl_insert"], f"{key}.pearl_insert")
            if insert_name not in inserts:
                raise GeometryError(
                    f"{key}.pearl_insert", f"no [inserts.{insert_name}] in the file"
                )
            insert = inserts[insert_name]
        wood = _number(_get(build, key, "wood_thickness"), f"{key}.wood_thickness", 1, 60)
        chosen: dict[str, Sensor | None] = {}
        for place in PLACES:
            field = f"{place}_sensor"
            if field not in build:
                chosen[place] = None
                continue
            sensor_name = _string(build[field], f"{key}.{field}")
            if sensor_name not in sensors:
                raise GeometryError(f"{key}.{field}", f"no [sensors.{sensor_name}] in the file")
            sensor = sensors[sensor_name]
            if sensor.hole_depth > wood:
                raise GeometryError(
                    f"sensors.{sensor_name}.hole_depth",
                    f"{sensor.hole_depth:g} mm is deeper than {key}'s {wood:g} mm of wood",
                )
            _fits_wood(sensor, wood, key)
            chosen[place] = sensor
        if all(sensor is None for sensor in chosen.values()):
            raise GeometryError(key, "names no sensor (cell_sensor, target_sensor, top_sensor)")
        out[name] = Build(
            name, wood, chosen["cell"], chosen["target"], chosen["top"], insert, led_part
        )
    for name, other in aliases.items():
        if other in aliases:
            raise GeometryError(f"builds.{name}.same_as", f"{other!r} is itself an alias")
        target = out[other]
        out[name] = replace(target, name=name)
    return {name: out[name] for name in BUILDS}


# -- checking ------------------------------------------------------------------------------


def _fits_wood(sensor: Sensor, wood: float, where: str) -> None:
    """Every element of ``sensor`` lies inside ``wood`` mm of wood, and a reed's leads fit."""
    for i, element in enumerate(sensor.elements):
        if element.depth >= wood:
            raise GeometryError(
                f"sensors.{sensor.name}.elements[{i}].depth",
                f"{element.depth:g} mm is not inside {where}'s {wood:g} mm of wood",
            )
    check_lead_budget(sensor, wood, where)


LEAD_SLACK: Final = 0.2
"""mm of room a bent lead needs beside it in its hole (the lead is not straight)."""


def check_lead_budget(sensor: Sensor, wood: float, where: str) -> None:
    """An upright reed's upper lead leaves the glass's top, runs ``bend_clearance``
    straight up, and is bent down beside the glass: the hole drilled from below must end
    at least that far (plus the bend's lead) above the glass, and be wide enough for the
    bent lead beside it.

    >>> g = load_geometry()
    >>> reed = g.sensors["reed-upright"]
    >>> check_lead_budget(reed, 15.0, "builds.matrix")
    >>> try:
    ...     check_lead_budget(replace(reed, hole_diameter=3.5), 15.0, "builds.matrix")
    ... except GeometryError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    sensors.reed-upright.hole_diameter: 3.5 mm leaves ... 0.035 mm; ... at least 3.83 mm)
    """
    if sensor.kind != "reed":
        return
    assert sensor.bend_clearance is not None and sensor.lead_diameter is not None
    assert sensor.lead_offset is not None
    top = wood - sensor.hole_depth  # depth of the hole's end under the surface
    for i, element in enumerate(sensor.elements):
        if element.orientation != "upright":
            continue
        need = top + sensor.bend_clearance + sensor.lead_diameter
        if element.depth < need - 1e-9:
            raise GeometryError(
                f"sensors.{sensor.name}.elements[{i}].depth",
                f"the glass's top {element.depth:g} mm down leaves its upper lead "
                f"{element.depth - top:.2f} mm under the end of the hole ({top:g} mm down in "
                f"{where}'s wood); bending it {sensor.bend_clearance:g} mm from the seal "
                f"needs the glass at least {need:.2f} mm down",
            )
        room = sensor.hole_diameter / 2 - sensor.lead_offset - sensor.lead_diameter / 2
        if room < LEAD_SLACK - 1e-9:
            least = 2 * (sensor.lead_offset + sensor.lead_diameter / 2 + LEAD_SLACK)
            raise GeometryError(
                f"sensors.{sensor.name}.hole_diameter",
                f"{sensor.hole_diameter:g} mm leaves the bent lead {sensor.lead_offset:g} mm "
                f"off the glass's axis {room:.3g} mm; it needs at least {LEAD_SLACK:g} mm "
                f"(a hole of at least {least:.2f} mm)",
            )


def _get(table: Mapping[str, Any], prefix: str, key: str) -> object:
    if key not in table:
        raise GeometryError(f"{prefix}.{key}", "is missing")
    return cast(object, table[key])


def _point(value: object, key: str) -> Point:
    if not isinstance(value, list) or len(value) != 2:
        raise GeometryError(key, f"must be [x, y] in mm, not {_describe(value)}")
    return Point(
        _number(value[0], f"{key}[0]", -1000, 1000), _number(value[1], f"{key}[1]", -1000, 1000)
    )


def _points(value: object, key: str, *, minimum: int) -> tuple[Point, ...]:
    if not isinstance(value, list) or len(value) < minimum:
        raise GeometryError(key, f"must be a list of at least {minimum} [x, y] points")
    return tuple(_point(item, f"{key}[{i}]") for i, item in enumerate(value))


def _pair(value: object, key: str, low: float, high: float) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise GeometryError(key, f"must be [min, max], not {_describe(value)}")
    first = _number(value[0], f"{key}[0]", low, high)
    second = _number(value[1], f"{key}[1]", low, high)
    if first > second:
        raise GeometryError(key, f"min {first:g} is above max {second:g}")
    return first, second
