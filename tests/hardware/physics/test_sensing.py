"""The sensing margins at the pearls' rests (tools/sensing.py): today's build (upright
reeds, a magnet flush in every pearl) fails; the chosen one (reflective IR under every
hollow, the pieces untouched: the pico build) passes; every candidate is judged; the
models agree with closed forms and data-sheet figures; and the committed fine sweep
(hardware/rest-sweep.json) is the one this geometry makes."""

from __future__ import annotations

import dataclasses
import json
import math
import runpy

import numpy as np
import pytest

from hardware.geometry import load_geometry
from hardware.pcb.inputs import FIRMWARE_CONFIG
from hardware.physical import Reflective
from rigs.room import ADC_PER_UA, CROSSTALK_UA, WALL_UA_PER_RHO
from tools import magnets, optics, rest, sensing

GEOMETRY = load_geometry()
JUDGED = sensing.judge_all(GEOMETRY)


def test_todays_build_fails_at_the_rests_though_it_passed_at_the_pose_it_assumed() -> None:
    """The matrix build: the MDSR-10 reed upright under the cell, the 3 × 1.5 mm magnet
    flush in the pearl. At the rests most pearls are not seen at all."""
    old = GEOMETRY.candidates["reed-upright"]
    assert old.cell_sensor == GEOMETRY.sensor("matrix")
    assert old.pearl_insert.magnet == GEOMETRY.pearl.magnet
    judged = JUDGED["reed-upright"]
    assert not judged.passes and judged.fails_kindly, judged.describe()
    assert judged.own_alone < judged.operate  # some rest leaves it open
    assert judged.seen < 0.05  # the issue: about 2 % of placements seen
    # The mux build (DRV5033) fails as plainly: it is the same magnet.
    assert not JUDGED["hall-switch"].passes and JUDGED["hall-switch"].seen < 0.05
    # At the pose the old config assumed (within 5° of magnet-down), the mux build still
    # looked fine: the assumption, not the physics, passed it.
    assumed = magnets.check_cells(GEOMETRY, GEOMETRY.sensor("mux"))
    assert all(c.passes for c in assumed)


def test_the_chosen_build_sees_every_rest_with_twice_the_margin_both_ways() -> None:
    chosen = sensing.chosen_candidate(GEOMETRY)
    assert chosen == "ir"
    judged = JUDGED[chosen]
    assert judged.passes, judged.describe()
    assert judged.own_margin >= sensing.MARGIN and judged.neighbour_margin >= sensing.MARGIN
    assert GEOMETRY.pearl_insert("pico").kind == "none"  # the family's pearls untouched
    # The same sensor under the targets: one principle serves both games.
    assert GEOMETRY.sensor("pico", "target") == GEOMETRY.sensor("pico", "cell")
    targets = sensing.judge_targets(GEOMETRY)
    assert targets.passes, targets.describe()


def test_a_magnet_build_passes_only_with_steel_at_every_pearls_centre(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every build with a magnet in the pearl fails. A steel ball at the centre sees every
    rest (soft iron and a centred ball: the pose does not matter): over a disc magnet it
    fails on the bias's drift alone (without it, it would pass); over a ring, with the hall
    where the rings' fields nearly cancel, it passes, with no margin to spare."""
    for name, judged in JUDGED.items():
        if GEOMETRY.candidates[name].pearl_insert.kind == "magnet":
            assert not judged.passes, judged.describe()
    assert not JUDGED["hall-steel"].passes
    assert JUDGED["hall-steel"].own_alone < 2 * JUDGED["hall-steel"].operate
    ring = JUDGED["hall-ring"]
    assert ring.passes, ring.describe()
    assert min(ring.own_margin, ring.neighbour_margin) < 1.2 * sensing.MARGIN
    assert JUDGED["ir"].own_margin > 2 * ring.own_margin
    monkeypatch.setattr(sensing, "BIAS_DRIFT", 0.0)
    without = sensing.judge(GEOMETRY, GEOMETRY.candidates["hall-steel"])
    assert without.passes, without.describe()


def test_a_ring_magnets_field_on_its_axis_is_the_textbook_one() -> None:
    """A ring is a disc less the disc of its hole: on the axis, ``z`` mm from its face,
    B = Br/2·((z+h)/√((z+h)²+R²) − z/√(z²+R²) − (z+h)/√((z+h)²+r²) + z/√(z²+r²))."""
    ring = GEOMETRY.magnets["bias-ring"]
    big, small, h = ring.diameter / 2, ring.inner_diameter / 2, ring.height
    poses = magnets.Poses(np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]]))
    for z in (0.5, 2.0, 2.4, 5.0, 12.0):
        got = magnets.magnet_field(ring, poses, np.array([[0.0, 0.0, h / 2 + z]]), 1300.0)
        disc = (z + h) / math.hypot(z + h, big) - z / math.hypot(z, big)
        hole = (z + h) / math.hypot(z + h, small) - z / math.hypot(z, small)
        want = 1300.0 / 2 * (disc - hole)
        assert got[0, 0, 2] == pytest.approx(want, abs=1e-6)
    # It crosses zero a few millimetres above its face: the null the hall sits near.
    near = magnets.magnet_field(ring, poses, np.array([[0.0, 0.0, h / 2 + 0.5]]), 1300.0)
    far = magnets.magnet_field(ring, poses, np.array([[0.0, 0.0, h / 2 + 12.0]]), 1300.0)
    assert near[0, 0, 2] < 0 < far[0, 0, 2]


def test_a_magnet_at_the_centre_gives_between_m_and_2m_over_r_cubed() -> None:
    """A dipole's field at distance r is μ0·m/(4π r³) across its axis and twice that along
    it; the 3-axis hall sees |B| in that range whatever the pearl's pose."""
    insert = GEOMETRY.inserts["centre-magnet"]
    assert insert.magnet is not None
    _, rests = rest.sweep(GEOMETRY, insert, 24, offsets=1, lifts=1)
    sensor = GEOMETRY.sensors["hall-3d"]
    point = np.array([[0.0, 0.0, -sensor.elements[0].depth]])
    low = insert.magnet.remanence[0]
    b = magnets.magnet_field(insert.magnet, magnets.Poses(rests.centres, rests.axes), point, low)
    size = np.linalg.norm(b[:, 0, :], axis=1) * 1e-3
    m = low * 1e-3 / rest.MU0 * insert.magnet.volume * 1e-9
    r = (rests.centres[:, 2] - point[0, 2]) * 1e-3
    unit = rest.MU0 * m / (4 * math.pi * r**3)
    assert (size >= unit * 0.97).all() and (size <= 2 * unit * 1.03).all()
    # So the own pearl at its weakest is less than four times the eight neighbours' worst:
    # no thresholds give 2× both ways.
    judged = JUDGED["hall-3d-centre"]
    assert judged.own_alone < 4 * judged.neighbours
    assert judged.best_margin < sensing.MARGIN


def test_the_ir_model_follows_the_data_sheet() -> None:
    """Fitted to the TCRT1000's peak at 1 mm, the model's flat-card curve falls to the data
    sheet's 20 % near the end of its 0.2–4 mm span (no second fit)."""
    sensor = GEOMETRY.sensors["cell-ir"]
    assert isinstance(sensor, Reflective)
    curve = optics.card_curve(sensor, [0.5 * sensor.peak_distance, sensor.peak_distance,
                                       2 * sensor.peak_distance, sensor.span[1]])  # fmt: skip
    assert curve[1] == pytest.approx(1.0)
    assert curve[0] < 1 and curve[2] < 1
    assert curve[3] == pytest.approx(sensor.span_fraction, abs=0.05)
    # The data sheet's test, traced: the card at 1 mm gives the least collector current.
    scene = optics.Scene(sensor, GEOMETRY.hollow, 0.5)
    card = optics._trace(scene, 4096, card=(1.0, 0.9))
    assert card > 0
    # Under an empty hollow with a black wall the sensor sees almost nothing; a pearl,
    # plenty.
    black = dataclasses.replace(scene, wall=0.0)
    empty = optics.collector_current(black, 4096)
    pearl = black.with_pieces(np.array([[0.0, 0.0, 7.5]]), 10.0, 0.2)
    assert optics.collector_current(pearl, 4096) > 20 * max(empty, 0.1)


def test_the_window_wall_is_a_tolerance_the_firmwares_baseline_holds() -> None:
    """The model takes the window's wall at 0.3 (not black): it adds about 28 µA per unit
    of its reflectance to an empty cell on a minimum part (the room rig's figure, traced
    here), the same with a pearl on the cell; with the data sheet's 1 µA of cross talk,
    the firmware's BASELINE_MAX holds an empty cell with such a wall."""
    sensor = GEOMETRY.sensors["cell-ir"]
    assert isinstance(sensor, Reflective)
    scene = optics.Scene(sensor, GEOMETRY.hollow, 0.5)
    assert scene.wall == optics.WALL_TOLERANCE >= 0.3
    black = dataclasses.replace(scene, wall=0.0)
    empty = optics.collector_current(scene, 8192)
    per_rho = (empty - optics.collector_current(black, 8192)) / scene.wall
    assert per_rho == pytest.approx(WALL_UA_PER_RHO, rel=0.1)
    pearl = np.array([[0.0, 0.0, 7.5]])
    own = optics.collector_current(scene.with_pieces(pearl, 10.0, 0.2), 8192) - empty
    own_black = optics.collector_current(black.with_pieces(pearl, 10.0, 0.2), 8192)
    own_black -= optics.collector_current(black, 8192)
    assert own == pytest.approx(own_black, rel=1e-6)
    config = runpy.run_path(str(FIRMWARE_CONFIG))
    assert (empty + CROSSTALK_UA) * ADC_PER_UA <= config["BASELINE_MAX"]


def test_the_committed_fine_sweep_is_this_geometrys() -> None:
    data = json.loads(sensing.FINE_SWEEP.read_text(encoding="utf-8"))
    assert data["geometry_sha256"] == sensing.geometry_hash(), (
        "hardware/geometry.toml changed: run `.venv/bin/python -m tools.rest --fine`"
    )
    assert data["sweep"] == dataclasses.asdict(sensing.FINE)
    for name, judged in JUDGED.items():
        fine = data["candidates"][name]
        assert fine["passes"] == judged.passes, name
        if fine["passes"]:
            assert fine["own_margin"] == pytest.approx(judged.own_margin, rel=0.15), name
    # A few of its placements, put down again, rest where the file says.
    body = rest.body_of(GEOMETRY.pearl, GEOMETRY.own_magnet)
    full = rest.placements(GEOMETRY.pearl, GEOMETRY.hollow, sensing.FINE.orientations,
                           sensing.FINE.offsets, sensing.FINE.lifts)  # fmt: skip
    field = rest.neighbour_field(GEOMETRY, body, len(full))
    picked = np.array([int(s["index"][0]) for s in data["samples"]])
    assert len(picked) == sensing.SAMPLES
    start = rest.Placements(full.axes[picked], full.offsets[picked], full.lifts[picked])
    for s, axis in zip(data["samples"], start.axes, strict=True):
        assert axis == pytest.approx(s["axis"])
    local = rest.Dipoles(field.positions[picked], field.moments[picked])
    again = rest.come_to_rest(body, GEOMETRY.hollow, start, local)
    for k, s in enumerate(data["samples"]):
        assert again.centres[k] == pytest.approx(s["rest_centre"], abs=1e-6)
        assert again.axes[k] == pytest.approx(s["rest_axis"], abs=1e-6)


def test_the_tool_prints_every_candidate_and_names_the_chosen(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sensing, "judge_all", lambda geometry, sweep: JUDGED)
    assert sensing.main([]) == 0
    out = capsys.readouterr().out
    assert all(f"{name}: own pearl" in out for name in GEOMETRY.candidates)
    assert "chosen: ir" in out
