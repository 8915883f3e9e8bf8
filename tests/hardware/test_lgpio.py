"""The gpio adapter on what a Pi runs: gpiozero's real LGPIOFactory over the lgpio model.

The model (``rigs/lgpio_model.py``) behaves as lgpio documents; the same
circuit models as on MockFactory (diode matrix, multiplexers, direct sensors, an APA102
strip on the kernel's SPI) are attached to its lines, so a wiring fault fails here too.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import threading

import pytest

from controller.config import ConfigError, GpioConfig, LedConfig, config_from_toml
from controller.hardware.adapters import build_board
from controller.hardware.apa102 import apparent
from controller.hardware.gpio import GpioBoard, MatrixScanner, _PinClaim
from controller.hardware.port import Led, LedFrame, SensorFrame
from controller.hardware.wiring import DEFAULT_COLS, DEFAULT_ROWS
from rigs.circuits import Apa102Strip, DiodeMatrix, DirectWiring, MuxBank
from rigs.lgpio_model import (
    PI4,
    PI5,
    PI5_KERNEL_6_1,
    LgpioModel,
    PiBoard,
    error,
)

from .conftest import LgpioRig

ROWS, COLS = DEFAULT_ROWS, DEFAULT_COLS
NO_LEDS = LedConfig(spi=None)
MUX = GpioConfig("mux", select=(5, 6, 13, 19), signals=(26, 16), enable=20)
DIRECT = GpioConfig("direct", pins=(4, 17, 27, 22, 5, 6, 13, 19))


def read_with(
    contacts: DiodeMatrix | MuxBank, board: GpioBoard, closed: set[int]
) -> frozenset[int]:
    bank = contacts.switches if isinstance(contacts, DiodeMatrix) else contacts.sensors
    bank.set_closed(closed)
    board.scan_until_settled()
    return board.read().active


# -- the model itself, as lgpio documents it -----------------------------------------------------


def test_the_model_refuses_what_lgpio_refuses() -> None:
    model = LgpioModel()
    handle = model.gpiochip_open(0)
    with pytest.raises(error, match="can not open gpiochip"):
        model.gpiochip_open(4)
    model.group_claim_output(handle, [4, 17], [1, 1], model.SET_OPEN_DRAIN)
    with pytest.raises(error, match="GPIO busy"):
        model.gpio_claim_input(handle, 17)  # a group member is not freed for a singleton
    with pytest.raises(error, match="GPIO not the group leader"):
        model.group_read(handle, 17)
    with pytest.raises(error, match="GPIO not allocated"):
        model.gpio_free(handle, 22)
    with pytest.raises(error, match="can not open SPI device"):
        model.spi_open(0, 0, 500_000, 0)
    model.group_free(handle, 4)
    model.gpio_claim_input(handle, 17, model.SET_PULL_UP)
    assert model.gpio_read(handle, 17) == 1  # nothing drives it: the pull-up decides


def test_a_direction_change_re_requests_the_line() -> None:
    """What gpiozero's pins cost per matrix row: two line requests, a mode query, a write."""
    model = LgpioModel()
    handle = model.gpiochip_open(0)
    model.gpio_claim_input(handle, 4)
    model.requests = 0
    model.gpio_claim_input(handle, 4)  # same direction: nothing happens
    assert model.requests == 0
    model.gpio_claim_output(handle, 4, 0)
    model.gpio_claim_input(handle, 4)
    assert model.requests == 2


def test_open_drain_high_lets_the_line_float() -> None:
    model = LgpioModel()
    handle = model.gpiochip_open(0)
    model.gpio_claim_output(handle, 4, 1, model.SET_OPEN_DRAIN)
    assert model.drive(4) is None
    model.gpio_write(handle, 4, 0)
    assert model.drive(4) is False


# -- the matrix --------------------------------------------------------------------------------


def test_one_matrix_scan_claims_nothing_and_reads_each_row_once(lgpio_pi: LgpioRig) -> None:
    model = lgpio_pi.model
    DiodeMatrix(model, ROWS, COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        model.calls.clear()
        model.requests = 0
        board.scan_once()
        assert model.requests == 0
        assert dict(model.calls) == {"group_write": 12, "group_read": 6}
        assert "line groups" in board.status().detail


def test_gpiozero_pins_would_re_request_every_row_twice_a_scan(lgpio_pi: LgpioRig) -> None:
    """Why the matrix scanner uses line groups on lgpio (the cost the issue measured)."""
    model = lgpio_pi.model
    DiodeMatrix(model, ROWS, COLS)
    scanner = MatrixScanner(lgpio_pi.factory, _PinClaim("pins"), ROWS, COLS)
    model.calls.clear()
    model.requests = 0
    scanner.scan()
    scanner.close()
    assert model.requests == 12
    assert model.calls["gpio_read"] == 36 and model.calls["gpio_get_mode"] == 6


def test_rows_are_open_drain_and_columns_pulled_up(lgpio_pi: LgpioRig) -> None:
    model = lgpio_pi.model
    DiodeMatrix(model, ROWS, COLS)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        board.scan_once()
        handle = lgpio_pi.factory._handle
        assert handle is not None  # the factory is open
        for gpio in ROWS:
            mode = model.gpio_get_mode(handle, gpio)
            assert mode & 8 and mode & 2  # open drain, output
            assert model.drive(gpio) is None  # every row let go between scans
        for gpio in COLS:
            assert model.gpio_get_mode(handle, gpio) & 32  # pull-up
    assert not any(model.claimed(g) for g in ROWS + COLS)  # closing let every line go


def test_the_pads_keep_their_reset_pulls_until_a_claim_sets_one() -> None:
    """The kernel's "as is": a request without a bias flag, and freeing it, keep the pull."""
    for board in (PI4, PI5, PI5_KERNEL_6_1):
        model = LgpioModel(board=board)
        assert [model.pull(g) for g in (4, 5, 6, 8, 9, 17, 22, 27)] == ["up"] * 4 + ["down"] * 4
        handle = model.gpiochip_open(board.header)
        model.group_claim_output(handle, [17, 27], [1, 1], model.SET_OPEN_DRAIN)
        assert model.pull(17) == "down" and model.level(17) is False  # released, pulled down
        model.group_free(handle, 17)
        model.gpio_claim_input(handle, 17, model.SET_PULL_NONE)
        model.gpio_free(handle, 17)
        assert model.pull(17) == "none"  # until the next reboot


def test_released_rows_never_keep_the_reset_pull_down(lgpio_pi: LgpioRig) -> None:
    """Issue 21, item 4: GPIO 17, 27 and 22 (rows 1–3) come out of reset pulled down; let
    go with that pull, each draws current through its closed switches and drags their
    column under V_IH (with the Pi's own pull-ups a single pearl does), so every other
    row of that file reads occupied. The rows must be claimed with the pull-up on."""
    model = lgpio_pi.model
    assert [model.pull(g) for g in ROWS] == ["up", "down", "down", "down", "up", "up"]
    matrix = DiodeMatrix(model, ROWS, COLS)
    pearls = {matrix.switch(1, 0), matrix.switch(2, 0), matrix.switch(3, 0)}  # a2 a3 a4
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert [model.pull(g) for g in ROWS] == ["up"] * 6
        assert read_with(matrix, board, {matrix.switch(2, 0)}) == {matrix.switch(2, 0)}
        assert read_with(matrix, board, pearls) == pearls
    # Closed, the lines stay inputs pulled up, so whatever reads the board next (diag
    # after `systemctl stop`, or the service after diag) finds it as the scan left it.
    assert [model.pull(g) for g in ROWS + COLS] == ["up"] * 12
    assert not any(model.claimed(g) for g in ROWS + COLS)


def test_every_switch_and_any_set_read_exactly_on_lgpio(lgpio_pi: LgpioRig) -> None:
    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    rng = random.Random(5)
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        for switch in range(36):
            assert read_with(matrix, board, {switch}) == {switch}
        for _ in range(30):
            closed = {s for s in range(36) if rng.random() < 0.4}
            assert read_with(matrix, board, closed) == closed
    assert matrix.shorts == 0


def test_a_missing_diode_is_a_ghost_never_a_short_on_lgpio(lgpio_pi: LgpioRig) -> None:
    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS, missing_diodes={0})
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert read_with(matrix, board, {0, 1, 6}) == {0, 1, 6, 7}
    assert matrix.shorts == 0


def test_a_reversed_diode_never_reads(lgpio_pi: LgpioRig) -> None:
    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS, reversed_diodes={14})
    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert read_with(matrix, board, {13, 14}) == {13}


def test_swapped_rows_read_the_wrong_cells_on_lgpio(lgpio_pi: LgpioRig) -> None:
    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    swapped = GpioConfig(rows=(ROWS[1], ROWS[0], *ROWS[2:]))
    with GpioBoard(swapped, NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert read_with(matrix, board, {matrix.switch(0, 2)}) == {8}


def test_a_line_held_elsewhere_stops_the_board_with_lgpios_reason() -> None:
    from rigs.lgpio_model import close_factory, lgpio_factory

    model = LgpioModel(kernel_lines={ROWS[3]})  # e.g. an overlay's driver owns GPIO 22
    factory = lgpio_factory(model)
    try:
        with pytest.raises(error, match="GPIO busy"):
            GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=factory)
        assert not any(model.claimed(g) for g in ROWS + COLS)  # nothing left half-claimed
    finally:
        close_factory(factory)


def test_the_scan_thread_delivers_frames_on_lgpio(lgpio_pi: LgpioRig) -> None:
    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    frames: list[SensorFrame] = []
    arrived = threading.Event()

    def on_frame(frame: SensorFrame) -> None:
        frames.append(frame)
        arrived.set()

    with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        board.start(on_frame)
        matrix.switches.press(20)
        assert arrived.wait(1.0)
    assert frames[-1].active == {20}


# -- multiplexers and direct wiring ----------------------------------------------------------------


def test_mux_scan_is_one_write_and_one_read_per_address(lgpio_pi: LgpioRig) -> None:
    model = lgpio_pi.model
    bank = MuxBank(model, MUX.select, MUX.signals, enable=20)
    with GpioBoard(MUX, NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        for sensor in (0, 5, 15, 16, 31):
            assert read_with(bank, board, {sensor}) == {sensor}
        assert read_with(bank, board, {1, 2, 17, 30}) == {1, 2, 17, 30}
        model.calls.clear()
        board.scan_once()
        assert dict(model.calls) == {"group_write": 16, "group_read": 16}
    assert model.drive(20) is None  # EN let go (the breakout's pull-up disables the muxes)


def test_active_high_mux_sensors_on_lgpio(lgpio_pi: LgpioRig) -> None:
    bank = MuxBank(lgpio_pi.model, MUX.select, MUX.signals, enable=20, active="high")
    config = dataclasses.replace(MUX, active="high")
    with GpioBoard(config, NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        assert read_with(bank, board, {3, 19}) == {3, 19}


def test_direct_sensors_wake_the_scan_thread_through_lgpio_alerts(lgpio_pi: LgpioRig) -> None:
    wiring = DirectWiring(lgpio_pi.model, DIRECT.pins)
    slow = dataclasses.replace(DIRECT, idle_ms=100, fast_ms=1, agree=3)
    arrived = threading.Event()
    with GpioBoard(slow, NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        board.start(lambda frame: arrived.set())
        wiring.switches.press(3)
        assert arrived.wait(1.0)
        assert board.read().active == {3}
        assert lgpio_pi.model.calls["callback"] == len(DIRECT.pins)


# -- LEDs on the kernel's SPI ----------------------------------------------------------------------


def test_leds_go_through_the_kernels_spi(lgpio_pi: LgpioRig) -> None:
    model = lgpio_pi.model
    DiodeMatrix(model, ROWS, COLS)
    strip = Apa102Strip(model, 4)
    with GpioBoard(GpioConfig(), LedConfig(brightness=1.0), 4, pin_factory=lgpio_pi.factory) as b:
        model.calls.clear()
        b.show(LedFrame((Led((255, 0, 0)), Led((0, 9, 0)), Led(), Led((1, 2, 3)))))
        assert strip.colours() == [(255, 0, 0), (0, 9, 0), (0, 0, 0), (1, 2, 3)]
        assert dict(model.calls) == {"spi_write": 1}  # one write a picture, no pin calls
        assert "SPI0 (hardware, /dev/spidev0.0, 2 MHz)" in b.status().detail
    assert strip.colours() == [(0, 0, 0)] * 4  # blanked on close


def test_spi_off_is_a_config_error_that_says_the_fix(lgpio_pi_without_spi: LgpioRig) -> None:
    """gpiozero would only warn and bit-bang the LEDs; the board refuses to start."""
    DiodeMatrix(lgpio_pi_without_spi.model, ROWS, COLS)
    config = config_from_toml('[board]\nadapter = "gpio"\n')
    with pytest.raises(ConfigError) as caught:
        build_board(config, pin_factory=lgpio_pi_without_spi.factory)
    assert caught.value.key == "leds.spi"
    assert "can not open SPI device" in caught.value.problem
    assert "sudo raspi-config nonint do_spi 0" in caught.value.problem
    assert "`spi` group" in caught.value.problem
    model = lgpio_pi_without_spi.model
    assert not any(model.claimed(g) for g in ROWS + COLS)  # the sensor lines let go
    assert all(model.drive(g) is None for g in (8, 10, 11))  # gpiozero's SPI pins: inputs
    # ... and a board that could start after all uses the same pins again:
    build_board(config_from_toml(_NO_LEDS_GPIO), pin_factory=lgpio_pi_without_spi.factory)[
        0
    ].close()


_NO_LEDS_GPIO = '[board]\nadapter = "gpio"\n[leds]\nspi = false\n'


def test_bit_banging_on_other_pins_is_allowed_and_said(lgpio_pi_without_spi: LgpioRig) -> None:
    model = lgpio_pi_without_spi.model
    DiodeMatrix(model, ROWS, COLS)
    leds = LedConfig(
        brightness=1.0,
        spi=config_from_toml("[leds]\nspi = { clock = 24, mosi = 23, select = 25 }").leds.spi,
    )
    with GpioBoard(GpioConfig(), leds, 2, pin_factory=lgpio_pi_without_spi.factory) as board:
        model.calls.clear()
        board.show(LedFrame((Led((1, 2, 3)), Led((4, 5, 6)))))
        assert "GPIO 24/23 (bit-banged)" in board.status().detail
        assert sum(model.calls.values()) > 200  # one call per clock edge and data bit


def test_apparent_colours_match_on_spi(lgpio_pi: LgpioRig) -> None:
    DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    strip = Apa102Strip(lgpio_pi.model, 2)
    with GpioBoard(GpioConfig(), LedConfig(brightness=0.25), 2, pin_factory=lgpio_pi.factory) as b:
        b.show(LedFrame((Led((255, 255, 255)), Led((200, 100, 0)))))
        assert strip.colours() == [apparent((255, 255, 255), 0.25), apparent((200, 100, 0), 0.25)]


def test_diag_shows_the_spi_really_in_use(lgpio_pi: LgpioRig) -> None:
    from controller.cli.diag import _Cpu, status_line

    DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    Apa102Strip(lgpio_pi.model, 3)
    with GpioBoard(GpioConfig(), LedConfig(), 3, pin_factory=lgpio_pi.factory) as board:
        line = status_line(board, _Cpu())
    assert "APA102 ×3 on SPI0 (hardware, /dev/spidev0.0, 2 MHz)" in line
    assert board.spi_in_use == "SPI0 (hardware, /dev/spidev0.0, 2 MHz)"


def test_settle_time_is_honoured_on_lgpio(lgpio_pi: LgpioRig) -> None:
    import time

    matrix = DiodeMatrix(lgpio_pi.model, ROWS, COLS)
    matrix.switches.press(3)
    config = dataclasses.replace(GpioConfig(), settle_us=500)
    with GpioBoard(config, NO_LEDS, 0, pin_factory=lgpio_pi.factory) as board:
        start = time.perf_counter()
        board.scan_once()
        assert time.perf_counter() - start >= 6 * 500e-6  # a wait after each row's pull
        board.scan_until_settled()
        assert board.read().active == {3}


# -- a Pi 4 and a Pi 5 -------------------------------------------------------------------------


@pytest.mark.parametrize("pi", [PI4, PI5, PI5_KERNEL_6_1], ids=lambda pi: pi.name)
def test_gpiozero_finds_the_header_on_a_pi_4_and_a_pi_5(pi: PiBoard) -> None:
    """gpiozero ≥ 2.0.1.post3 opens the RP1's gpiochip on a Pi 5 (the fifth chip until
    kernel 6.6.45, the first since, where /dev/gpiochip4 links to it); 2.0.1.post2 failed
    there, using ``os`` without importing it."""
    from rigs.lgpio_model import close_factory, lgpio_factory

    model = LgpioModel(board=pi)
    factory = lgpio_factory(model)
    try:
        assert model.opened == ["pinctrl-rp1" if pi.pads.name == "RP1" else "pinctrl-bcm2711"]
        matrix = DiodeMatrix(model, ROWS, COLS)
        with GpioBoard(GpioConfig(), NO_LEDS, 0, pin_factory=factory) as board:
            assert read_with(matrix, board, {7, 13, 19}) == {7, 13, 19}
    finally:
        close_factory(factory)


def test_the_model_has_no_lines_on_a_pi_5s_other_gpiochips() -> None:
    model = LgpioModel(board=PI5_KERNEL_6_1)
    handle = model.gpiochip_open(0)  # the SoC's own gpio-brcmstb, not the header
    with pytest.raises(RuntimeError, match=r"header of a Raspberry Pi 5 .* is gpiochip4"):
        model.gpio_claim_input(handle, 17)


def test_gpiozero_before_post3_fails_on_a_pi_5_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why pyproject.toml asks for gpiozero ≥ 2.0.1.post3: 2.0.1.post2's lgpio pins use
    ``os`` without importing it, which only a Pi 5 reaches (the revision test comes
    first). Taking ``os`` away from the module plays post2 here."""
    from rigs.lgpio_model import close_factory, install, lgpio_factory

    monkeypatch.setitem(sys.modules, "lgpio", LgpioModel())
    install(LgpioModel())  # gpiozero's lgpio pins import the model, not the C extension
    from gpiozero.pins import lgpio as pins

    monkeypatch.delattr(pins, "os")
    close_factory(lgpio_factory(LgpioModel(board=PI4)))
    with pytest.raises(NameError, match="'os' is not defined"):
        lgpio_factory(LgpioModel(board=PI5))
