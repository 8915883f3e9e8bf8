"""Firmware 1.0.0 (tests/firmware/v1_0_0/, as released) meets a host that knows ``T``.

A Pico that was never flashed again drops the tune line as unknown, counts it, answers
nothing and carries on; the host adapter, told there is a buzzer, hears no answer and
stops counting on one. Runs the old files on the simulated chip of firmware/sim.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from fw_helpers import FAST, of, raw_host

from controller.hardware.port import Sound
from controller.hardware.serial import LinkTiming, SerialBoard
from firmware import protocol
from firmware.sim.harness import FIRMWARE_DIR, SimPico
from rigs.poll import wait_until

OLD = Path(__file__).resolve().parent / "v1_0_0"
OLD_CONFIG = FAST.source().replace(repr(FAST.version), repr("1.0.0"))


@pytest.fixture
def old_pico(tmp_path: Path) -> Iterator[SimPico]:
    flash = tmp_path / "flash"
    flash.mkdir()
    for name in ("main.py", "protocol.py"):
        shutil.copyfile(OLD / name, flash / name)
    shutil.copyfile(FIRMWARE_DIR / "debounce.py", flash / "debounce.py")
    (flash / "config.py").write_text(OLD_CONFIG)
    for name in ("chip.py", "machine.py", "neopixel.py", "ticks.py"):
        shutil.copyfile(FIRMWARE_DIR / "sim" / name, flash / name)
    with SimPico(FAST, flash_dir=flash) as pico:
        yield pico


def protocol_1_0_0() -> ModuleType:
    """Firmware 1.0.0's protocol.py, loaded apart from this checkout's."""
    spec = importlib.util.spec_from_file_location("protocol_1_0_0", OLD / "protocol.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_old_parser_refuses_a_tune_line() -> None:
    old_protocol = protocol_1_0_0()
    line = protocol.encode(protocol.Tune(7, 80, ((880, 60),)))
    with pytest.raises(old_protocol.ProtocolError, match="unknown message"):
        old_protocol.decode(line)


def test_the_old_parser_refuses_the_calibration_lines() -> None:
    """A K or K? line (issue 35's calibration) sent to firmware 1.0.0 by mistake is an
    unknown line there: dropped, never acted on (the host sends it only after HAS calib)."""
    old_protocol = protocol_1_0_0()
    for message in (protocol.Calibrate(14, 186, 174, 223), protocol.AskCalibration()):
        with pytest.raises(old_protocol.ProtocolError, match="unknown message"):
            old_protocol.decode(protocol.encode(message))


def test_old_firmware_ignores_a_tune_and_carries_on(old_pico: SimPico) -> None:
    with raw_host(old_pico.port) as host:
        host.send(protocol.AskHello())
        _, hello = host.wait_for(of(protocol.Hello))
        assert hello.firmware == "1.0.0"
        host.send(protocol.Tune(7, 80, ((880, 60),)))
        frame = protocol.Frame(8, (0xFF0000,) + (0,) * (FAST.led_count - 1), 0)
        host.send(frame)
        _, answer = host.wait_for(lambda m: isinstance(m, (protocol.Ok, protocol.Err)))
        assert answer == protocol.Ok(8)  # the frame after it is shown: the tune did nothing
        heard = host.listen(0.3)
    answers = [m for _, m in host.messages if isinstance(m, (protocol.Ok, protocol.Err))]
    assert answers == [protocol.Ok(8)]  # no answer at all to the tune
    assert not [m for m in heard if isinstance(m, (protocol.Has, protocol.Stats))]
    assert not [e for e in old_pico.events if e.name == "pwm"]


def test_the_host_stops_counting_on_a_buzzer_that_never_answers(old_pico: SimPico) -> None:
    timing = LinkTiming(silence=1.5, handshake=0.3, frame_retry=0.2, refresh=1.0, tune_answer=0.3)
    board = SerialBoard(old_pico.port, 33, FAST.led_count, timing=timing, buzzer=True)
    board.start()
    try:
        wait_until(lambda: board.device is not None)
        assert board.has_buzzer  # the config says so
        board.sound(Sound.WRONG)
        wait_until(lambda: not board.has_buzzer)
        counters = board.status().counters
        assert counters["tunes_sent"] == 1 and counters["tunes_refused"] == 1
    finally:
        board.close()
