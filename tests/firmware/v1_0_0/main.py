"""The Pico sensor/LED board: scan the switch matrix, drive the LEDs, speak wire protocol v1.

Runs on a Raspberry Pi Pico under MicroPython (`pyramid flash` copies it there with
protocol.py, debounce.py and config.py) and, in tests, in the MicroPython unix port (or
CPython) with the fake ``machine`` and ``neopixel`` of firmware/sim/.

One loop that never blocks: every ``SCAN_MS`` it scans the matrix and debounces it; in
between it waits in ``poll`` on USB serial, so a host line is handled the moment it
arrives. It sends ``S`` on every debounced change and at least every ``REPORT_MS``, does
the blinking itself, blanks the LEDs after ``BLANK_AFTER_MS`` without a frame, and feeds
the hardware watchdog; if the loop ever stalls, the watchdog resets the Pico and the host
re-handshakes.

The parts take their pins and streams as arguments, as peterhinch's drivers do, so a test
can build a :class:`Firmware` from fakes; only :func:`main` touches ``machine``.

This file is MicroPython: no ``__future__``, no ``typing``, annotations are plain.
"""

import select
import sys

import protocol
from debounce import Debouncer

try:
    from time import sleep_ms, sleep_us, ticks_add, ticks_diff, ticks_ms
except ImportError:  # CPython runs the firmware in tests where MicroPython cannot run
    from ticks import sleep_ms, sleep_us, ticks_add, ticks_diff, ticks_ms

USABLE_GPIOS = tuple(range(23)) + (26, 27, 28)  # noqa: RUF005 - MicroPython has no (*a, b)
"""GPIOs a Pico brings out for free use (GP23–GP25 and GP29 belong to the board)."""

WATCHDOG_MAX_MS = 8388
"""The longest timeout the RP2040's watchdog counter can hold."""

BOOT_SETTLE_MS = 1000
"""After boot, ``S`` waits until the matrix reads steadily, but never longer than this."""

READ_BUDGET = 2 * protocol.MAX_LINE
"""Most host bytes taken in one pass of the loop, so that a flood cannot starve the scan."""

_maintenance_timer = None  # keeps the watchdog fed at the REPL; must outlive main()


def check_config(cfg) -> list:
    """What is wrong with a config module, as sentences (an empty list when it is fine).

    >>> import config
    >>> check_config(config)
    []
    """
    problems = []

    def number(name, low, high):
        value = getattr(cfg, name, None)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems.append(f"{name} must be a whole number {low}..{high}, not {value!r}")
            return None
        return value

    version = getattr(cfg, "VERSION", None)
    try:
        protocol.check_firmware_version(version)
    except ValueError as error:
        problems.append(f"VERSION: {error.args[0]}")

    used = {}
    for name in ("ROW_PINS", "COLUMN_PINS", "LED_PIN"):
        pins = getattr(cfg, name, None)
        if name == "LED_PIN":
            pins = (pins,)
        if not isinstance(pins, (tuple, list)) or not pins:
            problems.append(f"{name} must be a tuple of GPIO numbers, not {pins!r}")
            continue
        for pin in pins:
            if not isinstance(pin, int) or isinstance(pin, bool) or pin not in USABLE_GPIOS:
                problems.append(f"{name}: {pin!r} is not a free Pico GPIO (GP0–GP22, GP26–GP28)")
            elif pin in used:
                problems.append(f"{name}: GP{pin} is already used by {used[pin]}")
            else:
                used[pin] = name

    number("LED_COUNT", 0, protocol.MAX_LEDS)
    scan_ms = number("SCAN_MS", 1, 100)
    number("DEBOUNCE_SCANS", 2, 20)
    number("SETTLE_US", 0, 1000)
    number("REPORT_MS", 50, 1000)
    number("BLINK_MS", 50, 5000)
    number("BLANK_AFTER_MS", 1000, 600000)
    watchdog_ms = number("WATCHDOG_MS", 100, WATCHDOG_MAX_MS)
    if scan_ms and watchdog_ms and watchdog_ms < 10 * scan_ms:
        problems.append("WATCHDOG_MS must be at least 10 scans (10 * SCAN_MS)")
    return problems


class Matrix:
    """The switch matrix: rows driven high one at a time, columns read through pull-downs.

    ``rows`` are output pins, ``columns`` input pins with the pull-down on. The switch
    between row r and column c is channel ``r * len(columns) + c``.
    """

    def __init__(self, rows, columns, settle_us: int) -> None:
        self.rows = rows
        self.columns = columns
        self.settle_us = settle_us
        self.channels = len(rows) * len(columns)
        for row in rows:
            row.value(0)

    def scan(self) -> int:
        """One full scan: the raw (not yet debounced) bitmap of closed switches."""
        bits = 0
        bit = 1
        settle_us = self.settle_us
        columns = self.columns
        for row in self.rows:
            row.value(1)
            if settle_us:
                sleep_us(settle_us)
            for column in columns:
                if column.value():
                    bits |= bit
                bit <<= 1
            row.value(0)
        return bits


class Leds:
    """The WS2812 chain: shows whole frames and does the blinking itself.

    ``pixels`` is a ``neopixel.NeoPixel``. A frame that differs from the one shown starts
    the blink rhythm afresh with the blinking LEDs lit, so a new hint shows at once; the
    host's refresh of an unchanged frame is written again (healing a glitch on the data
    line) without disturbing the rhythm.
    """

    def __init__(self, pixels, count: int, blink_ms: int) -> None:
        self.pixels = pixels
        self.count = count
        self.blink_ms = blink_ms
        self.colours = (0,) * count
        self.blink = 0
        self.phase_on = True
        self.phase_start = 0

    @property
    def lit(self) -> bool:
        return any(self.colours)

    def show(self, colours: tuple, blink: int, now: int) -> None:
        """Show ``colours`` (0xRRGGBB per LED); bit i of ``blink`` makes LED i blink."""
        if colours != self.colours or blink != self.blink:
            self.colours = colours
            self.blink = blink
            self.phase_on = True
            self.phase_start = now
        self._write()

    def blank(self, now: int) -> None:
        self.show((0,) * self.count, 0, now)

    def tick(self, now: int) -> None:
        """Turn blinking LEDs on or off when their half-period is over."""
        if not self.blink:
            return
        phase_on = (ticks_diff(now, self.phase_start) // self.blink_ms) % 2 == 0
        if phase_on != self.phase_on:
            self.phase_on = phase_on
            self._write()

    def _write(self) -> None:
        pixels = self.pixels
        colours = self.colours
        hidden = 0 if self.phase_on else self.blink
        for i in range(self.count):
            colour = 0 if (hidden >> i) & 1 else colours[i]
            pixels[i] = ((colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF)
        pixels.write()


class HostLink:
    """USB serial to the host: whole lines in, whole lines out, never waiting for long.

    ``pollable`` is what ``select.poll`` watches (``sys.stdin``); ``reader`` and ``writer``
    are byte streams (``sys.stdin.buffer``, ``sys.stdout.buffer``). MicroPython's
    ``read(n)`` waits for all n bytes, so bytes are taken one at a time while ``poll``
    says more are there; CPython's unbuffered ``raw`` stream returns what has arrived.
    """

    def __init__(self, pollable, reader, writer) -> None:
        self._raw = getattr(reader, "raw", None)
        self._reader = reader
        self._writer = writer
        self._poll = select.poll()
        self._poll.register(pollable, select.POLLIN)
        self.splitter = protocol.LineSplitter()
        self.unsent = 0
        """Lines that could not be written (nobody reading; the host will ask again)."""

    def wait(self, ms: int) -> None:
        """Sleep up to ``ms`` milliseconds, waking early when host bytes arrive."""
        events = self._poll.poll(ms)
        if events and not events[0][1] & select.POLLIN:
            # Hung up (only off the Pico, in a simulator): poll would return at once forever.
            sleep_ms(ms)

    def receive(self) -> list:
        """The complete lines that have arrived, taking at most READ_BUDGET bytes."""
        data = b""
        poll = self._poll.poll
        raw = self._raw
        while len(data) < READ_BUDGET:
            events = poll(0)
            if not events or not events[0][1] & select.POLLIN:
                break
            chunk = raw.read(READ_BUDGET - len(data)) if raw else self._reader.read(1)
            if not chunk:
                break
            data += chunk
        return self.splitter.feed(data) if data else []

    def send(self, message) -> bool:
        """Write one message as a line; False when it could not go out."""
        line = protocol.encode(message)
        try:
            self._writer.write(line)
        except OSError:
            self.unsent += 1
            return False
        flush = getattr(self._writer, "flush", None)
        if flush is not None:
            try:  # noqa: SIM105 - MicroPython has no contextlib
                flush()
            except OSError:  # MicroPython's stdout is unbuffered; a tty refuses fsync
                pass
        return True


class Firmware:
    """The main loop's state: debounced sensors out, frames in, LEDs and watchdog kept.

    ``cfg`` is the config module; ``feed_watchdog`` is ``WDT.feed``.
    """

    def __init__(self, cfg, matrix: Matrix, leds: Leds, link: HostLink, feed_watchdog) -> None:
        self.cfg = cfg
        self.matrix = matrix
        self.leds = leds
        self.link = link
        self.feed_watchdog = feed_watchdog
        self.debouncer = Debouncer(cfg.DEBOUNCE_SCANS)
        self.seq = 0
        """The ``seq`` of the next S line."""
        self.scans = 0
        self.dropped = 0
        """Host lines dropped (too long, bad CRC, not a host command)."""
        self.ready = False
        """True once the matrix has read steadily since boot; no S goes out before."""
        self.report_due = False
        self.boot_ms = 0
        self.next_scan = 0
        self.last_report = 0
        self.last_frame = 0
        self.blanked = True

    def start(self, now: int) -> None:
        """Boot: dark LEDs (they keep their colours through a reset), then HELLO."""
        self.boot_ms = now
        self.next_scan = now
        self.leds.blank(now)
        self.blanked = True
        self.send(self.hello())

    def hello(self):
        cfg = self.cfg
        return protocol.Hello(protocol.PROTOCOL, cfg.VERSION, self.matrix.channels, cfg.LED_COUNT)

    def run(self) -> None:
        self.start(ticks_ms())
        while True:
            wait = self.step(ticks_ms())
            if wait > 0:
                self.link.wait(wait)

    def step(self, now: int) -> int:
        """One pass of the loop; returns how many ms may pass before the next one."""
        cfg = self.cfg
        if ticks_diff(now, self.next_scan) >= 0:
            # Counted from now, not from when the scan was due: after a delay scans never
            # bunch up, so DEBOUNCE_SCANS agreeing scans always span (n - 1) * SCAN_MS.
            self.next_scan = ticks_add(now, cfg.SCAN_MS)
            self.scan(now)
        for line in self.link.receive():
            self.handle(line, now)
        self.leds.tick(now)
        if not self.blanked and ticks_diff(now, self.last_frame) >= cfg.BLANK_AFTER_MS:
            self.leds.blank(now)
            self.blanked = True
        if self.ready and (self.report_due or ticks_diff(now, self.last_report) >= cfg.REPORT_MS):
            self.report(now)
        self.feed_watchdog()
        return ticks_diff(self.next_scan, ticks_ms())

    def scan(self, now: int) -> None:
        changed = self.debouncer.feed(self.matrix.scan())
        self.scans += 1
        if changed is not None:
            self.report_due = True
        if (
            not self.ready
            and self.scans >= self.debouncer.agree
            and (self.debouncer.settled() or ticks_diff(now, self.boot_ms) >= BOOT_SETTLE_MS)
        ):
            self.ready = True
            self.report_due = True

    def report(self, now: int) -> None:
        self.send(protocol.Sensors(self.seq, self.debouncer.state))
        self.seq = (self.seq + 1) % protocol.SEQ_MODULO
        self.last_report = now
        self.report_due = False

    def handle(self, line: bytes, now: int) -> None:
        """Act on one host line; anything that is not a valid host command is dropped."""
        try:
            message = protocol.decode(line)
        except ValueError:
            self.dropped += 1
            return
        kind = type(message)
        if kind is protocol.Frame:
            count = len(message.colours)
            if count != self.leds.count:
                self.send(
                    protocol.Err(message.n, f"frame has {count} LEDs, board has {self.leds.count}")
                )
                return
            self.leds.show(message.colours, message.blink, now)
            self.last_frame = now
            self.blanked = False
            self.send(protocol.Ok(message.n))
        elif kind is protocol.AskSensors:
            self.report_due = True  # sent at the end of this pass, once the matrix is steady
        elif kind is protocol.AskHello:
            self.send(self.hello())
        else:
            self.dropped += 1  # a device message echoed back: not for us

    def send(self, message) -> None:
        self.link.send(message)
        # A write to a host that is not reading can take the USB timeout; that is progress.
        self.feed_watchdog()


def complain(problems: list) -> None:
    """Say what is wrong with config.py, every two seconds, for ever.

    No watchdog runs yet, so mpremote (and `pyramid flash`) can still stop this with
    Ctrl-C and copy a corrected config.py.
    """
    while True:
        for problem in problems:
            print("pyramid: config.py:", problem)
        sleep_ms(2000)


def print_exception(error) -> None:
    if hasattr(sys, "print_exception"):
        sys.print_exception(error)
    else:  # CPython
        import traceback

        traceback.print_exception(error)


def main() -> None:
    """Boot the board from config.py and run until reset."""
    global _maintenance_timer

    import config
    import machine
    import neopixel

    problems = check_config(config)
    if problems:
        complain(problems)
    pin = machine.Pin
    rows = [pin(gpio, pin.OUT, value=0) for gpio in config.ROW_PINS]
    columns = [pin(gpio, pin.IN, pin.PULL_DOWN) for gpio in config.COLUMN_PINS]
    pixels = neopixel.NeoPixel(pin(config.LED_PIN, pin.OUT), config.LED_COUNT)
    leds = Leds(pixels, config.LED_COUNT, config.BLINK_MS)
    link = HostLink(sys.stdin, sys.stdin.buffer, sys.stdout.buffer)
    watchdog = machine.WDT(timeout=config.WATCHDOG_MS)
    firmware = Firmware(config, Matrix(rows, columns, config.SETTLE_US), leds, link, watchdog.feed)
    try:
        firmware.run()
    except KeyboardInterrupt:
        # Ctrl-C only comes from mpremote or a person at the REPL: the host protocol never
        # sends 0x03. The watchdog cannot be stopped, so a timer keeps feeding it while
        # files are copied; the reset that ends the session clears both.
        leds.blank(ticks_ms())
        period = config.WATCHDOG_MS // 4
        _maintenance_timer = machine.Timer(
            period=period, mode=machine.Timer.PERIODIC, callback=lambda timer: watchdog.feed()
        )
        print("pyramid: stopped for maintenance; the watchdog is kept fed until the next reset")
    except Exception as error:  # any bug: say what it was, then start clean
        print_exception(error)
        machine.reset()


if __name__ == "__main__":
    main()
