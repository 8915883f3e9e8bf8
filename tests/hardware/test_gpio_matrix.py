"""The matrix wiring, read through mock pins that behave like a reed/diode matrix."""

from __future__ import annotations

import random
import threading

import pytest
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockFactory

from controller.config import DEFAULT_COLS, DEFAULT_ROWS, GpioConfig, LedConfig
from controller.hardware.gpio import GpioBoard, MatrixScanner, _PinClaim
from controller.hardware.port import SensorFrame
from rigs.circuits import DiodeMatrix

ROWS, COLS = DEFAULT_ROWS, DEFAULT_COLS
NO_LEDS = LedConfig(spi=None)


def make_board(rows: tuple[int, ...] = ROWS, cols: tuple[int, ...] = COLS) -> GpioBoard:
    return GpioBoard(GpioConfig(rows=rows, cols=cols), NO_LEDS, 0)


def read_with(matrix: DiodeMatrix, board: GpioBoard, closed: set[int]) -> frozenset[int]:
    matrix.switches.set_closed(closed)
    board.scan_until_settled()
    return board.read().active


def test_every_switch_reads_as_its_own_channel(mock_factory: MockFactory) -> None:
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    with make_board() as board:
        for row in range(len(ROWS)):
            for col in range(len(COLS)):
                switch = matrix.switch(row, col)
                assert read_with(matrix, board, {switch}) == {row * len(COLS) + col}
        assert read_with(matrix, board, set()) == frozenset()


def test_any_set_of_closed_switches_reads_exactly(mock_factory: MockFactory) -> None:
    """With every diode in place there are no ghosts, however many pearls sit on the board."""
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    rng = random.Random(7)
    with make_board() as board:
        for _ in range(60):
            closed = {s for s in range(36) if rng.random() < rng.random()}
            assert read_with(matrix, board, closed) == closed
        assert read_with(matrix, board, set(range(36))) == set(range(36))
    assert matrix.shorts == 0


def test_wrong_row_order_in_config_reads_the_wrong_cells(mock_factory: MockFactory) -> None:
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    swapped = (ROWS[1], ROWS[0], *ROWS[2:])
    with make_board(rows=swapped) as board:
        # The switch on wire row 0 reads as a switch of row 1: the walk in `pyramid diag`
        # (and this test) shows the config does not match the wiring.
        assert read_with(matrix, board, {matrix.switch(0, 2)}) == {1 * 6 + 2}
        assert read_with(matrix, board, {matrix.switch(2, 2)}) == {2 * 6 + 2}


def test_wrong_column_order_reads_the_wrong_cells(mock_factory: MockFactory) -> None:
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    with make_board(cols=tuple(reversed(COLS))) as board:
        assert read_with(matrix, board, {matrix.switch(0, 0)}) == {5}


def test_a_missing_diode_shows_a_ghost(mock_factory: MockFactory) -> None:
    """Three corners of a rectangle closed and the diode at one missing: the fourth ghosts."""

    def s(row: int, col: int) -> int:
        return row * len(COLS) + col

    matrix = DiodeMatrix(mock_factory, ROWS, COLS, missing_diodes={s(0, 0)})
    corners = {s(0, 0), s(0, 1), s(1, 0)}
    with make_board() as board:
        read = read_with(matrix, board, corners)
    assert read == corners | {s(1, 1)}
    # Rows left floating while not selected: the missing diode makes a ghost, never a short.
    assert matrix.shorts == 0


def test_with_every_diode_the_same_rectangle_has_no_ghost(mock_factory: MockFactory) -> None:
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    corners = {matrix.switch(0, 0), matrix.switch(0, 1), matrix.switch(1, 0)}
    with make_board() as board:
        assert read_with(matrix, board, corners) == corners


def test_rows_driven_high_would_short_through_a_missing_diode(mock_factory: MockFactory) -> None:
    """Why the scanner floats the unselected rows: driving them high shorts two GPIOs."""
    matrix = DiodeMatrix(mock_factory, ROWS[:2], COLS[:2], missing_diodes={0})
    matrix.switches.press(matrix.switch(0, 0), matrix.switch(1, 0))
    row0, row1 = mock_factory.pin(ROWS[0]), mock_factory.pin(ROWS[1])
    col0 = mock_factory.pin(COLS[0])
    col0.input_with_pull("up")
    row0.output_with_state(True)
    row1.output_with_state(False)
    assert col0.state is False
    assert matrix.shorts >= 1


def test_each_scan_leaves_every_row_floating(mock_factory: MockFactory) -> None:
    DiodeMatrix(mock_factory, ROWS, COLS)
    claim = _PinClaim("test")
    scanner = MatrixScanner(mock_factory, claim, ROWS, COLS)
    scanner.scan()
    assert all(mock_factory.pin(g).function == "input" for g in ROWS)
    assert all(mock_factory.pin(g).pull == "up" for g in COLS)
    scanner.close()


def test_settle_time_is_honoured(mock_factory: MockFactory) -> None:
    import time

    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    matrix.switches.press(3)
    slow = MatrixScanner(mock_factory, _PinClaim("slow"), ROWS, COLS, settle_us=500)
    start = time.perf_counter()
    assert slow.scan() == 1 << 3
    assert time.perf_counter() - start >= 6 * 500e-6
    slow.close()


def test_scan_thread_delivers_frames(mock_factory: MockFactory) -> None:
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    frames: list[SensorFrame] = []
    arrived = threading.Event()

    def on_frame(frame: SensorFrame) -> None:
        frames.append(frame)
        arrived.set()

    with make_board() as board:
        board.start(on_frame)
        matrix.switches.press(matrix.switch(2, 2))
        assert arrived.wait(1.0)
        assert frames[-1].active == {14}
        arrived.clear()
        matrix.switches.release(matrix.switch(2, 2))
        assert arrived.wait(1.0)
        assert frames[-1].active == frozenset()
        assert [f.seq for f in frames] == [1, 2]
        status = board.status()
    assert status.adapter == "gpio"
    assert "matrix 6×6" in status.detail
    assert status.toggles == {14: 2}
    assert status.counters["frames"] == 2
    assert status.counters["scans"] > status.counters["fast_scans"] > 0


def test_pins_are_reserved_until_close(mock_factory: MockFactory) -> None:
    DiodeMatrix(mock_factory, ROWS, COLS)
    board = make_board()
    with pytest.raises(GPIOPinInUse):
        make_board()
    board.close()
    board.close()  # twice is harmless
    make_board().close()


def test_a_closed_board_cannot_start(mock_factory: MockFactory) -> None:
    DiodeMatrix(mock_factory, ROWS, COLS)
    board = make_board()
    board.close()
    with pytest.raises(RuntimeError):
        board.start()


def test_glitch_window_follows_the_timing(mock_factory: MockFactory) -> None:
    """agree scans must agree: with agree=2 a change needs exactly two scans."""
    matrix = DiodeMatrix(mock_factory, ROWS, COLS)
    config = GpioConfig(idle_ms=8, fast_ms=1, agree=2)
    with GpioBoard(config, NO_LEDS, 0) as board:
        matrix.switches.press(0)
        assert board.scan_once(now=0.0) == pytest.approx(0.001)
        assert board.read().active == frozenset()
        board.scan_once(now=0.001)
        assert board.read().active == {0}


def test_a_running_board_shortens_the_gil_switch_interval(mock_factory: MockFactory) -> None:
    """So a busy thread elsewhere in the process cannot hold the scan thread off for 5 ms."""
    import sys

    from controller.hardware.gpio import SWITCH_INTERVAL_S

    DiodeMatrix(mock_factory, ROWS, COLS)
    before = sys.getswitchinterval()
    board = make_board()
    board.start()
    assert sys.getswitchinterval() == min(before, SWITCH_INTERVAL_S)
    board.close()
    assert sys.getswitchinterval() == before
