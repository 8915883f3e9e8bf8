"""Direct wiring: one GPIO per sensor, with edges that wake the scanner at once."""

from __future__ import annotations

from dataclasses import replace

from gpiozero.pins.mock import MockFactory

from controller.config import GpioConfig, LedConfig
from controller.hardware.gpio import GpioBoard
from controller.hardware.port import SensorFrame
from rigs.circuits import DirectWiring
from rigs.poll import wait_until

PINS = (4, 17, 27, 22, 5, 6, 13, 19)
NO_LEDS = LedConfig(spi=None)


def direct_config() -> GpioConfig:
    return GpioConfig("direct", pins=PINS)


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
    """Idle scans every 100 ms, yet each press arrives after a few fast scans.

    The board's clock is virtual and moves one fast scan (1 ms) each time the scan thread
    has scanned: after a press, only an edge can start those scans, since the next idle
    scan is 100 virtual ms away, and each press must arrive within the debounce's three.
    """
    wiring = DirectWiring(mock_factory, PINS)
    frames: list[SensorFrame] = []
    now = [0.0]
    timing = replace(direct_config(), idle_ms=100, fast_ms=1, agree=3)
    with GpioBoard(timing, NO_LEDS, 0, clock=lambda: now[0]) as board:
        board.start(frames.append)

        def scans() -> int:
            return board.status().counters["scans"]

        wait_until(lambda: scans() >= 1)  # the first scan, at 0: idle until 0.1 now
        for i in range(6):
            pressed, counted = now[0], scans()
            wiring.switches.set_closed({i})

            def arrived(channel: int = i) -> bool:
                nonlocal counted
                if frames and channel in frames[-1].active:
                    return True
                if scans() > counted:  # one more fast scan done: 1 ms passes
                    counted = scans()
                    now[0] += timing.fast_ms / 1000
                return False

            wait_until(arrived, what=lambda: f"{scans()} scans, t = {now[0]}")
            assert frames[-1].at - pressed <= 4 * timing.fast_ms / 1000  # not the idle scan
            assert frames[-1].active == {i}


def test_close_stops_edge_callbacks(mock_factory: MockFactory) -> None:
    wiring = DirectWiring(mock_factory, PINS)
    board = GpioBoard(direct_config(), NO_LEDS, 0)
    board.start()
    assert mock_factory.pin(PINS[0]).when_changed is not None
    board.close()
    assert all(mock_factory.pin(g).when_changed is None for g in PINS)
    wiring.switches.press(0)  # nothing listens any more; nothing breaks
