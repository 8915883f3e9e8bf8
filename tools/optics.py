"""A reflective IR sensor under a hollow, as a model: what its phototransistor sees of the
pearl resting above it, of the hollow's own wood, and of the pearls in the cells around.

The model, stated so it can be argued with:

- **Emitter and detector** are two points on the sensor's face, a spacing s apart, both
  looking straight up; the emitter radiates as a Lambertian source (intensity ∝ cos θ),
  the detector collects ∝ cos θ. The spacing is not the package's: it is fitted so that a
  flat card has its peak at the data sheet's peak distance (a Lambertian pair's peak lies
  at 0.59·s), which stands in for the housing's apertures. The data sheet's other figure,
  the distance where the current falls to a fraction of its peak, is then a check
  (tests/hardware/physics/).
- **Surfaces** reflect diffusely (Lambertian) with their reflectance at 950 nm; one
  bounce. The window's wall (a cylinder from the sensor's face up to the hollow) reflects
  ``Scene.wall``: :data:`WALL_TOLERANCE` for a wall blackened with carbon black as the
  guide asks, never taken as 0; it adds to the empty cell's reading, the same with a
  piece on the cell or not. The board's surface outside the hollow is hidden from the
  sensor by the wood around the hollow.
- **Scale.** Every scene is traced with the same quasi-random rays and divided by the
  same trace of the data sheet's test (a flat card of ``test_reflectance`` at
  ``test_distance``), times the data sheet's least collector current there: the sensor
  is the weakest one the data sheet allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from numpy.typing import NDArray

from hardware.physical import Hollow, Reflective

__all__ = ["WALL_TOLERANCE", "Scene", "card_curve", "collector_current", "peak_ratio", "spacing"]

WALL_TOLERANCE = 0.3
"""The window wall's reflectance at 950 nm the model allows (a matt carbon-black paint
reflects about 0.05; a marker's dye, transparent in the near infrared, leaves the wood's
0.3–0.8): the firmware's ``BASELINE_MAX`` must hold an empty cell with it."""

Array = NDArray[np.float64]


@cache
def peak_ratio() -> float:
    """Where a Lambertian emitter–detector pair 1 mm apart sees a flat card brightest (mm)."""
    low, high = 0.2, 1.2
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(22):  # golden-section search for the maximum, to 3e-5 mm
        a, b = high - golden * (high - low), low + golden * (high - low)
        if _card_quadrature(a, 1.0) > _card_quadrature(b, 1.0):
            high = b
        else:
            low = a
    return round((low + high) / 2, 4)


def _card_quadrature(distance: float, spacing: float) -> float:
    reach = 10 * max(distance, spacing)
    grid = np.linspace(-reach, reach, 241)
    x, y = np.meshgrid(grid, grid)
    re2 = (x + spacing / 2) ** 2 + y**2 + distance**2
    rd2 = (x - spacing / 2) ** 2 + y**2 + distance**2
    values = distance**4 / (re2**2 * rd2**2)  # cos·cos at the card, cos at each end
    return float(values.sum() * (grid[1] - grid[0]) ** 2)


def spacing(sensor: Reflective) -> float:
    """The model's emitter–detector spacing for ``sensor`` (mm)."""
    return sensor.peak_distance / peak_ratio()


def card_curve(sensor: Reflective, distances: list[float]) -> list[float]:
    """The model's current from a flat card at each distance, over its peak's."""
    s = spacing(sensor)
    peak = _card_quadrature(sensor.peak_distance, s)
    return [_card_quadrature(d, s) / peak for d in distances]


@dataclass(frozen=True)
class Scene:
    """What lies above one sensor: its hollow and the pieces (centres (k, 3) mm, radii,
    reflectances), in the frame of the hollow's centre on the surface."""

    sensor: Reflective
    hollow: Hollow
    wood: float
    """The hollow's reflectance."""
    centres: Array = field(default_factory=lambda: np.zeros((0, 3)))
    radii: Array = field(default_factory=lambda: np.zeros(0))
    reflectances: Array = field(default_factory=lambda: np.zeros(0))
    wall: float = WALL_TOLERANCE
    """The window wall's reflectance."""

    def with_pieces(self, centres: Array, radius: float, reflectance: float) -> Scene:
        k = len(centres)
        return Scene(
            self.sensor,
            self.hollow,
            self.wood,
            np.concatenate([self.centres, centres]),
            np.concatenate([self.radii, np.full(k, radius)]),
            np.concatenate([self.reflectances, np.full(k, reflectance)]),
            self.wall,
        )


def _rays(count: int) -> Array:
    """Cosine-weighted directions over the upper hemisphere (a golden-angle disk lifted
    onto the hemisphere: Malley's method), deterministic."""
    i = np.arange(count) + 0.5
    radius = np.sqrt(i / count)
    angle = math.pi * (3 - math.sqrt(5)) * i
    x, y = radius * np.cos(angle), radius * np.sin(angle)
    return np.stack([x, y, np.sqrt(np.maximum(0.0, 1 - x**2 - y**2))], axis=1)


def _sphere_hits(origins: Array, directions: Array, centres: Array, radii: Array) -> Array:
    """(n, k) distance along each ray to its first entry into each sphere (inf: none)."""
    rel = origins[:, None, :] - centres[None, :, :]
    b = np.einsum("nj,nkj->nk", directions, rel)
    c = np.sum(rel * rel, axis=2) - radii[None, :] ** 2
    disc = b * b - c
    root = np.sqrt(np.maximum(disc, 0.0))
    t = -b - root
    return np.where((disc > 0) & (t > 1e-9), t, np.inf)


def _segment_blocked(
    starts: Array, ends: Array, centres: Array, radii: Array, skip: Array
) -> Array:
    """(n,) whether the segment from each start to its end passes through any sphere but
    ``skip`` (its index, −1 for none)."""
    if len(centres) == 0:
        return np.zeros(len(starts), dtype=bool)
    d = ends - starts
    length = np.linalg.norm(d, axis=1, keepdims=True)
    u = d / length
    t = _sphere_hits(starts, u, centres, radii)
    t[np.arange(len(starts)), np.maximum(skip, 0)] = np.where(
        skip >= 0, np.inf, t[np.arange(len(starts)), np.maximum(skip, 0)]
    )
    return np.asarray((t < length - 1e-9).any(axis=1), dtype=bool)


def _trace(scene: Scene, count: int, card: tuple[float, float] | None = None) -> float:
    """The detector's share of the emitter's power in ``scene`` (or, with ``card`` =
    (distance, reflectance), from a flat card above a bare sensor)."""
    sensor = scene.sensor
    assert sensor.elements
    s = spacing(sensor)
    face = -sensor.elements[0].depth
    emitter = np.array([-s / 2, 0.0, face])
    detector = np.array([s / 2, 0.0, face])
    directions = _rays(count)
    n = len(directions)
    origins = np.broadcast_to(emitter, (n, 3))
    if card is not None:
        distance, card_reflectance = card
        t = distance / directions[:, 2]
        hits = origins + t[:, None] * directions
        v = detector - hits
        r2 = np.sum(v * v, axis=1)
        cosine = np.clip(-v[:, 2] / np.sqrt(r2), 0, None)  # the card's normal points down
        return float(np.sum(card_reflectance / math.pi * cosine * cosine / r2) / n)
    hollow = scene.hollow
    big = (hollow.diameter**2 / 4 + hollow.depth**2) / (2 * hollow.depth)
    cap_centre = np.array([0.0, 0.0, -hollow.depth + big])
    window = sensor.window_diameter / 2
    window_top = -hollow.depth + big - math.sqrt(big**2 - window**2)
    # The hollow's wood: the ray leaves its ball (it starts inside, under the window).
    rel = origins - cap_centre
    b = np.sum(directions * rel, axis=1)
    c = np.sum(rel * rel, axis=1) - big**2
    t_cap = -b + np.sqrt(np.maximum(b * b - c, 0.0))
    cap_hit = origins + t_cap[:, None] * directions
    t_cap = np.where(cap_hit[:, 2] <= 0.0, t_cap, np.inf)
    t_spheres = _sphere_hits(origins, directions, scene.centres, scene.radii)
    first_sphere = np.argmin(t_spheres, axis=1) if len(scene.radii) else np.zeros(n, int)
    t_sphere = t_spheres[np.arange(n), first_sphere] if len(scene.radii) else np.full(n, np.inf)
    t = np.minimum(t_cap, t_sphere)
    on_sphere = t_sphere < t_cap
    hits = origins + np.where(np.isfinite(t), t, 0.0)[:, None] * directions
    # Inside the window the ray must not reach its wall: at the window's top, or where it
    # hits first if that is lower, it must still be inside its radius.
    t_top = (window_top - face) / directions[:, 2]
    check = np.where(t < t_top, t, t_top)
    at = origins + check[:, None] * directions
    through = np.hypot(at[:, 0], at[:, 1]) <= window
    lit = np.isfinite(t) & through
    # Back to the detector.
    v = detector - hits
    r2 = np.sum(v * v, axis=1)
    r = np.sqrt(r2)
    normals = np.where(
        on_sphere[:, None],
        hits - scene.centres[first_sphere] if len(scene.radii) else hits,
        cap_centre - hits,
    )
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    cos_o = np.sum(normals * v, axis=1) / r
    cos_d = -v[:, 2] / r
    # The way back: inside the window's radius at its top (or at the hit, if lower), out of
    # the hollow through its opening, and past every other piece.
    back_top = np.clip((window_top - hits[:, 2]) / np.where(v[:, 2] == 0, -1e-12, v[:, 2]), 0, 1)
    at = hits + back_top[:, None] * v
    seen = np.hypot(at[:, 0], at[:, 1]) <= window + 1e-9
    above = hits[:, 2] > 0
    cross = np.clip(-hits[:, 2] / np.where(v[:, 2] == 0, -1e-12, v[:, 2]), 0, 1)
    at_surface = hits + cross[:, None] * v
    seen &= ~above | (np.hypot(at_surface[:, 0], at_surface[:, 1]) <= hollow.diameter / 2)
    skip = np.where(on_sphere, first_sphere, -1)
    blocked = _segment_blocked(
        hits, np.broadcast_to(detector, hits.shape), scene.centres, scene.radii, skip
    )
    seen &= np.logical_not(blocked)
    pieces = scene.reflectances[first_sphere] if len(scene.radii) else np.zeros(n)
    reflectance = np.where(on_sphere, pieces, scene.wood)
    power = reflectance / math.pi * np.clip(cos_o, 0, None) * np.clip(cos_d, 0, None) / r2
    return float(np.sum(np.where(lit & seen, power, 0.0)) / n) + _wall(
        scene.wall, origins, directions, detector, window, window_top
    )


def _wall(
    wall: float, origins: Array, directions: Array, detector: Array, window: float, top: float
) -> float:
    """The window wall's share: each ray that meets the cylinder of the window's radius
    below the window's top, back to the detector (inside the cylinder: nothing blocks
    it), one diffuse bounce."""
    if wall == 0.0:
        return 0.0
    ox, oy, dx, dy = origins[:, 0], origins[:, 1], directions[:, 0], directions[:, 1]
    a = dx * dx + dy * dy
    b = 2 * (ox * dx + oy * dy)
    c = ox * ox + oy * oy - window * window  # < 0: the emitter is inside the cylinder
    t = (-b + np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))) / np.where(a == 0, 1e-12, 2 * a)
    hits = origins + t[:, None] * directions
    on_wall = (a > 0) & (hits[:, 2] <= top)
    v = detector - hits
    r2 = np.sum(v * v, axis=1)
    r = np.sqrt(r2)
    inward = -hits[:, :2] / window
    cos_o = np.sum(inward * v[:, :2], axis=1) / r
    cos_d = -v[:, 2] / r
    power = wall / math.pi * np.clip(cos_o, 0, None) * np.clip(cos_d, 0, None) / r2
    return float(np.sum(np.where(on_wall, power, 0.0)) / len(directions))


def collector_current(scene: Scene, rays: int) -> float:
    """µA the weakest sensor the data sheet allows gives in ``scene`` (the reflection only:
    the data sheet's cross talk and dark current are added by the caller)."""
    sensor = scene.sensor
    test = _trace(scene, rays, card=(sensor.test_distance, sensor.test_reflectance))
    return sensor.collector_min * _trace(scene, rays) / test
