"""The Pico unplugged and back as another device (issue 15, item 7).

The cable (firmware/sim/cable.py) gives the host a fresh pty behind a symlink each time
it is plugged in: ``ttyACM0`` vanishes and ``ttyACM1`` appears, as udev names a Pico that
comes back while the old node is still held. Only the OS's list of USB serial ports is
faked (pyserial's ``list_ports.comports``): no pty can carry a USB vendor and product id.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from serial.tools import list_ports
from serial_helpers import CHANNELS, LEDS, TIMING, Recorder

from controller.hardware.port import LinkState
from controller.hardware.serial import SerialBoard
from firmware.sim.cable import Cable
from firmware.sim.harness import SimPico


def test_auto_follows_the_pico_to_its_new_device(
    pico: SimPico, recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugged: list[SimpleNamespace] = []
    monkeypatch.setattr(list_ports, "comports", lambda: list(plugged))
    first = Cable(pico.port, tmp_path / "ttyACM0")
    first.start()
    plugged.append(SimpleNamespace(device=first.port, vid=0x2E8A, pid=0x0005))
    board = SerialBoard("auto", CHANNELS, LEDS, timing=TIMING)
    board.start(recorder.on_frame, recorder.on_status)
    try:
        recorder.wait_for_link(LinkState.CONNECTED)
        assert board.status().detail.startswith(f"Pico on {first.port} (found by USB id 2E8A:0005)")
        first.close()  # pulled out: ttyACM0 is gone
        plugged.clear()
        lost = recorder.wait_for_link(LinkState.LOST)
        recorder.wait(lambda: "waiting for a Pico" in board.status().detail)
        second = Cable(pico.port, tmp_path / "ttyACM1")
        second.start()  # plugged in again: it is ttyACM1 now
        plugged.append(SimpleNamespace(device=second.port, vid=0x2E8A, pid=0x0005))
        try:
            recorder.wait_for_link(LinkState.CONNECTED, after=lost.since)
            assert board.status().detail.startswith(f"Pico on {second.port}")
            assert board.status().counters["reconnects"] == 1
            pico.press(3)
            recorder.wait_for_active({3})
        finally:
            board.close()
            second.close()
    finally:
        board.close()


def test_a_fixed_path_says_which_path_it_waits_for(
    pico: SimPico, recorder: Recorder, tmp_path: Path
) -> None:
    cable = Cable(pico.port, tmp_path / "ttyACM0")
    cable.start()
    board = SerialBoard(cable.port, CHANNELS, LEDS, timing=TIMING)
    board.start(recorder.on_frame, recorder.on_status)
    try:
        recorder.wait_for_link(LinkState.CONNECTED)
        cable.unplug()
        recorder.wait(lambda: f"waiting for {cable.port} to appear" in board.status().detail)
        assert 'port = "auto"' in board.status().detail
        cable.plug()
        recorder.wait(lambda: board.status().link is LinkState.CONNECTED)
    finally:
        board.close()
        cable.close()
