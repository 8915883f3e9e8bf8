"""Direct wiring: one GPIO per sensor, with edges that wake the scanner at once."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from gpiozero.pins.mock import MockFactory

from controller.config import GpioConfig, LedConfig, ScanTiming
from controller.hardware.gpio import GpioBoard
from controller.hardware.mock_circuits import DirectWiring
from controller.hardware.port import SensorFrame

PINS = (4, 17, 27, 22, 5, 6, 13, 19)
NO_LEDS = LedConfig(spi=None)


def direct_config() -> GpioConfig:
    return GpioConfig("direct", rows=(), cols=(), pins=PINS)


def test_every_pin_reads_as_its_channel(mock_factory: MockFactory) -> None:
    wiring = DirectWiring(mock_factory, PINS)
    with GpioBoard(direct_config(), NO_LEDS, 0) as board:
        for channel in range(len(PINS)):
            wiring.switches.set_closed({channel})
            board.scan_until_settled()
            assert board.read().active == {channel}
        assert all(mock_factory.pin(g).pull == "up" for g in PINS)


def test_active_high_sensors_are_pulled_down(mock_factory: MockFactory) -> None:
    wiring = DirectWiring(mock_factory, PINS, active="high")
    with GpioBoard(replace(direct_config(), active="high"), NO_LEDS, 0) as board:
        board.scan_until_settled()
        assert board.read().active == frozenset()
        wiring.switches.press(2, 7)
        board.scan_until_settled()
        assert board.read().active == {2, 7}
        assert all(mock_factory.pin(g).pull == "down" for g in PINS)


def test_an_edge_wakes_the_scanner_long_before_the_idle_scan(mock_factory: MockFactory) -> None:
    """Idle scans every 100 ms, yet each press arrives within a few fast scans."""
    wiring = DirectWiring(mock_factory, PINS)
    timing = ScanTiming(idle_ms=100, fast_ms=1, agree=3)
    frames: list[tuple[float, SensorFrame]] = []
    arrived = threading.Event()

    def on_frame(frame: SensorFrame) -> None:
        frames.append((time.monotonic(), frame))
        arrived.set()

    latencies = []
    with GpioBoard(replace(direct_config(), scan=timing), NO_LEDS, 0) as board:
        board.start(on_frame)
        time.sleep(0.05)
        for i in range(6):
            time.sleep(0.023)  # never in step with the idle scans
            arrived.clear()
            pressed = time.monotonic()
            wiring.switches.set_closed({i})
            assert arrived.wait(1.0)
            latencies.append(frames[-1][0] - pressed)
            assert i in frames[-1][1].active
    # Without the wake-up, a press waits 50 ms on average for an idle scan; five of six
    # all under 40 ms would happen by chance about once in a hundred runs.
    assert sorted(latencies)[-2] < 0.040, latencies


def test_close_stops_edge_callbacks(mock_factory: MockFactory) -> None:
    wiring = DirectWiring(mock_factory, PINS)
    board = GpioBoard(direct_config(), NO_LEDS, 0)
    board.start()
    assert mock_factory.pin(PINS[0]).when_changed is not None
    board.close()
    assert all(mock_factory.pin(g).when_changed is None for g in PINS)
    wiring.switches.press(0)  # nothing listens any more; nothing breaks
