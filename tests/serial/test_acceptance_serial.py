"""``pyramid diag --check`` over the serial link, each maker's mistake injected.

The real :class:`SerialBoard` talks over a pty to the real firmware on the simulated Pico
(firmware/sim), whose chip models the matrix's wiring faults (a missing or reversed
diode, a cut column: ``SimPico.set_diode``, ``SimPico.cut_column``); the pearls a scripted
person places (tests/support/person.py) close its switches through :class:`PearlBoard`,
which models swapped and stuck reeds and a neighbour's magnet. The Pico numbers its
channels in reading order, so its matrix columns are not the board's files: the check
names causes by the wiring, whatever the board looks like.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from serial_helpers import BOARD, CHANNELS, LEDS, TIMING

from controller.commands.acceptance import Layout
from controller.hardware.channels import ChannelMap
from controller.hardware.serial import SerialBoard
from firmware.sim.harness import SimPico
from tests.rigs.pearls import CrossTalk, PearlBoard
from tests.support.person import Outcome, check_by_hand

CMAP = ChannelMap.default()


@pytest.fixture
def check(pico: SimPico) -> Iterator[Callable[..., Outcome]]:
    def run(**pearls: Any) -> Outcome:
        board = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)
        placed = PearlBoard(CMAP.channel_by_name, pico.set_active, **pearls)
        return check_by_hand(board, CMAP, len(BOARD.columns), placed)

    yield run


def test_a_healthy_board_passes(check: Callable[..., Outcome]) -> None:
    outcome = check()
    assert outcome.causes == []
    assert outcome.out.rstrip().endswith("check: all good"), outcome.out
    assert outcome.status == 0


def test_a_swapped_pair_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(swapped=[("c3", "d3")])
    assert outcome.status == 1
    assert "  seen: asked for c3, d3 changed\n" in outcome.out
    assert outcome.causes == [("swapped", ("c3", "d3"))], outcome.out


def test_a_missing_diode_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.set_diode(CMAP.channel("b2"), "missing")
    outcome = check()
    assert outcome.status == 1
    assert [kind for kind, _ in outcome.causes] == ["missing diode"], outcome.out
    assert outcome.causes[0][1][0] == "b2"


def test_a_reversed_diode_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.set_diode(CMAP.channel("c3"), "reversed")
    outcome = check()
    assert outcome.status == 1
    assert outcome.causes == [("dead sensor", ("c3",))], outcome.out
    assert "c3 never closed: a reversed diode" in outcome.out


def test_a_stuck_switch_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(stuck=["d4"])
    assert outcome.status == 1
    assert outcome.causes == [("stuck", ("d4",))], outcome.out


def test_a_dead_column_is_named(pico: SimPico, check: Callable[..., Outcome]) -> None:
    pico.cut_column(2)
    outcome = check()
    assert outcome.status == 1
    width = len(BOARD.columns)  # the sensors whose switches sit in column 2, as named
    column = tuple(n for n in Layout.of(CMAP, width).names if CMAP.channel(n) % width == 2)
    assert len(column) == 6
    assert outcome.causes == [("dead column", column)], outcome.out


def test_a_neighbour_that_closes_a_reed_is_named(check: Callable[..., Outcome]) -> None:
    outcome = check(crosstalk={"c3": CrossTalk(towards="d3", operate_at=30.0)})
    assert outcome.status == 1
    assert "  seen: c3 read occupied with only its neighbours full" in outcome.out
    assert outcome.causes == [("cross-talk", ("c3",))], outcome.out
