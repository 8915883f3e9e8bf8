"""``pyramid diag --check`` on the mock diode matrix, each maker's mistake injected.

The real gpio adapter (scan thread, debouncing) reads :class:`DiodeMatrix` on gpiozero's
``MockFactory``; the pearls a scripted person places (rigs/person.py) close its
switches through :class:`PearlBoard`. Each fault is modelled where it lives: swapped and
stuck reeds and a neighbour's magnet in PearlBoard, missing and reversed diodes, a cut
column wire and two exchanged wires in DiodeMatrix (wired to the GPIOs in another order
than the config's). One fault also runs on the Pi's own path (the lgpio model).

The scan thread runs in real time (it is the adapter under test); the check runs on a
virtual clock that only the person moves, after the adapter's scans have shown each move
(``gpio_looked``), so the tests wait on events only and the check's shipped timing costs
no wall time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli.acceptance import Pass
from controller.cli.diag import matrix_wires
from controller.config import load_config
from controller.hardware.adapters import build_board
from controller.hardware.gpio import GpioBoard
from controller.hardware.port import SensorFrame
from rigs.circuits import Apa102Strip, DiodeMatrix
from rigs.pearls import CrossTalk, PearlBoard
from rigs.person import Outcome, check_by_hand, gpio_looked
from tests.hardware.conftest import LgpioRig

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "configs" / "matrix.toml"


def quick(tmp_path: Path, leds: bool) -> Path:
    """The shipped matrix config scanning every 1 ms while idle instead of 8 (the person
    waits for the scans that show each move: slower idle scans only make every move take
    longer), without LEDs unless ``leds`` (the mock's bit-banged SPI is slow)."""
    text = MATRIX.read_text().replace("idle_ms = 8", "idle_ms = 1")
    if not leds:
        text = text.replace("spi = { clock = 11, mosi = 10 }", "spi = false")
    path = tmp_path / ("matrix-quick.toml" if leds else "matrix-unlit.toml")
    path.write_text(text)
    return path


@pytest.fixture
def unlit(tmp_path: Path) -> Path:
    return quick(tmp_path, leds=False)


def run_check(
    factory: MockFactory,
    config_path: Path,
    circuit: dict[str, Any],
    pearls: dict[str, Any],
    wired: dict[str, list[int]] | None = None,
) -> Outcome:
    """Build the faulty board, let the scripted person through the whole check.

    ``wired`` gives the GPIOs the matrix's rows and columns really are on (default: as
    the config says)."""
    config = load_config(config_path)
    gpio = config.board.gpio
    rows, cols = (wired or {}).get("rows", gpio.rows), (wired or {}).get("cols", gpio.cols)
    matrix = DiodeMatrix(factory, rows, cols, **circuit)
    board, cmap = build_board(config)
    assert isinstance(board, GpioBoard)
    placed = PearlBoard(cmap.channel_by_name, matrix.switches.set_closed, **pearls)
    wires = matrix_wires(config)
    return check_by_hand(board, cmap, len(gpio.cols), placed, gpio_looked(board), wires)


def likely(out: str) -> list[str]:
    return [line.removeprefix("  likely: ") for line in out.splitlines() if "likely:" in line]


def lifts(outcome: Outcome) -> list[str]:
    return [s.target for s in outcome.steps if s.pass_ is Pass.LIFT]


def test_the_person_waits_until_the_adapter_has_published_what_it_saw(
    mock_factory: MockFactory, unlit: Path
) -> None:
    """What the scripted person relies on: once ``gpio_looked`` returns, the scan thread
    has published every frame it made of a move, with no wait of its own."""
    config = load_config(unlit)
    matrix = DiodeMatrix(mock_factory, config.board.gpio.rows, config.board.gpio.cols)
    board, _ = build_board(config)
    assert isinstance(board, GpioBoard)
    frames: list[SensorFrame] = []
    looked = gpio_looked(board)
    with board:
        board.start(frames.append)
        for closed in ({3}, {3, 20}, {20}, set()):
            after = looked(lambda call: call())
            matrix.switches.set_closed(closed)
            after()
            assert (frames[-1].active if frames else set()) == closed


def test_a_healthy_board_passes(mock_factory: MockFactory, unlit: Path) -> None:
    outcome = run_check(mock_factory, unlit, {}, {})
    assert outcome.causes == []
    assert outcome.out.rstrip().endswith("check: all good"), outcome.out
    assert outcome.status == 0
    assert "next (one at a time, 13 of 33): place the probe pearl on c3 and lift it" in outcome.out
    assert "next (one at a time, 32 of 33): press the End turn button\n" in outcome.out
    assert "next (lift, 30 of 30): lift top and put it back (leave the rest)" in outcome.out
    assert outcome.enters == []  # every step went on by itself once the board showed it


def test_a_swapped_pair_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    outcome = run_check(mock_factory, unlit, {}, {"swapped": [("c3", "d3")]})
    assert outcome.status == 1
    assert "  seen: asked for c3, d3 changed\n" in outcome.out
    assert "  seen: asked for d3, c3 changed\n" in outcome.out
    assert outcome.causes == [("swapped", ("c3", "d3"))], outcome.out
    assert outcome.enters == []


def test_two_swapped_column_wires_are_named_in_one_line(
    mock_factory: MockFactory, unlit: Path
) -> None:
    """Columns 2 and 3 (files c and d) on each other's GPIO, as with their wires swapped at
    the header or their order in ``cols``: one cause naming both wires, not six pairs."""
    outcome = run_check(mock_factory, unlit, {}, {}, wired={"cols": [13, 19, 16, 26, 20, 21]})
    assert outcome.status == 1
    assert "  seen: asked for c1, d1 changed\n" in outcome.out
    assert "  seen: asked for the Undo button, nothing changed\n" in outcome.out  # spare 33
    members = ("c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5", "button:undo")
    assert outcome.causes == [("swapped columns", members)], outcome.out
    assert likely(outcome.out) == [
        "matrix columns 2 and 3 are swapped (c1 reads as d1, d1 reads as c1, c2 reads as d2, "
        "…): the wires on GPIO 26 (header pin 37) and GPIO 16 (header pin 36) are "
        "exchanged: swap them, or swap 26 and 16 in [board.gpio] cols"
    ]


def test_two_swapped_row_wires_are_named_in_one_line(
    mock_factory: MockFactory, unlit: Path
) -> None:
    outcome = run_check(mock_factory, unlit, {}, {}, wired={"rows": [4, 27, 17, 22, 5, 6]})
    assert [kind for kind, _ in outcome.causes] == ["swapped rows"], outcome.out
    assert likely(outcome.out) == [
        "matrix rows 1 and 2 are swapped (a2 reads as a3, b2 reads as b3, c2 reads as c3, "
        "…): the wires on GPIO 17 (header pin 11) and GPIO 27 (header pin 13) are "
        "exchanged: swap them, or swap 17 and 27 in [board.gpio] rows"
    ]


def test_a_missing_diode_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    b2 = 1 * 6 + 1
    outcome = run_check(mock_factory, unlit, {"missing_diodes": [b2]}, {})
    assert outcome.status == 1
    assert "while filling, came on at the same moment: b3, c3, d3, e3" in outcome.out
    assert [kind for kind, _ in outcome.causes] == ["missing diode"], outcome.out
    assert outcome.causes[0][1][0] == "b2"
    # The fill pass already showed the ghosts: the lift pass asks only for the cells
    # whose lift can still show something (b2's row and column, and a few more until
    # the evidence leaves b2 alone), not for the twenty that stay occupied anyway.
    asked = lifts(outcome)
    assert {"b1", "b3", "b4", "b5", "a2", "c2", "d2", "e2", "t2"} <= set(asked)
    assert len(asked) < 16, asked
    assert [s.target for s in outcome.enters] == [n for n in asked if n in ("a1", "c1", "d1", "e1")]
    assert "The lift pass skipped a3 c3 d3 e3 a4" in outcome.out


def test_a_reversed_diode_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    c3 = 2 * 6 + 2
    outcome = run_check(mock_factory, unlit, {"reversed_diodes": [c3]}, {})
    assert outcome.status == 1
    assert "  seen: asked for c3, nothing changed\n" in outcome.out
    assert outcome.causes == [("dead sensor", ("c3",))], outcome.out
    assert "c3 never closed: a reversed diode" in outcome.out
    assert [s.target for s in outcome.enters] == ["c3"]  # a dead sensor shows nothing


def test_a_stuck_switch_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    outcome = run_check(mock_factory, unlit, {}, {"stuck": ["d4"]})
    assert outcome.status == 1
    assert "  seen: with the board empty, occupied: d4\n" in outcome.out
    assert outcome.causes == [("stuck", ("d4",))], outcome.out
    assert outcome.enters == []  # the empty board went on by itself, d4 still closed


def test_a_dead_column_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    outcome = run_check(mock_factory, unlit, {"cut_columns": [2]}, {})
    assert outcome.status == 1
    column = ("c1", "c2", "c3", "c4", "c5", "button:undo")
    assert outcome.causes == [("dead column", column)], outcome.out
    assert "matrix column 2 (GPIO 26, header pin 37) is dead (c1 c2 c3 c4 c5 the Undo " in (
        outcome.out
    )


def test_a_neighbour_that_closes_a_reed_is_named(mock_factory: MockFactory, unlit: Path) -> None:
    talk = {"c3": CrossTalk(towards="d3", operate_at=30.0)}  # d3 and three more close it
    outcome = run_check(mock_factory, unlit, {}, {"crosstalk": talk})
    assert outcome.status == 1
    assert "  seen: lifted c3 with the rest full, it stayed occupied\n" in outcome.out
    assert "next (neighbours, 1 of 1): clear the board, then place pearls on the neighbours" in (
        outcome.out
    )
    assert outcome.causes == [("cross-talk", ("c3",))], outcome.out


def test_a_missing_diode_is_named_on_a_pi(lgpio_pi: LgpioRig, tmp_path: Path) -> None:
    """The Pi's own path: gpiozero's real LGPIOFactory over the lgpio model, the rows
    claimed as one open-drain line group, the LEDs on the kernel's SPI0."""
    config = load_config(quick(tmp_path, leds=True))
    gpio = config.board.gpio
    matrix = DiodeMatrix(lgpio_pi.model, gpio.rows, gpio.cols, missing_diodes=[1 * 6 + 1])
    Apa102Strip(lgpio_pi.model, 37)
    board, cmap = build_board(config, pin_factory=lgpio_pi.factory)
    assert isinstance(board, GpioBoard)
    placed = PearlBoard(cmap.channel_by_name, matrix.switches.set_closed)
    outcome = check_by_hand(
        board, cmap, len(gpio.cols), placed, gpio_looked(board), matrix_wires(config)
    )
    assert [kind for kind, _ in outcome.causes] == ["missing diode"], outcome.out
    assert outcome.causes[0][1][0] == "b2"
