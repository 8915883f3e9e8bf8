"""How a pearl comes to rest in its hollow (tools/rest.py), against closed forms: its
centre of mass, the rolling constraint, the equilibrium of a pearl put down magnet-
sideways, and what today's geometry assumed (a pearl settles magnet-down) against what
the model finds (it keeps the orientation the hand gave it)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from hardware.geometry import load_geometry
from tools import rest

GEOMETRY = load_geometry()
PEARL = GEOMETRY.pearl


def one(
    axis: tuple[float, float, float], offset: tuple[float, float] = (0.0, 0.0)
) -> rest.Placements:
    return rest.Placements(np.array([axis], dtype=float), np.array([offset]), np.zeros(1))


def test_the_magnet_moves_the_centre_of_mass_a_fifth_of_a_millimetre() -> None:
    magnet = PEARL.magnet
    wood = 4 / 3 * math.pi * 10.0**3 * PEARL.density / 1000
    extra = magnet.mass - magnet.volume * PEARL.density / 1000
    body = rest.body_of(PEARL, GEOMETRY.own_magnet)
    assert body.mass == pytest.approx(wood + extra)
    assert body.offset == pytest.approx(extra * (10.0 - magnet.height / 2) / (wood + extra))
    assert 0.2 < body.offset < 0.25  # the "about 0.22 mm"
    untouched = rest.body_of(PEARL, GEOMETRY.inserts["none"])
    assert untouched.offset == 0 and untouched.inertia == pytest.approx(0.4)


def test_a_pearl_rolling_down_turns_by_the_arc_its_contact_rolls() -> None:
    """No magnet: put down with its centre ``h`` off the axis, it rolls to the bottom and
    turns by ρθ/r about the horizontal axis across the roll (θ where it started on the
    sphere of radius ρ = R − r its centre moves on): the rolling constraint."""
    body = rest.body_of(PEARL, GEOMETRY.inserts["none"])
    rho = rest.hollow_radius(GEOMETRY.hollow) - body.radius
    h = 2.0
    start = one((0.0, 0.0, 1.0), (h, 0.0))  # the mark on top; rolling in −x turns it to −x
    done = rest.come_to_rest(body, GEOMETRY.hollow, start)
    assert np.hypot(*done.centres[0, :2]) < 1e-3
    turned = math.degrees(rho * math.asin(h / rho) / body.radius)
    assert done.turned[0] == pytest.approx(turned, rel=1e-3)
    assert done.axes[0, 0] < 0  # it rolled towards −x
    assert done.rolls[0]


def test_a_pearl_put_down_magnet_sideways_turns_half_a_degree_and_stops() -> None:
    """Its centre of mass d off centre: U(φ) = M·g·(ρ(1 − cos φ) − d·sin(ρφ/r)) for a roll
    of φ about the cap's centre; the equilibrium solves ρ sin φ = d·(ρ/r)·cos(ρφ/r)."""
    body = rest.body_of(PEARL, GEOMETRY.own_magnet)
    rho = rest.hollow_radius(GEOMETRY.hollow) - body.radius
    d, r = body.offset, body.radius
    low, high = 0.0, 0.2
    for _ in range(60):  # bisection
        mid = (low + high) / 2
        if rho * math.sin(mid) - d * rho / r * math.cos(rho * mid / r) < 0:
            low = mid
        else:
            high = mid
    expected = math.degrees(rho * low / r)
    done = rest.come_to_rest(body, GEOMETRY.hollow, one((1.0, 0.0, 0.0)))
    assert done.tilted[0] == pytest.approx(expected, rel=1e-2)
    assert 0.4 < done.tilted[0] < 0.7  # the "about 0.5°"


def test_todays_assumption_that_pearls_settle_magnet_down_is_false() -> None:
    """[pearl] tilt = 5 said a pearl rests within 5° of magnet-down. Put down at random
    (uniform over the sphere) amid full neighbours, about 1 % do; none comes more than the
    hollow's rolling range nearer to it; every one rolls without slipping, and turning in
    place would need many times the torque gravity and the neighbours give."""
    body, rests = rest.sweep(GEOMETRY, GEOMETRY.own_magnet, 40)
    assert rest.magnet_down_share(rests, PEARL.tilt) < 0.02
    rim = math.asin(GEOMETRY.hollow.diameter / 2 / rest.hollow_radius(GEOMETRY.hollow))
    rolling_range = math.degrees(
        (rest.hollow_radius(GEOMETRY.hollow) - body.radius) * rim / body.radius
    )
    assert rests.tilted.max() < rolling_range + 2.0  # + what the neighbours' field turns
    assert rests.rolls.all()
    assert rests.slip_torque.max() < 0.5
    # Without friction there is no rolling constraint: the same model then needs the
    # friction it assumes; at a tenth of wood's it still rolls.
    start = rest.placements(PEARL, GEOMETRY.hollow, 20)
    slick = rest.come_to_rest(body, GEOMETRY.hollow, start, friction=rest.WOOD_FRICTION[0] / 10)
    assert not slick.rolls.all()


def test_the_neighbours_and_a_bias_magnet_pull_as_dipoles_do() -> None:
    """The field of one dipole on its axis is μ0·2m/(4π z³)."""
    dipole = rest.Dipoles(np.zeros((1, 3)), np.array([[0.0, 0.0, 0.01]]))
    b = dipole.field(np.array([[0.0, 0.0, 20.0]]))
    assert b[0, 2] == pytest.approx(rest.MU0 / (4 * math.pi) * 2 * 0.01 / 0.02**3)
    # A steel ball at the centre over a strong magnet is pulled onto the hollow's axis.
    body = rest.body_of(PEARL, GEOMETRY.inserts["steel-ball"])
    bias = rest.Dipoles(np.array([[0.0, 0.0, -20.0]]), np.array([[0.0, 0.0, 0.4]]))
    start = one((0.0, 1.0, 0.0), (1.5, 0.0))
    done = rest.come_to_rest(body, GEOMETRY.hollow, start, bias)
    assert np.hypot(*done.centres[0, :2]) < 1e-3


def test_the_tool_prints_the_rests(capsys: pytest.CaptureFixture[str]) -> None:
    assert rest.main([]) == 0
    out = capsys.readouterr().out
    assert "placements of a pearl" in out and "within 5° of magnet-down" in out


def test_a_rise_lifts_the_rest() -> None:
    body = rest.body_of(PEARL, GEOMETRY.inserts["none"])
    high = dataclasses.replace(one((0.0, 0.0, 1.0)), lifts=np.array([0.5]))
    done = rest.come_to_rest(body, GEOMETRY.hollow, high)
    assert done.centres[0, 2] == pytest.approx(-GEOMETRY.hollow.depth + body.radius + 0.5)
