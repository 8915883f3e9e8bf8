"""The parts ``hardware/geometry.toml`` declares, and the words its tables share.

The magnets in the pearls and balls, the hollow each piece rests in, the pieces, what a
build puts into a pearl for its sensor to find, and the sensors of every kind, with what
follows from their numbers (volumes, masses, where a magnet rests) and the rules that
keep a sensor inside its wood. :mod:`hardware.geometry` reads the file and puts them
where they are on the board.

Each is a frozen pydantic dataclass (the schema of :mod:`controller.checks`): each key is
declared once, its range beside its type; the rules across its keys are its validator.
The frame is the board's (:mod:`hardware.geometry`): millimetres, seen from above.

>>> from hardware.geometry import load_geometry
>>> pearl = load_geometry().pearl
>>> pearl.magnet.shape, round(pearl.mass, 2)
('disc', 3.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BeforeValidator, ConfigDict, Discriminator, ValidationInfo, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from controller.checks import Items, Key, Problems, Range, Shaped, describe, fail, fail_at

SensorKind = Literal["reed", "hall", "ir", "linear", "reflective"]
InsertKind = Literal["magnet", "steel", "none"]
Orientation = Literal["upright", "flat"]

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


def exactly(value: object, names: tuple[str, ...]) -> dict[str, Any]:
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


def of_kind(keys: Mapping[str, tuple[str, ...]], common: tuple[str, ...]) -> Callable[[Any], Any]:
    """A table whose ``kind`` says which keys it has: every one of them, no other."""

    def check(data: Any) -> Any:
        kind = data.get("kind", data.get("shape")) if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(kind, str) or kind not in keys:
            return data  # the type's own check says what is wrong
        exactly({k: v for k, v in data.items() if k != "name"}, (*common, *keys[kind]))
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
        of_kind({"disc": (), "sphere": (), "ring": ("inner_diameter",)}, _MAGNET_KEYS)
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
    data = of_kind({"none": (), "steel": ("diameter", "density"), "magnet": ("magnet",
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

    >>> from dataclasses import replace
    >>> from hardware.geometry import load_geometry
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
