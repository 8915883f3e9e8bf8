"""The Pico sensor/LED board: scan the switch matrix, drive the LEDs, speak wire protocol v1.

Runs on a Raspberry Pi Pico under MicroPython (`pyramid flash` copies it there with
protocol.py, debounce.py, usbpower.py, calib.py and config.py) and, in tests, in the MicroPython
unix port (or CPython) with the fake ``machine`` and ``neopixel`` of firmware/sim/.

One loop that never blocks: every ``SCAN_MS`` it scans the matrix and debounces it; in
between it waits in ``poll`` on USB serial, so a host line is handled the moment it
arrives. It sends ``S`` on every debounced change and at least every ``REPORT_MS``, does
the blinking itself, blanks the LEDs after ``BLANK_AFTER_MS`` without a frame, plays
tunes on the buzzer, and feeds the hardware watchdog; if the loop ever stalls, the
watchdog resets the Pico and the host re-handshakes.

A host that floods the port or stops reading does not stop the scan: host bytes are
taken for at most ``READ_US`` per pass, and a line is only written while USB has room for
it (a write into a full buffer would wait for USB's timeout); lines held back or cut
short are counted and reported in ``STATS``.

Maintenance: with the button of ``MAINTENANCE_CHANNEL`` (the confirm button) held while
the Pico powers up, the firmware stops at the REPL before it starts the watchdog, so
mpremote (with or without ``resume``) and Thonny work as on a bare Pico.

The parts take their pins and streams as arguments, as peterhinch's drivers do, so a test
can build a :class:`Firmware` from fakes; only :func:`main` touches ``machine``.

This file is MicroPython: no ``__future__``, no ``typing``, annotations are plain. It is
longer than 500 lines because a Pico imports one file fastest and the parts (matrix,
LEDs, buzzer, host link, loop) share its timing constants; each is a small class.
"""

import select
import sys

import calib
import protocol
import usbpower
from debounce import Debouncer, Levels

try:
    from time import sleep_ms, sleep_us, ticks_add, ticks_diff, ticks_ms, ticks_us
except ImportError:  # CPython runs the firmware in tests where MicroPython cannot run
    from ticks import sleep_ms, sleep_us, ticks_add, ticks_diff, ticks_ms, ticks_us

USABLE_GPIOS = tuple(range(23)) + (26, 27, 28)  # noqa: RUF005 - MicroPython has no (*a, b)
"""GPIOs a Pico brings out for free use (GP23–GP25 and GP29 belong to the board)."""

WATCHDOG_MAX_MS = 8388
"""The longest timeout the RP2040's watchdog counter can hold."""

BOOT_SETTLE_MS = 1000
"""After boot, ``S`` waits until the matrix reads steadily, but never longer than this."""

READ_BUDGET = 2 * protocol.MAX_LINE
"""Most host bytes taken in one pass of the loop, so that a flood cannot starve the scan."""

READ_US = 1500
"""Longest time one pass spends taking host bytes (well inside a 4 ms scan period)."""

MAINTENANCE_SCANS = 3
"""Scans, ``SCAN_MS`` apart, that must all see the maintenance button held at power-on."""

PHASES = (0, 1, 0, 1, 0)
"""A reflective group's readings in a scan: dark, lit, dark, lit, dark."""

VOLUME_DUTY = 32768 // 100
"""duty_u16 per volume per cent: 100 % is a square wave (50 % duty, a piezo's loudest)."""

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

    sensing = getattr(cfg, "SENSING", "matrix")
    if sensing not in ("matrix", "reflective"):
        problems.append(f"SENSING must be 'matrix' or 'reflective', not {sensing!r}")
        sensing = "matrix"
    pin_names = ("ROW_PINS", "COLUMN_PINS", "LED_PIN")
    if sensing == "reflective":
        pin_names = ("MUX_SELECT_PINS", "MUX_ADC_PINS", "EMITTER_PINS", "LED_PIN")
    used = {}
    for name in pin_names:
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

    buzzer = getattr(cfg, "BUZZER_PIN", None)
    if buzzer is not None:
        if not isinstance(buzzer, int) or isinstance(buzzer, bool) or buzzer not in USABLE_GPIOS:
            problems.append(f"BUZZER_PIN: {buzzer!r} is not a free Pico GPIO (or None)")
        elif buzzer in used:
            problems.append(f"BUZZER_PIN: GP{buzzer} is already used by {used[buzzer]}")

    if sensing == "reflective":
        channels = _check_reflective(cfg, used, problems)
        columns = ()
    else:
        rows = getattr(cfg, "ROW_PINS", ())
        columns = getattr(cfg, "COLUMN_PINS", ())
        channels = len(rows) * len(columns) if isinstance(rows, (tuple, list)) else 0
    if isinstance(columns, (tuple, list)) and channels:
        maintenance = getattr(cfg, "MAINTENANCE_CHANNEL", None)
        if maintenance is not None and (
            not isinstance(maintenance, int)
            or isinstance(maintenance, bool)
            or not 0 <= maintenance < channels
        ):
            problems.append(
                f"MAINTENANCE_CHANNEL must be a channel 0..{channels - 1} or None, "
                f"not {maintenance!r}"
            )

    number("LED_COUNT", 0, protocol.MAX_LEDS)
    if sensing == "reflective":
        for name, low, high in (("ON_COUNTS", 2, 4095), ("OFF_COUNTS", 1, 4095),
                                ("BASELINE_MAX", 0, 4095), ("BASELINE_CREEP", 1, 100000),
                                ("AMBIENT_MAX", 1, 4095),
                                ("MUX_SETTLE_US", 0, 1000), ("EMITTER_SETTLE_US", 0, 5000),
                                ("SAMPLES", 1, 64)):  # fmt: skip
            number(name, low, high)
        on, off = getattr(cfg, "ON_COUNTS", 0), getattr(cfg, "OFF_COUNTS", 0)
        if isinstance(on, int) and isinstance(off, int) and off >= on:
            problems.append("OFF_COUNTS must be below ON_COUNTS (the hysteresis)")
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


def held(scan, channel: int, scans: int, scan_ms: int) -> bool:
    """True when ``channel`` reads closed in ``scans`` calls of ``scan`` ``scan_ms`` apart."""
    for index in range(scans):
        if index:
            sleep_ms(scan_ms)
        if not (scan() >> channel) & 1:
            return False
    return True


ADC_GPIOS = (26, 27, 28)
"""The Pico's GPIOs with an ADC input (ADC0–ADC2)."""


def _check_reflective(cfg, used: dict, problems: list) -> int:
    """The reflective build's pins and channels; returns the channel count (0: unusable)."""
    channels = getattr(cfg, "CHANNELS", None)
    if not isinstance(channels, int) or isinstance(channels, bool) or not 1 <= channels <= 64:
        problems.append(f"CHANNELS must be a whole number 1..64, not {channels!r}")
        return 0
    select = getattr(cfg, "MUX_SELECT_PINS", ())
    if isinstance(select, (tuple, list)) and len(select) != 4:
        problems.append("MUX_SELECT_PINS must be the four pins S0–S3")
    adcs = getattr(cfg, "MUX_ADC_PINS", ())
    for pin in adcs if isinstance(adcs, (tuple, list)) else ():
        if pin not in ADC_GPIOS:
            problems.append(f"MUX_ADC_PINS: GP{pin} has no ADC (GP26, GP27, GP28 have)")
    emitters = getattr(cfg, "EMITTER_PINS", ())
    groups = len(emitters) if isinstance(emitters, (tuple, list)) else 0
    seen = {}
    sensors = getattr(cfg, "SENSORS", None)
    if not isinstance(sensors, (tuple, list)):
        problems.append("SENSORS must be a tuple of (channel, mux, input, group)")
        sensors = ()
    for entry in sensors:
        if not isinstance(entry, (tuple, list)) or len(entry) != 4:
            problems.append(f"SENSORS: {entry!r} is not (channel, mux, input, group)")
            continue
        channel, mux, address, group = entry
        if not isinstance(channel, int) or not 0 <= channel < channels:
            problems.append(f"SENSORS: channel {channel!r} is not 0..{channels - 1}")
        elif channel in seen:
            problems.append(f"SENSORS: channel {channel} is named twice")
        seen[channel] = "a sensor"
        if not isinstance(mux, int) or not 0 <= mux < len(adcs):
            problems.append(f"SENSORS: channel {channel}: mux {mux!r} has no MUX_ADC_PINS entry")
        if not isinstance(address, int) or not 0 <= address < 16:
            problems.append(f"SENSORS: channel {channel}: input {address!r} is not 0..15")
        if not isinstance(group, int) or not 0 <= group < groups:
            problems.append(
                f"SENSORS: channel {channel}: group {group!r} has no EMITTER_PINS entry"
            )
    problems += usbpower.problems(cfg, len(adcs))
    switches = getattr(cfg, "SWITCHES", ())
    for entry in switches if isinstance(switches, (tuple, list)) else ():
        channel, pin = entry
        if not isinstance(channel, int) or not 0 <= channel < channels or channel in seen:
            problems.append(f"SWITCHES: channel {channel!r} is not a free channel")
        seen[channel] = "a switch"
        if pin not in USABLE_GPIOS:
            problems.append(f"SWITCHES: {pin!r} is not a free Pico GPIO (GP0–GP22, GP26–GP28)")
        elif pin in used:
            problems.append(f"SWITCHES: GP{pin} is already used by {used[pin]}")
        else:
            used[pin] = "SWITCHES"
    return channels


class Matrix:
    """The switch matrix, wired as for the Pi build: rows pulled low one at a time, columns
    read through pull-ups, one diode per switch (anode on the column, cathode on the row).

    ``rows`` are ``Pin.OPEN_DRAIN`` pins with the pull-up on: ``value(0)`` pulls a row low
    (the rp2 port turns the pin into an output, low), ``value(1)`` releases it (an input
    again, pulled up), so no row is ever driven high and a missing diode cannot short two
    GPIOs.
    ``columns`` are inputs with the pull-up on; a closed switch joins its column to the low
    row, which reads 0. The switch between row r and column c is channel
    ``r * len(columns) + c``.
    """

    def __init__(self, rows, columns, settle_us: int) -> None:
        self.rows = rows
        self.columns = columns
        self.settle_us = settle_us
        self.channels = len(rows) * len(columns)
        self.unreadable_bits = 0  # a switch is always readable
        for row in rows:
            row.value(1)

    def scan(self) -> int:
        """One full scan: the raw (not yet debounced) bitmap of closed switches."""
        bits = 0
        bit = 1
        settle_us = self.settle_us
        columns = self.columns
        for row in self.rows:
            row.value(0)
            if settle_us:
                # Also the time the columns the last row held low need to rise again.
                sleep_us(settle_us)
            for column in columns:
                if not column.value():
                    bits |= bit
                bit <<= 1
            row.value(1)
        return bits

    def held(self, channel: int, scans: int, scan_ms: int) -> bool:
        """True when ``channel`` reads closed in ``scans`` scans ``scan_ms`` apart."""
        return held(self.scan, channel, scans, scan_ms)


class Reflective:
    """Reflective IR sensors under the cells and targets, read through analog multiplexers
    into the ADC, and switches on GPIOs of their own (the buttons, the top's module).

    ``select`` are the multiplexers' S0–S3 pins (outputs), ``adcs`` one ``machine.ADC`` per
    multiplexer, ``emitters`` one pin per emitter group (high: the group's emitters lit),
    ``sensors`` (channel, multiplexer, input, group) per sensor and ``switches`` (channel,
    pin) per switch (inputs pulled up, closed = low).

    Each group is read dark, lit, dark, lit, dark (:data:`PHASES`), its phases
    ``phase_us`` apart, each sensor at its own fixed time after every edge; the reflection
    is the lit readings' mean less the dark ones weighted 1/8, 6/8, 1/8, so steady,
    drifting and curving room light cancels (hardware/README.md, "A reading room light
    cannot fool"). A group held up by an interrupt is dropped for the scan (:attr:`late`);
    a dark reading above ``cfg.AMBIENT_MAX`` makes a sensor unreadable: it changes nothing.
    """

    def __init__(self, select, adcs, emitters, sensors, switches, cfg) -> None:
        self.select = select
        self.adcs = adcs
        self.switches = switches
        self.channels = cfg.CHANNELS
        self.settle_us = cfg.EMITTER_SETTLE_US
        self.mux_settle_us = cfg.MUX_SETTLE_US
        self.samples = cfg.SAMPLES
        self.ambient_max = cfg.AMBIENT_MAX
        self.levels = Levels(len(sensors), cfg.ON_COUNTS, cfg.OFF_COUNTS, cfg.BASELINE_MAX,
                             cfg.BASELINE_CREEP)  # fmt: skip
        self.groups = []
        for group, emitter in enumerate(emitters):
            emitter.value(0)
            places = [(i, s[0], s[1], s[2]) for i, s in enumerate(sensors) if s[3] == group]
            # (index, channel, read, select pins to change from the member before, cyclically)
            members = []
            for k, (index, channel, mux, address) in enumerate(places):
                before = places[k - 1][3]
                changes = tuple(
                    (pin.value, (address >> bit) & 1)
                    for bit, pin in enumerate(select)
                    if (address >> bit) & 1 != (before >> bit) & 1
                )
                members.append((index, channel, adcs[mux].read_u16, changes))
            last = places[-1][3] if places else 0
            self.groups.append((emitter, members, last))
        self.readings = [0] * len(sensors)
        """The last reflection of each sensor, in ADC counts (for diagnostics)."""
        self.unreadable = bytearray(len(sensors))
        """1 for each sensor its last scan could not read (too much light)."""
        self.unreadable_bits = 0
        self.sensor_channels = [s[0] for s in sensors]
        calib.load(self)  # each cell's calibration, kept on the flash
        self.late = 0  # groups dropped: a phase ran late (uneven phases let ripple through)
        most = max([len(g[1]) for g in self.groups] + [0])
        self._samples = [0] * (len(PHASES) * most)
        self.phase_us = 0  # the settling and a group's reads, measured
        reads = 0
        for _, members, last in self.groups:
            start = ticks_us()
            self._phase(members, 0, last)
            reads = max(reads, ticks_diff(ticks_us(), start))
        self.jitter_us = reads // 4 + 20  # how far a phase may run from the first
        self.phase_us = self.settle_us + reads + self.jitter_us

    def _phase(self, members, k: int, last: int) -> int:
        samples = self._samples
        mux_settle_us = self.mux_settle_us
        if k == 0:
            for bit, pin in enumerate(self.select):
                pin.value((last >> bit) & 1)
        count = self.samples
        for member in members:
            for change in member[3]:
                change[0](change[1])
            if mux_settle_us:
                sleep_us(mux_settle_us)
            read_u16 = member[2]
            if count == 1:
                samples[k] = read_u16() >> 4  # the ADC's 12 bits
            else:
                total = 0
                for _ in range(count):
                    total += read_u16() >> 4
                samples[k] = total // count
            k += 1
        return k

    def scan(self) -> int:
        """One full scan: the raw (not yet debounced) bitmap of sensed pieces and closed
        switches."""
        bits = 0
        settle_us = self.settle_us
        phase_us = self.phase_us
        jitter_us = self.jitter_us
        levels = self.levels
        readings = self.readings
        unreadable = self.unreadable
        ambient_max = self.ambient_max
        samples = self._samples
        dazzled = 0
        for emitter, members, last in self.groups:
            count = len(members)
            # Phase p reads from start + p * phase_us, its edge settle_us before.
            start = ticks_us()
            k = 0
            took = -1
            late = False
            for p in range(len(PHASES)):
                due = ticks_add(start, p * phase_us)
                if p:
                    wait = ticks_diff(due, ticks_us()) - settle_us
                    if wait < 0:
                        late = True
                        break
                    sleep_us(wait)
                    emitter.value(PHASES[p])
                    wait = ticks_diff(due, ticks_us())
                    if wait > 0:
                        sleep_us(wait)
                k = self._phase(members, k, last)
                spent = ticks_diff(ticks_us(), due)
                if took < 0:
                    took = spent
                elif spent - took > jitter_us or took - spent > jitter_us:
                    late = True
                    break
            emitter.value(0)
            if late:
                self.late += 1
            for j in range(count):
                index, channel = members[j][0], members[j][1]
                if late:  # nothing new: it stays as readable as it was
                    certain = False
                    reading = readings[index]
                    if unreadable[index]:
                        dazzled |= 1 << channel
                else:
                    d0 = samples[j]
                    d2 = samples[j + 2 * count]
                    d4 = samples[j + 4 * count]
                    lit = samples[j + count] + samples[j + 3 * count]
                    reading = (4 * lit - d0 - 6 * d2 - d4) // 8
                    readings[index] = reading
                    certain = d0 <= ambient_max and d2 <= ambient_max and d4 <= ambient_max
                    unreadable[index] = 0 if certain else 1
                    if not certain:
                        dazzled |= 1 << channel
                if levels.update(index, reading, certain):
                    bits |= 1 << channel
        for channel, pin in self.switches:
            if not pin.value():
                bits |= 1 << channel
        self.unreadable_bits = dazzled
        return bits

    def held(self, channel: int, scans: int, scan_ms: int) -> bool:
        """True when ``channel`` reads closed in ``scans`` scans ``scan_ms`` apart."""
        return held(self.scan, channel, scans, scan_ms)


class Buzzer:
    """A piezo on a PWM pin: plays a tune's notes one after another, never waiting.

    ``pwm`` is a ``machine.PWM``. :meth:`tick` (each pass of the loop) moves to the next
    note when one is over, so notes end within one pass (at most ``SCAN_MS``) of their time.
    """

    def __init__(self, pwm) -> None:
        self.pwm = pwm
        self.notes = ()
        self.index = 0
        self.duty = 0
        self.note_end = 0
        pwm.duty_u16(0)

    def play(self, notes: tuple, volume: int, now: int) -> None:
        """Start ``notes`` ((hz, ms) pairs, hz 0 a rest) at ``volume`` per cent."""
        self.notes = notes
        self.index = -1
        self.duty = volume * VOLUME_DUTY
        self.note_end = now
        self.tick(now)

    def tick(self, now: int) -> None:
        if not self.notes or ticks_diff(now, self.note_end) < 0:
            return
        self.index += 1
        if self.index >= len(self.notes):
            self.pwm.duty_u16(0)
            self.notes = ()
            return
        hz, ms = self.notes[self.index]
        if hz and self.duty:
            self.pwm.freq(hz)
            self.pwm.duty_u16(self.duty)
        else:
            self.pwm.duty_u16(0)
        # Counted from the last note's end, not from now: a late pass does not stretch a tune.
        self.note_end = ticks_add(self.note_end, ms)

    def stop(self) -> None:
        self.notes = ()
        self.pwm.duty_u16(0)


class Leds:
    """The WS2812 chain: shows whole frames and does the blinking itself.

    ``pixels`` is a ``neopixel.NeoPixel``. A frame that differs from the one shown starts
    the blink rhythm afresh with the blinking LEDs lit, so a new hint shows at once; the
    host's refresh of an unchanged frame is written again (healing a glitch on the data
    line) without disturbing the rhythm. A frame is held within ``limit`` (usbpower.py).
    """

    def __init__(self, pixels, count: int, blink_ms: int, limit=None) -> None:
        self.pixels = pixels
        self.count = count
        self.blink_ms = blink_ms
        self.limit = limit  # the greatest sum of a frame's colours (usbpower.py), or None
        self.scale = 256  # /256, of the frame shown
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
            self.scale = usbpower.scale(colours, self.limit)
        self._write()

    def blank(self, now: int) -> None:
        self.show((0,) * self.count, 0, now)

    def tick(self, now: int) -> None:
        """Turn blinking LEDs on or off when their half-period is over."""
        if not self.blink:
            return
        elapsed = ticks_diff(now, self.phase_start)
        if elapsed < 0:  # the frame came in later in this very pass
            return
        phase_on = (elapsed // self.blink_ms) % 2 == 0
        if phase_on != self.phase_on:
            self.phase_on = phase_on
            self._write()

    def _write(self) -> None:
        pixels = self.pixels
        colours = self.colours
        hidden = 0 if self.phase_on else self.blink
        scale = self.scale
        for i in range(self.count):
            colour = 0 if (hidden >> i) & 1 else colours[i]
            pixels[i] = (
                ((colour >> 16) & 0xFF) * scale >> 8,
                ((colour >> 8) & 0xFF) * scale >> 8,
                (colour & 0xFF) * scale >> 8,
            )
        pixels.write()


class HostLink:
    """USB serial to the host: whole lines in, whole lines out, never waiting for long.

    ``pollable`` is what ``select.poll`` watches for host bytes (``sys.stdin``), ``reader``
    and ``writer`` are byte streams (``sys.stdin.buffer``, ``sys.stdout.buffer``) and
    ``out_pollable`` what is watched for room to write (``sys.stdout``).

    Host bytes go into one preallocated line buffer; nothing grows while they arrive. On
    MicroPython ``readinto(buffer)`` waits until the whole buffer is filled (measured on
    the emulated Pico: rp2's stdin takes bytes one by one from its ring buffer), so bytes
    are taken one at a time while ``poll`` says one is there; CPython's unbuffered ``raw``
    stream gives a chunk of what has arrived. A line is written only while ``poll`` says
    USB has room: into a full buffer (a host that holds the port open and does not read)
    rp2's write waits up to its USB timeout and is then cut short.
    """

    def __init__(self, pollable, reader, writer, out_pollable=None) -> None:
        self._raw = getattr(reader, "raw", None)
        self._reader = reader
        self._writer = writer
        self._poll = select.poll()
        self._poll.register(pollable, select.POLLIN)
        self._check = getattr(self._poll, "ipoll", self._poll.poll)  # ipoll allocates nothing
        self._out = None
        if out_pollable is not None:
            out = select.poll()
            out.register(out_pollable, select.POLLOUT)
            self._out = getattr(out, "ipoll", out.poll)
        self._line = bytearray(protocol.MAX_LINE + 2)
        self._fill = 0
        self._skipping = False
        self._one = bytearray(1)
        self._chunk = bytearray(256) if self._raw is not None else None
        self.taken = 0
        """Host bytes taken since boot."""
        self.held = 0
        """Lines not written because the host was not reading (USB's buffer full)."""
        self.cut = 0
        """Lines cut short: the write timed out part-way (the host stopped reading)."""

    def wait(self, ms: int) -> None:
        """Sleep up to ``ms`` milliseconds, waking early when host bytes arrive."""
        events = self._poll.poll(ms)
        if events and not events[0][1] & select.POLLIN:
            # Hung up (only off the Pico, in a simulator): poll would return at once forever.
            sleep_ms(ms)

    def _readable(self) -> bool:
        for entry in self._check(0):
            return bool(entry[1] & select.POLLIN)
        return False

    def receive(self, on_line) -> int:
        """Take the host bytes that have arrived, calling ``on_line(line)`` for each whole
        line (ending in ``\\n``); at most READ_BUDGET bytes and READ_US. Returns the bytes
        taken. A line longer than MAX_LINE is handed on cut short (so that it is dropped as
        too long, once) and the rest of it skipped.
        """
        taken = 0
        start = ticks_us()
        line = self._line
        limit = len(line)
        raw = self._raw
        chunk = self._chunk if raw is not None else self._one
        while taken < READ_BUDGET and self._readable():
            if raw is not None:
                count = raw.readinto(chunk)
                if not count:
                    break
            else:
                self._reader.readinto(chunk)
                count = 1
            for i in range(count):
                byte = chunk[i]
                if byte == 10:
                    if self._skipping:
                        self._skipping = False
                    else:
                        on_line(bytes(line[: self._fill]) + b"\n")
                    self._fill = 0
                elif self._skipping:
                    pass
                elif self._fill < limit:
                    line[self._fill] = byte
                    self._fill += 1
                else:
                    on_line(bytes(line))  # too long: dropped (and counted) once
                    self._fill = 0
                    self._skipping = True
            taken += count
            if ticks_diff(ticks_us(), start) >= READ_US:
                break
        self.taken += taken
        return taken

    def send(self, message) -> bool:
        """Write one message as a line; False when it could not go out (counted)."""
        line = protocol.encode(message)
        if self._out is not None and not self._writable():
            self.held += 1
            return False
        try:
            written = self._writer.write(line)
        except OSError:  # CPython on a full pty: nothing went out
            self.held += 1
            return False
        if written is not None and written < len(line):
            self.cut += 1
            return False
        flush = getattr(self._writer, "flush", None)
        if flush is not None:
            try:  # noqa: SIM105 - MicroPython has no contextlib
                flush()
            except OSError:  # MicroPython's stdout is unbuffered; a tty refuses fsync
                pass
        return True

    def _writable(self) -> bool:
        for entry in self._out(0):
            return bool(entry[1] & select.POLLOUT)
        return False


class Firmware:
    """The main loop's state: debounced sensors out, frames in, LEDs and watchdog kept.

    ``cfg`` is the config module; ``feed_watchdog`` is ``WDT.feed``; ``buzzer`` a
    :class:`Buzzer` or None.
    """

    def __init__(
        self, cfg, matrix: Matrix, leds: Leds, link: HostLink, feed_watchdog, buzzer=None
    ) -> None:
        self.cfg = cfg
        self.matrix = matrix
        self.leds = leds
        self.link = link
        self.feed_watchdog = feed_watchdog
        self.buzzer = buzzer
        self.stats_sent = None
        """The counters of the last STATS line that went out."""
        self.debouncer = Debouncer(cfg.DEBOUNCE_SCANS)
        self.unreadable = Debouncer(cfg.DEBOUNCE_SCANS)  # channels too bright to read
        self.unreadable_sent = 0
        self.levels_due = False
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
        self.now = 0

    def on_line(self, line: bytes) -> None:
        if not calib.dump(self, line):  # K? and K (calib.py)
            self.handle(line, self.now)

    def start(self, now: int) -> None:
        """Boot: dark LEDs (they keep their colours through a reset), then HELLO."""
        self.boot_ms = now
        self.next_scan = now
        self.leds.blank(now)
        self.blanked = True
        self.say_hello()

    def hello(self):
        cfg = self.cfg
        return protocol.Hello(protocol.PROTOCOL, cfg.VERSION, self.matrix.channels, cfg.LED_COUNT)

    def say_hello(self) -> None:
        """HELLO, then what the board has beyond it and its counters."""
        self.send(self.hello())
        features = ()
        if self.buzzer is not None:
            features = ("buzzer",)
        if self.has_levels():
            features += ("levels", "calib")
        if features:
            self.send(protocol.Has(features))
        self.send_stats()

    def has_levels(self) -> bool:
        return (
            hasattr(self.matrix, "levels") and self.matrix.channels <= protocol.MAX_LEVEL_CHANNELS
        )

    def counters(self):
        link = self.link
        return protocol.Stats(
            self.dropped % protocol.COUNTER_LIMIT,
            link.held % protocol.COUNTER_LIMIT,
            link.cut % protocol.COUNTER_LIMIT,
        )

    def send_stats(self) -> None:
        stats = self.counters()
        self.stats_sent = stats
        self.send(stats)

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
        self.now = now
        self.link.receive(self.on_line)
        self.leds.tick(now)
        if self.buzzer is not None:
            self.buzzer.tick(now)
        if not self.blanked and ticks_diff(now, self.last_frame) >= cfg.BLANK_AFTER_MS:
            self.leds.blank(now)
            self.blanked = True
        if self.ready and (self.report_due or ticks_diff(now, self.last_report) >= cfg.REPORT_MS):
            self.report(now)
        if self.levels_due and self.ready:
            self.levels_due = False
            self.send(calib.levels_line(self.matrix, self.unreadable.state))
        self.feed_watchdog()
        return ticks_diff(self.next_scan, ticks_ms())

    def scan(self, now: int) -> None:
        changed = self.debouncer.feed(self.matrix.scan())
        self.scans += 1
        if changed is not None or self.unreadable.feed(self.matrix.unreadable_bits) is not None:
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
        dazzled = self.unreadable.state
        if (dazzled or dazzled != self.unreadable_sent) and self.send(protocol.Unreadable(dazzled)):
            self.unreadable_sent = dazzled  # a U 0 not sent goes with the next S
        if self.counters() != self.stats_sent:
            self.send_stats()

    def handle(self, line: bytes, now: int) -> None:
        """Act on one host line; anything that is not a valid host command is dropped."""
        try:
            message = protocol.decode(line)
        except ValueError:
            self.dropped += 1
            return
        kind = type(message)
        if kind is protocol.Frame:
            # Decoding a whole frame takes milliseconds on a Pico: its blink rhythm and its
            # blanking count from when it is shown, not from the start of the pass.
            now = ticks_ms()
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
            self.say_hello()
        elif kind is protocol.AskLevels and self.has_levels():
            self.levels_due = True  # sent at the end of this pass
        elif kind is protocol.Tune:
            if self.buzzer is None:
                self.send(protocol.Err(message.n, "no buzzer"))
                return
            self.buzzer.play(message.notes, message.volume, now)
            self.send(protocol.Ok(message.n))
        else:
            self.dropped += 1  # a device message echoed back: not for us

    def send(self, message) -> bool:
        sent = self.link.send(message)
        # A write to a host that is not reading can take the USB timeout; that is progress.
        self.feed_watchdog()
        return sent


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
    """The traceback on the serial line (where a person with mpremote sees it)."""
    if hasattr(sys, "print_exception"):
        sys.print_exception(error)  # MicroPython: to stdout, the USB serial
    else:  # CPython prints to stderr by default, which is not the serial line
        import traceback

        traceback.print_exception(error, file=sys.stdout)
        sys.stdout.flush()


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
    limit = None
    if getattr(config, "SENSING", "matrix") == "reflective":
        matrix = Reflective(
            [pin(gpio, pin.OUT, value=0) for gpio in config.MUX_SELECT_PINS],
            [machine.ADC(pin(gpio)) for gpio in config.MUX_ADC_PINS],
            [pin(gpio, pin.OUT, value=0) for gpio in config.EMITTER_PINS],
            config.SENSORS,
            [(channel, pin(gpio, pin.IN, pin.PULL_UP)) for channel, gpio in config.SWITCHES],
            config,
        )
        # What the LED supply's USB-C source offers, before the first scan.
        limit = usbpower.limit(matrix, config)
    else:
        # The rows' pull-up recharges a row as soon as it is let go; without it the row
        # floats at its low level and the columns must charge it through their diodes
        # (hardware/spice/matrix.cir: 54 µs instead of 11 µs on long wires).
        rows = [pin(gpio, pin.OPEN_DRAIN, pin.PULL_UP, value=1) for gpio in config.ROW_PINS]
        columns = [pin(gpio, pin.IN, pin.PULL_UP) for gpio in config.COLUMN_PINS]
        matrix = Matrix(rows, columns, config.SETTLE_US)
    pixels = neopixel.NeoPixel(pin(config.LED_PIN, pin.OUT), config.LED_COUNT)
    leds = Leds(pixels, config.LED_COUNT, config.BLINK_MS, limit)
    buzzer_pin = getattr(config, "BUZZER_PIN", None)
    buzzer = None
    if buzzer_pin is not None:
        buzzer = Buzzer(machine.PWM(pin(buzzer_pin), freq=1000, duty_u16=0))
    maintenance = getattr(config, "MAINTENANCE_CHANNEL", None)
    if maintenance is not None and matrix.held(maintenance, MAINTENANCE_SCANS, config.SCAN_MS):
        # Before the watchdog: nothing resets the Pico now, so mpremote's soft reset and
        # Thonny's Stop are harmless. Power it up again without the button to play.
        leds.blank(ticks_ms())
        print(
            "pyramid: maintenance: the button of channel",
            maintenance,
            "was held at power-up, so the firmware stays at the REPL without the watchdog",
        )
        return
    link = HostLink(sys.stdin, sys.stdin.buffer, sys.stdout.buffer, sys.stdout)
    watchdog = machine.WDT(timeout=config.WATCHDOG_MS)
    firmware = Firmware(config, matrix, leds, link, watchdog.feed, buzzer)
    try:
        firmware.run()
    except KeyboardInterrupt:
        # Ctrl-C only comes from mpremote or a person at the REPL: the host protocol never
        # sends 0x03. The watchdog cannot be stopped, so a timer keeps feeding it while
        # files are copied; the reset that ends the session clears both. A soft reset
        # (mpremote without `resume`, Thonny) stops the timer too, and the watchdog then
        # resets the Pico about WATCHDOG_MS later: use `mpremote resume`, or the button.
        leds.blank(ticks_ms())
        if buzzer is not None:
            buzzer.stop()
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
