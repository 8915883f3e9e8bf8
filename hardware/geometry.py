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
>>> g.sensor("pico") == g.sensor("matrix")
True

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
    "Geometry",
    "GeometryError",
    "Hollow",
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
SensorKind = Literal["reed", "hall", "ir"]
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
    """``[magnets.NAME]``: a disc (axially magnetised cylinder) or a sphere."""

    name: str
    shape: Literal["disc", "sphere"]
    grade: str
    diameter: float
    height: float
    """The disc's thickness; a sphere's is its diameter."""
    remanence: tuple[float, float]
    """Br of the grade, (min, max) in mT."""
    density: float

    @property
    def volume(self) -> float:
        """mm³."""
        r = self.diameter / 2
        return 4 / 3 * math.pi * r**3 if self.shape == "sphere" else math.pi * r**2 * self.height

    @property
    def mass(self) -> float:
        """Grams."""
        return self.volume * self.density / 1000


@dataclass(frozen=True, slots=True)
class Hollow:
    """``[hollow]``: the spherical dip each piece settles in."""

    diameter: float
    depth: float


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
    operate_max: float | None = None
    """Hall: B_OP max, mT."""
    release_min: float | None = None
    """Hall: B_RP min, mT."""
    height: float | None = None
    """IR: above the surface looking down (> 0), or below it looking up (< 0)."""

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

    def sensor(self, place: Place) -> Sensor | None:
        return {"cell": self.cell_sensor, "target": self.target_sensor, "top": self.top_sensor}[
            place
        ]


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
             "buttons", "seats", "leds", "sensors", "builds")  # fmt: skip


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
    _known(hollow_t, "hollow", ("diameter", "depth"))
    hollow = Hollow(
        _number(_get(hollow_t, "hollow", "diameter"), "hollow.diameter", 1, 50),
        _number(_get(hollow_t, "hollow", "depth"), "hollow.depth", 0, 10),
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
        name: _sensor(name, _table(value, f"sensors.{name}"))
        for name, value in _table(data["sensors"], "sensors").items()
    }
    builds = _builds(_table(data["builds"], "builds"), sensors)
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
    )


def _magnet(name: str, table: dict[str, Any]) -> Magnet:
    key = f"magnets.{name}"
    _known(table, key, ("shape", "grade", "diameter", "height", "remanence", "density"))
    shape = _choice(_get(table, key, "shape"), f"{key}.shape", ("disc", "sphere"))
    diameter = _number(_get(table, key, "diameter"), f"{key}.diameter", 0.5, 50)
    height = _number(_get(table, key, "height"), f"{key}.height", 0.2, 50)
    if shape == "sphere" and height != diameter:
        raise GeometryError(f"{key}.height", f"a sphere's height is its diameter ({diameter:g})")
    low, high = _pair(_get(table, key, "remanence"), f"{key}.remanence", 100, 1600)
    return Magnet(
        name=name,
        shape=cast(Literal["disc", "sphere"], shape),
        grade=_string(_get(table, key, "grade"), f"{key}.grade"),
        diameter=diameter,
        height=height,
        remanence=(low, high),
        density=_number(_get(table, key, "density"), f"{key}.density", 1, 20),
    )


def _piece(name: str, table: dict[str, Any], magnets: Mapping[str, Magnet]) -> Piece:
    keys = ("diameter", "density", "magnet", "magnet_depth", "rise", "lateral_offset", "tilt",
            "polarity")  # fmt: skip
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
    "reed": ("glass_length", "pull_in", "drop_out_min", "test_coil_length"),
    "hall": ("operate_max", "release_min"),
    "ir": ("height",),
}


def _sensor(name: str, table: dict[str, Any]) -> Sensor:
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
    if kind == "reed":
        low, high = _pair(_get(table, key, "pull_in"), f"{key}.pull_in", 1, 200)
        drop = _number(_get(table, key, "drop_out_min"), f"{key}.drop_out_min", 0.1, 200)
        if drop >= low:
            raise GeometryError(f"{key}.drop_out_min", f"must be below pull_in's minimum {low:g}")
        return replace(
            sensor,
            glass_length=_number(_get(table, key, "glass_length"), f"{key}.glass_length", 3, 60),
            pull_in=(low, high),
            drop_out_min=drop,
            test_coil_length=_number(
                _get(table, key, "test_coil_length"), f"{key}.test_coil_length", 3, 100
            ),
        )
    if kind == "hall":
        operate = _number(_get(table, key, "operate_max"), f"{key}.operate_max", 0.1, 200)
        release = _number(_get(table, key, "release_min"), f"{key}.release_min", 0.01, 200)
        if release >= operate:
            raise GeometryError(f"{key}.release_min", "must be below operate_max")
        return replace(sensor, operate_max=operate, release_min=release)
    height = _number(_get(table, key, "height"), f"{key}.height", -60, 300)
    if height == 0:
        raise GeometryError(f"{key}.height", "must be above (> 0) or below (< 0) the surface")
    return replace(sensor, height=height)


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


def _builds(table: dict[str, Any], sensors: Mapping[str, Sensor]) -> dict[str, Build]:
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
        _known(build, key, ("wood_thickness", "cell_sensor", "target_sensor", "top_sensor"))
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
            for i, element in enumerate(sensor.elements):
                if element.depth >= wood:
                    raise GeometryError(
                        f"sensors.{sensor_name}.elements[{i}].depth",
                        f"{element.depth:g} mm is not inside {key}'s {wood:g} mm of wood",
                    )
            chosen[place] = sensor
        if all(sensor is None for sensor in chosen.values()):
            raise GeometryError(key, "names no sensor (cell_sensor, target_sensor, top_sensor)")
        out[name] = Build(name, wood, chosen["cell"], chosen["target"], chosen["top"])
    for name, other in aliases.items():
        if other in aliases:
            raise GeometryError(f"builds.{name}.same_as", f"{other!r} is itself an alias")
        target = out[other]
        out[name] = Build(
            name, target.wood_thickness, target.cell_sensor, target.target_sensor, target.top_sensor
        )
    return {name: out[name] for name in BUILDS}


# -- checking ------------------------------------------------------------------------------


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
