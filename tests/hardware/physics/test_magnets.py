"""The pearls' magnets and the sensors under the cells, computed with magpylib from
hardware/geometry.toml: every cell closes for its own pearl and stays open amid full
neighbours with 2× margin, pearls cannot turn one another over, and the guide's old
geometry (flat reeds, one end under the cell) and magnets in Pyramidos balls are rejected.
The model and its sources are stated in tools/magnets.py."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from hardware.geometry import Geometry, load_geometry
from hardware.physical import Point, Reed, Sensor, SensorElement
from tools import magnets

GEOMETRY = load_geometry()
ROOT = Path(__file__).resolve().parents[3]


def on_axis(br_mt: float, diameter: float, height: float, distance: float) -> float:
    """mT on a disc magnet's axis, ``distance`` mm from its face: the textbook closed form
    B = Br/2 · ((z + h)/√((z + h)² + R²) − z/√(z² + R²)), independent of magpylib."""
    r, z = diameter / 2, distance
    return br_mt / 2 * ((z + height) / math.hypot(z + height, r) - z / math.hypot(z, r))


def with_pearl_magnet(geometry: Geometry, name: str) -> Geometry:
    pearl = dataclasses.replace(geometry.pearl, magnet=geometry.magnets[name])
    return dataclasses.replace(geometry, pearl=pearl)


# -- the model against what is known -------------------------------------------------------


def test_the_field_on_a_discs_axis_is_the_textbook_one() -> None:
    magnet = GEOMETRY.magnets["old-pearl"]  # 6 × 3 mm N42, the guide's table
    br = sum(magnet.remanence) / 2
    distances = [3.0, 5.0, 8.0, 10.0, 20.0]
    for got, d in zip(magnets.axial_field(magnet, distances), distances, strict=True):
        assert got == pytest.approx(on_axis(br, magnet.diameter, magnet.height, d), rel=1e-6)
    assert magnets.axial_field(magnet, [3.0])[0] == pytest.approx(122, abs=1)


def test_a_turned_magnet_turns_its_field() -> None:
    """Turned from +z to +x (a quarter turn about y: z → x, x → −z), the magnet's field at
    R·p is R times its old field at p."""
    magnet = GEOMETRY.pearl.magnet
    origin = np.zeros((1, 3))
    up = magnets.Poses(origin, np.array([[0.0, 0.0, 1.0]]))
    east = magnets.Poses(origin, np.array([[1.0, 0.0, 0.0]]))
    down = magnets.Poses(origin, np.array([[0.0, 0.0, -1.0]]))
    bx, by, bz = magnets.magnet_field(magnet, up, np.array([[1.0, 2.0, -4.0]]), 1300.0)[0, 0]
    turned = magnets.magnet_field(magnet, east, np.array([[-4.0, 2.0, -1.0]]), 1300.0)[0, 0]
    assert turned == pytest.approx(np.array([bz, by, -bx]), abs=1e-9)
    below = np.array([[0.0, 0.0, -4.0]])
    flipped = magnets.magnet_field(magnet, down, below, 1300.0)[0, 0, 2]
    assert flipped == pytest.approx(-magnets.magnet_field(magnet, up, below, 1300.0)[0, 0, 2])


def test_reed_ampere_turns_are_the_mean_field_along_the_glass_times_the_coil() -> None:
    sensor = GEOMETRY.sensor("matrix")
    assert isinstance(sensor, Reed)
    pearl, hollow = GEOMETRY.pearl, GEOMETRY.hollow
    rest = magnets.Poses(
        np.array([[0.0, 0.0, pearl.magnet_height(hollow)]]), np.array([[0.0, 0.0, 1.0]])
    )
    depth = sensor.elements[0].depth
    zs = -depth - (np.arange(1000) + 0.5) / 1000 * sensor.glass_length
    points = np.stack([np.zeros_like(zs), np.zeros_like(zs), zs], axis=1)
    mean_bz = magnets.magnet_field(pearl.magnet, rest, points, 1300.0)[0, :, 2].mean() * 1e-3
    expected = abs(mean_bz) * sensor.test_coil_length * 1e-3 / magnets.MU0
    got = magnets.check_cells(
        dataclasses.replace(
            GEOMETRY,
            pearl=dataclasses.replace(
                pearl,
                rise=0.0,
                lateral_offset=0.0,
                tilt=0.0,
                magnet=dataclasses.replace(pearl.magnet, remanence=(1300.0, 1300.0)),
            ),
        ),
        sensor,
    )[0].own
    assert got == pytest.approx(expected, rel=5e-3)  # the model's 32 points along the glass


# -- the board's cells --------------------------------------------------------------------


def test_at_the_poses_the_old_config_assumed_the_mux_build_passed_and_the_reed_does_not() -> None:
    """The old model: the pearl within 5° of magnet-down (``[pearl] tilt``). It passed the
    DRV5033 build; the upright reed, now that its lead bend is budgeted (the glass 2.4 mm
    further down), falls short even there. Where pearls really rest: test_sensing.py."""
    checks = magnets.check_cells(GEOMETRY, GEOMETRY.sensor("mux"))
    assert [c.place for c in checks] == list(GEOMETRY.cells)
    failing = [c.describe() for c in checks if not c.passes]
    assert not failing, "\n".join(failing)
    inner = next(c for c in checks if c.place == "c3")
    assert inner.neighbour_count == 8
    assert next(c for c in checks if c.place == "a1").neighbour_count == 3
    reeds = magnets.check_cells(GEOMETRY, GEOMETRY.sensor("matrix"))
    worst = min(reeds, key=lambda c: c.own_margin)
    assert 0.8 < worst.own_margin < 2, worst.describe()  # the issue: about 1.0×


@pytest.mark.parametrize("depth_below_hollow", [3.0, 8.0])
@pytest.mark.parametrize("azimuth", [0.0, 45.0, 90.0])
def test_the_guides_old_geometry_is_rejected(depth_below_hollow: float, azimuth: float) -> None:
    """The old guide: a 6 × 3 mm N42 disc; a 10–20 AT reed lying flat, one end under the
    cell's centre, in any direction, 3–8 mm under the hollow. A full neighbourhood
    closes it (the issue measured a neighbour at 11–40 % of the own pearl's drive)."""
    old = GEOMETRY.sensors["old-reed-flat"]
    assert isinstance(old, Reed)
    half = old.glass_length / 2
    angle = math.radians(azimuth)
    element = SensorElement(
        "flat",
        azimuth,
        Point(half * math.cos(angle), half * math.sin(angle)),
        GEOMETRY.hollow.depth + depth_below_hollow,
    )
    sensor: Sensor = dataclasses.replace(old, elements=(element,))
    checks = magnets.check_cells(with_pearl_magnet(GEOMETRY, "old-pearl"), sensor)
    assert not all(c.passes for c in checks)
    worst = min(checks, key=lambda c: c.neighbour_margin)
    assert worst.neighbour_margin < 1, worst.describe()  # not just short of 2×: it closes


def test_neighbouring_pearls_cannot_pull_one_another_out_of_their_hollows() -> None:
    assert magnets.pull_ratio(GEOMETRY, GEOMETRY.pearl, GEOMETRY.cells) <= 1


def test_neighbouring_pearls_cannot_turn_one_another_over() -> None:
    flips = [magnets.flip_check(GEOMETRY, name) for name in GEOMETRY.cells]
    assert all(f.passes for f in flips), min(flips, key=lambda f: f.ratio)
    # The guide's old 6 × 3 mm discs: a full neighbourhood gains more than gravity costs.
    old = magnets.flip_check(with_pearl_magnet(GEOMETRY, "old-pearl"), "c3")
    assert old.ratio < 1, old


# -- Pyramidos ------------------------------------------------------------------------------


def test_magnets_in_pyramidos_balls_are_rejected_so_targets_and_top_are_seen_by_ir() -> None:
    # Neighbouring balls' magnets pull harder than their hollows hold them.
    assert magnets.pull_ratio(GEOMETRY, GEOMETRY.ball, GEOMETRY.targets) > 1
    # Three reeds under a target: the other balls close them.
    targets = magnets.check_targets(GEOMETRY, GEOMETRY.sensors["ball-reeds"])
    assert len(targets) == 4 and not any(t.passes for t in targets)
    # Under the top the four base balls are nearer than the top ball itself.
    top = magnets.check_top(GEOMETRY, GEOMETRY.sensor("matrix"))
    assert top.own < top.neighbours and not top.passes
    for build in ("matrix", "direct", "pico"):
        assert GEOMETRY.sensor(build, "target").kind in ("ir", "reflective")
        assert GEOMETRY.sensor(build, "top").kind in ("ir", "reflective")


def test_the_model_prints_every_cell_and_fails_on_a_bad_geometry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert magnets.main(["--build", "mux"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name}: own piece" in out for name in GEOMETRY.cells)
    assert magnets.main([]) == 1  # the budgeted reed
    assert "! c3: own piece" in capsys.readouterr().out
    worse = tmp_path / "geometry.toml"
    text = (ROOT / "hardware" / "geometry.toml").read_text()
    worse.write_text(text.replace("release_min = 1.0", "release_min = 0.2", 1))
    assert magnets.main(["--geometry", str(worse), "--build", "mux"]) == 1
    assert "! c3: own piece" in capsys.readouterr().out
