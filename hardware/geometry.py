"""The board's physical geometry, read from ``hardware/geometry.toml`` and checked.

One file describes where everything is, for every build: the magnets in the pearls and
balls and how they rest in their hollows, the sensors under each place, the cells,
targets, top, buttons and seats, the LEDs under their light holes, the mounting holes and
the outline. The magnet model in ``tests/hardware/physics/``, the drilling template and the
guide's numbers (``tools/board_drawing.py``) and the KiCad sensor boards are all made from
it.

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

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    ValidationInfo,
    model_validator,
)
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from controller.checks import (
    Items,
    Key,
    Problems,
    Range,
    Shaped,
    describe,
    fail,
    fail_at,
    validate,
)
from controller.hardware.channels import CELLS, TARGETS
from controller.hardware.wiring import ConfigError, ConfigErrors

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


class GeometryErrors(ConfigErrors, GeometryError):
    """Every mistake of one geometry file at once."""


TABLE: Final = ConfigDict(extra="forbid", str_strip_whitespace=True)
"""A table of the file: a key it does not declare is a mistake (the values are frozen)."""


# -- the words of the file -------------------------------------------------------------------


def _xy(value: object, inner: Callable[[object], tuple[float, float]]) -> Point:
    if isinstance(value, Point):  # built by code (replace())
        return value
    if not isinstance(value, list) or len(value) != 2:
        fail(f"must be [x, y] in mm, not {describe(value)}")
    return Point(*inner(value))


_MM = Annotated[float, Range(-1000, 1000)]
XY = Annotated["Point", Shaped(tuple[_MM, _MM], _xy)]
"""A point, ``[x, y]`` in mm."""


def pair(low: float, high: float) -> Shaped:
    """``[min, max]``, each from ``low`` to ``high``."""

    def read(value: object, inner: Callable[[object], tuple[float, float]]) -> tuple[float, float]:
        if not isinstance(value, list | tuple) or len(value) != 2:
            fail(f"must be [min, max], not {describe(value)}")
        first, second = inner(value)
        if first > second:
            fail(f"min {first:g} is above max {second:g}")
        return first, second

    one = Annotated[float, Range(low, high)]
    return Shaped(tuple[one, one], read)


def named(table: str, *, none: str | None = None) -> BeforeValidator:
    """A ``[table.NAME]`` named by its NAME (``none``: the text that names none)."""

    def look_up(value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value  # the value itself (code building values, replace())
        if value == none:
            return None
        found = (info.context or {}).get(table)
        if found is None:  # the table has mistakes of its own, reported there
            raise PydanticCustomError("pyramid_unresolved", "{table}", {"table": table})
        if value not in found:
            fail(f"no [{table}.{value}] in the file")
        return found[value]

    return BeforeValidator(look_up)


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


def _exactly(value: object, names: tuple[str, ...]) -> dict[str, Any]:
    """A table with exactly these keys."""
    if not isinstance(value, dict):
        fail(f"must be a table, not {describe(value)}")
    problems = Problems()
    for name in sorted(value.keys() - set(names)):
        problems.add(name, f"unknown key (expected one of: {', '.join(names)})")
    for name in names:
        if name not in value:
            problems.add(name, "is missing")
    problems.raise_any()
    return value


def _of_kind(keys: Mapping[str, tuple[str, ...]], common: tuple[str, ...]) -> Callable[[Any], Any]:
    """A table whose ``kind`` says which keys it has: every one of them, no other."""

    def check(data: Any) -> Any:
        kind = data.get("kind", data.get("shape")) if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(kind, str) or kind not in keys:
            return data  # the type's own check says what is wrong
        _exactly({k: v for k, v in data.items() if k != "name"}, (*common, *keys[kind]))
        return data

    return check


# -- values --------------------------------------------------------------------------------


@dataclass(frozen=True)
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


_MAGNET_KEYS = ("shape", "grade", "diameter", "height", "remanence", "density")


@dataclass(frozen=True, config=TABLE)
class Magnet:
    """``[magnets.NAME]``: a disc (axially magnetised cylinder), a ring (a disc with a
    hole of ``inner_diameter``) or a sphere."""

    name: Annotated[str, Key()]
    shape: Literal["disc", "sphere", "ring"]
    grade: str
    diameter: Annotated[float, Range(0.5, 50)]
    height: Annotated[float, Range(0.2, 50)]
    """The disc's thickness; a sphere's is its diameter."""
    remanence: Annotated[tuple[float, float], pair(100, 1600)]
    """Br of the grade, (min, max) in mT."""
    density: Annotated[float, Range(1, 20)]
    inner_diameter: Annotated[float, Range(0, 49)] = 0.0
    """A ring's hole (0 for a disc or a sphere)."""

    _keys = model_validator(mode="before")(
        _of_kind({"disc": (), "sphere": (), "ring": ("inner_diameter",)}, _MAGNET_KEYS)
    )

    @model_validator(mode="after")
    def _rules(self) -> Magnet:
        problems = Problems()
        if self.shape == "ring" and self.inner_diameter < 0.1:
            problems.add("inner_diameter", f"must be from 0.1 to 49, not {self.inner_diameter:g}")
        elif self.shape == "ring" and self.inner_diameter >= self.diameter:
            problems.add("inner_diameter", f"must be under the diameter {self.diameter:g}")
        if self.shape == "sphere" and self.height != self.diameter:
            problems.add("height", f"a sphere's height is its diameter ({self.diameter:g})")
        problems.raise_any()
        return self

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


@dataclass(frozen=True, config=TABLE)
class Hollow:
    """``[hollow]``: the spherical dip each piece settles in."""

    diameter: Annotated[float, Range(1, 50)]
    depth: Annotated[float, Range(0, 10)]
    reflectance: Annotated[tuple[float, float], pair(0.01, 1)] = (0.3, 0.8)
    """Its wood's diffuse reflectance at 950 nm (least, most)."""


@dataclass(frozen=True, config=TABLE)
class Piece:
    """``[pearl]`` or ``[ball]``: a piece, its magnet and how it may lie in its hollow."""

    name: Annotated[str, Key()]
    diameter: Annotated[float, Range(5, 60)]
    density: Annotated[float, Range(0.1, 5)]
    magnet: Annotated[Magnet, named("magnets")]
    magnet_depth: Annotated[float, Range(0, 30)]
    """From the piece's surface to the magnet's outer face (0 = flush)."""
    rise: Annotated[float, Range(0, 20)]
    lateral_offset: Annotated[float, Range(0, 20)]
    tilt: Annotated[float, Range(0, 180)]
    """Degrees from vertical; 180 = any orientation."""
    polarity: Literal["either"]
    reflectance: Annotated[tuple[float, float], pair(0.01, 1)] = (0.2, 0.9)
    """Diffuse reflectance of its surface at 950 nm (darkest, brightest finish)."""

    @model_validator(mode="after")
    def _rules(self) -> Piece:
        if self.magnet_depth + self.magnet.height / 2 > self.diameter / 2 + 1e-9:
            fail_at("magnet_depth", "puts the magnet past the piece's centre")
        return self

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


def _centre(data: Any) -> Any:
    """``depth = "centre"``: the magnet at the piece's centre."""
    data = _of_kind({"none": (), "steel": ("diameter", "density"), "magnet": ("magnet",
                     "depth")}, ("kind",))(data)  # fmt: skip
    if isinstance(data, dict) and data.get("depth") == "centre":
        return {**{k: v for k, v in data.items() if k != "depth"}, "centre": True}
    if isinstance(data, dict) and data.get("kind") == "steel":
        return {**data, "centre": True}
    return data


@dataclass(frozen=True, config=TABLE)
class Insert:
    """``[inserts.NAME]``: what a build puts into each piece for its sensor to find.

    ``magnet``: a magnet (``[magnets.…]``) whose axis points out along the piece's radius,
    its outer face ``depth`` under the surface, or at the piece's centre (``centre``);
    ``steel``: a soft-iron sphere of ``diameter`` (at the centre); ``none``: the piece as
    the family has it.
    """

    name: Annotated[str, Key()]
    kind: InsertKind
    magnet: Annotated[Magnet | None, named("magnets")] = None
    centre: bool = False
    depth: Annotated[float, Range(0, 30)] = 0.0
    diameter: Annotated[float, Range(0.5, 30)] = 0.0
    """steel: its sphere's (only steel gives it; 0 is never checked, as no default is)."""
    density: Annotated[float, Range(1, 20)] = 0.0
    """steel: g/cm³."""

    _keys = model_validator(mode="before")(_centre)

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


@dataclass(frozen=True, config=TABLE)
class SensorElement:
    """One switch of a sensor (several are wired in parallel)."""

    orientation: Orientation
    azimuth: Annotated[float, Range(-360, 360)]
    """A flat element's axis, degrees from +x towards +y."""
    offset: XY
    depth: Annotated[float, Range(0, 60)]


_BIG = 100000


@dataclass(frozen=True, config=TABLE)
class _Sensor:
    """``[sensors.NAME]``: the keys of every kind; ``kind`` says which class below it is
    and so which keys it has besides (every one of them, no other)."""

    name: Annotated[str, Key()]
    kind: SensorKind
    part: str
    manufacturer: str
    elements: Annotated[tuple[SensorElement, ...], Items(0, 64, "elements", "a list of tables")]
    current: Annotated[float, Range(0, 500)]
    """mA each draws from 3.3 V (typical)."""
    hole_diameter: Annotated[float, Range(0, 30)]
    """The hole drilled for it from below (0: none)."""
    hole_depth: Annotated[float, Range(0, 60)]
    """How deep that hole goes into the wood from below."""

    @model_validator(mode="after")
    def _rules(self) -> _Sensor:
        problems = Problems()
        if self.kind != "ir" and not self.elements:
            problems.add("elements", "must list at least one element")
        if isinstance(self, Reed) and self.drop_out_min >= self.pull_in[0]:
            problems.add("drop_out_min", f"must be below pull_in's minimum {self.pull_in[0]:g}")
        if isinstance(self, Hall) and self.release_min >= self.operate_max:
            problems.add("release_min", "must be below operate_max")
        if isinstance(self, _Thresholds) and self.threshold_off >= self.threshold_on:
            problems.add("threshold_off", f"must be below threshold_on ({self.threshold_on:g})")
        elif isinstance(self, _Thresholds) and self.threshold_off - self.error <= 0:
            problems.add(
                "threshold_off", f"less its error ({self.error:g}) leaves no release point"
            )
        if isinstance(self, Linear) and self.axes not in (1, 3):
            problems.add("axes", f"must be 1 or 3, not {describe(self.axes)}")
        if isinstance(self, Reflective) and not self.span[0] <= self.peak_distance <= self.span[1]:
            problems.add(
                "peak_distance", f"must lie within span [{self.span[0]:g}, {self.span[1]:g}]"
            )
        if isinstance(self, Ir) and self.height == 0:
            problems.add("height", "must be above (> 0) or below (< 0) the surface")
        problems.raise_any()
        return self

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


@dataclass(frozen=True, config=TABLE)
class Reed(_Sensor):
    kind: Literal["reed"]
    glass_length: Annotated[float, Range(3, 60)]
    pull_in: Annotated[tuple[float, float], pair(1, 200)]
    """The ordered class, (min, max) AT."""
    drop_out_min: Annotated[float, Range(0.1, 200)]
    test_coil_length: Annotated[float, Range(3, 100)]
    lead_diameter: Annotated[float, Range(0.1, 2)]
    """Its leads' diameter (mm)."""
    bend_clearance: Annotated[float, Range(0, 20)]
    """The least length of straight lead between the glass seal and a bend (mm)."""
    lead_offset: Annotated[float, Range(0, 10)]
    """Upright: how far the upper lead, bent down beside the glass, runs from the glass's
    axis (mm)."""


@dataclass(frozen=True, config=TABLE)
class Hall(_Sensor):
    kind: Literal["hall"]
    operate_max: Annotated[float, Range(0.1, 200)]
    """B_OP max, mT."""
    release_min: Annotated[float, Range(0.01, 200)]
    """B_RP min, mT."""


@dataclass(frozen=True, config=TABLE)
class Ir(_Sensor):
    kind: Literal["ir"]
    height: Annotated[float, Range(-60, 300)]
    """Above the surface looking down (> 0), or below it looking up (< 0)."""


@dataclass(frozen=True, config=TABLE)
class _Thresholds(_Sensor):
    """A sensor whose reading the firmware compares with thresholds."""

    threshold_on: Annotated[float, Range(0.001, _BIG)]
    """Linear hall (mT) and reflective (µA): the firmware's operate threshold over the
    cell's empty baseline."""
    threshold_off: Annotated[float, Range(0, _BIG)]
    """… and its release threshold (below ``threshold_on``: the hysteresis)."""
    error: Annotated[float, Range(0, _BIG)]
    """The worst-case reading error after the per-cell baseline (same unit): the operate
    point is ``threshold_on + error`` at worst, the release point ``threshold_off − error``."""


@dataclass(frozen=True, config=TABLE)
class Linear(_Thresholds):
    kind: Literal["linear"]
    axes: Annotated[int, Range(1, 3)]
    """1 (the field along the element's axis) or 3 (the field's size)."""
    full_scale: Annotated[float, Range(1, 1000)]
    """The largest field it reads (mT); beyond it the reading is uncertain."""
    bias_magnet: Annotated[Magnet | None, named("magnets", none="")]
    """A magnet under the element (back-biased), axis up (``""``: none)."""
    bias_gap: Annotated[float, Range(0, 30)]
    """From the hall element down to the bias magnet's top face (mm)."""


@dataclass(frozen=True, config=TABLE)
class Reflective(_Thresholds):
    kind: Literal["reflective"]
    collector_min: Annotated[float, Range(0.01, _BIG)]
    """The least photocurrent (µA) at ``test_distance`` from a ``test_reflectance`` card, at
    the emitter current the firmware uses."""
    test_distance: Annotated[float, Range(0, 50)]
    test_reflectance: Annotated[float, Range(0.01, 1)]
    peak_distance: Annotated[float, Range(0, 50)]
    """The distance of the largest photocurrent (mm)."""
    span: Annotated[tuple[float, float], pair(0, 50)]
    """Distances (mm) within which the photocurrent stays above ``span_fraction`` of its
    peak."""
    span_fraction: Annotated[float, Range(0.01, 1)]
    crosstalk_max: Annotated[float, Range(0, 1000)]
    """Photocurrent (µA) with nothing in front (emitter on), at most."""
    dark_max: Annotated[float, Range(0, 1000)]
    """Photocurrent (µA) with the emitter off and no light, at most."""
    window_diameter: Annotated[float, Range(0.5, 30)]
    """The hole from its pocket up through the hollow's bottom (mm)."""
    load_resistor: Annotated[float, Range(0.01, 10000)]
    """kΩ from the phototransistor's emitter to ground (the ADC reads it)."""
    emitter_current: Annotated[float, Range(0.1, 100)]
    """mA through the emitter while it is lit."""


Sensor = Annotated[Reed | Hall | Ir | Linear | Reflective, Discriminator("kind")]
"""A sensor of any kind (``sensor.kind`` tells them apart, for the type checker too)."""


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


def places(*names: str) -> Shaped:
    """A table of exactly these places, each ``[x, y]``."""

    def read(value: object, inner: Callable[[object], dict[str, Point]]) -> dict[str, Point]:
        points = inner(_exactly(value, names))
        return {name: points[name] for name in names}

    return Shaped(dict[str, XY], read)


def _builds(value: object, inner: Callable[[object], dict[str, Build]]) -> dict[str, Build]:
    """``[builds.NAME]`` for every build; ``same_as = "other"`` shares another's board."""
    tables = _exactly(value, BUILDS)
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


# -- the wood around a sensor --------------------------------------------------------------


def fits_wood(sensor: Sensor, wood: float, where: str) -> list[tuple[str, str]]:
    """Every element of ``sensor`` lies inside ``wood`` mm of wood, and a reed's leads fit:
    the problems found, with their keys."""
    found = [
        (f"sensors.{sensor.name}.elements[{i}].depth",
         f"{element.depth:g} mm is not inside {where}'s {wood:g} mm of wood")
        for i, element in enumerate(sensor.elements) if element.depth >= wood
    ]  # fmt: skip
    return found or lead_problems(sensor, wood, where)


LEAD_SLACK: Final = 0.2
"""mm of room a bent lead needs beside it in its hole (the lead is not straight)."""


def lead_problems(sensor: Sensor, wood: float, where: str) -> list[tuple[str, str]]:
    """An upright reed's upper lead leaves the glass's top, runs ``bend_clearance``
    straight up, and is bent down beside the glass: the hole drilled from below must end
    at least that far (plus the bend's lead) above the glass, and be wide enough for the
    bent lead beside it. The problems found, as ``(key, problem)``:

    >>> reed = load_geometry().sensors["reed-upright"]
    >>> lead_problems(reed, 15.0, "builds.matrix")
    []
    >>> for key, problem in lead_problems(replace(reed, hole_diameter=3.5), 15.0, "builds.matrix"):
    ...     print(f"{key}: {problem}")  # doctest: +ELLIPSIS
    sensors.reed-upright.hole_diameter: 3.5 mm leaves ... 0.035 mm; ... at least 3.83 mm)
    """
    if not isinstance(sensor, Reed):
        return []
    top = wood - sensor.hole_depth  # depth of the hole's end under the surface
    found = []
    for i, element in enumerate(sensor.elements):
        if element.orientation != "upright":
            continue
        need = top + sensor.bend_clearance + sensor.lead_diameter
        if element.depth < need - 1e-9:
            found.append((
                f"sensors.{sensor.name}.elements[{i}].depth",
                f"the glass's top {element.depth:g} mm down leaves its upper lead "
                f"{element.depth - top:.2f} mm under the end of the hole ({top:g} mm down in "
                f"{where}'s wood); bending it {sensor.bend_clearance:g} mm from the seal "
                f"needs the glass at least {need:.2f} mm down",
            ))  # fmt: skip
        room = sensor.hole_diameter / 2 - sensor.lead_offset - sensor.lead_diameter / 2
        if room < LEAD_SLACK - 1e-9:
            least = 2 * (sensor.lead_offset + sensor.lead_diameter / 2 + LEAD_SLACK)
            found.append((
                f"sensors.{sensor.name}.hole_diameter",
                f"{sensor.hole_diameter:g} mm leaves the bent lead {sensor.lead_offset:g} mm "
                f"off the glass's axis {room:.3g} mm; it needs at least {LEAD_SLACK:g} mm "
                f"(a hole of at least {least:.2f} mm)",
            ))  # fmt: skip
    return found
