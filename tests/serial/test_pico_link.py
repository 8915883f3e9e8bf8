"""The Pico link's state machine in virtual time: no port, no thread, no clock.

Each test feeds :mod:`controller.hardware.pico_link` lines as the firmware writes them
(encoded by :mod:`firmware.protocol`, the file the firmware runs) and the time, and reads
what it answers. The same machine runs behind the real port in test_serial_board.py.
"""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from controller.hardware import pico_link
from controller.hardware.pico_link import (
    Close,
    Effect,
    Link,
    LinkTiming,
    Log,
    Open,
    Phase,
    Publish,
    Send,
    Settings,
    StatusChanged,
)
from controller.hardware.port import ChannelLevel, Led, LedFrame, LedMode, LinkState
from firmware import protocol

TIMING = LinkTiming()  # the shipped patience: virtual seconds cost nothing
CHANNELS, LEDS = 33, 37
HELLO = protocol.Hello(1, "1.1.0", 36, LEDS)
ASK_HELLO = protocol.encode(protocol.AskHello())


def line(message: object) -> bytes:
    return protocol.encode(message)


def sent(effects: tuple[Effect, ...]) -> list[Any]:
    """The messages among ``effects``, decoded."""
    return [protocol.decode(e.line) for e in effects if isinstance(e, Send)]


def logged(effects: tuple[Effect, ...], level: int = logging.DEBUG) -> list[str]:
    return [e.text for e in effects if isinstance(e, Log) and e.level >= level]


def green(index: int, blink: bool = False) -> LedFrame:
    leds = [Led()] * LEDS
    leds[index] = Led((0, 255, 0), LedMode.BLINK if blink else LedMode.STEADY)
    return LedFrame(tuple(leds))


@dataclass
class Driver:
    """Feeds one link and keeps every effect; ``now`` moves only when a test says."""

    link: Link
    now: float = 0.0
    effects: list[Effect] = field(default_factory=list)

    def feed(self, step: pico_link.Step) -> tuple[Effect, ...]:
        self.link = step.link
        self.effects.extend(step.effects)
        return step.effects

    def at(self, now: float) -> tuple[Effect, ...]:
        """Let time pass to ``now`` (a tick)."""
        self.now = now
        return self.feed(pico_link.tick(self.link, now))

    def hear(self, *messages: object) -> tuple[Effect, ...]:
        out: list[Effect] = []
        for message in messages:
            raw = message if isinstance(message, bytes) else line(message)
            out.extend(self.feed(pico_link.received(self.link, raw, self.now)))
        return tuple(out)

    @property
    def counters(self) -> dict[str, int]:
        return dict(self.link.diagnostics.counters)

    def answer_last_frame(self) -> None:
        frames = [m for m in sent(tuple(self.effects)) if type(m) is protocol.Frame]
        self.hear(protocol.Ok(frames[-1].n))


def connected(settings: Settings | None = None, hello: protocol.Hello = HELLO) -> Driver:
    """A link that handshook with ``hello`` at t = 0.2."""
    driver = Driver(pico_link.new(settings or Settings("/dev/ttyACM0", CHANNELS, LEDS)))
    driver.feed(pico_link.started(driver.link, 0.0))
    assert driver.at(0.0) == (Open(),)
    driver.feed(pico_link.opened(driver.link, "/dev/ttyACM0", 0.1))
    driver.now = 0.2
    driver.hear(hello)
    return driver


def test_the_handshake_asks_for_sensors_and_sends_the_frame() -> None:
    driver = connected()
    kinds = [type(m) for m in sent(tuple(driver.effects))]
    assert kinds == [protocol.AskHello, protocol.AskSensors, protocol.Frame]
    assert driver.link.status is LinkState.CONNECTED and driver.link.since == 0.2
    assert driver.link.detail == "Pico on /dev/ttyACM0: firmware 1.1.0, 36 channels, 37 LEDs"
    assert driver.link.device == HELLO
    assert driver.counters["handshakes"] == 1 and driver.counters["reconnects"] == 0


def test_hello_is_asked_again_then_the_attempt_is_given_up_with_growing_pauses() -> None:
    # Times in binary fractions, so that sums of them are exact.
    timing = replace(TIMING, handshake_tries=2, backoff_first=0.125, backoff_max=0.375)
    driver = Driver(pico_link.new(Settings("loop://", CHANNELS, LEDS, timing=timing)))
    driver.feed(pico_link.started(driver.link, 0.0))
    given_up = []
    for attempt in range(4):
        assert driver.at(driver.link.retry_at) == (Open(),)
        opened_at = driver.now
        assert sent(driver.feed(pico_link.opened(driver.link, "loop://", opened_at))) == [
            protocol.AskHello()
        ]
        driver.hear(protocol.Sensors(4, 0))  # a running board's line before its HELLO: ignored
        assert driver.at(opened_at + 0.49) == ()
        assert sent(driver.at(opened_at + 0.5)) == [protocol.AskHello()]
        effects = driver.at(opened_at + 1.0)
        assert effects[0] == Close()
        assert driver.link.phase is Phase.WAITING
        given_up.append(driver.link.retry_at - driver.now)
        if attempt == 0:
            assert logged(effects, logging.WARNING) == [
                "no HELLO from loop://: is the pyramid firmware on it? (`pyramid flash`)"
            ]
        else:
            assert logged(effects) == []  # each new reason once, not every retry
    assert given_up == [0.125, 0.25, 0.375, 0.375]
    assert driver.link.status is LinkState.SEARCHING
    assert driver.counters["handshakes"] == 0 and driver.counters["sensor_lines"] == 0


@pytest.mark.parametrize(
    ("hello", "problem"),
    [
        (protocol.Hello(2, "9.0", 36, LEDS), "speaks protocol 2, this program speaks 1"),
        (protocol.Hello(1, "1.1.0", 30, LEDS), "reports 30 channels but the channel map needs 33"),
        (protocol.Hello(1, "1.1.0", 36, 20), "drives 20 LEDs but the channel map needs 37"),
    ],
)
def test_a_board_that_cannot_serve_the_map_is_not_used(hello: protocol.Hello, problem: str) -> None:
    driver = connected(hello=hello)
    assert Close() in driver.effects
    assert driver.link.phase is Phase.WAITING and driver.link.status is LinkState.SEARCHING
    assert problem in driver.link.detail
    assert [type(m) for m in sent(tuple(driver.effects))] == [protocol.AskHello]


def test_silence_loses_the_link_and_the_port_is_opened_again_at_once() -> None:
    driver = connected()
    driver.answer_last_frame()
    for second in range(1, 10):  # one S line a second keeps it up
        driver.hear(protocol.Sensors(second, 0))
        if sent(driver.at(second)):
            driver.answer_last_frame()  # the refreshes
    assert Close() not in driver.at(12.0)  # 3 s after the last line: not yet
    effects = driver.at(12.01)
    assert effects[:2] == (Close(), Log(logging.WARNING, driver.link.detail))
    assert driver.link.detail == "lost /dev/ttyACM0: no valid line for 3 s; reconnecting"
    assert driver.link.status is LinkState.LOST and driver.link.since == 12.01
    assert driver.link.device is None
    assert driver.at(12.01) == (Open(),)  # no pause after a link that was up
    driver.feed(pico_link.opened(driver.link, "/dev/ttyACM1", 12.1))
    driver.now = 12.2
    driver.hear(HELLO)
    assert driver.link.detail.startswith("Pico on /dev/ttyACM1")
    counters = driver.counters
    assert (counters["link_losses"], counters["reconnects"], counters["handshakes"]) == (1, 1, 2)


def test_a_port_that_fails_is_a_lost_link() -> None:
    driver = connected()
    effects = driver.feed(pico_link.port_failed(driver.link, "device disconnected", 5.0))
    assert effects[0] == Close()
    assert driver.link.detail == (
        "lost /dev/ttyACM0: the port failed (device disconnected); reconnecting"
    )
    assert driver.feed(pico_link.port_failed(driver.link, "again", 5.0)) == ()  # said once


def test_an_unanswered_frame_is_sent_again_as_a_new_command() -> None:
    driver = connected()
    frame = green(5)
    first = sent(driver.feed(pico_link.show(driver.link, frame, 1.0)))
    assert [m.n for m in first] == [1]
    driver.hear(protocol.Sensors(1, 0))  # heard, so the link stays up
    assert driver.at(1.25) == ()
    again = sent(driver.at(1.26))
    assert [(m.n, m.colours[5]) for m in again] == [(2, 0x00FF00)]
    driver.hear(protocol.Ok(1))  # the answer to the old command is too late: still pending
    assert driver.counters["frames_acked"] == 0
    driver.hear(protocol.Ok(2))
    assert driver.counters["frames_acked"] == 1
    assert driver.at(1.6) == ()  # answered: no more resends
    counters = driver.counters
    assert (counters["frames_sent"], counters["frame_retries"]) == (3, 1)


def test_the_frame_is_refreshed_before_the_firmware_blanks_it() -> None:
    driver = connected()
    driver.answer_last_frame()
    refreshes = []
    for tenth in range(3, 101):
        now = tenth / 10
        driver.hear(protocol.Sensors(tenth, 0))
        if sent(driver.at(now)):
            refreshes.append(now)
            driver.answer_last_frame()
    assert refreshes == [2.3, 4.4, 6.5, 8.6]  # each more than `refresh` (2 s) after the last
    assert driver.counters["frame_refreshes"] == 4


def test_a_refused_frame_is_not_refreshed_but_the_next_one_is_sent() -> None:
    driver = connected()
    driver.answer_last_frame()
    effects = driver.feed(pico_link.show(driver.link, green(3), 1.0))
    n = sent(effects)[0].n
    effects = driver.hear(protocol.Err(n, "bad frame"))
    assert logged(effects, logging.WARNING) == [f"the Pico refused LED frame {n}: bad frame"]
    for second in range(2, 6):
        driver.hear(protocol.Sensors(second, 0))
        assert sent(driver.at(second)) == []
    assert len(sent(driver.feed(pico_link.show(driver.link, green(4), 6.0)))) == 1
    assert driver.counters["frames_refused"] == 1


def test_sensor_lines_become_frames_only_when_the_switches_change() -> None:
    driver = connected()
    publishes = [
        e
        for seq, bitmap in [(1, 0b1), (2, 0b1), (3, 0b101), (4, 1 << 35), (5, 0)]
        for e in driver.hear(protocol.Sensors(seq, bitmap))
        if isinstance(e, Publish)
    ]
    # Channel 35 is wired on the board but not in the map: never part of a frame.
    assert [sorted(p.active) for p in publishes] == [[0], [0, 2], []]
    assert driver.counters["sensor_lines"] == 5
    assert dict(driver.link.diagnostics.toggles) == {0: 2, 2: 2}


def test_a_channel_beyond_the_board_is_a_bad_line() -> None:
    driver = connected()
    effects = driver.hear(protocol.Sensors(1, 1 << 36))
    assert not any(isinstance(e, Publish) for e in effects)
    assert driver.counters["dropped_channel_beyond_the_boards_count"] == 1


def test_repeated_and_older_lines_are_not_acted_on() -> None:
    driver = connected()
    driver.hear(protocol.Sensors(10, 0b1))
    assert driver.hear(protocol.Sensors(10, 0b11)) == ()  # a repeat
    effects = driver.hear(protocol.Sensors(8, 0b111))  # older: who is it?
    assert sent(effects) == [protocol.AskHello()]
    assert sent(driver.hear(protocol.Sensors(9, 0b111))) == []  # asked already
    driver.at(0.71)
    assert sent(driver.hear(protocol.Sensors(9, 0b111))) == [protocol.AskHello()]
    assert (driver.counters["duplicate_lines"], driver.counters["stale_lines"]) == (1, 3)
    # The answer and the next S line settle it: the same board, counting on.
    driver.hear(HELLO)
    effects = driver.hear(protocol.Sensors(11, 0b1))
    assert effects == ()
    assert driver.counters["board_restarts"] == 0


def test_a_restarted_board_gets_its_frame_again_and_moves_nothing() -> None:
    driver = connected()
    driver.feed(pico_link.show(driver.link, green(2), 0.5))
    driver.answer_last_frame()
    driver.hear(protocol.Sensors(40, 0b110))
    driver.hear(HELLO)  # the new boot says HELLO...
    effects = driver.hear(protocol.Sensors(0, 0b110))  # ...and counts from 0 again
    assert [m.colours[2] for m in sent(effects)] == [0x00FF00]
    assert not any(isinstance(e, Publish) for e in effects)  # same pearls: no frame
    assert driver.counters["board_restarts"] == 1


def test_bad_lines_are_counted_and_summed_up_now_and_then() -> None:
    driver = connected(Settings("/dev/ttyACM0", CHANNELS, LEDS, timing=replace(TIMING, silence=60)))
    valid = line(protocol.Sensors(1, 0))
    bad = [valid.replace(b"S 1", b"S 2"), b"S 1 0\n", b"x" * 600 + b"\n", line(protocol.AskHello())]
    effects = driver.hear(*bad)
    counters = driver.counters
    assert counters["dropped_lines"] == 4
    assert (counters["dropped_bad_CRC"], counters["dropped_no_CRC"]) == (1, 1)
    assert counters["dropped_not_a_device_message"] == 1
    warnings = logged(effects, logging.WARNING)
    assert warnings == ["dropped lines from /dev/ttyACM0 (bad CRC: 1)"]  # the first at once
    driver.at(5.0)
    assert logged(driver.hear(bad[0]), logging.WARNING) == []
    driver.at(10.3)
    summary = logged(driver.hear(bad[0]), logging.WARNING)
    assert summary == [
        "dropped lines from /dev/ttyACM0 "
        "(no CRC: 1, too long: 1, not a device message: 1, bad CRC: 2)"
    ]


def test_bad_lines_are_no_sign_of_life() -> None:
    driver = connected()
    for tenth in range(3, 33):
        driver.at(tenth / 10)
        driver.hear(b"S 1 0*0000\n")
    assert driver.link.status is LinkState.CONNECTED
    assert driver.at(3.21)[0] == Close()
    assert driver.counters["dropped_bad_CRC"] == 30


def test_plain_text_from_the_pico_is_logged() -> None:
    driver = connected()
    effects = driver.hear(b"pyramid: config.py: COLUMN_PINS: GP3 is already used\n")
    assert "the Pico printed: pyramid: config.py: COLUMN_PINS: GP3 is already used" in logged(
        effects, logging.INFO
    )


def test_the_boards_counters_and_extras() -> None:
    driver = connected()
    assert not pico_link.has_buzzer(driver.link)
    driver.hear(protocol.Has(("buzzer",)), protocol.Stats(3, 2, 1))
    counters = driver.counters
    assert (counters["device_dropped_lines"], counters["device_lines_held"]) == (3, 2)
    assert counters["device_lines_cut"] == 1
    assert pico_link.has_buzzer(driver.link)
    notes = ((440, 100), (880, 50))
    effects = driver.feed(pico_link.tune(driver.link, notes, 0.5, 1.0))
    tune = sent(effects)[0]
    assert tune == protocol.Tune(tune.n, 50, notes)
    driver.hear(protocol.Ok(tune.n))
    assert driver.feed(pico_link.tune(driver.link, notes, 0.001, 1.5)) == ()  # rounds to 0
    assert driver.counters["tunes_sent"] == 1 and driver.counters["tunes_refused"] == 0


def test_a_tune_refused_or_unanswered_means_no_buzzer() -> None:
    driver = connected(Settings("/dev/ttyACM0", CHANNELS, LEDS, buzzer=True))
    effects = driver.feed(pico_link.tune(driver.link, ((440, 100),), 1.0, 1.0))
    driver.hear(protocol.Err(sent(effects)[0].n, "no buzzer"))
    assert not pico_link.has_buzzer(driver.link)
    older = connected(Settings("/dev/ttyACM0", CHANNELS, LEDS, buzzer=True))  # firmware 1.0
    older.feed(pico_link.tune(older.link, ((440, 100),), 1.0, 1.0))
    older.hear(protocol.Sensors(1, 0))
    older.at(2.0)
    assert pico_link.has_buzzer(older.link)
    older.at(2.01)
    assert not pico_link.has_buzzer(older.link)
    assert older.counters["tunes_refused"] == 1


def test_stopping_leaves_the_leds_dark_and_stays_stopped() -> None:
    driver = connected()
    driver.feed(pico_link.show(driver.link, green(1), 1.0))
    effects = driver.feed(pico_link.stopped(driver.link, 2.0))
    assert sent(effects) == [protocol.Frame(0, (0,) * LEDS, 0)]
    assert Close() in effects and StatusChanged() in effects
    assert (driver.link.status, driver.link.detail) == (LinkState.LOST, "closed")
    assert driver.feed(pico_link.started(driver.link, 3.0)) == ()
    assert driver.at(9.0) == ()
    assert driver.feed(pico_link.show(driver.link, green(2), 9.0)) == ()


def test_a_blinking_led_is_marked_and_brightness_applied() -> None:
    settings = Settings("/dev/ttyACM0", CHANNELS, LEDS, brightness=0.5)
    driver = connected(settings)
    frame = sent(driver.feed(pico_link.show(driver.link, green(3, blink=True), 1.0)))[0]
    assert frame.colours[3] == 0x008000 and frame.blink == 1 << 3


def test_the_machine_reads_no_port_thread_or_clock() -> None:
    """pyserial is not loaded with it, and its own imports name no port, thread or clock."""
    code = (
        "import sys, controller.hardware.pico_link; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'serial'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    tree = ast.parse(Path(pico_link.__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m.split(".")[0] for m in imported} & {"serial", "threading", "time", "os"}


def test_unreadable_cells_keep_their_state_and_are_published_apart() -> None:
    driver = connected()
    driver.hear(protocol.Sensors(0, 1 << 4))
    assert [e for e in driver.effects if isinstance(e, Publish)][-1] == Publish(frozenset({4}), 0.2)
    # The sun on e1 (channel 4) and c3 (14): unreadable, still present in S.
    effects = driver.hear(protocol.Sensors(1, 1 << 4), protocol.Unreadable((1 << 4) | (1 << 14)))
    assert effects == (Publish(frozenset({4}), 0.2, frozenset({4, 14})),)
    # Said again with the next S: nothing new to publish; an S keeps the set.
    driver.now = 1.0
    assert driver.hear(protocol.Sensors(2, 1 << 4), protocol.Unreadable(0x4010)) == ()
    effects = driver.hear(protocol.Sensors(3, 0))
    assert effects == (Publish(frozenset(), 1.0, frozenset({4, 14})),)
    effects = driver.hear(protocol.Unreadable(0))
    assert effects == (Publish(frozenset(), 1.0, frozenset()),)
    assert driver.counters["unreadable_lines"] == 3


def test_an_unreadable_set_not_said_again_lapses_and_a_bad_one_is_dropped() -> None:
    driver = connected()
    driver.hear(protocol.Sensors(0, 0), protocol.Unreadable(1 << 7))
    assert driver.link.unreadable == {7}
    driver.hear(protocol.Unreadable(1 << 40))  # beyond the board's 36 channels
    assert driver.counters["dropped_channel_beyond_the_boards_count"] == 1
    assert driver.link.unreadable == {7}
    driver.now = 2.0
    driver.hear(protocol.Sensors(1, 0))  # its U 0 lost
    effects = driver.at(TIMING.silence + 0.3)
    assert Publish(frozenset(), TIMING.silence + 0.3) in effects
    assert driver.link.unreadable == frozenset()


def test_levels_are_asked_only_of_a_board_that_has_them_and_checked() -> None:
    driver = connected()
    assert driver.feed(pico_link.ask_levels(driver.link, 0.3)) == ()  # no HAS levels yet
    driver.hear(protocol.Has(("buzzer", "levels")))
    assert pico_link.can_say_levels(driver.link)
    assert sent(driver.feed(pico_link.ask_levels(driver.link, 0.3))) == [protocol.AskLevels()]
    states = "P" + "E" * 28 + "-" * 7
    cells = protocol.Levels(states, (400,) + (12,) * 35, (173,) * 36, (223,) * 36)
    driver.hear(cells)
    levels = driver.link.levels
    assert levels is not None and len(levels.channels) == CHANNELS  # the map's 33
    assert levels.channels[0] == ChannelLevel("present", 400, 173, 223)
    assert levels.channels[1].state == "empty" and levels.channels[30].state == "none"
    # A line for another board's channel count is dropped, counted, and changes nothing.
    driver.hear(protocol.Levels("E", (1,), (2,), (3,)))
    assert driver.link.levels is levels
    assert driver.counters["dropped_levels_of_another_channel_count"] == 1
    assert driver.counters["level_lines"] == 1
    # A line that fails the grammar is dropped as any other.
    driver.hear(protocol.frame_line("L E00000000G"))
    assert driver.counters["dropped_bad_levels"] == 1
    # Another handshake (the board came back, or another one) forgets them.
    driver.feed(pico_link.port_failed(driver.link, "unplugged", 5.0))
    driver.at(5.0)
    driver.feed(pico_link.opened(driver.link, "/dev/ttyACM0", 5.1))
    driver.hear(HELLO)
    assert driver.link.session is not None and driver.link.levels is None


def test_a_calibration_is_sent_only_to_a_board_that_keeps_one_and_its_table_checked() -> None:
    driver = connected()
    assert driver.feed(pico_link.calibrate(driver.link, 14, 186, 174, 223, 0.3)) == ()
    assert driver.feed(pico_link.ask_calibration(driver.link, 0.3)) == ()  # no HAS calib
    driver.hear(protocol.Has(("levels", "calib")))
    assert pico_link.can_calibrate(driver.link)
    assert sent(driver.feed(pico_link.calibrate(driver.link, 14, 186, 174, 223, 0.3))) == [
        protocol.Calibrate(14, 186, 174, 223)
    ]
    assert sent(driver.feed(pico_link.ask_calibration(driver.link, 0.3))) == [
        protocol.AskCalibration()
    ]
    states = "L" * 14 + "C" + "L" * 14 + "N" + "-" * 6
    driver.hear(protocol.Calibration(states, (149,) * 36, (173,) * 36, (223,) * 36))
    table = driver.link.calibration
    assert table is not None and len(table.channels) == CHANNELS
    assert table.channels[14].state == "calibrated" and table.channels[13].state == "learning"
    assert table.channels[29].state == "unsaved" and table.channels[30].state == "none"
    assert (table.channels[14].empty, table.channels[14].off, table.channels[14].on) == (
        149,
        173,
        223,
    )
    driver.hear(protocol.Calibration("C", (1,), (2,), (3,)))  # another board's count
    assert driver.link.calibration is table
    assert driver.counters["dropped_calibration_of_another_channel_count"] == 1
    # Our own K lines echoed back are no device's.
    driver.hear(protocol.Calibrate(14, 186, 174, 223))
    assert driver.counters["dropped_not_a_device_message"] >= 1
