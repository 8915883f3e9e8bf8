"""How a piece comes to rest in its hollow: rolling, friction, its insert and the board's
magnets. The sensing margins (``tools/sensing.py``) are computed at these rests, not at a
pose a config assumes.

    .venv/bin/python -m tools.rest           # the coarse sweep, as `make test` runs it
    .venv/bin/python -m tools.rest --fine    # the fine sweep of today's pearl
    .venv/bin/python -m tools.sensing --fine # every candidate's; writes hardware/rest-sweep.json

The model, stated so it can be argued with:

- **The piece** is a sphere (radius r, the wood's density) with an insert: a magnet whose
  axis points out along the radius (flush with the surface, or at the centre), a soft-iron
  ball at the centre, or nothing. Its centre of mass lies ``d = m_insert·c / M`` off the
  centre, along the insert's axis (c the insert's distance from the centre, m_insert its
  mass less the wood it replaces).
- **The hollow** is a spherical cap (``[hollow]``: diameter and depth give its radius R).
  A piece touching it has its centre on a sphere of radius ρ = R − r about the cap's
  centre of curvature. Rolling without slipping moves the centre by ds and turns the piece
  by ds / r about the horizontal axis across the motion (the contact point does not
  slide); it may also turn freely about the contact normal (pivoting, taken as
  frictionless: the kindest case for settling).
- **Rest.** From where the hand puts it (any orientation, uniform over the sphere; the
  contact anywhere in the hollow; up to ``rise`` higher), the piece moves downhill in its
  potential U = M·g·z(centre of mass) − m·B (a magnet insert in the board's field) −
  (3V/2μ0)·|B|² (a soft-iron ball, its induced moment ½-weighted), quasi-statically, until
  no rolling or pivoting lowers U. The inertia of the roll (overshoot, oscillation) is left
  out: the piece rolls down and back along the same line, and a roll there and back turns
  it there and back. Rolling resistance is taken as zero (again the kindest case: any
  resistance only holds it nearer to where it was put).
- **Slipping.** Rolling down a slope of angle ψ needs a friction force k/(1+k)·M·g·sin ψ
  (k = I/(M r²), 2/5 for a uniform ball), held by static friction while that is at most
  μ·M·g·cos ψ. Turning the piece in place instead (sliding at the contact) needs a
  torque μ·N·r; the insert's offset gives gravity only M·g·d. Wood on wood: μ = 0.25–0.5
  (The Engineering ToolBox, "Friction and Friction Coefficients for various Materials",
  table of static coefficients: wood – wood, clean 0.25–0.5); the model takes the low end
  and reports, for every placement, whether the piece rolls or slips.
- **Magnetic field.** Neighbouring pieces' magnets and any bias magnets are point dipoles
  (at 25 mm and more, or a few mm under a centred steel ball, good to a few per cent);
  a neighbour's magnet points as the quasi-random sequence dictates (every neighbour in
  some orientation, as a full board has them).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script too

from hardware.geometry import Geometry, load_geometry  # noqa: E402
from hardware.physical import Hollow, Insert, Piece  # noqa: E402

__all__ = [
    "GRAVITY",
    "MU0",
    "WOOD_FRICTION",
    "Body",
    "Dipoles",
    "Field",
    "Fields",
    "Placements",
    "Rests",
    "body_of",
    "come_to_rest",
    "hollow_radius",
    "placements",
    "sphere_points",
]

Array = NDArray[np.float64]
GRAVITY = 9.81
MU0 = 4e-7 * math.pi
WOOD_FRICTION = (0.25, 0.5)
"""Static friction, wood on wood, clean and dry (The Engineering ToolBox, "Friction and
Friction Coefficients for various Materials": wood – wood, clean, 0.25–0.5)."""
STEEL_DENSITY = 7.85
_MM = 1e-3
_G = 1e-3  # grams → kg


# -- the piece -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """A piece with its insert, in its own frame (the insert's axis is +z)."""

    name: str
    radius: float
    """mm."""
    mass: float
    """Grams, the whole piece."""
    offset: float
    """mm: the centre of mass lies this far from the centre along +z."""
    inertia: float
    """k = I / (M r²) about a diameter."""
    insert_at: float
    """mm: the insert's centre lies this far from the centre along +z."""
    moment: float
    """A·m² of a magnet insert along +z (0: none)."""
    iron: float
    """mm³ of a soft-iron ball insert (0: none)."""


def body_of(piece: Piece, insert: Insert) -> Body:
    """The rest model's view of ``piece`` carrying ``insert``.

    >>> g = load_geometry()
    >>> b = body_of(g.pearl, g.own_magnet)
    >>> round(b.offset, 3), round(b.mass, 2)  # the issue's "about 0.22 mm"
    (0.222, 3.0)
    """
    r = piece.diameter / 2
    wood = 4 / 3 * math.pi * r**3 * piece.density / 1000
    removed = insert.volume * piece.density / 1000
    extra = insert.mass - removed
    mass = wood + extra
    at = insert.centre_distance(piece)
    offset = extra * at / mass
    inertia = 2 / 5 * wood * r**2 + extra * at**2
    if insert.kind == "steel":
        inertia += 2 / 5 * extra * (insert.diameter / 2) ** 2
    moment = 0.0
    if insert.magnet is not None:
        br = insert.magnet.remanence[1] * 1e-3
        moment = br / MU0 * insert.magnet.volume * _MM**3
    iron = insert.volume if insert.kind == "steel" else 0.0
    return Body(piece.name, r, mass, offset, inertia / (mass * r**2), at, moment, iron)


def hollow_radius(hollow: Hollow) -> float:
    """The radius of the hollow's sphere (mm)."""
    half = hollow.diameter / 2
    return (half**2 + hollow.depth**2) / (2 * hollow.depth)


# -- the board's field ---------------------------------------------------------------------


@dataclass(frozen=True)
class Dipoles:
    """Point dipoles: positions (k, 3) in mm, moments (k, 3) in A·m²; or per placement,
    (n, k, 3) each."""

    positions: Array
    moments: Array

    @staticmethod
    def none() -> Dipoles:
        return Dipoles(np.zeros((0, 3)), np.zeros((0, 3)))

    def field(self, points: Array) -> Array:
        """B in tesla at ``points`` (n, 3) mm; sources broadcast against the n points."""
        if self.positions.shape[-2] == 0:
            return np.zeros_like(points)
        rel = (points[:, None, :] - self.positions) * _MM  # (n, k, 3) m
        dist = np.linalg.norm(rel, axis=-1, keepdims=True)
        unit = rel / dist
        moments = np.broadcast_to(self.moments, rel.shape)
        dot = np.sum(moments * unit, axis=-1, keepdims=True)
        b = MU0 / (4 * math.pi) * (3 * dot * unit - moments) / dist**3
        return np.asarray(b.sum(axis=1), dtype=np.float64)


class Field(Protocol):
    """Anything that gives B in tesla (n, 3) at points (n, 3) in mm."""

    def field(self, points: Array) -> Array: ...


@dataclass(frozen=True)
class Fields:
    """The sum of several fields."""

    parts: tuple[Field, ...]

    def field(self, points: Array) -> Array:
        total = np.zeros_like(points)
        for part in self.parts:
            total = total + part.field(points)
        return total


# -- placements ----------------------------------------------------------------------------


def sphere_points(count: int) -> Array:
    """``count`` unit vectors spread evenly over the whole sphere (a Fibonacci lattice:
    deterministic, and as uniform as a seeded random sample)."""
    i = np.arange(count) + 0.5
    z = 1 - 2 * i / count
    phi = math.pi * (3 - math.sqrt(5)) * i
    s = np.sqrt(1 - z**2)
    return np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1)


@dataclass(frozen=True)
class Placements:
    """How the hand puts a piece down: its insert's axis (n, 3), where its centre starts
    relative to the hollow's axis (n, 2) mm, and how much higher it rests (n,) mm."""

    axes: Array
    offsets: Array
    lifts: Array

    def __len__(self) -> int:
        return len(self.axes)


def placements(
    piece: Piece, hollow: Hollow, orientations: int, offsets: int = 3, lifts: int = 2
) -> Placements:
    """Every combination of ``orientations`` axes over the sphere, ``offsets`` start
    offsets from the axis to where the contact reaches the hollow's rim (in directions that
    turn with the lattice, so they are not all along one line), and ``lifts`` heights from
    0 to ``piece.rise``."""
    r = piece.diameter / 2
    rho = hollow_radius(hollow) - r
    rim = math.asin(min(1.0, hollow.diameter / 2 / hollow_radius(hollow)))
    reach = rho * math.sin(rim) * 0.98
    axes = sphere_points(orientations)
    out_axes, out_offsets, out_lifts = [], [], []
    golden = math.pi * (3 - math.sqrt(5))
    for k, radius in enumerate(np.linspace(0.0, reach, offsets)):
        for lift in np.linspace(0.0, piece.rise, lifts):
            angles = golden * (np.arange(orientations) * 7 + k)
            out_axes.append(axes)
            out_offsets.append(np.stack([radius * np.cos(angles), radius * np.sin(angles)], 1))
            out_lifts.append(np.full(orientations, lift))
    return Placements(np.concatenate(out_axes), np.concatenate(out_offsets),
                      np.concatenate(out_lifts))  # fmt: skip


# -- coming to rest ------------------------------------------------------------------------


@dataclass(frozen=True)
class Rests:
    """Where each placement came to rest, relative to the hollow's centre on the surface."""

    centres: Array
    """(n, 3) mm: the piece's centre."""
    axes: Array
    """(n, 3): the insert's axis (out of the piece)."""
    start_axes: Array
    turned: Array
    """(n,) degrees between the axis as put down and at rest (pivoting included)."""
    tilted: Array
    """(n,) degrees the axis came nearer to straight down (negative: further from it)."""
    rolls: Array
    """(n,) bool: static friction holds the roll down from where it was put (no slip)."""
    slip_torque: Array
    """(n,) the largest torque about the centre, at rest, over what sliding in place needs
    (μ·N·r at the low friction): < 1 means it cannot turn in place."""

    def insert_centres(self, body: Body) -> Array:
        return self.centres + body.insert_at * self.axes

    def __len__(self) -> int:
        return len(self.centres)


def _rotate(vectors: Array, axes: Array, angles: Array) -> Array:
    """Rodrigues: each vector (n, 3) turned by angle (n,) about unit axis (n, 3)."""
    c, s = np.cos(angles)[:, None], np.sin(angles)[:, None]
    cross = np.cross(axes, vectors)
    dot = np.sum(axes * vectors, axis=1, keepdims=True)
    return np.asarray(vectors * c + cross * s + axes * dot * (1 - c), dtype=np.float64)


def _energy(body: Body, centres: Array, axes: Array, field: Field) -> Array:
    """U in joules of each piece (n,) with its centre at ``centres`` and insert ``axes``."""
    weight = body.mass * _G * GRAVITY
    u = weight * (centres[:, 2] + body.offset * axes[:, 2]) * _MM
    if body.moment or body.iron:
        b = field.field(centres + body.insert_at * axes)
        if body.moment:
            u = u - body.moment * np.sum(axes * b, axis=1)
        if body.iron:
            u = u - 3 * body.iron * _MM**3 / (2 * MU0) * np.sum(b * b, axis=1)
    return np.asarray(u, dtype=np.float64)


def come_to_rest(
    body: Body,
    hollow: Hollow,
    start: Placements,
    field: Field | None = None,
    *,
    friction: float = WOOD_FRICTION[0],
    steps: int = 150,
) -> Rests:
    """Roll and pivot each placement downhill until nothing lowers its energy (see the
    module), in the hollow centred on the origin."""
    field = Dipoles.none() if field is None else field
    r = body.radius
    big = hollow_radius(hollow)
    rho = big - r
    centre_of_curvature = np.array([0.0, 0.0, -hollow.depth + big])
    n = len(start)
    # Where the centre starts: on the sphere of radius ρ, the given offset from the axis.
    offsets = start.offsets
    horizontal = np.linalg.norm(offsets, axis=1)
    sin_t = np.clip(horizontal / rho, 0.0, 0.999)
    normals = np.concatenate([offsets / rho, -np.sqrt(1 - sin_t**2)[:, None]], axis=1)
    axes = start.axes / np.linalg.norm(start.axes, axis=1, keepdims=True)
    lifts = np.stack([np.zeros(n), np.zeros(n), start.lifts], axis=1)
    # The roll down from where it was put: friction must hold it (k/(1+k)·tan ψ ≤ μ).
    slope = np.arcsin(sin_t)
    rolls = body.inertia / (1 + body.inertia) * np.tan(slope) <= friction
    weight = body.mass * _G * GRAVITY
    stiffness = weight / (rho * _MM)  # J per m² of the centre's path, near the bottom
    eps = 1e-4  # mm of roll (and r·angle of pivot) for the numerical gradient
    for _ in range(steps):
        centres = centre_of_curvature + rho * normals + lifts
        base = _energy(body, centres, axes, field)
        tangent1 = np.cross(normals, np.array([0.0, 1.0, 0.0]))
        small = np.linalg.norm(tangent1, axis=1) < 1e-9
        tangent1[small] = np.cross(normals[small], np.array([1.0, 0.0, 0.0]))
        tangent1 /= np.linalg.norm(tangent1, axis=1, keepdims=True)
        tangent2 = np.cross(normals, tangent1)
        moves = []
        grads = []
        for tangent in (tangent1, tangent2):
            spin = np.cross(tangent, normals)  # the roll's axis of turning
            new_n = normals + tangent * (eps / rho)
            new_n /= np.linalg.norm(new_n, axis=1, keepdims=True)
            new_axes = _rotate(axes, spin, np.full(n, eps / r))
            u = _energy(body, centre_of_curvature + rho * new_n + lifts, new_axes, field)
            grads.append((u - base) / (eps * _MM))
            moves.append(tangent)
        pivot_axes = _rotate(axes, normals, np.full(n, eps / r))
        pivot = (_energy(body, centres, pivot_axes, field) - base) / (eps * _MM)
        g1, g2 = grads
        step1, step2 = -g1 / stiffness / _MM, -g2 / stiffness / _MM  # mm of roll
        step_p = -pivot / stiffness / _MM
        size = np.sqrt(step1**2 + step2**2 + step_p**2)
        if float(size.max()) < 1e-5:  # mm: converged
            break
        scale = np.minimum(1.0, 0.2 / np.maximum(size, 1e-12))  # at most 0.2 mm a step
        step1, step2, step_p = step1 * scale, step2 * scale, step_p * scale
        for step, tangent in ((step1, moves[0]), (step2, moves[1])):
            spin = np.cross(tangent, normals)
            axes = _rotate(axes, spin, step / r)
            normals = normals + tangent * (step / rho)[:, None]
            normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        axes = _rotate(axes, normals, step_p / r)
        axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    centres = centre_of_curvature + rho * normals + lifts
    turned = np.degrees(np.arccos(np.clip(np.sum(axes * start.axes, axis=1), -1.0, 1.0)))
    tilted = _from_down(start.axes) - _from_down(axes)
    # At rest: the torque about the centre that gravity and the field put on the piece,
    # against what turning it in place would need (sliding at the contact).
    torque = np.linalg.norm(
        np.cross(body.offset * axes * _MM, np.array([0.0, 0.0, -weight])), axis=1
    )
    if body.moment:
        b = field.field(centres + body.insert_at * axes)
        torque = torque + np.linalg.norm(np.cross(body.moment * axes, b), axis=1)
    slip = torque / (friction * weight * r * _MM)
    return Rests(centres, axes, start.axes, turned, tilted, rolls, slip)


def _from_down(axes: Array) -> Array:
    return np.asarray(np.degrees(np.arccos(np.clip(-axes[:, 2], -1.0, 1.0))), dtype=np.float64)


# -- the sweep the tests and the guide use -------------------------------------------------


def neighbour_field(geometry: Geometry, body: Body, count: int) -> Dipoles:
    """The field a piece at c3 feels from its 8 neighbours' magnets (each resting at the
    bottom of its hollow in a quasi-random orientation, a different one per placement);
    ``count`` placements."""
    if not body.moment:
        return Dipoles.none()
    here = geometry.cells["c3"]
    others = [p for name, p in geometry.cells.items()
              if name != "c3" and here.distance(p) < 1.5 * geometry.pitch]  # fmt: skip
    axes = sphere_points(max(count, 1) * len(others))
    order = np.random.default_rng(29).permutation(len(axes))  # seeded: deterministic
    axes = axes[order].reshape(len(others), -1, 3)[:, :count]
    centre_z = -geometry.hollow.depth + body.radius
    positions = []
    moments = []
    for k, p in enumerate(others):
        spot = np.array([p.x - here.x, p.y - here.y, centre_z])
        positions.append(np.broadcast_to(spot, (count, 3)) + body.insert_at * axes[k])
        moments.append(body.moment * axes[k])
    return Dipoles(np.stack(positions, axis=1), np.stack(moments, axis=1))


def sweep(
    geometry: Geometry,
    insert: Insert,
    orientations: int,
    *,
    offsets: int = 3,
    lifts: int = 2,
    bias: Field | None = None,
) -> tuple[Body, Rests]:
    """Put the pearl with ``insert`` down ``orientations × offsets × lifts`` ways at c3
    amid full neighbours (and over ``bias`` magnets) and let it come to rest."""
    pearl = geometry.pearl
    body = body_of(pearl, insert)
    start = placements(pearl, geometry.hollow, orientations, offsets, lifts)
    field: Field = neighbour_field(geometry, body, len(start))
    if bias is not None:
        field = Fields((field, bias))
    return body, come_to_rest(body, geometry.hollow, start, field)


def magnet_down_share(rests: Rests, within: float) -> float:
    """The share of rests whose insert points within ``within`` degrees of straight down."""
    return float(np.mean(_from_down(rests.axes) <= within))


def main(argv: Sequence[str] | None = None) -> int:
    """Print how the pearls of the old build come to rest (``--fine``: at the fine sweep;
    ``python -m tools.sensing --fine`` writes every candidate's to
    hardware/rest-sweep.json)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--fine", action="store_true", help="the fine sweep; write its JSON")
    parser.add_argument("--geometry", type=Path, default=None)
    args = parser.parse_args(argv)
    geometry = load_geometry(args.geometry)
    count = 400 if args.fine else 24
    body, rests = sweep(geometry, geometry.own_magnet, count)
    print(
        f"{len(rests)} placements of a pearl with its {geometry.pearl.magnet.diameter:g} × "
        f"{geometry.pearl.magnet.height:g} mm magnet: centre of mass {body.offset:.3f} mm off "
        f"centre; its magnet came at most {rests.tilted.max():.1f}° nearer to straight down "
        f"on the way to rest (median {np.median(np.abs(rests.tilted)):.2f}°); "
        f"{magnet_down_share(rests, geometry.pearl.tilt):.1%} rest within "
        f"{geometry.pearl.tilt:g}° of magnet-down; rolls without slipping: "
        f"{np.mean(rests.rolls):.0%}; turning in place needs "
        f"{1 / max(float(rests.slip_torque.max()), 1e-12):.0f}× the torque there is"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
