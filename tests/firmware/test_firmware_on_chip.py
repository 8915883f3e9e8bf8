"""The firmware's own files on a simulated Pico, spoken to over a real pty.

Sensors: switches in the modelled diode matrix; LEDs: what the fake ``neopixel`` was
told to write. The host side here is raw protocol lines (tests/serial/ drives the real
host adapter instead).
"""

from __future__ import annotations

import contextlib
import itertools
import statistics
import time
from dataclasses import replace

import pytest
from fw_helpers import (
    FAST,
    QUICK_WATCHDOG,
    RawHost,
    let_the_watchdog_run,
    of,
    only_protocol,
    raw_host,
)

from firmware.protocol import (
    AskHello,
    AskSensors,
    Err,
    Frame,
    Has,
    Hello,
    Ok,
    Sensors,
    Stats,
    Tune,
    encode,
)
from firmware.sim.harness import ChipEvent, Interpreter, SimConfig, SimPico
from rigs.poll import wait_until

RED, GREEN, BLUE = 0xFF0000, 0x00FF00, 0x0000FF


def frame(n: int, *lit: tuple[int, int], blink: int = 0, leds: int = FAST.led_count) -> Frame:
    colours = [0] * leds
    for index, colour in lit:
        colours[index] = colour
    return Frame(n, tuple(colours), blink)


def states(messages: list[object]) -> list[int]:
    """The bitmaps of the S lines, with repeats of the same state collapsed."""
    out: list[int] = []
    for message in messages:
        if isinstance(message, Sensors) and (not out or out[-1] != message.bitmap):
            out.append(message.bitmap)
    return out


def test_boot_says_hello_darkens_the_leds_and_reports_switches_already_closed(
    interpreter: Interpreter,
) -> None:
    pico = SimPico(FAST, interpreter=interpreter)
    host = RawHost(pico.port)  # open before power-up: the boot HELLO must not be missed
    pico.set_active({0, 7, 35})  # pearls were on the board when it was switched on
    try:
        pico.start()
        _, hello = host.wait_for(of(Hello))
        assert hello == Hello(1, FAST.version, 36, FAST.led_count)
        _, first = host.wait_for(of(Sensors))
        # Never an empty S first: the board waits until the matrix reads steadily.
        assert first == Sensors(0, (1 << 0) | (1 << 7) | (1 << 35))
        boot_write = pico.wait_for_led(lambda write: True)
        assert boot_write.colours == (0,) * FAST.led_count
        assert boot_write.pin == FAST.led_pin
    finally:
        host.close()
        pico.close()
    only_protocol(host)


def test_a_pressed_switch_is_reported_once_after_its_bounce(pico: SimPico, host: RawHost) -> None:
    host.send(AskSensors())
    host.wait_for(lambda m: m == Sensors(m.seq, 0) if isinstance(m, Sensors) else False)
    pico.press(9, bounce_ms=5)
    _at, change = host.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap != 0)
    assert change.bitmap == 1 << 9
    pico.release(9, bounce_ms=5)
    host.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap == 0)
    assert states([m for _, m in host.messages]) == [0, 1 << 9, 0]


def test_a_glitch_shorter_than_the_debounce_never_passes(pico: SimPico, host: RawHost) -> None:
    pico.press(4)
    host.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap == 1 << 4)
    for _ in range(10):
        # An open switch chatters for 5 ms: at most two scans (at least 4 ms apart) can
        # see it, and three must agree.
        pico.set_switch(20, False, bounce_ms=5)
        pico.set_switch(4, True, bounce_ms=5)
        host.await_reports(1)  # a report period later: each chatter over before the next
    heard = host.listen(0.3)
    assert states(heard) == [1 << 4]


def test_ghosting_is_prevented_by_the_diodes(pico: SimPico, host: RawHost) -> None:
    # Three corners of a rectangle closed: without diodes the fourth would read closed.
    corners = {0, 1, 6}  # row 0 col 0, row 0 col 1, row 1 col 0; the ghost would be 7
    pico.set_active(corners)
    _, state = host.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap == 0b1000011)
    assert not state.bitmap & (1 << 7)


def test_the_state_is_repeated_at_least_every_report_ms(pico: SimPico, host: RawHost) -> None:
    host.wait_for(of(Sensors))
    host.listen(1.0)
    reports = [(at, m) for at, m in host.messages if isinstance(m, Sensors)]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(reports)]
    period = FAST.report_ms / 1000
    assert len(reports) >= 5
    # The times are when the host read each line: on a busy machine a reader held up
    # reads one line late and the next soon after, so the typical gap is the period
    # and none is two.
    assert statistics.median(gaps) == pytest.approx(period, rel=0.2)
    assert max(gaps) < 2 * period
    seqs = [m.seq for _, m in reports]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def test_questions_are_answered_at_once(interpreter: Interpreter) -> None:
    """``S?`` is answered at the next pass of the loop, not at the next report: with
    reports a second apart (the most ``REPORT_MS`` may be) and nothing changing, the
    answer comes in under half that period. The bound is the report period's, not a
    fixed 50 ms, which a busy machine's scheduling broke now and then."""
    slow_reports = replace(FAST, report_ms=1000)
    pico = SimPico(slow_reports, interpreter=interpreter)
    with contextlib.closing(pico), raw_host(pico.port) as host:  # open before power-up
        pico.start()
        host.wait_for(of(Sensors), timeout=30.0)  # the first state, at start
        asked = time.monotonic()
        host.send(AskSensors())
        at, answer = host.wait_for(of(Sensors), timeout=30.0)
        assert at - asked < slow_reports.report_ms / 2000  # well before a report was due
        assert answer.bitmap == 0
        host.send(AskHello())
        _, hello = host.wait_for(of(Hello))
        assert hello.channels == 36


def test_a_frame_is_shown_exactly_and_acknowledged(interpreter: Interpreter) -> None:
    with SimPico(FAST, interpreter=interpreter) as pico:
        host = RawHost(pico.port)
        try:
            before = len(pico.leds)
            host.send(frame(41, (0, RED), (5, 0x123456), (36, BLUE)))
            _, ok = host.wait_for(lambda m: isinstance(m, (Ok, Err)))
            assert ok == Ok(41)
            write = pico.wait_for_led(lambda w: w.lit, after=before)
            expected = [0] * FAST.led_count
            expected[0], expected[5], expected[36] = RED, 0x123456, BLUE
            assert list(write.colours) == expected
        finally:
            host.close()
        only_protocol(host)


def test_a_frame_for_another_led_count_is_refused(pico: SimPico, host: RawHost) -> None:
    before = len(pico.leds)
    host.send(frame(3, (0, RED), leds=5))
    _, answer = host.wait_for(lambda m: isinstance(m, (Ok, Err)))
    assert answer == Err(3, f"frame has 5 LEDs, board has {FAST.led_count}")
    host.send(frame(4, (1, BLUE)))  # the next frame: its picture is the first one lit
    first = pico.wait_for_led(lambda w: w.lit, after=before)
    assert first.colours[0] == 0 and first.colours[1] == BLUE


def test_blinking_is_done_on_the_pico(pico: SimPico, host: RawHost) -> None:
    start = len(pico.leds)
    host.send(frame(1, (0, GREEN), (1, RED), blink=0b1))
    host.wait_for(of(Ok))
    # All by the chip's own clock: when the test got to read a write (a loaded machine
    # reads them in batches) says nothing of when the firmware made it.
    shown_at = pico.wait_for_led(lambda w: w.colours[1] == RED, after=start).chip_at
    # Until the frame would blank (no new one for BLANK_AFTER_MS).
    blanks_at = shown_at + FAST.blank_after_ms / 1000 - FAST.blink_ms / 1000

    def shown() -> list[tuple[float, int, int]]:
        writes = [w for w in pico.leds[start:] if shown_at <= w.chip_at < blanks_at]
        return [(w.chip_at, w.colours[0], w.colours[1]) for w in writes]

    def flipped(writes: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
        return [b for a, b in itertools.pairwise(writes) if a[1] != b[1]]

    wait_until(lambda: len(flipped(shown())) >= 4)
    writes = shown()
    assert all(steady == RED for _, _, steady in writes)  # LED 1 does not blink
    assert writes[0][1] == GREEN  # a new frame starts with the blinking LEDs lit
    flips = flipped(writes)
    assert {colour for _, colour, _ in flips} == {0, GREEN}
    # The rhythm comes from the Pico's clock: on average exact, each flip within a few
    # loop passes.
    half = FAST.blink_ms / 1000
    average = (flips[-1][0] - flips[0][0]) / (len(flips) - 1)
    assert abs(average - half) < 0.1 * half, average
    halves = [b[0] - a[0] for a, b in itertools.pairwise(flips)]
    assert all(0.5 * half < each < 1.5 * half for each in halves), halves


def test_the_leds_go_dark_without_frames_and_a_refresh_keeps_them(
    pico: SimPico, host: RawHost
) -> None:
    start = len(pico.leds)
    host.send(frame(1, (2, BLUE)))
    host.wait_for(of(Ok))
    lit = pico.wait_for_led(lambda w: w.lit, after=start)
    host.await_reports(5)  # 0.8 s or more of the firmware's time
    again = len(pico.leds)
    host.send(frame(2, (2, BLUE)))  # the host's refresh of the same frame
    host.wait_for(of(Ok))
    refreshed = pico.wait_for_led(lambda w: w.lit, after=again)  # written out again
    dark = pico.wait_for_led(lambda w: not w.lit, timeout=3.0, after=again)
    # By the chip's own clock: the test's reading of the lines adds delays of its own.
    assert dark.chip_at - lit.chip_at > 1.5  # not blanked 1.5 s after the first frame...
    blanked_after = dark.chip_at - refreshed.chip_at
    assert 0 <= blanked_after - FAST.blank_after_ms / 1000 < 0.1  # ...but after the last


def test_bad_lines_are_dropped_and_the_board_carries_on(pico: SimPico, host: RawHost) -> None:
    start = len(pico.leds)
    good = encode(frame(7, (0, RED)))
    host.send_raw(b"\x00\xff garbage \x7f\n")
    host.send_raw(b"F" * 3000 + b"\n")  # over the line limit
    host.send_raw(good[:-6] + b"0000\n")  # a frame with a wrong CRC
    host.send_raw(encode(Sensors(1, 1)))  # a device message: not for the device
    host.send_raw(good[:20])  # the start of a line...
    host.send_raw(b"\n")  # ...cut off
    host.send_raw(good)
    assert host.wait_for(lambda m: isinstance(m, (Ok, Err)))[1] == Ok(7)
    # Lines are taken in order: the first picture lit is the good frame's.
    assert pico.wait_for_led(lambda w: w.lit, after=start).colours[0] == RED


def test_a_stuck_loop_is_reset_by_the_watchdog() -> None:
    config = QUICK_WATCHDOG
    with SimPico(config) as pico, raw_host(pico.port) as host:
        host.send(frame(1, (0, RED)))
        host.wait_for(of(Ok))
        stuck = time.monotonic()
        pico.hang(config.watchdog_ms + 1000)
        reset = pico.wait_for_event("watchdog", timeout=5.0, after=stuck)
        assert reset.at - stuck >= config.watchdog_ms / 1000 - 0.05
        pico.wait_for_event("boot", after=reset.at)
        host.wait_for(of(Hello), timeout=3.0, after=reset.at)  # a new HELLO...
        assert not pico.wait_for_led(lambda w: w.at > reset.at).lit  # ...with dark LEDs


def test_a_short_stall_is_survived() -> None:
    config = QUICK_WATCHDOG
    with SimPico(config) as pico, raw_host(pico.port) as host:
        pico.hang(config.watchdog_ms // 4)
        # Reports for the watchdog's timeout and more after the stall: it ran on, unreset.
        host.await_reports(config.watchdog_ms // config.report_ms + 3)
        assert pico.watchdog_resets == 0 and pico.boots == 1


def test_a_failing_chip_is_reset(interpreter: Interpreter) -> None:
    # Both interpreters: on a Pi (no unix port for aarch64) the CPython fallback runs, and
    # its traceback must reach the serial line too, not CPython's stderr (issue 12, item 9).
    # The traceback is text, not protocol: not checked as protocol here.
    with SimPico(FAST, interpreter=interpreter) as pico, raw_host(pico.port, check=False) as host:
        host.send(AskHello())
        host.wait_for(of(Hello))
        pico.fault()
        reset = pico.wait_for_event("reset", timeout=3.0)
        pico.wait_for_event("boot", after=reset.at)
        host.wait_for(of(Hello), timeout=3.0, after=reset.at)
    assert pico.boots == 2
    assert b"OSError" in bytes(host.received)
    assert 0x03 not in host.received


def test_ctrl_c_stops_for_maintenance_and_keeps_the_watchdog_fed() -> None:
    config = QUICK_WATCHDOG
    with SimPico(config) as pico, raw_host(pico.port, check=False) as host:
        host.send(frame(1, (0, RED)))
        lit = pico.wait_for_led(lambda w: w.lit)
        pico.interrupt()
        timer = pico.wait_for_event("timer", after=lit.at)
        assert int(timer.value) < config.watchdog_ms
        assert not pico.wait_for_led(lambda w: w.at > lit.at).lit
        let_the_watchdog_run(config)
        assert pico.watchdog_resets == 0  # the timer fed it while mpremote would copy files
        assert pico.alive
        host.pump()
    assert b"stopped for maintenance" in bytes(host.received)  # a notice for a person


def test_a_bad_config_is_explained_and_no_watchdog_starts() -> None:
    broken = replace(SimConfig(), columns=(3, 9, 10), watchdog_ms=9000)
    pico = SimPico(broken)
    # The host opens the port before the chip powers up: pyserial flushes what waits in
    # it on opening, and the chip says what is wrong at once.
    host = RawHost(pico.port)
    try:
        pico.start()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and b"WATCHDOG_MS" not in host.received:
            host.pump()
        text = bytes(host.received).decode()
        assert "pyramid: config.py: COLUMN_PINS: GP3 is already used by ROW_PINS" in text
        assert "pyramid: config.py: WATCHDOG_MS must be a whole number 100..8388" in text
        assert host.messages == []  # no HELLO from a board that cannot work
        assert [e.name for e in pico.events] == ["boot"]  # and no watchdog
    finally:
        host.close()
        pico.close()


@pytest.mark.parametrize("rows", [(2,), (2, 3, 4, 5, 6, 7, 14, 15)])
def test_the_matrix_size_is_configurable(rows: tuple[int, ...]) -> None:
    config = replace(FAST, rows=rows, columns=(8, 9, 10), maintenance_channel=None)
    with SimPico(config) as pico:
        host = RawHost(pico.port)
        try:
            host.send(AskHello())
            _, hello = host.wait_for(of(Hello))
            assert hello.channels == 3 * len(rows)
            last = 3 * len(rows) - 1
            pico.press(last)
            host.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap == 1 << last)
        finally:
            host.close()
        only_protocol(host)


BUZZER = replace(FAST, buzzer_pin=15)


def test_a_tune_plays_on_the_buzzer_pin_and_a_board_without_one_refuses() -> None:
    with SimPico(BUZZER) as pico, raw_host(pico.port) as host:
        host.send(AskHello())
        host.wait_for(of(Hello))
        _, has = host.wait_for(of(Has))
        assert has == Has(("buzzer",))
        start = time.monotonic()
        host.send(Tune(5, 50, ((660, 70), (0, 30), (990, 110))))
        assert host.wait_for(lambda m: isinstance(m, (Ok, Err)))[1] == Ok(5)
        # Done once it is silent again at least the tune's 210 ms after it began (the
        # rest between the notes is silent too, 70 ms in; a busy machine only stretches),
        # by the chip's own clock (the test reads the chip's reports in batches when busy).
        tones: list[ChipEvent] = []

        def done() -> bool:
            tones[:] = [e for e in pico.events if e.name == "pwm" and e.at >= start]
            begun = next((e.chip_at for e in tones if not e.value.endswith(" 0")), None)
            silent = bool(tones) and tones[-1].value.endswith(" 0")
            return begun is not None and silent and tones[-1].chip_at - begun >= 0.2

        wait_until(done, 30.0, interval=0.02, what=lambda: tones)
        played = [tuple(int(v) for v in e.value.split()) for e in tones]
        sounding = [(hz, duty) for pin, hz, duty in played if pin == 15 and duty]
        assert sorted({hz for hz, _ in sounding}) == [660, 990]
        assert {duty for _, duty in sounding} == {50 * (32768 // 100)}
        assert played[-1][2] == 0  # silent at the end
    with SimPico(FAST) as pico, raw_host(pico.port) as host:
        host.send(Tune(6, 50, ((440, 50),)))
        assert host.wait_for(lambda m: isinstance(m, (Ok, Err)))[1] == Err(6, "no buzzer")
        assert not [e for e in pico.events if e.name == "pwm"]


def test_dropped_lines_are_reported_in_stats(pico: SimPico, host: RawHost) -> None:
    host.send(AskHello())
    host.wait_for(of(Hello))
    _, before = host.wait_for(of(Stats))  # the answer to this HELLO? (the boot's came first)
    host.send_raw(b"\x00\xff garbage \x7f\n" + b"F" * 3000 + b"\n")
    host.send(AskHello())
    _, after = host.wait_for(lambda m: isinstance(m, Stats) and m != before)
    assert after.dropped == before.dropped + 2


def test_a_host_that_does_not_read_is_counted_and_the_board_goes_on(pico: SimPico) -> None:
    talker = RawHost(pico.port)
    try:
        talker.send(AskHello())
        talker.wait_for(of(Hello))
        # Ask for far more than the pty holds, and read nothing while it answers them all:
        # the frame after them lights the LEDs once the firmware has got through them.
        before = len(pico.leds)
        talker.send_raw(encode(AskHello()) * 3000 + encode(frame(9, (0, BLUE))))
        pico.wait_for_led(lambda w: w.lit, timeout=30.0, after=before)
        pico.press(4)  # the board still scans meanwhile
        talker.serial.reset_input_buffer()
        talker.listen(1.0)
        talker.send(AskSensors())
        talker.wait_for(lambda m: isinstance(m, Sensors) and m.bitmap == 1 << 4)
        talker.send(AskHello())
        _, stats = talker.wait_for(of(Stats), timeout=5)
    finally:
        talker.close()
    assert stats.held + stats.cut > 0
    assert pico.watchdog_resets == 0


def test_the_confirm_button_held_at_power_up_keeps_the_watchdog_off() -> None:
    config = replace(QUICK_WATCHDOG, maintenance_channel=30)
    pico = SimPico(config)
    host = RawHost(pico.port)
    pico.set_active({30})
    try:
        pico.start()
        deadline = time.monotonic() + 3
        while b"stays at the REPL" not in host.received and time.monotonic() < deadline:
            host.pump()
        let_the_watchdog_run(config)
        host.pump()
        names = [e.name for e in pico.events]
    finally:
        host.close()
        pico.close()
    assert b"pyramid: maintenance: the button of channel 30 was held" in host.received
    assert "wdt" not in names and "watchdog" not in names
    assert host.messages == []  # no HELLO: the firmware is not running
