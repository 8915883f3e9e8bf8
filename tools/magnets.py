"""The magnets and sensors of the board as a model: fields from magpylib, switching margins.

Everything is computed from ``hardware/geometry.toml`` (:mod:`hardware.geometry`):
the pieces' magnets in every allowed rest pose, the sensors under each place, and the
checks the board must pass (``tests/hardware/physics/``) with the margins the guide prints
(``tools/board_drawing.py``).

The model, stated so it can be argued with:

- **Fields.** magpylib's analytical fields of a uniformly magnetised cylinder (the pearls'
  discs; a ring is a disc less the disc of its hole) and sphere (the balls'), at the
  grade's smallest remanence when a sensor must close and its largest when it must stay
  open. Wood, glue and the reeds' own iron do not
  change the field (wood is non-magnetic; the reed's iron is what the ampere-turn rating
  already describes).
- **Rest poses.** A piece rests at the bottom of its hollow; its magnet's centre may rise by
  up to ``rise``, lie up to ``lateral_offset`` off the axis (8 directions), and the piece
  may rest tilted by up to ``tilt`` (8 directions, the magnet turning about the piece's
  centre); a ball (``tilt`` 180) in any orientation. Either pole may face down: a reed and
  the omnipolar DRV5033 respond to the field's size, so one polarity is computed and the
  other is its negative.
- **Reeds.** A reed switch's sensitivity is rated in ampere-turns (AT): the current × turns
  of the maker's test coil at which it closes (pull-in) and opens again (drop-out). A long
  coil of length ℓ makes a uniform field along its axis of B = μ0·AT/ℓ (Dexter Magnetic
  Technologies, "FAQ – Magnets for sensors": B = μ0·N·I/ℓ for coils longer than 5× their
  diameter). The model takes the field component along the reed, averages it along the
  glass (the reed's blades span the glass) and converts back:
  AT = |mean(B·u)| · ℓ_coil / μ0, with ℓ_coil the file's ``test_coil_length``. A magnet at
  one end only reaches half the glass and so gives about half the AT of the same field
  over the whole glass, as Littelfuse's application note "Ampere-turn versus mT and Gauss"
  says of one-pole activation; the same note warns that any such conversion is good to a
  factor of about 2, which is what the 2× margins are for.
- **Hall switches.** The DRV5033 senses the field component perpendicular to its branded
  face at its hall element: it switches on above B_OP and off below B_RP, either pole.
- **Several elements** (reeds wired in parallel) close when any one closes: the own piece
  must close the best element, the neighbours must leave every element open.
- **Neighbours.** Each neighbour's contribution along a sensor is linear in its magnet's
  moment, so the worst set of polarities and poses gives the sum of their largest
  absolute contributions; the model sums exactly that.
- **Pearls turning one another over.** Only gravity keeps a pearl magnet-down: turned over
  about its centre, its magnet (mass m_g, c from the centre) rises by 2c, which costs
  m_g·g·2c. Its magnet (moment m, a point dipole) in the field of the resting neighbours
  gains at most Σ|−m·B_i(bottom)·ẑ − m·B_i(top)·ẑ| for the same turn (the worst polarity
  of each neighbour). Magnet-down stays the pearl's lowest state, with the 2× margin, when
  the cost is at least twice the gain. (Friction and the hollow, which resist turning
  either way, are left out: the check asks whether magnet-down is still the pearl's
  lowest rest, not how readily the pearl gets there.)
- **Pieces pulling each other off their places.** Two magnets at distance d pull each
  other with at most F = 3μ0m²/(2πd⁴) (point dipoles, coaxial; the exact field outside a
  sphere magnet). A piece stays in its hollow while all its neighbours' pulls together,
  taken in one direction, are at most half the hollow's hold, W·tan(ψ_rim) (W its weight,
  ψ_rim where its contact reaches the hollow's rim).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import magpylib
import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script too

from hardware.geometry import Geometry, load_geometry  # noqa: E402
from hardware.physical import Hollow, Magnet, Piece, Point, Sensor  # noqa: E402

__all__ = [
    "GRAVITY",
    "MU0",
    "FlipCheck",
    "PlaceCheck",
    "Poses",
    "axial_field",
    "check_cells",
    "check_targets",
    "check_top",
    "drives",
    "flip_check",
    "magnet_field",
    "neighbour_share",
    "pull_ratio",
    "rest_poses",
    "thresholds",
    "top_ball_centre",
]

Array = NDArray[np.float64]
MU0 = magpylib.mu_0
GRAVITY = 9.81
MARGIN = 2.0
"""Every check asks for twice what the sensor needs (or half what it may take)."""
_MM = 1e-3
_DIRECTIONS = 8
_GLASS_POINTS = 32
_BALL_AXES = 32


# -- fields --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Poses:
    """n magnet poses: centres (n, 3) in mm in the board's frame, unit axes (n, 3)."""

    centres: Array
    axes: Array

    def __len__(self) -> int:
        return len(self.centres)


def _rotations(axes: Array) -> Array:
    """(n, 3, 3) rotations taking +z to each axis (Rodrigues' formula)."""
    n = len(axes)
    out = np.empty((n, 3, 3))
    x, y, z = axes[:, 0], axes[:, 1], axes[:, 2]
    cross = np.zeros((n, 3, 3))  # [v]× for v = ẑ × axis = (−y, x, 0)
    cross[:, 0, 2], cross[:, 1, 2] = x, y
    cross[:, 2, 0], cross[:, 2, 1] = -x, -y
    down = z < -1 + 1e-9
    scale = np.where(down, 0.0, 1 / np.where(down, 1.0, 1 + z))
    out[:] = np.eye(3) + cross + np.einsum("nij,njk->nik", cross, cross) * scale[:, None, None]
    out[down] = np.diag([1.0, -1.0, -1.0])
    return out


def magnet_field(magnet: Magnet, poses: Poses, observers: Array, remanence: float) -> Array:
    """B in mT, shape (n, k, 3), of the magnet in each of n poses at k observers (mm)."""
    rotations = _rotations(poses.axes)
    relative = observers[None, :, :] - poses.centres[:, None, :]
    local = np.einsum("nji,nkj->nki", rotations, relative).reshape(-1, 3) * _MM
    count = len(local)
    polarisation = np.broadcast_to(np.array([0.0, 0.0, remanence * 1e-3]), (count, 3))
    if magnet.shape == "sphere":
        diameters = np.full(count, magnet.diameter * _MM)
        field = magpylib.func.sphere_field("B", local, diameters, polarisation, squeeze=False)
    else:
        size = np.broadcast_to(np.array([magnet.diameter, magnet.height]) * _MM, (count, 2))
        field = magpylib.func.cylinder_field("B", local, size, polarisation, squeeze=False)
        if magnet.shape == "ring":  # the disc less the disc of its hole (superposition)
            hole = np.broadcast_to(
                np.array([magnet.inner_diameter, magnet.height]) * _MM, (count, 2)
            )
            field = field - magpylib.func.cylinder_field(
                "B", local, hole, polarisation, squeeze=False
            )
    field = field.reshape(len(poses), len(observers), 3)
    return np.asarray(np.einsum("nij,nkj->nki", rotations, field) * 1e3, dtype=np.float64)


def axial_field(magnet: Magnet, distances: Sequence[float]) -> list[float]:
    """mT on the magnet's axis at each distance (mm) from its face, at the nominal Br."""
    remanence = sum(magnet.remanence) / 2
    face = magnet.height / 2
    observers = np.array([[0.0, 0.0, -(face + d)] for d in distances])
    poses = Poses(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]))
    return [float(b) for b in magnet_field(magnet, poses, observers, remanence)[0, :, 2]]


def _moment(magnet: Magnet, remanence: float) -> float:
    """A·m²: M·V with M = Br/μ0."""
    return remanence * 1e-3 / MU0 * magnet.volume * _MM**3


# -- poses ---------------------------------------------------------------------------------


def _circle(radius: float) -> list[tuple[float, float]]:
    if radius == 0:
        return [(0.0, 0.0)]
    angles = np.arange(_DIRECTIONS) * 2 * math.pi / _DIRECTIONS
    return [(radius * math.cos(a), radius * math.sin(a)) for a in angles]


def _hemisphere(count: int) -> Array:
    """Unit vectors spread evenly over the upper hemisphere (Fibonacci lattice)."""
    i = np.arange(count) + 0.5
    z = 1 - i / count
    phi = math.pi * (3 - math.sqrt(5)) * i
    r = np.sqrt(1 - z**2)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def rest_poses(piece: Piece, hollow: Hollow, place: Point) -> Poses:
    """Every allowed rest of ``piece``'s magnet in the hollow at ``place`` (one polarity)."""
    nominal = np.array([place.x, place.y, piece.magnet_height(hollow)])
    reach = piece.centre_to_magnet
    if piece.tilt >= 180:
        axes = _hemisphere(_BALL_AXES)
        tilted = [(np.zeros(3), axis) for axis in axes]
    else:
        tilted = []
        for theta in np.radians(np.linspace(0, piece.tilt, 3)):
            for ax, ay in _circle(math.sin(theta)):
                axis = np.array([ax, ay, math.cos(theta)])
                shift = reach * (np.array([0.0, 0.0, 1.0]) - axis)  # about the piece's centre
                tilted.append((shift, axis))
    offsets = [
        np.array([dx, dy, dz])
        for dz in np.linspace(0, piece.rise, 3)
        for radius in np.linspace(0, piece.lateral_offset, 3)
        for dx, dy in _circle(float(radius))
    ]
    centres = [nominal + shift + offset for shift, _ in tilted for offset in offsets]
    axes_out = [axis for _, axis in tilted for _ in offsets]
    return Poses(np.array(centres), np.array(axes_out))


def top_ball_centre(geometry: Geometry) -> Array:
    """Where the top ball's centre rests: on the four base balls, above the top's point."""
    ball = geometry.ball
    base_z = -geometry.hollow.depth + ball.diameter / 2
    spread = max(geometry.top.distance(t) for t in geometry.targets.values())
    if spread >= ball.diameter:
        raise ValueError("the targets are too far apart for the top ball to rest on them")
    lift = math.sqrt(ball.diameter**2 - spread**2)
    return np.array([geometry.top.x, geometry.top.y, base_z + lift])


# -- sensor response -----------------------------------------------------------------------


def _element_line(sensor: Sensor, index: int, place: Point) -> tuple[Array, Array]:
    """Observation points (k, 3) and the sensing axis (3,) of one element at ``place``."""
    element = sensor.elements[index]
    base = np.array([place.x + element.offset.x, place.y + element.offset.y, -element.depth])
    if element.orientation == "upright":
        axis = np.array([0.0, 0.0, 1.0])
    else:
        angle = math.radians(element.azimuth)
        axis = np.array([math.cos(angle), math.sin(angle), 0.0])
    if sensor.kind != "reed":  # a hall element: one point
        return base[None, :], axis
    steps = (np.arange(_GLASS_POINTS) + 0.5) / _GLASS_POINTS * sensor.glass_length
    if element.orientation == "upright":  # from the top of the glass downwards
        points = base[None, :] - steps[:, None] * axis[None, :]
    else:  # centred on the element's offset
        points = base[None, :] + (steps - sensor.glass_length / 2)[:, None] * axis[None, :]
    return points, axis


def drives(sensor: Sensor, place: Point, magnet: Magnet, poses: Poses, remanence: float) -> Array:
    """(n, e): each pose's signed drive of each element, AT for a reed and mT for a hall
    switch (the field along the element's axis: a reed and the omnipolar DRV5033 respond
    to its size, so the sign only says how drives of several magnets add)."""
    columns = []
    for index in range(len(sensor.elements)):
        points, axis = _element_line(sensor, index, place)
        along = magnet_field(magnet, poses, points, remanence) @ axis  # (n, k), mT
        if sensor.kind == "reed":
            mean = along.mean(axis=1) * 1e-3
            columns.append(mean * sensor.test_coil_length * _MM / MU0)
        else:
            columns.append(along[:, 0])
    return np.stack(columns, axis=1)


def _responses(
    sensor: Sensor, place: Point, magnet: Magnet, poses: Poses, remanence: float
) -> Array:
    """(n, e): each pose's drive of each element, AT for a reed and mT for a hall switch."""
    return np.abs(drives(sensor, place, magnet, poses, remanence))


def thresholds(sensor: Sensor) -> tuple[float, float, str]:
    """(worst-case operate point, worst-case release point, unit)."""
    if sensor.kind == "reed":
        return sensor.pull_in[1], sensor.drop_out_min, "AT"
    if sensor.kind == "hall":
        return sensor.operate_max, sensor.release_min, "mT"
    raise ValueError(f"sensors.{sensor.name}: an {sensor.kind} sensor has no magnetic model")


@dataclass(frozen=True)
class PlaceCheck:
    """One place's sensor against its own piece and its full neighbourhood."""

    place: str
    own: float
    """The weakest drive of the own piece, over every allowed rest (its best element)."""
    neighbours: float
    """The strongest drive of all neighbours at once, worst poses and polarities."""
    operate: float
    release: float
    unit: str
    neighbour_count: int

    @property
    def own_margin(self) -> float:
        """How many times the worst-case operate point the own piece gives (want ≥ 2)."""
        return self.own / self.operate

    @property
    def neighbour_margin(self) -> float:
        """How many times the neighbours' drive the worst-case release point is (≥ 2)."""
        return self.release / self.neighbours if self.neighbours > 0 else math.inf

    @property
    def passes(self) -> bool:
        return self.own_margin >= MARGIN and self.neighbour_margin >= MARGIN

    def describe(self) -> str:
        return (
            f"{self.place}: own piece ≥ {self.own:.3g} {self.unit} (×{self.own_margin:.2f} "
            f"the operate point {self.operate:g}), {self.neighbour_count} neighbours ≤ "
            f"{self.neighbours:.3g} {self.unit} (release point {self.release:g} is "
            f"×{self.neighbour_margin:.2f} that)"
        )


def _check_places(
    sensor: Sensor,
    piece: Piece,
    hollow: Hollow,
    places: Mapping[str, Point],
    neighbours_of: Mapping[str, Sequence[Poses]],
) -> list[PlaceCheck]:
    operate, release, unit = thresholds(sensor)
    low, high = piece.magnet.remanence
    cache: dict[tuple[float, float], Array] = {}
    # The drive of a piece at a place depends only on where it is relative to the place,
    # so the own piece is computed once (at the origin) and each neighbour once per offset.
    origin = Point(0.0, 0.0)
    own_local = rest_poses(piece, hollow, origin)
    own = float(_responses(sensor, origin, piece.magnet, own_local, low).max(axis=1).min())
    out = []
    for name, place in places.items():
        total = np.zeros(len(sensor.elements))
        for poses in neighbours_of[name]:
            # The drive depends only on where the neighbour is relative to this place.
            key = (round(float(poses.centres[0, 0] - place.x), 3),
                   round(float(poses.centres[0, 1] - place.y), 3))  # fmt: skip
            if key not in cache:
                local = Poses(poses.centres - np.array([place.x, place.y, 0.0]), poses.axes)
                cache[key] = _responses(sensor, origin, piece.magnet, local, high).max(axis=0)
            total += cache[key]
        out.append(
            PlaceCheck(
                name, own, float(total.max()), operate, release, unit, len(neighbours_of[name])
            )
        )
    return out


def _adjacent(geometry: Geometry, name: str) -> list[Point]:
    here = geometry.cells[name]
    reach = geometry.pitch * 1.5
    return [p for n, p in geometry.cells.items() if n != name and here.distance(p) < reach]


def check_cells(geometry: Geometry, sensor: Sensor) -> list[PlaceCheck]:
    """Every cell: its own pearl in every rest, and all its (up to 8) neighbours full."""
    pearl, hollow = geometry.pearl, geometry.hollow
    neighbours = {
        name: [rest_poses(pearl, hollow, p) for p in _adjacent(geometry, name)]
        for name in geometry.cells
    }
    return _check_places(sensor, pearl, hollow, geometry.cells, neighbours)


def neighbour_share(geometry: Geometry, sensor: Sensor, name: str = "c3") -> float:
    """The strongest single neighbour's worst drive over the own pearl's weakest, at cell
    ``name`` (the old guide's "a tenth" was about this)."""
    pearl, hollow = geometry.pearl, geometry.hollow
    here = geometry.cells[name]
    own = rest_poses(pearl, hollow, here)
    low, high = pearl.magnet.remanence
    weakest = _responses(sensor, here, pearl.magnet, own, low).max(axis=1).min()
    strongest = max(
        float(_responses(sensor, here, pearl.magnet, rest_poses(pearl, hollow, p), high).max())
        for p in _adjacent(geometry, name)
    )
    return strongest / float(weakest)


def check_targets(geometry: Geometry, sensor: Sensor) -> list[PlaceCheck]:
    """Every base target: its own ball, the other three balls and the top ball on them."""
    ball, hollow = geometry.ball, geometry.hollow
    top = top_ball_centre(geometry)
    axes = _hemisphere(_BALL_AXES)
    top_poses = Poses(np.repeat(top[None, :], len(axes), axis=0), axes)
    neighbours = {
        name: [rest_poses(ball, hollow, p) for n, p in geometry.targets.items() if n != name]
        + [top_poses]
        for name in geometry.targets
    }
    return _check_places(sensor, ball, hollow, geometry.targets, neighbours)


def check_top(geometry: Geometry, sensor: Sensor) -> PlaceCheck:
    """A magnetic sensor under the top: its own ball rests on the four base balls, which
    are always there when it matters."""
    ball = geometry.ball
    operate, release, unit = thresholds(sensor)
    low, high = ball.magnet.remanence
    axes = _hemisphere(_BALL_AXES)
    top = Poses(np.repeat(top_ball_centre(geometry)[None, :], len(axes), axis=0), axes)
    own = float(_responses(sensor, geometry.top, ball.magnet, top, low).max(axis=1).min())
    total = np.zeros(len(sensor.elements))
    for target in geometry.targets.values():
        poses = rest_poses(ball, geometry.hollow, target)
        total += _responses(sensor, geometry.top, ball.magnet, poses, high).max(axis=0)
    return PlaceCheck("top", own, float(total.max()), operate, release, unit, 4)


# -- forces --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlipCheck:
    """A pearl turned over in place by its full neighbourhood (see the module)."""

    place: str
    gravity: float
    """J: lifting the magnet from the bottom of the pearl to its top."""
    magnetic: float
    """J: the most the neighbours' field gives back for the same turn."""

    @property
    def ratio(self) -> float:
        return self.gravity / self.magnetic if self.magnetic > 0 else math.inf

    @property
    def passes(self) -> bool:
        return self.ratio >= MARGIN


def _hollow_radius(hollow: Hollow) -> float:
    half = hollow.diameter / 2
    return (half**2 + hollow.depth**2) / (2 * hollow.depth)


def flip_check(geometry: Geometry, name: str) -> FlipCheck:
    """Whether the neighbours of cell ``name`` can turn its pearl over (see the module)."""
    pearl, hollow = geometry.pearl, geometry.hollow
    reach = pearl.centre_to_magnet
    high = pearl.magnet.remanence[1]
    moment = _moment(pearl.magnet, high)
    here = geometry.cells[name]
    bottom = np.array([here.x, here.y, pearl.magnet_height(hollow)])
    top = bottom + np.array([0.0, 0.0, 2 * reach])
    up = np.array([0.0, 0.0, 1.0])
    gained = 0.0
    for point in _adjacent(geometry, name):
        neighbour = Poses(np.array([[point.x, point.y, bottom[2]]]), up[None, :])
        field = magnet_field(pearl.magnet, neighbour, np.array([bottom, top]), high)[0] * 1e-3
        # Own moment up at the bottom, down at the top; the worst polarity of each neighbour.
        before, after = -moment * field[0] @ up, moment * field[1] @ up
        gained += abs(before - after)
    lift = pearl.magnet.mass * 1e-3 * GRAVITY * 2 * reach * _MM
    return FlipCheck(name, lift, gained)


def pull_ratio(geometry: Geometry, piece: Piece, places: Mapping[str, Point]) -> float:
    """The strongest pull of all its neighbours at once on a piece, over half what its
    hollow holds (want ≤ 1): each neighbour at most 3μ0m²/(2πd⁴), all in one direction."""
    moment = _moment(piece.magnet, piece.magnet.remanence[1])
    big_r = _hollow_radius(geometry.hollow)
    rim = math.asin(min(1.0, geometry.hollow.diameter / 2 / big_r))
    hold = piece.mass * 1e-3 * GRAVITY * math.tan(rim)
    reach = geometry.pitch * 1.5
    worst = 0.0
    for name, here in places.items():
        pull = sum(
            3 * MU0 * moment**2 / (2 * math.pi * (here.distance(there) * _MM) ** 4)
            for other, there in places.items()
            if other != name and here.distance(there) < reach
        )
        worst = max(worst, pull)
    return worst / (hold / MARGIN)


def main(argv: Sequence[str] | None = None) -> int:
    """Print every cell's margins for each magnetic build AT THE POSES THE GEOMETRY FILE
    ASSUMES (``[pearl] tilt``, ``rise``, ``lateral_offset``), and the flip check; exit 1 if
    any fails (``.venv/bin/python tools/magnets.py [--geometry FILE] [--build NAME]``).
    Where pearls really rest, and the margins there: ``python -m tools.sensing``."""
    parser = argparse.ArgumentParser(description="The board's magnet model, cell by cell.")
    parser.add_argument("--geometry", type=Path, default=None)
    parser.add_argument("--build", action="append", choices=("matrix", "mux"))
    args = parser.parse_args(argv)
    geometry = load_geometry(args.geometry)
    failed = False
    for build in args.build or ("matrix", "mux"):
        sensor = geometry.sensor(build)
        print(f"{build}: {sensor.part} (at the assumed poses)")
        for check in check_cells(geometry, sensor):
            failed |= not check.passes
            print(("  " if check.passes else "! ") + check.describe())
    flip = min((flip_check(geometry, name) for name in geometry.cells), key=lambda f: f.ratio)
    failed |= not flip.passes
    print(f"turning a pearl over: gravity costs ×{flip.ratio:.2f} what the neighbours give "
          f"back (cell {flip.place})")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
