"""The simulated chip behind the fake ``machine`` and ``neopixel``: GPIO levels, the
switch matrix wired to them, and a control line to the test process that drives it.

Runs inside the firmware's own interpreter (the MicroPython unix port, or CPython). The
wires modelled are those of hardware/README.md, the same for the Pi and the Pico build: a
switch and its diode (anode on the column, cathode on the row) join a row GPIO to a column
GPIO; a column reads low only while a row joined to it by a *closed* switch pulls low (an
output or an open-drain pin at 0). A row driven high does nothing through the diode, so
there is no ghosting, and a firmware that drives rows high (the old Pico wiring) reads
nothing. A column with its pull-up reads high otherwise, with its pull-down low, and with
no pull it floats and reads at random, so a firmware that forgets the pull-up fails its
tests. An open-drain pin at 1 is released (an input). A switch that bounces conducts at
random for a few milliseconds after it changes. Not modelled: resistance, rise times.

A maker's wiring mistakes can be injected (``diode`` and ``cut`` below). A switch whose
diode is missing (or shorted) conducts both ways: from a column that a low row pulls
down, current runs backwards through it into its row, and on through that row's closed
switches into their columns, so three closed switches make a fourth crossing's column
read low (a ghost). A reversed diode blocks the switch's own current; its sneak path has
three diode drops (about 0.8-0.9 V with Schottky diodes, at the input-low limit), taken
as not pulling low. A cut column wire leaves the GPIO to its pull while the switches
behind the cut still join each other.

The test process (firmware/sim/harness.py) talks to the chip over the pty named by the
environment variable ``PYRAMID_SIM_TTY``, one line per message:

harness to chip
    ``switch ROW COL 0|1 [BOUNCE_MS]``  open or close the switch between two GPIOs
    ``hang MS``                         the next pin read stalls for MS ms (a stuck loop)
    ``fault``                           the next pin read fails with OSError (a bad chip)
    ``diode ROW COL ok|missing|reversed``  the diode of the switch between two GPIOs
    ``cut COL 0|1``                     the wire of column GPIO COL cut (1) or whole (0)
    ``lows? GPIO [MORE]``               how often GPIO was pulled low, answered (``lows``)
                                        once MORE more times it has been (default 0)
chip to harness
    ``boot``                  the chip came out of reset
    ``np PIN RRGGBB...``      a NeoPixel write: every LED's colour, in chain order
    ``wdt MS``                the watchdog was started with an MS timeout
    ``feed``                  the watchdog was fed (at most four times per timeout)
    ``timer MS``              a periodic timer was started
    ``pwm PIN HZ DUTY``       a PWM output changed (DUTY as duty_u16; 0 is silent)
    ``reset``                 ``machine.reset()`` was called
    ``lows GPIO N``           GPIO was pulled low N times since boot (a row: N scans begun),
                              after every line the harness sent before the question

Without ``PYRAMID_SIM_TTY`` the chip runs alone (a benchmark scanning in-process); its
state is still there to read.
"""

import os
import random
import select

try:
    from time import sleep_ms, ticks_add, ticks_diff, ticks_ms, ticks_us
except ImportError:  # CPython
    from ticks import sleep_ms, ticks_add, ticks_diff, ticks_ms, ticks_us

IN = 0
OUT = 1
OPEN_DRAIN = 2
PULL_UP = 1
PULL_DOWN = 2

GPIO_COUNT = 30
"""An RP2040 has GPIO 0–29."""

SERVICE_US = 500
"""How often (at most) pin reads look at the control line; a real pin changes at once."""

_chip = None


def get():
    """The one chip of this process, created (and announced) on first use."""
    global _chip
    if _chip is None:
        _chip = Chip(os.getenv("PYRAMID_SIM_TTY"))
    return _chip


class Chip:
    """GPIO state, the switch matrix, and the control line."""

    def __init__(self, control_path) -> None:
        # gpio -> [mode, pull, output latch]; a reset RP2040 pin is an input, pulls off.
        self.pins = {}
        # column gpio -> {row gpio: [closed, bounce_until_us or None]}
        self.wires = {}
        # (row gpio, column gpio) -> "missing" or "reversed"; column gpios cut off
        self.diodes = {}
        self.cut = set()
        self.lows = {}  # gpio -> how often it was pulled low (a row: once a scan)
        self._lows_asked = []  # [gpio, the count that answers] of questions still open
        self._wiring_version = 0  # bumped by every switch or diode change
        self._sneak_cache = None
        self.timers = []
        self.pixel_writes = 0
        self.last_pixels = None
        self._feed_every = 0
        self._last_feed_report = 0
        self._hang_ms = 0
        self._fault = False
        self._last_service = ticks_us()
        self._rx = b""
        self._control = None
        self._poll = None
        if control_path:
            self._control = open(control_path, "r+b", buffering=0)  # noqa: SIM115 - lives as long as the chip
            self._poll = select.poll()
            self._poll.register(self._control, select.POLLIN)
        self.report("boot")

    # -- pins ----------------------------------------------------------------------------
    def configure(self, gpio: int, mode: int, pull, value) -> None:
        state = self.pins.get(gpio)
        if state is None:
            state = self.pins[gpio] = [IN, None, 0]
        if mode != -1:
            state[0] = mode
            state[1] = pull  # as on the rp2 port: giving a mode without a pull turns pulls off
        elif pull is not None:
            state[1] = pull
        if value is not None:
            state[2] = 1 if value else 0

    def drive(self, gpio: int, value: int) -> None:
        self.pins[gpio][2] = value
        if not value:
            self.lows[gpio] = self.lows.get(gpio, 0) + 1
            if self._lows_asked:
                self._answer_lows()

    def _answer_lows(self) -> None:
        still = []
        for gpio, wanted in self._lows_asked:
            count = self.lows.get(gpio, 0)
            if count >= wanted:
                self.report("lows " + str(gpio) + " " + str(count))
            else:
                still.append([gpio, wanted])
        self._lows_asked = still

    def level(self, gpio: int) -> int:
        """What reading ``gpio`` gives right now."""
        self.service()
        if self._fault:
            self._fault = False
            raise OSError(5)  # EIO
        mode, pull, latch = self.pins[gpio]
        if mode == OUT:
            return latch
        if gpio in self.cut:
            joined = None
        elif self.diodes:
            joined = None
            if gpio in self._sneak_low():
                return 0
        else:
            joined = self.wires.get(gpio)
        if joined:
            now = ticks_us()
            pins = self.pins
            for row, (closed, bounce_until) in joined.items():
                row_state = pins.get(row)
                # Only a row that pulls low conducts through the diode into it.
                if row_state is None or row_state[0] == IN or row_state[2]:
                    continue
                if bounce_until is not None and ticks_diff(bounce_until, now) > 0:
                    if random.getrandbits(1):
                        return 0
                elif closed:
                    return 0
        if pull == PULL_DOWN:
            return 0
        if pull == PULL_UP:
            return 1
        return random.getrandbits(1)  # floating

    def _sneak_low(self):
        """Columns pulled low by a low row, through forward diodes and backwards through
        switches whose diode is missing (see the module docstring)."""
        low_rows = set()
        for gpio, (mode, _pull, latch) in self.pins.items():
            if mode != IN and not latch:
                low_rows.add(gpio)
        key = (self._wiring_version, tuple(sorted(low_rows)))
        if self._sneak_cache is not None and self._sneak_cache[0] == key:
            return self._sneak_cache[1]
        now = ticks_us()
        bouncing = False
        closed = []
        for column, joined in self.wires.items():
            for row, (on, bounce_until) in joined.items():
                if bounce_until is not None and ticks_diff(bounce_until, now) > 0:
                    on = random.getrandbits(1)
                    bouncing = True
                if on and self.diodes.get((row, column)) != "reversed":
                    closed.append((row, column))
        low_columns = set()
        frontier = list(low_rows)
        while frontier:
            row = frontier.pop()
            for r, c in closed:
                if r != row or c in low_columns:
                    continue
                low_columns.add(c)
                for r2, c2 in closed:
                    if c2 == c and r2 not in low_rows and self.diodes.get((r2, c2)) == "missing":
                        state = self.pins.get(r2)
                        if state is not None and state[0] == OUT and state[2]:
                            continue  # a row driven high: two GPIOs fight (not ours)
                        low_rows.add(r2)
                        frontier.append(r2)
        self._sneak_cache = None if bouncing else (key, low_columns)
        return low_columns

    def set_switch(self, row: int, column: int, closed: bool, bounce_ms: int = 0) -> None:
        until = ticks_add(ticks_us(), bounce_ms * 1000) if bounce_ms else None
        self.wires.setdefault(column, {})[row] = [closed, until]
        self._wiring_version += 1

    # -- outputs the test watches ------------------------------------------------------
    def show_pixels(self, gpio: int, colours: list) -> None:
        self.pixel_writes += 1
        self.last_pixels = colours
        self.report("np " + str(gpio) + " " + "".join([f"{c:06X}" for c in colours]))

    def watchdog_started(self, timeout_ms: int) -> None:
        self._feed_every = timeout_ms // 4
        self._last_feed_report = ticks_ms()
        self.report(f"wdt {timeout_ms}")

    def watchdog_fed(self) -> None:
        now = ticks_ms()
        if ticks_diff(now, self._last_feed_report) >= self._feed_every:
            self._last_feed_report = now
            self.report("feed")

    def pwm_changed(self, gpio: int, hz: int, duty: int) -> None:
        self.report(f"pwm {gpio} {hz} {duty}")

    def timer_started(self, timer) -> None:
        self.timers.append(timer)
        self.report(f"timer {timer.period}")

    def idle(self, ms: int) -> None:
        """Sit at the REPL for ``ms``: soft timers fire, as they do on a Pico."""
        end = ticks_add(ticks_ms(), ms)
        while ticks_diff(end, ticks_ms()) > 0:
            now = ticks_ms()
            for timer in self.timers:
                timer.fire_if_due(now)
            self.service()
            sleep_ms(5)

    def report(self, text: str) -> None:
        # Stamped with the chip's own clock: the test's timestamps would also carry when it
        # got to read the line, which a loaded machine delays by batches.
        if self._control is not None:
            self._control.write(str(ticks_us()).encode() + b" " + text.encode() + b"\n")

    # -- the control line ----------------------------------------------------------------
    def service(self) -> None:
        """Apply what the test sent since the last look (at most every SERVICE_US)."""
        if self._poll is None:
            return
        now = ticks_us()
        if ticks_diff(now, self._last_service) < SERVICE_US:
            return
        self._last_service = now
        data = self._rx
        while self._poll.poll(0):
            byte = self._control.read(1)
            if not byte:
                break
            data += byte
        while b"\n" in data:
            line, data = data.split(b"\n", 1)
            self._apply(line.decode().split())
        self._rx = data
        if self._hang_ms:
            hang, self._hang_ms = self._hang_ms, 0
            sleep_ms(hang)

    def _apply(self, words: list) -> None:
        self._wiring_version += 1
        if words[0] == "switch":
            bounce = int(words[4]) if len(words) > 4 else 0
            self.set_switch(int(words[1]), int(words[2]), words[3] == "1", bounce)
        elif words[0] == "hang":
            self._hang_ms = int(words[1])
        elif words[0] == "fault":
            self._fault = True
        elif words[0] == "diode":
            where = (int(words[1]), int(words[2]))
            if words[3] == "ok":
                self.diodes.pop(where, None)
            else:
                self.diodes[where] = words[3]
        elif words[0] == "lows?":
            gpio = int(words[1])
            more = int(words[2]) if len(words) > 2 else 0
            self._lows_asked.append([gpio, self.lows.get(gpio, 0) + more])
            self._answer_lows()
        elif words[0] == "cut":
            if words[2] == "1":
                self.cut.add(int(words[1]))
            else:
                self.cut.discard(int(words[1]))
        else:
            raise ValueError("chip: unknown control line " + " ".join(words))
