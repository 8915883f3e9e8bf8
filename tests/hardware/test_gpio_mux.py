"""The multiplexer wiring: CD74HC4067s whose select lines choose the sensor on each signal."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from gpiozero.pins.mock import MockFactory

from controller.config import GpioConfig, LedConfig
from controller.hardware.gpio import GRAY_CODES, GpioBoard
from rigs.circuits import MuxBank

SELECT = (5, 6, 13, 19)
SIGNALS = (26, 16)
ENABLE = 20
NO_LEDS = LedConfig(spi=None)


def mux_config() -> GpioConfig:
    return GpioConfig("mux", select=SELECT, signals=SIGNALS, enable=ENABLE)


def read_with(bank: MuxBank, board: GpioBoard, active: set[int]) -> frozenset[int]:
    bank.sensors.set_closed(active)
    board.scan_until_settled()
    return board.read().active


def test_every_sensor_reads_as_its_own_channel(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    with GpioBoard(mux_config(), NO_LEDS, 0) as board:
        assert board.channels == 32
        for sensor in range(32):
            assert read_with(bank, board, {sensor}) == {sensor}


def test_random_sets_read_exactly(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    rng = random.Random(11)
    with GpioBoard(mux_config(), NO_LEDS, 0) as board:
        for _ in range(40):
            active = {s for s in range(32) if rng.random() < 0.3}
            assert read_with(bank, board, active) == active


def test_select_lines_in_the_wrong_order_read_the_wrong_sensor(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    swapped = (SELECT[1], SELECT[0], *SELECT[2:])  # S0 and S1 crossed
    with GpioBoard(replace(mux_config(), select=swapped), NO_LEDS, 0) as board:
        assert read_with(bank, board, {1}) == {2}
        assert read_with(bank, board, {3}) == {3}  # symmetric addresses hide it


def test_signals_in_the_wrong_order_swap_the_muxes(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    with GpioBoard(replace(mux_config(), signals=tuple(reversed(SIGNALS))), NO_LEDS, 0) as board:
        assert read_with(bank, board, {4}) == {16 + 4}


def test_one_select_write_per_address(mock_factory: MockFactory) -> None:
    """Gray-code order: a full scan of 16 addresses changes exactly 16 select levels."""
    MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    with GpioBoard(mux_config(), NO_LEDS, 0) as board:
        board.scan_once()
        pins = [mock_factory.pin(g) for g in SELECT]
        for pin in pins:
            pin.clear_states()
        board.scan_once()
        changes = sum(len(pin.states) - 1 for pin in pins)
    assert changes == 16
    assert all(bin(a ^ b).count("1") == 1 for a, b in itertools.pairwise(GRAY_CODES))


def test_enable_is_held_low_while_scanning_and_released_on_close(
    mock_factory: MockFactory,
) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    bank.sensors.press(0)
    enable = mock_factory.pin(ENABLE)
    board = GpioBoard(mux_config(), NO_LEDS, 0)
    board.scan_until_settled()
    assert board.read().active == {0}
    assert enable.function == "output" and enable.state is False
    board.close()
    assert enable.function == "input"


def test_without_enable_pin_the_mux_is_read(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS)
    with GpioBoard(replace(mux_config(), enable=None), NO_LEDS, 0) as board:
        assert read_with(bank, board, {31}) == {31}


def test_a_disabled_mux_reads_nothing(mock_factory: MockFactory) -> None:
    """EN left high (a wiring fault): the signal pins only see their pull-ups."""
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE)
    with GpioBoard(replace(mux_config(), enable=None), NO_LEDS, 0) as board:  # EN never driven
        assert read_with(bank, board, {0, 17}) == frozenset()


def test_active_high_sensors(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE, active="high")
    with GpioBoard(replace(mux_config(), active="high"), NO_LEDS, 0) as board:
        assert read_with(bank, board, {9, 20}) == {9, 20}
        assert mock_factory.pin(SIGNALS[0]).pull == "down"


def test_push_pull_sensors_read_as_active_low_are_inverted(mock_factory: MockFactory) -> None:
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE, active="high")
    with GpioBoard(replace(mux_config(), active="low"), NO_LEDS, 0) as board:
        assert read_with(bank, board, {0}) == set(range(1, 32))


def test_open_drain_sensors_read_as_active_high_never_show(mock_factory: MockFactory) -> None:
    """The pull-down holds an open-drain output low whatever the magnet does."""
    bank = MuxBank(mock_factory, SELECT, SIGNALS, enable=ENABLE, active="low")
    with GpioBoard(replace(mux_config(), active="high"), NO_LEDS, 0) as board:
        assert read_with(bank, board, {0, 5}) == frozenset()
        assert read_with(bank, board, set()) == frozenset()
