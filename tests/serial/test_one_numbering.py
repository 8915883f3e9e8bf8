"""One board, one numbering: a diode matrix moved from a Pi to a Pico reads the same.

The ground truth is the wiring: a reed at the crossing of row wire r and column wire c
(hardware/README.md's tables). Behind a Pi, the gpio adapter scans it on gpiozero's mock
pins with configs/matrix.toml; behind a Pico, the real firmware (MicroPython's unix port
on the simulated chip) scans it with firmware/config.py as shipped, and the serial adapter
names its channels with configs/serial.toml. Every crossing must get the same name, and
both configs the same LED chain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from serial_helpers import Recorder

from controller.config import LedConfig, load_config
from controller.hardware.channels import ChannelMap
from controller.hardware.gpio import GpioBoard
from controller.hardware.serial import SerialBoard
from firmware import config as firmware_config
from firmware.sim.harness import SimPico
from rigs.circuits import DiodeMatrix
from rigs.pins import mock_pins

ROOT: Final = Path(__file__).resolve().parents[2]
PI = load_config(ROOT / "configs" / "matrix.toml").board
PICO = load_config(ROOT / "configs" / "serial.toml").board
CROSSINGS: Final = [
    (r, c) for r in range(len(firmware_config.ROW_PINS)) for c in range(len(PI.gpio.cols))
]


def test_the_pi_and_the_pico_configs_name_every_channel_and_led_alike(tmp_path: Path) -> None:
    assert PI.channel_map == PICO.channel_map == ChannelMap.matrix()
    assert len(PI.gpio.rows) == len(firmware_config.ROW_PINS)
    assert len(PI.gpio.cols) == len(firmware_config.COLUMN_PINS)
    assert PICO.channel_map.led_count == firmware_config.LED_COUNT
    assert PICO.channel_map.channel("button:confirm") == firmware_config.MAINTENANCE_CHANNEL
    # A Pi config without tables numbers a 6 × 6 matrix the same way.
    bare = tmp_path / "config.toml"
    bare.write_text("[board]\nadapter = 'gpio'\n")
    assert load_config(bare).board.channel_map == PI.channel_map


def _names_behind_the_pi() -> dict[tuple[int, int], frozenset[str]]:
    found: dict[tuple[int, int], frozenset[str]] = {}
    with mock_pins() as factory:
        matrix = DiodeMatrix(factory, PI.gpio.rows, PI.gpio.cols)
        with GpioBoard(PI.gpio, LedConfig(spi=None), 0, pin_factory=factory) as board:
            for r, c in CROSSINGS:
                matrix.switches.set_closed({matrix.switch(r, c)})
                board.scan_until_settled()
                found[r, c] = PI.channel_map.names_of(board.read().active)
    return found


def test_every_crossing_reads_as_the_same_name_behind_a_pi_and_a_pico(
    pico: SimPico, board: SerialBoard, recorder: Recorder
) -> None:
    behind_pi = _names_behind_the_pi()
    width = len(firmware_config.COLUMN_PINS)
    for r, c in CROSSINGS:
        # The simulated chip closes the switch between ROW_PINS[r] and COLUMN_PINS[c].
        channel = r * width + c
        assert pico.config.pins_of(channel) == (
            firmware_config.ROW_PINS[r],
            firmware_config.COLUMN_PINS[c],
        )
        if channel >= PICO.channel_map.channel_count:  # 33–35: spare, named by neither
            assert behind_pi[r, c] == frozenset()
            continue
        pico.set_active({channel})
        frame = recorder.wait_for_active({channel})
        assert PICO.channel_map.names_of(frame.active) == behind_pi[r, c], (r, c)
    named = {name for names in behind_pi.values() for name in names}
    assert named == set(PI.channel_map.channel_by_name)  # every name is some crossing
