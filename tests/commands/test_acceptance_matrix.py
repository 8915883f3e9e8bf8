"""``pyramid diag --check`` on the mock diode matrix, each maker's mistake injected.

The real gpio adapter (scan thread, debouncing) reads :class:`DiodeMatrix` on gpiozero's
``MockFactory``; the pearls a scripted person places (tests/support/person.py) close its
switches through :class:`PearlBoard`. Each fault is modelled where it lives: swapped and
stuck reeds and a neighbour's magnet in PearlBoard, missing and reversed diodes and a cut
column wire in DiodeMatrix. One fault also runs on the Pi's own path (the lgpio model).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.config import load_config
from controller.hardware import build_board
from tests.hardware.conftest import LgpioRig
from tests.rigs.circuits import Apa102Strip, DiodeMatrix
from tests.rigs.pearls import CrossTalk, PearlBoard
from tests.support.person import check_by_hand

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "configs" / "matrix.toml"


@pytest.fixture
def unlit(tmp_path: Path) -> Path:
    """The shipped matrix config without LEDs (the mock's bit-banged SPI is slow)."""
    text = MATRIX.read_text().replace("spi = { clock = 11, mosi = 10 }", "spi = false")
    path = tmp_path / "matrix-unlit.toml"
    path.write_text(text)
    return path


def run_check(
    factory: MockFactory,
    config_path: Path,
    circuit: dict[str, Any],
    pearls: dict[str, Any],
) -> tuple[int, str, list[tuple[str, tuple[str, ...]]]]:
    """Build the faulty board, let the scripted person through the whole check; the exit
    status, the report, and the causes as (kind, sensors)."""
    config = load_config(config_path)
    gpio = config.board.gpio
    matrix = DiodeMatrix(factory, gpio.rows, gpio.cols, **circuit)
    board, cmap = build_board(config)
    placed = PearlBoard(cmap.channel_by_name, matrix.switches.set_closed, **pearls)
    outcome = check_by_hand(board, cmap, len(gpio.cols), placed)
    return outcome.status, outcome.out, outcome.causes


def test_a_healthy_board_passes(mock_factory: MockFactory, unlit: Path) -> None:
    status, out, found = run_check(mock_factory, unlit, {}, {})
    assert found == []
    assert out.rstrip().endswith("check: all good"), out
    assert status == 0
    assert "next (one at a time, 13 of 33): place the probe pearl on c3 and lift it" in out
    assert "next (lift, 30 of 30): lift top and put it back (leave the rest)" in out


def test_a_swapped_pair_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    status, out, found = run_check(mock_factory, unlit, {}, {"swapped": [("c3", "d3")]})
    assert status == 1
    assert "  seen: asked for c3, d3 changed\n" in out
    assert "  seen: asked for d3, c3 changed\n" in out
    assert found == [("swapped", ("c3", "d3"))], out


def test_a_missing_diode_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    b2 = 1 * 6 + 1
    status, out, found = run_check(mock_factory, unlit, {"missing_diodes": [b2]}, {})
    assert status == 1
    assert "  seen: lifted with the rest full, these stayed occupied: a1, c1, d1, e1, a3, " in out
    assert "while filling, came on at the same moment" in out
    assert [kind for kind, _ in found] == ["missing diode"], out
    assert found[0][1][0] == "b2"


def test_a_reversed_diode_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    c3 = 2 * 6 + 2
    status, out, found = run_check(mock_factory, unlit, {"reversed_diodes": [c3]}, {})
    assert status == 1
    assert "  seen: asked for c3, nothing changed\n" in out
    assert found == [("dead sensor", ("c3",))], out
    assert "c3 never closed: a reversed diode" in out


def test_a_stuck_switch_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    status, out, found = run_check(mock_factory, unlit, {}, {"stuck": ["d4"]})
    assert status == 1
    assert "  seen: with the board empty, occupied: d4\n" in out
    assert found == [("stuck", ("d4",))], out


def test_a_dead_column_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    status, out, found = run_check(mock_factory, unlit, {"cut_columns": [2]}, {})
    assert status == 1
    assert found == [("dead column", ("c1", "c2", "c3", "c4", "c5", "button:undo"))], out
    assert "matrix column 2 is dead" in out


def test_a_neighbour_that_closes_a_reed_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    talk = {"c3": CrossTalk(towards="d3", operate_at=30.0)}  # d3 and three more close it
    status, out, found = run_check(mock_factory, unlit, {}, {"crosstalk": talk})
    assert status == 1
    assert "  seen: lifted c3 with the rest full, it stayed occupied\n" in out
    assert "next (neighbours, 1 of 1): clear the board, then place pearls on the neighbours" in out
    assert found == [("cross-talk", ("c3",))], out


def test_a_missing_diode_is_named_on_a_pi(lgpio_pi: LgpioRig) -> None:
    """The Pi's own path: gpiozero's real LGPIOFactory over the lgpio model, the rows
    claimed as one open-drain line group, the LEDs on the kernel's SPI0."""
    config = load_config(MATRIX)
    gpio = config.board.gpio
    matrix = DiodeMatrix(lgpio_pi.model, gpio.rows, gpio.cols, missing_diodes=[1 * 6 + 1])
    Apa102Strip(lgpio_pi.model, 37)
    board, cmap = build_board(config, pin_factory=lgpio_pi.factory)
    placed = PearlBoard(cmap.channel_by_name, matrix.switches.set_closed)
    outcome = check_by_hand(board, cmap, len(gpio.cols), placed)
    assert [kind for kind, _ in outcome.causes] == ["missing diode"], outcome.out
    assert outcome.causes[0][1][0] == "b2"
