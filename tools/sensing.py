"""Each way of sensing a cell (``[candidates]`` in hardware/geometry.toml), judged at the
rests of :mod:`tools.rest`: the weakest own pearl amid full neighbours against the
sensor's worst-case operate point, and an empty cell amid eight full neighbours against
its worst-case release point, both with the 2× margin; then its cost, its assembly time
and what it asks of the family's pearls. hardware/README.md ("Sensing the cells") prints
the table this makes.

How each kind is read (the physics of each is in the module named):

- **reed**, **hall switch**: the field of the magnet in the pearl, from magpylib
  (:mod:`tools.magnets`), along each element; elements in parallel close when any closes.
- **linear hall**: the firmware compares the reading with the cell's empty baseline. One
  axis: the field along the element; three axes: the field's size. A steel ball at the
  pearl's centre over a back-biasing magnet: the ball is a soft-iron sphere in the bias
  field at its centre, so it adds a point dipole 3V·B/μ0 (an ideal soft-iron sphere in a
  uniform field); its field at the hall is the signal. The worst-case operate point is the
  threshold plus the reading error plus the bias field's drift (``BIAS_DRIFT``).
- **reflective IR**: :mod:`tools.optics`.

Worst cases: the own pearl's weakest rest, less the neighbours' strongest drives all
adding against it (``own``); the neighbours' strongest drives all adding up
(``neighbours``): each neighbour in its worst rest, with the polarity that hurts most.
Both are bounds a real board stays inside. A candidate that fails is also checked with
the kindest figures (the own pearl alone, the neighbours in the sampled joint poses
only): ``fails_kindly`` says it fails even so.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hardware.geometry import DEFAULT_PATH, Candidate, Geometry, load_geometry
from hardware.physical import Hall, Linear, Point, Reed, Reflective, Sensor
from tools import magnets, optics, rest

__all__ = [
    "BIAS_DRIFT",
    "COARSE",
    "FINE",
    "FINE_SWEEP",
    "MARGIN",
    "Judgement",
    "Sweep",
    "geometry_hash",
    "judge",
    "judge_all",
    "write_fine_sweep",
]

Array = NDArray[np.float64]
MARGIN = 2.0
BIAS_DRIFT = 0.012
"""The bias magnet's field changes by this share over 10 °C: NdFeB's −0.12 %/°C, the
figure TI's DRV5055 data sheet (SBAS640B, "Sensitivity Temperature Compensation for
Magnets") compensates only typically."""
FINE_SWEEP = DEFAULT_PATH.parent / "rest-sweep.json"
PLACEMENT = 0.2
"""mm a hall may sit off where the drawing puts it over its bias magnet (glued by hand):
the bias it then reads drifts too, and must fit its range."""


@dataclass(frozen=True)
class Sweep:
    """How finely the rests and the IR rays are sampled."""

    orientations: int
    offsets: int
    lifts: int
    rays: int


COARSE = Sweep(orientations=48, offsets=2, lifts=2, rays=4096)
"""`make test`: a few seconds for every candidate."""
FINE = Sweep(orientations=400, offsets=4, lifts=3, rays=32768)
"""`python -m tools.sensing --fine`: minutes; its figures go in hardware/rest-sweep.json."""


@dataclass(frozen=True)
class Judgement:
    """One candidate at the rests."""

    name: str
    unit: str
    own: float
    """The weakest own pearl's drive, less the neighbours' strongest against it."""
    own_alone: float
    """The weakest own pearl's drive with no neighbours."""
    neighbours: float
    """The strongest drive of eight full neighbours on the empty cell (a bound)."""
    neighbours_sampled: float
    """The strongest found among the sampled joint poses (at most ``neighbours``)."""
    operate: float
    """The sensor's worst-case operate point."""
    release: float
    """… and its worst-case release point."""
    rests: int
    seen: float
    """The share of rests whose own pearl alone reaches the operate point."""
    error: float | None = None
    """A linear or reflective sensor (its thresholds are the firmware's): the worst-case
    reading error, in the operate and release points."""

    @property
    def own_margin(self) -> float:
        return self.own / self.operate

    @property
    def neighbour_margin(self) -> float:
        if self.release <= 0:
            return 0.0  # the reading error leaves no release point at all
        return self.release / self.neighbours if self.neighbours > 0 else math.inf

    @property
    def passes(self) -> bool:
        return self.own_margin >= MARGIN and self.neighbour_margin >= MARGIN

    @property
    def best_margin(self) -> float:
        """For a sensor whose thresholds the firmware chooses (linear, reflective): the
        largest margin M any thresholds could give both ways, own/(on + e) ≥ M and
        (off − e)/neighbours ≥ M with off ≤ on (e: the reading error)."""
        error = self.error or 0.0
        own, near = max(self.own, 0.0), self.neighbours
        if near <= 0:
            return math.inf if own > 0 else 0.0
        return (-2 * error + math.sqrt(4 * error**2 + 4 * near * own)) / (2 * near)

    @property
    def fails_kindly(self) -> bool:
        """Fails even with the own pearl alone and the sampled neighbours only."""
        kind_own = self.own_alone / self.operate
        kind_near = self.release / self.neighbours_sampled if self.neighbours_sampled else math.inf
        return kind_own < MARGIN or kind_near < MARGIN

    def describe(self) -> str:
        near = "∞" if math.isinf(self.neighbour_margin) else f"×{self.neighbour_margin:.2f}"
        release = (
            f"release point {self.release:.3g} is {near} that"
            if self.release > 0
            else "its reading error leaves no release point"
        )
        return (
            f"{self.name}: own pearl ≥ {self.own:.3g} {self.unit} (×{self.own_margin:.2f} the "
            f"operate point {self.operate:.3g}), 8 neighbours ≤ {self.neighbours:.3g} "
            f"{self.unit} ({release}); {self.seen:.1%} of {self.rests} rests seen"
        )


def _neighbour_offsets(geometry: Geometry) -> list[Point]:
    here = geometry.cells["c3"]
    return [p - here for n, p in geometry.cells.items()
            if n != "c3" and here.distance(p) < 1.5 * geometry.pitch]  # fmt: skip


def _bias_field(
    geometry: Geometry, sensor: Linear, points: Array, spots: list[Point] | None = None
) -> Array:
    """B in tesla (n, 3) at ``points`` (n, 3) mm of the bias magnets under the cells at
    ``spots`` (default: the 9 cells around c3), magpylib's field of each at its largest
    remanence."""
    magnet = sensor.bias_magnet
    assert magnet is not None
    z = -(sensor.elements[0].depth + sensor.bias_gap + magnet.height / 2)
    if spots is None:
        spots = [Point(0.0, 0.0), *_neighbour_offsets(geometry)]
    poses = magnets.Poses(
        np.array([[p.x, p.y, z] for p in spots]), np.tile([0.0, 0.0, 1.0], (len(spots), 1))
    )
    b = magnets.magnet_field(magnet, poses, points, magnet.remanence[1])  # (9, n, 3) mT
    return np.asarray(b.sum(axis=0) * 1e-3, dtype=np.float64)


def _bias_at_hall(geometry: Geometry, sensor: Linear) -> float:
    """mT the hall reads of the bias at worst: at c3 (8 neighbours' magnets) or a corner
    cell (3), and a hall ``PLACEMENT`` off its place."""
    element = np.array([[0.0, 0.0, -sensor.elements[0].depth]])
    pitch = geometry.pitch
    corner = [Point(0.0, 0.0), Point(pitch, 0.0), Point(0.0, pitch), Point(pitch, pitch)]
    worst = 0.0
    for spots in (None, corner):
        here = _bias_field(geometry, sensor, element, spots)[0] * 1e3
        for step in ((0.0, 0.0, 0.0), (0.0, 0.0, PLACEMENT), (0.0, 0.0, -PLACEMENT),
                     (PLACEMENT, 0.0, 0.0)):  # fmt: skip
            moved = _bias_field(geometry, sensor, element + np.array(step), spots)[0] * 1e3
            worst = max(worst, float(np.abs(moved).max()), float(np.abs(here).max()))
    return worst


@dataclass(frozen=True)
class BiasField:
    """The bias magnets under the 9 cells around c3, as the rest model's field."""

    geometry: Geometry
    sensor: Linear

    def field(self, points: Array) -> Array:
        return _bias_field(self.geometry, self.sensor, points)


def _magnet_drives(
    geometry: Geometry, sensor: Sensor, body: rest.Body, rests: rest.Rests, insert_magnet: object
) -> tuple[Array, Array]:
    """(own (n, e) signed, neighbours (8, e) worst |drive| each) for a magnet insert."""
    magnet = insert_magnet
    assert isinstance(magnet, type(geometry.pearl.magnet))
    low, high = magnet.remanence
    centres = rests.insert_centres(body)
    poses = magnets.Poses(centres, rests.axes)
    origin = Point(0.0, 0.0)
    if sensor.kind == "linear" and sensor.axes == 3:
        point = np.array([[0.0, 0.0, -sensor.elements[0].depth]])
        own_b = magnets.magnet_field(magnet, poses, point, low)[:, 0, :]
        near = []
        for offset in _neighbour_offsets(geometry):
            shifted = magnets.Poses(centres + np.array([offset.x, offset.y, 0.0]), rests.axes)
            b = magnets.magnet_field(magnet, shifted, point, high)[:, 0, :]
            near.append(b)
        return own_b, np.stack(near)  # vectors: (n, 3) and (8, n, 3)
    own = magnets.drives(sensor, origin, magnet, poses, low)
    near = []
    for offset in _neighbour_offsets(geometry):
        shifted = magnets.Poses(centres + np.array([offset.x, offset.y, 0.0]), rests.axes)
        near.append(magnets.drives(sensor, origin, magnet, shifted, high))
    return own, np.stack(near)  # (n, e) and (8, n, e)


def _thresholds(
    sensor: Sensor, bias_at_element: float = 0.0
) -> tuple[float, float, str, float | None]:
    """(worst-case operate point, worst-case release point, unit, reading error)."""
    if isinstance(sensor, Reed | Hall):
        operate, release, unit = magnets.thresholds(sensor)
        return operate, release, unit, None
    assert isinstance(sensor, Linear | Reflective)
    error = sensor.error + BIAS_DRIFT * abs(bias_at_element)
    unit = "mT" if sensor.kind == "linear" else "µA"
    return sensor.threshold_on + error, sensor.threshold_off - error, unit, error


def _combine(own: Array, near: Array, rng_rows: int) -> tuple[float, float, float, float]:
    """(own less neighbours, own alone, neighbours bound, neighbours sampled) for signed
    per-element drives: own (n, e), near (8, n, e)."""
    worst_each = np.abs(near).max(axis=1)  # (8, e)
    bound = worst_each.sum(axis=0)  # (e,)
    own_abs = np.abs(own)
    own_less = (own_abs - bound[None, :]).max(axis=1).min()
    own_alone = own_abs.max(axis=1).min()
    # Sampled joint poses: neighbour k in rest (j·(k+1)·7) mod n, its drives adding.
    n = near.shape[1]
    index = (np.arange(rng_rows)[:, None] * (np.arange(near.shape[0])[None, :] + 1) * 7) % n
    joint = np.abs(np.sum(near[np.arange(near.shape[0])[None, :], index], axis=1))
    return float(own_less), float(own_alone), float(bound.max()), float(joint.max())


def _combine_vectors(own: Array, near: Array, rows: int) -> tuple[float, float, float, float]:
    """The same for a 3-axis sensor reading |B|: own (n, 3), near (8, n, 3)."""
    bound = float(np.linalg.norm(near, axis=2).max(axis=1).sum())
    size = np.linalg.norm(own, axis=1)
    n = near.shape[1]
    index = (np.arange(rows)[:, None] * (np.arange(near.shape[0])[None, :] + 1) * 7) % n
    joint = np.linalg.norm(np.sum(near[np.arange(near.shape[0])[None, :], index], axis=1), axis=1)
    return float(size.min() - bound), float(size.min()), bound, float(joint.max())


RestCache = dict[tuple[str, str, Sweep], tuple[rest.Body, rest.Rests]]


def judge(
    geometry: Geometry, candidate: Candidate, sweep: Sweep = COARSE, cache: RestCache | None = None
) -> Judgement:
    """``candidate`` at the rests of a ``sweep`` (``cache`` shares the rests of candidates
    with the same insert and bias)."""
    sensor = candidate.cell_sensor
    insert = candidate.pearl_insert
    biased = isinstance(sensor, Linear) and sensor.bias_magnet is not None
    bias = BiasField(geometry, sensor) if isinstance(sensor, Linear) and biased else None
    key = (insert.name, bias.sensor.bias_magnet.name if bias and bias.sensor.bias_magnet else "",
           sweep)  # fmt: skip
    if cache is None or key not in cache:
        found = rest.sweep(geometry, insert, sweep.orientations, offsets=sweep.offsets,
                           lifts=sweep.lifts, bias=bias)  # fmt: skip
        if cache is not None:
            cache[key] = found
    body, rests = found if cache is None else cache[key]
    if sensor.kind == "reflective":
        return _judge_reflective(geometry, candidate, rests, sweep)
    if insert.kind == "steel":
        return _judge_steel(geometry, candidate, body, rests)
    if insert.magnet is None:
        raise ValueError(f"candidates.{candidate.name}: a {sensor.kind} sensor needs a magnet")
    own, near = _magnet_drives(geometry, sensor, body, rests, insert.magnet)
    operate, release, unit, error = _thresholds(sensor)
    if own.ndim == 2 and near.ndim == 3 and sensor.kind == "linear" and sensor.axes == 3:
        own_less, alone, bound, sampled = _combine_vectors(own, near, len(rests))
        seen = float(np.mean(np.linalg.norm(own, axis=1) >= operate))
    else:
        own_less, alone, bound, sampled = _combine(own, near, len(rests))
        seen = float(np.mean(np.abs(own).max(axis=1) >= operate))
    return Judgement(candidate.name, unit, own_less, alone, bound, sampled, operate, release,
                     len(rests), seen, error)  # fmt: skip


def _judge_steel(
    geometry: Geometry, candidate: Candidate, body: rest.Body, rests: rest.Rests
) -> Judgement:
    """A soft-iron ball at the pearl's centre over back-biased linear halls (one axis)."""
    sensor = candidate.cell_sensor
    assert isinstance(sensor, Linear) and sensor.bias_magnet is not None
    assert candidate.pearl_insert.kind == "steel"
    element = np.array([[0.0, 0.0, -sensor.elements[0].depth]])
    bias_here = _bias_at_hall(geometry, sensor)  # mT the hall must read past, at worst
    volume = candidate.pearl_insert.volume * 1e-9

    def signal(centres: Array) -> Array:
        """mT along z at the hall from balls at ``centres`` (n, 3) mm."""
        b0 = _bias_field(geometry, sensor, centres)  # T at the balls
        moments = 3 * volume * b0 / rest.MU0
        rel = (element[0] - centres) * 1e-3
        dist = np.linalg.norm(rel, axis=1, keepdims=True)
        unit = rel / dist
        dot = np.sum(moments * unit, axis=1, keepdims=True)
        b = rest.MU0 / (4 * math.pi) * (3 * dot * unit - moments) / dist**3
        return np.asarray(b[:, 2] * 1e3, dtype=np.float64)

    centres = rests.centres  # the ball is at the pearl's centre
    own = signal(centres)[:, None]
    if bias_here + float(np.abs(own).max()) > sensor.full_scale:
        own = np.zeros_like(own)  # the hall saturates: it reads nothing
    near = np.stack([
        signal(centres + np.array([o.x, o.y, 0.0]))[:, None] for o in _neighbour_offsets(geometry)
    ])  # fmt: skip
    operate, release, unit, error = _thresholds(sensor, bias_here)
    own_less, alone, bound, sampled = _combine(own, near, len(rests))
    seen = float(np.mean(own[:, 0] >= operate))
    return Judgement(candidate.name, unit, own_less, alone, bound, sampled, operate, release,
                     len(rests), seen, error)  # fmt: skip


def _judge_reflective(
    geometry: Geometry, candidate: Candidate, rests: rest.Rests, sweep: Sweep
) -> Judgement:
    sensor = candidate.cell_sensor
    assert isinstance(sensor, Reflective)
    r = geometry.pearl.diameter / 2
    darkest, brightest = geometry.pearl.reflectance
    operate, release, unit, error = _thresholds(sensor)
    # The rests differ only in where the centre is (the pearl is untouched): the farthest
    # from the sensor, highest first, are the weakest.
    order = np.argsort(-rests.centres[:, 2] - 0.01 * np.hypot(*rests.centres[:, :2].T))
    picked = rests.centres[order[: max(4, len(order) // 50)]]
    spots = np.array([[o.x, o.y, -geometry.hollow.depth + r] for o in _neighbour_offsets(geometry)])
    own_values = []
    near = 0.0
    for wood in geometry.hollow.reflectance:
        scene = optics.Scene(sensor, geometry.hollow, wood)
        empty = optics.collector_current(scene, sweep.rays)
        full_neighbours = scene.with_pieces(spots, r, brightest)
        # The empty cell amid full neighbours, over its empty baseline; the dark current
        # may drift up to its maximum since the baseline was taken.
        near = max(near, optics.collector_current(full_neighbours, sweep.rays) - empty)
        for centre in picked:
            with_own = scene.with_pieces(centre[None, :], r, darkest)
            own_values.append(optics.collector_current(with_own, sweep.rays) - empty)
    alone = min(own_values)
    neighbours = near + sensor.dark_max
    return Judgement(candidate.name, unit, alone, alone, neighbours, neighbours, operate,
                     release, len(rests), 1.0 if alone >= operate else 0.0, error)  # fmt: skip


def judge_targets(geometry: Geometry, sweep: Sweep = COARSE) -> Judgement:
    """The pico build's sensor under a Pyramidos target: its own ball (the darkest finish,
    up to ``[ball] rise`` high) amid the other three balls and the top ball on them (the
    brightest), as for a cell."""
    sensor = geometry.sensor("pico", "target")
    if sensor.kind != "reflective":
        raise ValueError("builds.pico.target_sensor: not a reflective sensor")
    ball = geometry.ball
    r = ball.diameter / 2
    darkest, brightest = ball.reflectance
    here = geometry.targets["t1"]
    top = magnets.top_ball_centre(geometry)
    others = [[p.x - here.x, p.y - here.y, -geometry.hollow.depth + r]
              for name, p in geometry.targets.items() if name != "t1"]  # fmt: skip
    others.append([top[0] - here.x, top[1] - here.y, float(top[2])])
    operate, release, unit, error = _thresholds(sensor)
    own, near = math.inf, 0.0
    for wood in geometry.hollow.reflectance:
        scene = optics.Scene(sensor, geometry.hollow, wood)
        empty = optics.collector_current(scene, sweep.rays)
        full = scene.with_pieces(np.array(others), r, brightest)
        near = max(near, optics.collector_current(full, sweep.rays) - empty)
        for lift in (0.0, ball.rise):
            centre = np.array([[0.0, 0.0, -geometry.hollow.depth + r + lift]])
            with_own = scene.with_pieces(centre, r, darkest)
            own = min(own, optics.collector_current(with_own, sweep.rays) - empty)
    near += sensor.dark_max
    return Judgement("targets", unit, own, own, near, near, operate, release, 2,
                     1.0 if own >= operate else 0.0, error)  # fmt: skip


def judge_all(geometry: Geometry, sweep: Sweep = COARSE) -> dict[str, Judgement]:
    cache: RestCache = {}
    return {name: judge(geometry, c, sweep, cache) for name, c in geometry.candidates.items()}


# -- the fine sweep, committed -------------------------------------------------------------


HASHED = ("hollow", "magnets", "pearl", "cells", "board", "sensors", "inserts", "candidates")
"""The geometry file's tables the sweep depends on (the LEDs, buttons and seats do not)."""

SAMPLES = 6
"""Placements of the fine sweep kept with their rests, for the test to put down again."""


def geometry_hash(path: Path = DEFAULT_PATH) -> str:
    """sha256 of the tables of the geometry file the sweep depends on (``HASHED``)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    picked = {key: data[key] for key in HASHED}
    return hashlib.sha256(json.dumps(picked, sort_keys=True).encode()).hexdigest()


def samples(geometry: Geometry, sweep: Sweep = FINE) -> list[dict[str, list[float]]]:
    """A few of the sweep's placements of today's magnet pearl and where they rest."""
    body = rest.body_of(geometry.pearl, geometry.own_magnet)
    start = rest.placements(geometry.pearl, geometry.hollow, sweep.orientations, sweep.offsets,
                            sweep.lifts)  # fmt: skip
    field = rest.neighbour_field(geometry, body, len(start))
    picked = np.linspace(0, len(start) - 1, SAMPLES).astype(int)
    few = rest.Placements(start.axes[picked], start.offsets[picked], start.lifts[picked])
    local = rest.Dipoles(field.positions[picked], field.moments[picked])
    rests = rest.come_to_rest(body, geometry.hollow, few, local)
    return [
        {"index": [float(i)], "axis": list(map(float, few.axes[k])),
         "offset": list(map(float, few.offsets[k])), "lift": [float(few.lifts[k])],
         "rest_centre": list(map(float, rests.centres[k])),
         "rest_axis": list(map(float, rests.axes[k]))}
        for k, i in enumerate(picked)
    ]  # fmt: skip


def rest_summary(geometry: Geometry, sweep: Sweep = FINE) -> dict[str, float]:
    """How today's magnet pearls come to rest, in figures the guide prints."""
    body, rests = rest.sweep(geometry, geometry.own_magnet, sweep.orientations,
                             offsets=sweep.offsets, lifts=sweep.lifts)  # fmt: skip
    return {
        "placements": float(len(rests)),
        "offset_mm": body.offset,
        "magnet_down_share": rest.magnet_down_share(rests, geometry.pearl.tilt),
        "tilt_assumed_deg": geometry.pearl.tilt,
        "nearer_down_max_deg": float(rests.tilted.max()),
        "nearer_down_median_deg": float(np.median(np.abs(rests.tilted))),
        "rolls_share": float(np.mean(rests.rolls)),
        "slip_torque_max": float(rests.slip_torque.max()),
        "friction": rest.WOOD_FRICTION[0],
    }


def write_fine_sweep(geometry: Geometry, path: Path = FINE_SWEEP) -> Path:
    judgements = judge_all(geometry, FINE)
    data = {
        "geometry_sha256": geometry_hash(),
        "hashed_tables": list(HASHED),
        "sweep": asdict(FINE),
        "samples": samples(geometry),
        "rest": rest_summary(geometry),
        "targets": asdict(judge_targets(geometry, FINE)),
        "candidates": {
            name: {
                **asdict(j),
                "own_margin": j.own_margin,
                "neighbour_margin": None if math.isinf(j.neighbour_margin) else j.neighbour_margin,
                "passes": j.passes,
            }
            for name, j in judgements.items()
        },
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def table(judgements: dict[str, Judgement], geometry: Geometry) -> list[list[str]]:
    """The guide's comparison: one row per candidate."""
    pearls = 75
    rows = []
    for name, j in judgements.items():
        c = geometry.candidates[name]
        if j.release <= 0:
            near = f"{j.neighbours:.3g} {j.unit}: the drift leaves no release point"
        else:
            times = "∞" if math.isinf(j.neighbour_margin) else f"×{j.neighbour_margin:.2f}"
            near = f"{j.neighbours:.3g} {j.unit} ({times} under {j.release:.3g})"
        if j.own > 0:
            own = (
                f"{j.own_alone:.3g} {j.unit} alone, {j.own:.3g} amid them "
                f"(×{j.own_margin:.2f} of {j.operate:.3g})"
            )
        else:
            own = f"{j.own_alone:.3g} {j.unit} alone, and the neighbours can cancel it (×0)"
        if j.error is not None and not j.passes:
            own += f"; no thresholds give more than ×{j.best_margin:.2f} both ways"
        work = c.pearl_work
        if c.pearl_minutes:
            work += f" ({c.pearl_minutes * pearls / 60:.1f} h for all {pearls})"
        rows.append([
            c.title, own, near, f"{j.seen:.0%}", f"about €{c.parts_cost:.0f}",
            f"{c.assembly_minutes:.0f} min", work, "**passes**" if j.passes else "fails",
        ])  # fmt: skip
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Print every candidate's margins at the rests; exit 1 if the chosen build (the pico
    build's cell sensor and insert) fails (``.venv/bin/python -m tools.sensing``);
    ``--fine``: at the fine sweep, whose figures it writes to hardware/rest-sweep.json."""
    parser = argparse.ArgumentParser(description="Each candidate's margins at the rests.")
    parser.add_argument("--fine", action="store_true", help="the fine sweep; write its JSON")
    args = parser.parse_args(argv)
    geometry = load_geometry()
    judgements = judge_all(geometry, FINE if args.fine else COARSE)
    for j in judgements.values():
        print(("  " if j.passes else "! ") + j.describe())
    chosen = chosen_candidate(geometry)
    print(f"chosen: {chosen} (the pico build)")
    if args.fine:
        path = write_fine_sweep(geometry)
        print(f"wrote {path.relative_to(DEFAULT_PATH.parents[1])}")
    return 0 if judgements[chosen].passes else 1


def chosen_candidate(geometry: Geometry) -> str:
    """The candidate whose sensor and insert the pico build names."""
    build = geometry.build("pico")
    for name, c in geometry.candidates.items():
        if c.cell_sensor == build.cell_sensor and c.pearl_insert == geometry.pearl_insert("pico"):
            return name
    raise ValueError("builds.pico: names no candidate's sensor and insert")


if __name__ == "__main__":
    sys.exit(main())
