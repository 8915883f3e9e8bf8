"""The board's physical geometry, read from ``hardware/geometry.toml`` and checked.

One file describes where everything is, for every build: the magnets in the pearls and
balls and how they rest in their hollows, the sensors under each place, the cells,
targets, top, buttons and seats, the LEDs under their light holes, the mounting holes and
the outline. The parts themselves (magnets, pieces, inserts, sensors) are declared in
:mod:`hardware.physical`; this module says where they are and which build uses which. The
magnet model in ``tests/hardware/physics/``, the drilling template and the guide's
numbers (``tools/board_drawing.py``) and the KiCad sensor boards are all made from it.

The frame: seen from above, origin at the centre of cell c3 on the playing surface, x
along the files a→e, y along the ranks 1→5, z up (the surface at z = 0); millimetres.

>>> g = load_geometry()
>>> g.cells["c3"], g.cells["e5"]
(Point(x=0.0, y=0.0), Point(x=50.0, y=50.0))
>>> g.sensor("matrix").kind, g.sensor("mux").part
('reed', 'DRV5033AJQDBZR')
>>> g.sensor("pico").kind, g.pearl_insert("pico").kind  # the chosen build: IR, pearls untouched
('reflective', 'none')

The values are pydantic dataclasses (the schema of :mod:`controller.checks`): each key is
declared once, its range beside its type, and every mistake is reported at once with its
dotted key, the rules across tables once every table has its types:

>>> try:
...     geometry_from_toml(DEFAULT_PATH.read_text().replace("pitch = 25.0", "pitch = -1")
...                        .replace("plug_gap = 1.5", "plug_gap = true"))
... except GeometryError as exc:
...     print(exc)
2 mistakes:
  board.pitch: must be from 5 to 100, not -1
  leds.plug_gap: must be a number, not True (true/false)
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BeforeValidator, ValidationInfo, model_validator
from pydantic.dataclasses import dataclass

from controller.checks import Items, Key, Problems, Range, Shaped, fail_at, validate
from controller.hardware.channels import CELLS, TARGETS
from controller.hardware.wiring import ConfigError, ConfigErrors
from hardware.physical import (
    TABLE,
    XY,
    Hollow,
    Insert,
    Magnet,
    Piece,
    Point,
    Sensor,
    exactly,
    fits_wood,
    named,
)

DEFAULT_PATH: Final = Path(__file__).resolve().parent / "geometry.toml"
SCHEMA: Final = 1
BUILDS: Final = ("matrix", "mux", "direct", "pico")
PLACES: Final = ("cell", "target", "top")
Place = Literal["cell", "target", "top"]


class GeometryError(ConfigError):
    """A geometry value that cannot be used; ``key`` is the dotted key, ``problem`` why.

    >>> str(GeometryError("cells.a1", "must be [x, y]"))
    'cells.a1: must be [x, y]'
    """


class GeometryErrors(ConfigErrors, GeometryError):
    """Every mistake of one geometry file at once."""


# -- where the parts are -------------------------------------------------------------------


_SensorRef = Annotated[Sensor | None, named("sensors")]
_InsertRef = Annotated[Insert | None, named("inserts")]


@dataclass(frozen=True, config=TABLE)
class Build:
    """``[builds.NAME]``: the sensors of each kind of place and the wood's thickness."""

    name: Annotated[str, Key()]
    wood_thickness: Annotated[float, Range(1, 60)]
    cell_sensor: _SensorRef = None
    target_sensor: _SensorRef = None
    top_sensor: _SensorRef = None
    pearl_insert: _InsertRef = None
    """What each pearl carries for the cell sensor (``None``: the ``[pearl]`` magnet)."""
    led_part: str | None = None
    """The build's LED where it is not ``[leds] part`` (the Pico drives WS2812-type LEDs)."""

    @model_validator(mode="after")
    def _rules(self) -> Build:
        if not any(self.sensor(place) for place in PLACES):
            fail_at("", "names no sensor (cell_sensor, target_sensor, top_sensor)")
        return self

    def sensor(self, place: Place) -> Sensor | None:
        return {"cell": self.cell_sensor, "target": self.target_sensor, "top": self.top_sensor}[
            place
        ]


@dataclass(frozen=True, config=TABLE)
class Candidate:
    """``[candidates.NAME]``: one way of sensing the cells, compared in hardware/README.md
    by the rest model (``tools/sensing.py``)."""

    name: Annotated[str, Key()]
    title: str
    cell_sensor: Annotated[Sensor, named("sensors")]
    pearl_insert: Annotated[Insert, named("inserts")]
    wood_thickness: Annotated[float, Range(1, 60)]
    parts_cost: Annotated[float, Range(0, 1000)]
    """EUR per board for the cells' sensing parts (an estimate; README says how)."""
    assembly_minutes: Annotated[float, Range(0, 10000)]
    """Per board: fitting the cells' sensing parts by hand."""
    pearl_minutes: Annotated[float, Range(0, 600)]
    """Per pearl: what the family must do to it (0: nothing)."""
    pearl_work: str

    @model_validator(mode="after")
    def _rules(self) -> Candidate:
        if self.cell_sensor.kind == "ir":
            fail_at("cell_sensor", "an IR module has no model to compare")
        return self


_LED = Annotated[float, Range(0, 30)]


@dataclass(frozen=True, config=TABLE)
class LedLayout:
    """``[leds]``: the LED part, where each LED sits relative to its place, the holes."""

    part: str
    cell_offset: XY
    target_offset: XY
    top_offset: XY
    button_offset: XY
    seat_offset: XY
    light_hole_diameter: _LED
    plug_diameter: _LED
    plug_gap: _LED
    """Room left above the LED, under its plug."""
    plug_material: str

    @model_validator(mode="after")
    def _rules(self) -> LedLayout:
        if self.plug_diameter > self.light_hole_diameter:
            fail_at("plug_diameter", "is wider than leds.light_hole_diameter")
        return self


# -- the Pyramidos module (issue 35) -------------------------------------------------------
# HABA's Pyramidos is a tower: its building site (the four target holes and the top) is on
# the upper level, whose holes a finger reaches from below. The pico build senses it with a
# small board of its own under that site (hardware/pcb/module.py), cabled to the pico
# board. These are the keys a maker measures on the family's own set (hardware/README.md,
# "The Pyramidos module").

MODULE_EDGE: Final = 10.0
"""mm from a target hole's centre to the module's edge: the sensor's body (8.06 mm
across) and its resistors on the back."""


@dataclass(frozen=True, config=TABLE)
class PyramidosSite:
    """``[pyramidos]``: the building site on the tower's upper level, as measured.

    The site's frame: seen from above, origin at the site's centre (under the top ball),
    x to the right and y away from the player who looks at the tower's front; the
    targets t1 near-left, t2 near-right, t3 far-right, t4 far-left.

    >>> site = load_geometry().pyramidos
    >>> round(site.rest_depth, 2), round(site.top_apex, 2)  # a ball's bottom; the top's apex
    (3.83, 34.4)
    """

    place: XY
    """The site's centre, from the upper level's front left corner (seen from above)."""
    hole_spacing: Annotated[float, Range(10, 80)]
    """Centre to centre of two neighbouring target holes (the square's side)."""
    hole_diameter: Annotated[float, Range(5, 60)]
    """The target holes' diameter at the upper level's top face."""
    ball_diameter: Annotated[float, Range(5, 60)]
    board_thickness: Annotated[float, Range(1, 30)]
    """The upper level's thickness at the site."""
    neighbour_holes: Annotated[tuple[XY, ...], Items(0, 99, "[x, y] points", "a list")]
    """The centres of the holes around the site (the site's frame): the module leaves them
    open for the fingers that nudge balls from below."""
    finger_room: Annotated[float, Range(0, 40)]
    """mm kept free beyond each neighbouring hole's edge, under the level, for a fingertip."""

    @model_validator(mode="after")
    def _rules(self) -> PyramidosSite:
        problems = Problems()
        s, d = self.hole_spacing, self.ball_diameter
        if self.hole_diameter >= d:
            problems.add("hole_diameter", f"must be under ball_diameter ({d:g}): a ball falls")
        if not d <= s < d * math.sqrt(2):
            why = "four balls carry the top between them"
            problems.add("hole_spacing", f"must be from {d:g} to {d * math.sqrt(2):.1f}: {why}")
        problems.raise_any()
        half = self.module_size / 2
        for i, hole in enumerate(self.neighbour_holes):
            dx, dy = max(abs(hole.x) - half, 0.0), max(abs(hole.y) - half, 0.0)
            room = math.hypot(dx, dy) - self.hole_diameter / 2
            if room < self.finger_room - 1e-9:
                square = f"the module's {self.module_size:g} mm square"
                fail_at(
                    f"neighbour_holes[{i}]",
                    f"lies {room:.1f} mm from {square}; finger_room asks {self.finger_room:g}",
                )
        return self

    @property
    def targets(self) -> dict[str, Point]:
        """t1–t4 in the site's frame."""
        h = self.hole_spacing / 2
        return {"t1": Point(-h, -h), "t2": Point(h, -h), "t3": Point(h, h), "t4": Point(-h, h)}

    @property
    def ball_centre(self) -> float:
        """mm: a base ball's centre above the level's top face, resting in its hole."""
        r, a = self.ball_diameter / 2, self.hole_diameter / 2
        return math.sqrt(r * r - a * a)

    @property
    def rest_depth(self) -> float:
        """mm: how far a resting ball's lowest point lies under the level's top face."""
        return self.ball_diameter / 2 - self.ball_centre

    @property
    def top_apex(self) -> float:
        """mm: the top ball's highest point above the level's top face, on four balls."""
        d, s = self.ball_diameter, self.hole_spacing
        return self.ball_centre + math.sqrt(d * d - s * s / 2) + d / 2

    @property
    def module_size(self) -> float:
        """mm: the module's square side."""
        return self.hole_spacing + 2 * MODULE_EDGE


@dataclass(frozen=True)
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
    pyramidos: PyramidosSite
    """HABA's building site, under which the pico build's Pyramidos module lies."""

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


# -- the file ------------------------------------------------------------------------------


def _keep(table: str) -> AfterValidator:
    """The checked ``[table.…]``, for the names that later tables use."""

    def keep(value: Any, info: ValidationInfo) -> Any:
        if isinstance(info.context, dict):
            info.context[table] = value
        return value

    return AfterValidator(keep)


def _with_names(value: object) -> object:
    """``[magnets.NAME]`` and the like: each table gets its NAME."""
    if isinstance(value, dict):
        return {k: {**v, "name": k} if isinstance(v, dict) else v for k, v in value.items()}
    return value


def places(*names: str) -> Shaped:
    """A table of exactly these places, each ``[x, y]``."""

    def read(value: object, inner: Callable[[object], dict[str, Point]]) -> dict[str, Point]:
        points = inner(exactly(value, names))
        return {name: points[name] for name in names}

    return Shaped(dict[str, XY], read)


def _builds(value: object, inner: Callable[[object], dict[str, Build]]) -> dict[str, Build]:
    """``[builds.NAME]`` for every build; ``same_as = "other"`` shares another's board."""
    tables = exactly(value, BUILDS)
    aliases = {n: t["same_as"] for n, t in tables.items() if isinstance(t, dict) and "same_as" in t}
    problems = Problems()
    for name, other in aliases.items():
        for key in sorted(set(tables[name]) - {"same_as"}):
            problems.add(f"{name}.{key}", "unknown key (expected one of: same_as)")
        if other not in BUILDS:
            problems.add(f"{name}.same_as", f"must be one of {', '.join(map(repr, BUILDS))}")
        elif other in aliases:
            problems.add(f"{name}.same_as", f"{other!r} is itself an alias")
    problems.raise_any()
    built = inner(_with_names({n: t for n, t in tables.items() if n not in aliases}))
    built |= {name: replace(built[other], name=name) for name, other in aliases.items()}
    return {name: built[name] for name in BUILDS}


def _as(name: str) -> BeforeValidator:
    return BeforeValidator(lambda t: {**t, "name": name} if isinstance(t, dict) else t)


_Names = BeforeValidator(_with_names)


@dataclass(frozen=True, config=TABLE)
class _Board:
    pitch: Annotated[float, Range(5, 100)]
    outline: Annotated[tuple[XY, ...], Items(3, 999, "[x, y] points", "a list of [x, y] points")]
    mounting_holes: Annotated[tuple[XY, ...], Items(0, 999, "[x, y] points", "a list")]
    mounting_hole_diameter: Annotated[float, Range(1, 10)]
    button_hole_diameter: Annotated[float, Range(3, 40)]


@dataclass(frozen=True, config=TABLE)
class GeometryFile:
    """The file as written, its tables in the order their names are used."""

    schema: Annotated[int, Range(SCHEMA, SCHEMA)]
    board: _Board
    hollow: Hollow
    magnets: Annotated[dict[str, Magnet], _Names, _keep("magnets")]
    pearl: Annotated[Piece, _as("pearl")]
    ball: Annotated[Piece, _as("ball")]
    cells: Annotated[dict[str, Point], places(*CELLS)]
    targets: Annotated[dict[str, Point], places(*TARGETS)]
    buttons: Annotated[dict[str, Point], places("confirm", "end_turn", "undo")]
    seats: Annotated[dict[str, Point], places("0", "1", "2", "3")]
    leds: LedLayout
    sensors: Annotated[dict[str, Sensor], _Names, _keep("sensors")]
    inserts: Annotated[dict[str, Insert], _Names, _keep("inserts")]
    builds: Annotated[dict[str, Build], Shaped(dict[str, Build], _builds)]
    candidates: Annotated[dict[str, Candidate], _Names]
    pyramidos: PyramidosSite

    @model_validator(mode="after")
    def _rules(self) -> GeometryFile:
        problems = Problems()
        a1, pitch = self.cells["a1"], self.board.pitch
        for name, point in self.cells.items():  # on the pitch's grid: files along x
            file, rank = "abcde".index(name[0]), int(name[1]) - 1
            want = Point(a1.x + file * pitch, a1.y + rank * pitch)
            if point.distance(want) > 0.01:
                where = f"{file} × {pitch:g} mm along x and {rank} × {pitch:g} mm along y"
                problems.add(f"cells.{name}", f"must be [{want.x:g}, {want.y:g}]: {where} from a1")
        for name, insert in self.inserts.items():
            if insert.kind == "steel" and insert.diameter >= self.pearl.diameter - 2:
                little = f"leaves too little of a {self.pearl.diameter:g} mm pearl"
                problems.add(f"inserts.{name}.diameter", little)
            if (
                insert.magnet
                and not insert.centre
                and (insert.depth + insert.magnet.height > self.pearl.diameter / 2 + 1e-9)
            ):
                problems.add(f"inserts.{name}.depth", "puts the magnet past the pearl's centre")
        for name, build in self.builds.items():
            for place in PLACES:
                sensor = build.sensor(place)
                if sensor is not None and sensor.hole_depth > build.wood_thickness:
                    wood = f"builds.{name}'s {build.wood_thickness:g} mm of wood"
                    problems.add(
                        f"sensors.{sensor.name}.hole_depth",
                        f"{sensor.hole_depth:g} mm is deeper than {wood}",
                    )
                if sensor is not None:
                    problems.found += fits_wood(sensor, build.wood_thickness, f"builds.{name}")
        for name, candidate in self.candidates.items():
            problems.found += fits_wood(
                candidate.cell_sensor, candidate.wood_thickness, f"candidates.{name}"
            )
        problems.found = list(dict.fromkeys(problems.found))  # a sensor in two builds: once
        problems.raise_any()
        return self

    def value(self) -> Geometry:
        targets = dict(self.targets)
        top = targets.pop("top")
        frozen = MappingProxyType
        board = self.board
        return Geometry(
            board.pitch, board.outline, board.mounting_holes, board.mounting_hole_diameter,
            board.button_hole_diameter, self.hollow, frozen(self.magnets), self.pearl, self.ball,
            frozen(self.cells), frozen(targets), top,
            frozen({f"button:{n}": p for n, p in self.buttons.items()}),
            frozen({f"seat:{n}": p for n, p in self.seats.items()}), self.leds,
            frozen(self.sensors), frozen(self.builds), frozen(self.inserts),
            frozen(self.candidates), self.pyramidos,
        )  # fmt: skip


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


def geometry_from_mapping(data: Mapping[str, Any]) -> Geometry:
    """Check a parsed file; :class:`GeometryErrors` names every mistake."""
    return validate(GeometryFile, data, context={}, errors=GeometryErrors).value()
