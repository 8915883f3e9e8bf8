"""The serial adapter against the real firmware (MicroPython unix port) over a real pty."""

from __future__ import annotations

import logging
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import NotRequired, TypedDict

import pytest
from serial.tools import list_ports
from serial_helpers import (
    BOARD,
    CHANNELS,
    LEDS,
    PATIENCE,
    TIMING,
    Recorder,
    picture,
    rgb,
    wait_until,
)

from controller.config import SerialConfig
from controller.hardware.channels import ChannelMap
from controller.hardware.port import Led, LedFrame, LinkState, SensorFrame
from controller.hardware.serial import (
    LinkTiming,
    NoPicoFound,
    SerialBoard,
    SerialLike,
    find_picos,
    open_port,
    resolve_port,
)
from firmware import protocol
from firmware.sim.cable import Cable, Noise
from firmware.sim.harness import DEVICE_FILES, LedWrite, SimConfig, SimPico

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)


class BoardSettings(TypedDict):
    """Keyword arguments of :class:`SerialBoard`, as the refused settings give them."""

    port: str
    channels: int
    leds: int
    brightness: NotRequired[float]


class TimingChanges(TypedDict, total=False):
    """Fields of :class:`LinkTiming`, as the refused timings change them."""

    refresh: float
    silence: float
    handshake_tries: int
    backoff_max: float


def test_it_handshakes_and_says_what_it_found(
    pico: SimPico, board: SerialBoard, recorder: Recorder
) -> None:
    status = board.status()
    assert status.adapter == "serial"
    assert status.link is LinkState.CONNECTED
    assert status.detail == (
        f"Pico on {pico.port}: firmware {BOARD.version}, 36 channels, {BOARD.led_count} LEDs"
    )
    assert board.device == protocol.Hello(1, BOARD.version, 36, BOARD.led_count)
    assert [s.link for s in recorder.statuses] == [LinkState.SEARCHING, LinkState.CONNECTED]
    assert status.counters["handshakes"] == 1
    assert status.counters["dropped_lines"] == 0


def test_switches_become_sensor_frames(
    pico: SimPico, board: SerialBoard, recorder: Recorder
) -> None:
    pico.press(0)
    first = recorder.wait_for_active({0})
    pico.press(24, bounce_ms=3)
    pico.press(32)
    recorder.wait_for_active({0, 24, 32})
    pico.press(35)  # wired, but no channel of the map: never part of a frame
    pico.release(0)
    recorder.wait_for_active({24, 32})
    assert first.seq == 1
    assert all(frame.active <= set(range(CHANNELS)) for frame in recorder.frames)
    seqs = [frame.seq for frame in recorder.frames]
    assert seqs == list(range(1, len(seqs) + 1))
    assert board.status().toggles == {0: 2, 24: 1, 32: 1}


def test_led_frames_reach_the_leds_dimmed_by_the_brightness(pico: SimPico) -> None:
    board = SerialBoard(pico.port, CHANNELS, LEDS, brightness=0.5, timing=TIMING)
    recorder = Recorder()
    board.start(recorder.on_frame, recorder.on_status)
    try:
        board.show(picture((0, RED), (12, (200, 100, 51)), (36, BLUE)))
        write = pico.wait_for_led(lambda w: w.lit)
        shown = [rgb(c) for c in write.colours]
        assert shown[0] == (128, 0, 0)
        assert shown[12] == (100, 50, 26)
        assert shown[36] == (0, 0, 128)
        assert sum(1 for c in shown if c != (0, 0, 0)) == 3
        wait_until(lambda: board.status().counters["frames_acked"] >= 1)
        assert board.status().counters["frames_acked"] >= 1
    finally:
        board.close()


def test_a_map_with_fewer_leds_than_the_board_leaves_the_rest_dark(pico: SimPico) -> None:
    board = SerialBoard(pico.port, CHANNELS, 30, timing=TIMING)
    board.start()
    try:
        leds = [Led(GREEN)] * 30
        board.show(LedFrame(tuple(leds)))
        write = pico.wait_for_led(lambda w: w.lit)
        assert write.colours == (0x00FF00,) * 30 + (0,) * 7
    finally:
        board.close()


def test_the_pico_blinks_what_the_host_marks_blinking(pico: SimPico) -> None:
    board = SerialBoard(pico.port, CHANNELS, LEDS, timing=replace(TIMING, refresh=5.0))
    board.start()
    try:
        watch_the_pico_blink(pico, board)
    finally:
        board.close()


def watch_the_pico_blink(pico: SimPico, board: SerialBoard) -> None:
    board.show(picture((3, GREEN), (4, RED), blink=frozenset({3})))
    lit = pico.wait_for_led(lambda w: w.colours[3] == 0x00FF00)
    sent = board.status().counters["frames_sent"]
    # Counted by place, not by time: writes read in one chunk share their stamp, and on a
    # loaded machine the boot's dark write can share the lit write's.
    start = pico.leds.index(lit)

    def two_blinks() -> list[LedWrite] | None:  # on, off, on, off: a write of the chain each
        later = pico.leds[start:]
        return later if len(later) >= 4 else None

    later = wait_until(two_blinks)
    assert {w.colours[3] for w in later} == {0x00FF00, 0}
    assert {w.colours[4] for w in later} == {0xFF0000}  # steady
    # No frame was sent meanwhile (the refresh is later): the blinking is the Pico's own.
    assert board.status().counters["frames_sent"] == sent


def test_the_frame_is_refreshed_so_the_leds_never_time_out(pico: SimPico) -> None:
    config = replace(BOARD, blank_after_ms=1500)
    with SimPico(config) as short_memory:
        # A refresh every 0.5 s against a Pico that blanks after 1.5 s: a second of margin
        # for a busy machine, and a link that is not given up for a slow line meanwhile.
        timing = replace(TIMING, refresh=0.5, silence=PATIENCE)
        board = SerialBoard(short_memory.port, CHANNELS, LEDS, timing=timing)
        board.start()
        try:
            board.show(picture((1, BLUE)))
            lit = short_memory.wait_for_led(lambda w: w.lit)
            start = short_memory.leds.index(lit)  # by place: writes read together share a stamp
            # Four refreshes take 2 s or more, longer than the Pico's 1.5 s of memory.
            wait_until(lambda: board.status().counters["frame_refreshes"] >= 4)
            after = short_memory.leds[start + 1 :]
            assert all(w.lit for w in after)
        finally:
            board.close()
        last = short_memory.wait_for_led(lambda w: not w.lit, timeout=2, after=start + 1)
        assert last.colours == (0,) * LEDS  # close() leaves the LEDs dark


def test_lost_frames_are_sent_again(pico: SimPico, tmp_path: Path) -> None:
    with Cable(pico.port, tmp_path / "pico") as cable:
        board = SerialBoard(cable.port, CHANNELS, LEDS, timing=TIMING)
        recorder = Recorder()
        board.start(recorder.on_frame, recorder.on_status)
        try:
            recorder.wait_for_link(LinkState.CONNECTED)
            cable.noise = Noise(rate=1.0, toward="device")  # every line to the Pico spoilt
            board.show(picture((5, GREEN)))
            wait_until(lambda: board.status().counters["frame_retries"] >= 3)
            assert not any(w.lit for w in pico.leds)
            cable.noise = Noise()
            pico.wait_for_led(lambda w: w.colours[5] == 0x00FF00)
            assert wait_until(lambda: board.status().counters["frames_acked"] >= 1)
            assert board.status().counters["frame_retries"] >= 3
            assert board.status().link is LinkState.CONNECTED  # the Pico was heard all along
        finally:
            board.close()


def test_a_board_with_too_few_channels_is_not_used(pico: SimPico, recorder: Recorder) -> None:
    opened: list[str] = []

    def counting(spec: str, baudrate: int, timeout: float) -> SerialLike:
        opened.append(spec)
        return open_port(spec, baudrate, timeout)

    board = SerialBoard(pico.port, 40, LEDS, timing=TIMING, opener=counting)
    board.start(recorder.on_frame, recorder.on_status)
    try:
        recorder.wait(lambda: "channel map needs 40" in board.status().detail)
        pico.press(1)
        tried = len(opened)
        wait_until(lambda: len(opened) >= tried + 2)  # asked again after the press, refused
        status = board.status()
        assert status.link is LinkState.SEARCHING
        assert status.detail.startswith("the Pico reports 36 channels but the channel map needs 40")
        assert recorder.frames == []
        assert not any(s.link is LinkState.CONNECTED for s in recorder.statuses)
    finally:
        board.close()


def test_firmware_speaking_another_protocol_is_not_used(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    flash.mkdir()
    with SimPico(BOARD) as original:  # only to get a flash written from BOARD
        for name in set(DEVICE_FILES) - {"protocol.py"}:
            shutil.copyfile(original.flash_dir / name, flash / name)
        future = (original.flash_dir / "protocol.py").read_text()
    (flash / "protocol.py").write_text(future.replace("PROTOCOL = 1\n", "PROTOCOL = 2\n", 1))
    with SimPico(BOARD, flash_dir=flash) as pico:
        board = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)
        recorder = Recorder()
        board.start(recorder.on_frame, recorder.on_status)
        try:
            recorder.wait(lambda: "protocol 2" in board.status().detail)
            assert board.status().detail == (
                f"the Pico's firmware {BOARD.version} speaks protocol 2, this program speaks 1: "
                "update both (`pyramid flash`)"
            )
            assert board.status().link is LinkState.SEARCHING
        finally:
            board.close()


def test_a_port_that_never_says_hello(recorder: Recorder) -> None:
    board = SerialBoard("loop://", CHANNELS, LEDS, timing=TIMING)  # hears only itself
    board.start(recorder.on_frame, recorder.on_status)
    try:
        recorder.wait(lambda: "no HELLO" in board.status().detail)
        status = board.status()
        assert status.link is LinkState.SEARCHING
        assert "is the pyramid firmware on it? (`pyramid flash`)" in status.detail
        # Its own HELLO? came back: valid lines, but not a device's, so dropped.
        assert status.counters["dropped_not_a_device_message"] >= 1
    finally:
        board.close()


def test_auto_finds_the_pico_by_its_usb_id(
    pico: SimPico, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No USB device here: the OS's list of ports is the one thing that must be faked.
    plugged: list[SimpleNamespace] = [SimpleNamespace(device="/dev/ttyS0", vid=None, pid=None)]
    monkeypatch.setattr(list_ports, "comports", lambda: list(plugged))
    board = SerialBoard("auto", CHANNELS, LEDS, timing=TIMING)
    board.start(recorder.on_frame, recorder.on_status)
    try:
        recorder.wait(lambda: "2E8A:0005" in board.status().detail)
        assert board.status().link is LinkState.SEARCHING
        plugged.append(SimpleNamespace(device=pico.port, vid=0x2E8A, pid=0x0005))
        recorder.wait_for_link(LinkState.CONNECTED)
        assert pico.port in board.status().detail
    finally:
        board.close()


def test_port_resolution() -> None:
    ports = [
        SimpleNamespace(device="/dev/ttyACM3", vid=0x2E8A, pid=0x0005),
        SimpleNamespace(device="/dev/ttyACM1", vid=0x2E8A, pid=0x0005),
        SimpleNamespace(device="/dev/ttyACM0", vid=0x2E8A, pid=0x000A),  # a Pico in C, not ours
    ]
    assert find_picos(ports) == ["/dev/ttyACM1", "/dev/ttyACM3"]
    assert resolve_port("auto", ports) == "/dev/ttyACM1"
    assert resolve_port("/dev/ttyUSB7", ports) == "/dev/ttyUSB7"
    assert resolve_port("socket://pico.local:4000", []) == "socket://pico.local:4000"
    with pytest.raises(NoPicoFound, match="2E8A:0005"):
        resolve_port("auto", ports[2:])


def test_built_from_config(pico: SimPico) -> None:
    channel_map = ChannelMap.default()
    board = SerialBoard.from_config(SerialConfig(port=pico.port), channel_map, 0.25)
    assert (board.channels, board.leds) == (channel_map.channel_count, channel_map.led_count)
    assert board.brightness == 0.25 and board.port_spec == pico.port
    assert board.timing == LinkTiming()  # the real Pico's patience
    board.start()
    try:
        board.show(picture((0, (255, 255, 255))))
        assert pico.wait_for_led(lambda w: w.lit).colours[0] == 0x404040
    finally:
        board.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"port": "", "channels": 1, "leds": 1}, "port must be"),
        ({"port": "auto", "channels": 1, "leds": 80}, "at most 79 LEDs"),
        ({"port": "auto", "channels": 1, "leds": 1, "brightness": 1.5}, "brightness must be 0..1"),
        ({"port": "auto", "channels": 0, "leds": 1}, "at least one channel"),
    ],
)
def test_bad_settings_are_refused(kwargs: BoardSettings, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SerialBoard(**kwargs)


@pytest.mark.parametrize(
    "changes", [{"refresh": 10.0}, {"silence": 0.0}, {"handshake_tries": 0}, {"backoff_max": 0.01}]
)
def test_bad_timings_are_refused(changes: TimingChanges) -> None:
    with pytest.raises(ValueError, match="LinkTiming"):
        replace(LinkTiming(), **changes)


def test_a_colour_out_of_range_fails_in_the_caller(board: SerialBoard) -> None:
    with pytest.raises(ValueError, match=r"outside 0\.\.255"):
        board.show(picture((0, (256, 0, 0))))


def test_a_failing_listener_does_not_stop_the_link(pico: SimPico) -> None:
    calls: list[frozenset[int]] = []

    def clumsy(frame: SensorFrame) -> None:
        calls.append(frame.active)
        raise RuntimeError("the listener's own bug")

    board = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)
    board.start(clumsy)
    try:
        pico.press(2)
        assert wait_until(lambda: calls == [frozenset({2})])
        pico.press(3)
        assert wait_until(lambda: calls == [frozenset({2}), frozenset({2, 3})])
        assert board.status().link is LinkState.CONNECTED
    finally:
        board.close()


def test_repeated_and_stale_lines_are_not_acted_on(pico: SimPico, tmp_path: Path) -> None:
    with Cable(pico.port, tmp_path / "pico", noise=Noise(duplicates=1.0, toward="host")) as cable:
        board = SerialBoard(cable.port, CHANNELS, LEDS, timing=TIMING)
        recorder = Recorder()
        board.start(recorder.on_frame, recorder.on_status)
        try:
            recorder.wait_for_link(LinkState.CONNECTED)
            pico.press(6)
            recorder.wait_for_active({6})
            heard = board.status().counters["sensor_lines"]
            # Two more S lines and their twins after the one that moved channel 6.
            wait_until(lambda: board.status().counters["sensor_lines"] >= heard + 2)
            counters = board.status().counters
            assert counters["duplicate_lines"] >= 2
            assert [sorted(f.active) for f in recorder.frames] == [[6]]
        finally:
            board.close()


def test_text_from_the_pico_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    broken = SimConfig(columns=(3, 9))  # GPIO 3 is a row too: the firmware complains
    with SimPico(broken) as pico:
        board = SerialBoard(pico.port, 6, 0, timing=TIMING)
        with caplog.at_level(logging.INFO, logger="controller.hardware.serial"):
            board.start()
            try:
                assert wait_until(lambda: "GP3 is already used" in caplog.text, timeout=4)
            finally:
                board.close()
        assert "the Pico printed: pyramid: config.py: COLUMN_PINS: GP3" in caplog.text
        assert board.status().counters["dropped_no_CRC"] >= 1


def test_showing_without_start_brings_the_link_up_for_an_led_test(pico: SimPico) -> None:
    board = SerialBoard(pico.port, CHANNELS, LEDS, timing=TIMING)
    try:
        board.show(picture((8, BLUE)))  # as `pyramid diag --leds` does: no start()
        assert pico.wait_for_led(lambda w: w.lit).colours[8] == 0x0000FF
        recorder = Recorder()
        board.start(recorder.on_frame, recorder.on_status)  # later start() joins in
        pico.press(8)
        recorder.wait_for_active({8})
    finally:
        board.close()
    sent = board.status().counters["frames_sent"]
    board.show(picture((9, BLUE)))  # after close: nothing starts again (show() would
    assert board.status().counters["frames_sent"] == sent  # have sent it before returning)
    assert board.status().link is LinkState.LOST
