"""The firmware on MicroPython v1.28.0 for the Pico, on an emulated RP2040 (rp2040js).

Everything a Pico runs is real here: MicroPython's UF2, the boot ROM, the firmware's
files in littlefs, USB CDC; the wires are modelled at the pins (firmware/emulator/
pico.mjs). Emulated time runs at ``RATE`` of wall time at most: the firmware's rhythm is
measured on the emulated clock (each event's ``t``), and the host's patience is stretched
by ``1 / RATE`` (:meth:`EmulatedPico.scaled`, :meth:`EmulatedPico.wall`).

One emulated Pico serves the module (booting costs about 3 s of wall time); the tests
that reset it or stop its firmware come last, or boot their own.

Without the UF2 and boot ROM (``PYRAMID_RP2040_DIR``, default ../shared/rp2040/) or Node,
the tests skip with one line saying what to provide; under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fw_helpers import RawHost, of, only_protocol

from controller.hardware.port import LinkState, Sound
from controller.hardware.serial import LinkTiming, SerialBoard
from firmware import protocol
from firmware.config import VERSION
from firmware.emulator.pico import EmulatedPico, find_node, find_rp2040
from firmware.sim.harness import SimConfig
from rigs.poll import wait_until

RATE = 0.25
CONFIG = SimConfig(report_ms=200, blank_after_ms=1500, buzzer_pin=15, maintenance_channel=30)
LEDS = CONFIG.led_count
RED, GREEN, BLUE = 0xFF0000, 0x00FF00, 0x0000FF


CHIP_TIME_PATIENCE = 60.0
"""Wall seconds a busy machine may take to run a stretch of the chip's time (a wait on
the chip's clock ends as soon as the stretch has passed, so this costs nothing)."""


def need_emulator() -> None:
    found = find_rp2040()
    problem = found if isinstance(found, str) else find_node()
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the emulated Pico cannot run in CI: {problem}")
        pytest.skip(f"the emulated Pico cannot run: {problem}")


@pytest.fixture(scope="module")
def pico() -> Iterator[EmulatedPico]:
    need_emulator()
    with EmulatedPico(CONFIG, rate=RATE) as running:
        # USB is up long before main.py runs; its first lines end with STATS.
        running.wait_for("out", lambda e: e.data["line"].startswith("STATS"), running.wall(2))
        yield running
    assert not running.of("ws2812_error"), running.of("ws2812_error")


@pytest.fixture
def host(pico: EmulatedPico) -> Iterator[RawHost]:
    talker = RawHost(pico.port)
    talker.serial.reset_input_buffer()  # what arrived while nobody listened
    yield talker
    talker.close()
    only_protocol(talker)


def frame(n: int, *lit: tuple[int, int], blink: int = 0) -> protocol.Frame:
    colours = [0] * LEDS
    for index, colour in lit:
        colours[index] = colour
    return protocol.Frame(n, tuple(colours), blink)


def sent(pico: EmulatedPico, after: float = 0.0) -> list[tuple[float, object]]:
    """(emulated time, message) for every protocol line the device sent."""
    out = []
    for at, line in pico.lines(after):
        with contextlib.suppress(protocol.ProtocolError):
            out.append((at, protocol.decode(line)))
    return out


def ask(pico: EmulatedPico, host: RawHost, kind: type) -> object:
    """Send HELLO? and return the first ``kind`` that follows (HELLO, HAS or STATS)."""
    host.send(protocol.AskHello())
    return host.wait_for(of(kind), timeout=pico.wall(1.0))[1]


def test_boot_and_hello(pico: EmulatedPico, host: RawHost) -> None:
    boot = [message for _, message in sent(pico)[:3]]
    assert boot == [
        protocol.Hello(1, CONFIG.version, 36, LEDS),
        protocol.Has(("buzzer",)),
        protocol.Stats(0, 0, 0),
    ]
    assert ask(pico, host, protocol.Hello) == boot[0]
    assert host.wait_for(of(protocol.Has), timeout=pico.wall(0.5))[1] == boot[1]
    # The first picture after power-up is dark: the LEDs keep their colours through a reset.
    first = pico.of("leds")[0]
    assert first.colours == (0,) * LEDS


def test_switches_are_reported_on_change_and_every_report_ms(
    pico: EmulatedPico, host: RawHost
) -> None:
    start = pico.now
    pico.press(9, bounce_ms=3)
    host.wait_for(lambda m: isinstance(m, protocol.Sensors) and m.bitmap == 1 << 9, pico.wall(1))
    pico.set_active({0, 1, 6})  # three corners: the diodes keep the fourth (7) open
    host.wait_for(lambda m: isinstance(m, protocol.Sensors) and m.bitmap == 0b1000011, pico.wall(1))
    held = pico.now  # held half a second of the chip's time: reports that repeat the state
    wait_until(lambda: pico.now >= held + 0.5, CHIP_TIME_PATIENCE, interval=0.05)
    pico.set_active(())
    host.wait_for(lambda m: isinstance(m, protocol.Sensors) and m.bitmap == 0, pico.wall(1))
    reports = [(at, m) for at, m in sent(pico, start) if isinstance(m, protocol.Sensors)]
    assert 7 not in {c for _, m in reports for c in range(36) if m.bitmap >> c & 1}
    # The bounce (3 ms of random contact) never shows: channel 9 goes on once and off once.
    nine = [m.bitmap >> 9 & 1 for _, m in reports]
    assert sum(1 for a, b in itertools.pairwise(nine) if a != b) <= 2
    assert 1 in nine
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(reports)]
    assert len(reports) >= 4
    # Emulated time: at least every REPORT_MS, give or take one pass of the loop.
    assert max(gaps) <= CONFIG.report_ms / 1000 + 0.006, gaps
    seqs = [m.seq for _, m in reports]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def test_frames_are_shown_exactly_and_blink_on_the_picos_clock(
    pico: EmulatedPico, host: RawHost
) -> None:
    start = pico.now
    host.send(frame(11, (0, GREEN), (1, RED), (36, 0x123456), blink=0b1))
    assert host.wait_for(lambda m: isinstance(m, (protocol.Ok, protocol.Err)), pico.wall(1))[
        1
    ] == protocol.Ok(11)
    first = pico.wait_for("leds", lambda e: e.colours[1] == RED, after=start)
    expected = [0] * LEDS
    expected[0], expected[1], expected[36] = GREEN, RED, 0x123456
    assert list(first.colours) == expected
    # 37 LEDs x 24 bits x 1.25 us on the wire (interrupts off meanwhile).
    assert 1.05e6 < first.data["end"] - first.data["start"] < 1.2e6
    pico.wait_for("leds", after=first.t + 1.1, timeout=pico.wall(1.5))
    shown = [e for e in pico.of("leds", first.t) if e.t <= first.t + 1.1]
    assert all(e.colours[1] == RED for e in shown)  # LED 1 does not blink
    flips = [b for a, b in itertools.pairwise(shown) if a.colours[0] != b.colours[0]]
    assert len(flips) >= 3
    assert {e.colours[0] for e in flips} == {0, GREEN}
    halves = [b.t - a.t for a, b in itertools.pairwise([first, *flips])]
    assert all(abs(h - CONFIG.blink_ms / 1000) < 0.006 for h in halves), halves


def test_the_leds_go_dark_after_blank_after_ms_without_a_frame(
    pico: EmulatedPico, host: RawHost
) -> None:
    start = pico.now
    host.send(frame(21, (2, BLUE)))
    host.wait_for(of(protocol.Ok), pico.wall(1))
    lit = pico.wait_for("leds", lambda e: e.colours[2] == BLUE, after=start)
    dark = pico.wait_for("leds", lambda e: not any(e.colours), after=lit.t, timeout=pico.wall(2.5))
    assert abs(dark.t - lit.t - CONFIG.blank_after_ms / 1000) < 0.01


def test_bad_lines_are_dropped_and_counted(pico: EmulatedPico, host: RawHost) -> None:
    before = ask(pico, host, protocol.Stats)
    assert isinstance(before, protocol.Stats)
    good = protocol.encode(frame(31, (0, RED)))
    host.send_raw(b"\x00\xff garbage \x7f\n")
    host.send_raw(b"F" * 3000 + b"\n")  # over the line limit
    host.send_raw(good[:-6] + b"0000\n")  # a frame with a wrong CRC
    host.send_raw(protocol.encode(protocol.Sensors(1, 1)))  # a device message
    host.send_raw(good[:20] + b"\n")  # cut off
    host.send_raw(good)
    assert host.wait_for(lambda m: isinstance(m, (protocol.Ok, protocol.Err)), pico.wall(1))[
        1
    ] == protocol.Ok(31)
    after = ask(pico, host, protocol.Stats)
    assert isinstance(after, protocol.Stats)
    assert after.dropped == before.dropped + 5


def test_a_tune_is_played_at_the_buzzer_pin(pico: EmulatedPico, host: RawHost) -> None:
    start = pico.now
    host.send(protocol.Tune(41, 50, ((660, 70), (0, 30), (990, 110))))
    assert host.wait_for(lambda m: isinstance(m, (protocol.Ok, protocol.Err)), pico.wall(1))[
        1
    ] == protocol.Ok(41)
    pico.wait_for("tone", lambda e: e.data["hz"] == 0, after=start + 0.2, timeout=pico.wall(1))
    tones = [e for e in pico.of("tone", start) if e.data["pin"] == CONFIG.buzzer_pin]
    heard = [(e.data["hz"], e.data["duty"]) for e in tones if e.data["hz"]]
    pitches = sorted({hz for hz, _ in heard})
    assert len(pitches) == 2
    assert abs(pitches[0] - 660) <= 7 and abs(pitches[1] - 990) <= 10
    assert all(abs(duty - 0.25) < 0.01 for _, duty in heard)  # volume 50 % of a square wave
    first = next(e for e in tones if e.data["hz"])
    second = next(e for e in tones if e.data["hz"] and abs(e.data["hz"] - 990) <= 10)
    assert abs((second.t - first.t) - 0.100) < 0.008  # 70 ms note + 30 ms rest


def test_the_serial_adapter_on_the_emulated_pico(pico: EmulatedPico) -> None:
    timing = pico.scaled(LinkTiming())
    board = SerialBoard(pico.port, 33, LEDS, timing=timing)
    frames: list[frozenset[int]] = []
    board.start(lambda f: frames.append(f.active))
    try:
        wait_until(lambda: board.status().link is LinkState.CONNECTED, pico.wall(2))
        assert wait_until(lambda: board.has_buzzer, pico.wall(0.5))  # from the board's HAS line
        pico.press(24)
        wait_until(lambda: frozenset({24}) in frames, pico.wall(0.5))
        pico.release(24)
        start = pico.now
        board.sound(Sound.BONUS, volume=1.0)
        tone = pico.wait_for("tone", lambda e: e.data["hz"] > 0, after=start)
        assert abs(tone.data["hz"] - 660) <= 7 and abs(tone.data["duty"] - 0.5) < 0.01
    finally:
        board.close()
    counters = board.status().counters
    assert counters["tunes_sent"] == 1 and counters["tunes_refused"] == 0


def drain(port: RawHost, pico: EmulatedPico, chip_s: float) -> None:
    """Read everything that arrives for ``chip_s`` of the chip's own time (its clock is
    asked five times a wall second); only what comes after counts for the next wait."""
    until = pico.now + chip_s
    patience = time.monotonic() + CHIP_TIME_PATIENCE
    looked = time.monotonic()
    while time.monotonic() < patience:
        port.pump()  # reads for up to 10 ms
        if time.monotonic() - looked >= 0.2:
            if pico.now >= until:
                port.listen(0)
                return
            looked = time.monotonic()
    raise AssertionError(f"the chip's clock did not pass {until:.3f} s")


def test_a_host_that_floods_and_then_does_not_read(pico: EmulatedPico) -> None:
    port = RawHost(pico.port)
    port.serial.reset_input_buffer()
    flood = protocol.encode(protocol.AskHello()) * 600  # 7 KB asking for 36 KB of answers
    try:
        pico.stats(clear=True)
        start = pico.now
        # Never read: the answers fill the pty and the bridge (about 25 KB), then USB's.
        port.send_raw(flood)
        wait_until(lambda: pico.stats()["bytesToDevice"] >= len(flood), pico.wall(6), interval=0.5)
        taken = pico.now  # half a second more of the chip's time of not reading
        wait_until(lambda: pico.now >= taken + 0.5, CHIP_TIME_PATIENCE, interval=0.2)
        stats = pico.stats()
        elapsed = stats["t"] - start
        # Reading again: the backlog drains, then HELLO? is answered with the counters.
        drain(port, pico, 0.5)
        port.send(protocol.AskHello())
        held = port.wait_for(of(protocol.Stats), timeout=pico.wall(2))[1]
    finally:
        port.close()
    assert stats["bytesToDevice"] >= len(flood), stats
    assert stats["inStalls"] > 0, stats  # the host really stopped taking the device's lines
    assert isinstance(held, protocol.Stats)
    assert held.held > 0, (held, stats)  # the firmware saw it, and says so
    # The scan went on while the host flooded and stalled: one gap of about a second (the
    # one write that timed out while USB filled up), otherwise passes stretched from 4 to
    # about 6 ms by answering a HELLO? (three lines) in each (measured: 621 scans in 5 s).
    assert stats["scans"] >= elapsed / (CONFIG.scan_ms / 1000) * 0.4, stats
    assert stats["scan_max_gap"] < 1.2e9, stats


def test_a_stalled_loop_is_reset_by_the_watchdog(pico: EmulatedPico, host: RawHost) -> None:
    start = pico.now
    pico.stall(CONFIG.watchdog_ms + 300)
    boot = pico.wait_for("boot", after=start, timeout=pico.wall(3))
    assert boot.data["why"] == "watchdog"
    assert CONFIG.watchdog_ms / 1000 - 0.01 <= boot.t - start <= CONFIG.watchdog_ms / 1000 + 0.3
    _, hello = host.wait_for(of(protocol.Hello), timeout=pico.wall(2))
    assert hello.firmware == CONFIG.version
    dark = pico.wait_for("leds", after=boot.t, timeout=pico.wall(2))
    assert not any(dark.colours)


def mpremote(port: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_ctrl_c_stops_for_maintenance_and_keeps_the_watchdog_fed(pico: EmulatedPico) -> None:
    with _raw(pico) as host:
        start = pico.now
        host.send_raw(b"\x03")
        deadline = time.monotonic() + pico.wall(1)
        while b"stopped for maintenance" not in host.received and time.monotonic() < deadline:
            host.pump()
        assert b"stopped for maintenance" in host.received
    done = mpremote(pico.port, "resume", "exec", "print(6 * 7)")
    assert done.returncode == 0 and "42" in done.stdout, done.stderr
    # Twice the watchdog's timeout of the chip's own time, without a boot.
    twice = 2 * CONFIG.watchdog_ms / 1000
    wait_until(lambda: pico.now >= start + twice, CHIP_TIME_PATIENCE, interval=0.1)
    assert not pico.of("boot", start)  # the timer fed the watchdog throughout
    pico.reset()
    pico.wait_for("boot", after=start, timeout=pico.wall(1))


def test_the_confirm_button_at_power_up_keeps_the_firmware_at_the_repl() -> None:
    need_emulator()
    config = replace(CONFIG, watchdog_ms=1000)
    with EmulatedPico(config, rate=RATE, closed=(30,)) as pico:
        host = RawHost(pico.port)
        try:
            deadline = time.monotonic() + pico.wall(2)
            while b"stays at the REPL" not in host.received and time.monotonic() < deadline:
                host.pump()
        finally:
            host.close()
        assert b"maintenance" in host.received
        assert not [m for _, m in host.messages if isinstance(m, protocol.Hello)]
        # Plain mpremote soft-resets; with no watchdog running nothing resets the Pico.
        done = mpremote(pico.port, "exec", "print(sum(range(10)))")
        assert done.returncode == 0 and "45" in done.stdout, done.stderr
        start = pico.now  # twice the watchdog's timeout of the chip's own time, no boot
        twice = 2 * config.watchdog_ms / 1000
        wait_until(lambda: pico.now >= start + twice, CHIP_TIME_PATIENCE, interval=0.1)
        assert [e.data["why"] for e in pico.of("boot")] == ["power"], pico.of("boot", start)


class _raw:
    """A RawHost for a ``with``, its input flushed first."""

    def __init__(self, pico: EmulatedPico) -> None:
        self.host = RawHost(pico.port)
        self.host.serial.reset_input_buffer()

    def __enter__(self) -> RawHost:
        return self.host

    def __exit__(self, *exc: object) -> None:
        self.host.close()


def pyramid_flash(pico: EmulatedPico, *options: str) -> subprocess.CompletedProcess[str]:
    """``pyramid flash --port <the emulated Pico> [options]``, as a maker runs it."""
    # `pyramid flash` waits 15 s for the HELLO after the reset, for a real Pico; the
    # emulated one boots MicroPython at half speed, or slower on a loaded machine.
    command = ["flash", "--port", pico.port, *options, "--timeout", f"{pico.wall(5):g}"]
    return subprocess.run(
        [sys.executable, "-m", "pyramid_board.cli", *command],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_pyramid_flash_onto_a_blank_pico() -> None:
    """MicroPython and nothing else (an erased filesystem, formatted at boot through the
    emulated flash chip); `pyramid flash` copies the firmware with mpremote, resets the
    Pico and gets its HELLO."""
    need_emulator()
    with EmulatedPico(CONFIG, files={}, rate=0.5) as pico:
        # A second of the chip's time: MicroPython formats littlefs and reaches the REPL.
        wait_until(lambda: pico.now >= 1.0, CHIP_TIME_PATIENCE, interval=0.1)
        done = pyramid_flash(pico)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "100 %  6/6 main.py" in done.stdout  # progress, file by file
        assert f"firmware {VERSION}, protocol 1, 36 channels, 37 LEDs." in done.stdout
        assert sorted(pico.flash_files()) == [
            "calib.py",
            "config.py",
            "debounce.py",
            "main.py",
            "protocol.py",
            "usbpower.py",
        ]
        assert pico.of("flash_erase")  # written through the flash chip's commands


WIRES = """
from machine import Pin, bitstream
import time
rows = [Pin(g, Pin.OPEN_DRAIN, value=1) for g in (2, 3, 4, 5, 6, 7)]
floating = Pin(9, Pin.IN)  # column 1 with no pull
reads = set(floating.value() for _ in range(200))
up = Pin(10, Pin.IN, Pin.PULL_UP)
down = Pin(11, Pin.IN, Pin.PULL_DOWN)
column = Pin(8, Pin.IN, Pin.PULL_UP)  # column 0; the button at row 5 (GP7) is held
before = column.value()
rows[5].value(0)
during = column.value()
rows[5].value(1)
after = column.value()
column.init(Pin.IN, Pin.PULL_DOWN)  # the wiring before 1.1.0: the row driven high
driven = Pin(7, Pin.OUT, value=1)
old = column.value()
driven.init(Pin.OPEN_DRAIN, value=1)
print("WIRES", sorted(reads), up.value(), down.value(), before, during, after, old)
led = Pin(16, Pin.OUT, value=0)
time.sleep_ms(1)
bitstream(led, 0, (1000, 850, 1300, 450), bytes(1))  # T0H of 1 us: out of tolerance
time.sleep_ms(1)
bitstream(led, 0, (400, 20000, 800, 450), bytes(2))  # lows of 20 us: a reset too short
time.sleep_ms(1)
bitstream(led, 0, (400, 850, 800, 450), bytes((1, 2, 3)))  # a good one
time.sleep_ms(1)
print("DONE")
"""


def test_the_wires_as_the_pads_say_and_the_ws2812_checked_against_its_datasheet() -> None:
    """The model itself, driven from MicroPython at the REPL (the maintenance button held):
    pulls from the pad registers, a floating input, the diode's direction, and WS2812
    timing errors caught."""
    need_emulator()
    with EmulatedPico(CONFIG, rate=RATE, closed=(30,)) as pico:
        pico.wait_for("out", lambda e: "stays at the REPL" in e.data["line"], pico.wall(2))
        done = mpremote(pico.port, "exec", WIRES)
        assert done.returncode == 0 and "DONE" in done.stdout, done.stdout + done.stderr
        words = next(line for line in done.stdout.splitlines() if line.startswith("WIRES"))
        assert words.split()[1:] == ["[0,", "1]", "1", "0", "1", "0", "1", "0"]

        def errors() -> list[str]:
            return [e.data["why"] for e in pico.of("ws2812_error")]

        def both_caught() -> bool:
            found = errors()
            return any("neither T0H" in why for why in found) and any(
                "inside a frame" in why for why in found
            )

        wait_until(both_caught, pico.wall(0.05), what=errors)
        good = pico.of("leds")[-1]
        assert bytes.fromhex(good.data["hex"]) == bytes((1, 2, 3))
