"""Run the real firmware on a simulated Pico behind a pty, for tests and benchmarks.

The firmware's own files (main.py, protocol.py, debounce.py and a config.py written from
a :class:`SimConfig`) go into a directory that plays the Pico's flash; the MicroPython
unix port runs them through :mod:`pico_boot` with the fake ``machine`` and ``neopixel``
of this package. The firmware's USB serial is a pty: open :attr:`SimPico.port` with
pyserial as if it were ``/dev/ttyACM0``. A second pty carries the control line of the
simulated chip (:mod:`chip`): switches to press, NeoPixel writes to watch.

>>> with SimPico(SimConfig(rows=(2, 3), columns=(8, 9), led_count=4)) as pico:  # doctest: +SKIP
...     board = SerialBoard(pico.port, channels=4, leds=4)
...     pico.press(3)            # the switch between row GPIO 3 and column GPIO 9
...     pico.wait_for_led(lambda write: write.colours[0] == 0xFF0000)

Where the MicroPython unix port cannot run (it ships for x86_64 only), ``interpreter=
"auto"`` runs the same files under CPython and says so in :attr:`SimPico.note`.

The harness also plays the parts of the chip that are not Python: the hardware watchdog
(when the firmware stops feeding it for its timeout, the process is killed and started
again, as the RP2040 would reset) and the reset line (``machine.reset()`` and
:meth:`SimPico.reset` start the firmware again from the top). A program standing in for
mpremote (:mod:`fake_mpremote`) asks for Ctrl-C and for a reset by leaving the files
:data:`INTERRUPT_REQUEST` and :data:`RESET_REQUEST` in the flash directory.
"""

from __future__ import annotations

import fcntl
import functools
import logging
import os
import platform
import runpy
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from firmware import config
from firmware.sim.ticks import TICKS_PERIOD

log = logging.getLogger(__name__)

FIRMWARE_DIR = Path(__file__).resolve().parent.parent
SIM_DIR = FIRMWARE_DIR / "sim"
PICO_BOOT = SIM_DIR / "pico_boot.py"

DEVICE_FILES: tuple[str, ...] = (
    "main.py",
    "protocol.py",
    "debounce.py",
    "usbpower.py",
    "calib.py",
    "config.py",
)
"""What goes onto the Pico's flash (``pyramid flash`` copies the same files)."""

PICO_HEAP = "192K"
"""The MicroPython heap a Pico has free, so that the firmware's memory use is realistic."""

INTERRUPT_REQUEST = ".interrupt"
RESET_REQUEST = ".reset"

Interpreter = Literal["auto", "micropython", "cpython"]


@functools.cache
def find_micropython() -> str | None:
    """The MicroPython unix port's command, if one runs here (next to this Python first)."""
    candidates = [Path(sys.executable).with_name("micropython"), shutil.which("micropython")]
    for candidate in candidates:
        if candidate is None or not Path(candidate).exists():
            continue
        try:
            probe = subprocess.run(
                [str(candidate), "-c", "import select, sys; sys.stdin.buffer"],
                capture_output=True,
                timeout=10,
                check=False,
            )
        except OSError:
            continue
        if probe.returncode == 0:
            return str(candidate)
    return None


@dataclass(frozen=True)
class SimConfig:
    """The firmware's config.py for a simulated board (the same names, in lower case)."""

    version: str = config.VERSION
    rows: tuple[int, ...] = (2, 3, 4, 5, 6, 7)
    columns: tuple[int, ...] = (8, 9, 10, 11, 12, 13)
    led_pin: int = 16
    led_count: int = 37
    scan_ms: int = 4
    debounce_scans: int = 3
    settle_us: int = 10
    report_ms: int = 1000
    blink_ms: int = 250
    blank_after_ms: int = 10000
    watchdog_ms: int = 2000
    buzzer_pin: int | None = None
    maintenance_channel: int | None = None
    """Tests set it (the shipped config.py has 30, the confirm button): a matrix of
    fewer channels would refuse a default of 30."""

    @classmethod
    def from_file(cls, path: Path) -> SimConfig:
        """The values of a firmware config.py (e.g. firmware/config.py as shipped)."""
        values = runpy.run_path(str(path))
        return cls(
            version=values["VERSION"],
            rows=tuple(values["ROW_PINS"]),
            columns=tuple(values["COLUMN_PINS"]),
            led_pin=values["LED_PIN"],
            led_count=values["LED_COUNT"],
            scan_ms=values["SCAN_MS"],
            debounce_scans=values["DEBOUNCE_SCANS"],
            settle_us=values["SETTLE_US"],
            report_ms=values["REPORT_MS"],
            blink_ms=values["BLINK_MS"],
            blank_after_ms=values["BLANK_AFTER_MS"],
            watchdog_ms=values["WATCHDOG_MS"],
            buzzer_pin=values.get("BUZZER_PIN"),
            maintenance_channel=values.get("MAINTENANCE_CHANNEL"),
        )

    def source(self) -> str:
        """The text of config.py."""
        return (
            '"""Written by firmware/sim/harness.py for a simulated board."""\n'
            f"VERSION = {self.version!r}\n"
            f"ROW_PINS = {self.rows!r}\n"
            f"COLUMN_PINS = {self.columns!r}\n"
            f"LED_PIN = {self.led_pin!r}\n"
            f"LED_COUNT = {self.led_count!r}\n"
            f"SCAN_MS = {self.scan_ms!r}\n"
            f"DEBOUNCE_SCANS = {self.debounce_scans!r}\n"
            f"SETTLE_US = {self.settle_us!r}\n"
            f"REPORT_MS = {self.report_ms!r}\n"
            f"BLINK_MS = {self.blink_ms!r}\n"
            f"BLANK_AFTER_MS = {self.blank_after_ms!r}\n"
            f"WATCHDOG_MS = {self.watchdog_ms!r}\n"
            f"BUZZER_PIN = {self.buzzer_pin!r}\n"
            f"MAINTENANCE_CHANNEL = {self.maintenance_channel!r}\n"
        )

    @property
    def channels(self) -> int:
        return len(self.rows) * len(self.columns)

    def pins_of(self, channel: int) -> tuple[int, int]:
        """The (row GPIO, column GPIO) a channel's switch joins."""
        if not 0 <= channel < self.channels:
            raise ValueError(f"channel {channel} out of range 0..{self.channels - 1}")
        row, column = divmod(channel, len(self.columns))
        return self.rows[row], self.columns[column]


@dataclass(frozen=True, slots=True)
class LedWrite:
    """One ``NeoPixel.write()`` the firmware made."""

    at: float
    """``time.monotonic()`` in the test process when the write was reported."""
    pin: int
    """The data GPIO."""
    colours: tuple[int, ...]
    """0xRRGGBB per LED, in chain order, as the LEDs show them."""
    chip_at: float = 0.0
    """The chip's own clock at the write, in seconds (``ticks_us`` unwrapped, from an
    arbitrary start): the firmware's rhythm without the test's scheduling in it."""

    @property
    def lit(self) -> bool:
        return any(self.colours)


@dataclass(frozen=True, slots=True)
class ChipEvent:
    """Something the simulated chip or the harness reported."""

    at: float
    name: str
    """``boot``, ``wdt``, ``feed``, ``timer``, ``pwm``, ``reset`` (from the chip) or ``watchdog``
    (the harness reset a chip that was not fed), ``halted`` (the firmware ended)."""
    value: str = ""
    chip_at: float = 0.0
    """The chip's own clock when it happened, as :attr:`LedWrite.chip_at` (0 for what the
    harness itself reports)."""


def _raw_pty() -> tuple[int, int, str]:
    """A pty pair in raw mode (no echo, no line editing): (master, slave, slave path)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


class SimPico:
    """The firmware running on a simulated Pico; see the module docstring."""

    def __init__(
        self,
        config: SimConfig | None = None,
        *,
        interpreter: Interpreter = "auto",
        flash_dir: Path | None = None,
    ) -> None:
        """``flash_dir``: run the files already there instead of writing them from ``config``."""
        self.config = config if config is not None else SimConfig()
        self._workdir = Path(tempfile.mkdtemp(prefix="simpico-"))
        self._own_flash = flash_dir is None
        self.flash_dir = self._workdir / "flash" if flash_dir is None else Path(flash_dir)
        self.command, self.interpreter, self.note = self._command(interpreter)
        self._state = threading.Condition()
        self._leds: list[LedWrite] = []
        self._chip_ticks: int | None = None
        self._chip_us = 0
        self._events: list[ChipEvent] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._serial_master, self._serial_slave, self.port = _raw_pty()
        # The firmware's writes fail instead of blocking while nobody reads the port, as
        # a Pico's USB serial drops output after its timeout.
        flags = fcntl.fcntl(self._serial_master, fcntl.F_GETFL)
        fcntl.fcntl(self._serial_master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self._control_master, self._control_slave, self._control_path = _raw_pty()
        self._stderr_path = self._workdir / "stderr.log"
        self._stderr = open(self._stderr_path, "ab")  # noqa: SIM115 - kept for every boot
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._watchdog_ms = 0
        self._last_feed = 0.0
        self._reset_requested = False
        self._halted = False
        self._switches: dict[tuple[int, int], bool] = {}
        self._wiring: dict[str, str] = {}
        """Injected wiring faults by what they concern, as control lines (kept over resets)."""
        self._lows: dict[int, tuple[float, int]] = {}
        """The chip's last answer to ``lows?`` per GPIO: (when it came, the count)."""
        self.boots = 0
        self.watchdog_resets = 0

    def _command(self, interpreter: Interpreter) -> tuple[list[str], str, str]:
        micropython = find_micropython() if interpreter != "cpython" else None
        if micropython is not None:
            command = [micropython, "-X", f"heapsize={PICO_HEAP}", str(PICO_BOOT)]
            return command, "micropython", f"MicroPython unix port ({micropython})"
        if interpreter == "micropython":
            raise RuntimeError("the MicroPython unix port is not available here")
        why = (
            "as asked"
            if interpreter == "cpython"
            else f"the MicroPython unix port cannot run on {platform.machine()}"
        )
        note = f"CPython {platform.python_version()} ({why}); the firmware's files are the same"
        return [sys.executable, str(PICO_BOOT)], "cpython", note

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> None:
        """Write the flash (unless given), power the chip up, wait until it has booted."""
        if self._own_flash:
            self.flash_dir.mkdir(parents=True, exist_ok=True)
            for name in DEVICE_FILES[:-1]:
                shutil.copyfile(FIRMWARE_DIR / name, self.flash_dir / name)
            (self.flash_dir / "config.py").write_text(self.config.source())
        log.info("simulated Pico runs under %s", self.note)
        self._boot()
        self._thread = threading.Thread(target=self._supervise, name="simpico", daemon=True)
        self._thread.start()
        self.wait_for_event("boot", timeout=timeout)

    def close(self) -> None:
        self._stopping.set()
        self._kill()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for fd in (
            self._serial_master,
            self._serial_slave,
            self._control_master,
            self._control_slave,
        ):
            os.close(fd)
        self._stderr.close()
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> SimPico:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self) -> None:
        """Press the reset button: the firmware starts again from the top."""
        with self._state:
            self._kill()
            self._boot()

    def interrupt(self) -> None:
        """Ctrl-C at the REPL, as mpremote sends it before copying files."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGINT)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def stderr(self) -> str:
        """What the interpreter printed on stderr (for a failing test's message)."""
        self._stderr.flush()
        return self._stderr_path.read_text(errors="replace")

    def _boot(self) -> None:
        self._watchdog_ms = 0
        self._reset_requested = False
        self._halted = False
        self.boots += 1
        # The switches are wires, not chip state: a reset chip finds them as they were.
        # Control lines meant for the chip before the reset (a hang, say) are gone with it.
        termios.tcflush(self._control_slave, termios.TCIFLUSH)
        closed = [
            f"switch {row} {column} 1 0" for (row, column), on in self._switches.items() if on
        ]
        if closed or self._wiring:
            self._control("\n".join([*self._wiring.values(), *closed]))
        env = {**os.environ, "PYRAMID_SIM_TTY": self._control_path}
        self._proc = subprocess.Popen(
            [*self.command, str(self.flash_dir)],
            stdin=self._serial_master,
            stdout=self._serial_master,
            stderr=self._stderr,
            env=env,
            cwd=self.flash_dir,
        )

    def _kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)

    # -- the switches --------------------------------------------------------------------
    def set_switch(self, channel: int, closed: bool, bounce_ms: int = 0) -> None:
        """Close or open the switch of ``channel``; it may bounce for ``bounce_ms``."""
        if bounce_ms < 0:
            raise ValueError("bounce_ms cannot be negative")
        row, column = self.config.pins_of(channel)
        self._switches[row, column] = closed
        self._control(f"switch {row} {column} {int(closed)} {bounce_ms}")

    def press(self, channel: int, bounce_ms: int = 0) -> None:
        self.set_switch(channel, True, bounce_ms)

    def release(self, channel: int, bounce_ms: int = 0) -> None:
        self.set_switch(channel, False, bounce_ms)

    def set_active(self, channels: Iterable[int]) -> None:
        """Make exactly ``channels`` closed (one control line per switch)."""
        wanted = frozenset(channels)
        lines = []
        for channel in range(self.config.channels):
            row, column = self.config.pins_of(channel)
            self._switches[row, column] = channel in wanted
            lines.append(f"switch {row} {column} {int(channel in wanted)} 0")
        self._control("\n".join(lines))

    def set_diode(self, channel: int, state: Literal["ok", "missing", "reversed"]) -> None:
        """The diode of ``channel``'s switch: in place, missing (or shorted), or reversed."""
        row, column = self.config.pins_of(channel)
        line = f"diode {row} {column} {state}"
        self._wiring[f"diode {row} {column}"] = line
        self._control(line)

    def cut_column(self, index: int, cut: bool = True) -> None:
        """Cut the wire of matrix column ``index`` at the Pico (or mend it)."""
        gpio = self.config.columns[index]
        line = f"cut {gpio} {int(cut)}"
        self._wiring[f"cut {gpio}"] = line
        self._control(line)

    def pulled_low(self, gpio: int, more: int = 0, timeout: float = 5.0) -> int:
        """How often the firmware has pulled ``gpio`` low since the chip booted, counted
        after every control line sent before (a switch set just now is in place); with
        ``more``, once it has been pulled low that many more times."""
        asked = time.monotonic()
        self._control(f"lows? {gpio} {int(more)}")
        with self._state:
            if not self._state.wait_for(
                lambda: self._lows.get(gpio, (-1.0, 0))[0] >= asked, timeout
            ):
                raise TimeoutError(f"the simulated chip did not answer lows? {gpio} in {timeout} s")
            return self._lows[gpio][1]

    def scans(self, more: int = 0, timeout: float = 5.0) -> int:
        """The matrix scans the firmware has begun since boot (row 0 pulled low); with
        ``more``, once that many more have begun after every control line sent before."""
        return self.pulled_low(self.config.rows[0], more, timeout)

    def hang(self, ms: int) -> None:
        """Stall the firmware's next pin read for ``ms`` (a loop stuck somewhere)."""
        self._control(f"hang {int(ms)}")

    def fault(self) -> None:
        """Make the firmware's next pin read fail (OSError), as a damaged chip would."""
        self._control("fault")

    def _control(self, text: str) -> None:
        os.write(self._control_master, text.encode() + b"\n")

    # -- what the chip did ---------------------------------------------------------------
    @property
    def leds(self) -> list[LedWrite]:
        """Every NeoPixel write so far, oldest first."""
        with self._state:
            return list(self._leds)

    @property
    def events(self) -> list[ChipEvent]:
        with self._state:
            return list(self._events)

    def wait_for_led(
        self, predicate: Callable[[LedWrite], bool], timeout: float = 5.0, after: int = 0
    ) -> LedWrite:
        """The first LED write (from index ``after`` on) that ``predicate`` accepts."""

        def found() -> LedWrite | None:
            for write in self._leds[after:]:
                if predicate(write):
                    return write
            return None

        with self._state:
            if not self._state.wait_for(lambda: found() is not None, timeout):
                last = self._leds[-1] if self._leds else None
                raise TimeoutError(f"no matching LED write in {timeout} s; last: {last}")
            write = found()
            assert write is not None
            return write

    def wait_for_event(self, name: str, timeout: float = 5.0, after: float = 0.0) -> ChipEvent:
        """The first event called ``name`` reported at or after ``after`` (monotonic)."""

        def found() -> ChipEvent | None:
            for event in self._events:
                if event.name == name and event.at >= after:
                    return event
            return None

        with self._state:
            if not self._state.wait_for(lambda: found() is not None, timeout):
                raise TimeoutError(f"no {name!r} from the simulated Pico in {timeout} s")
            event = found()
            assert event is not None
            return event

    # -- the supervisor thread: control line, watchdog, reset line ----------------------
    def _supervise(self) -> None:
        pending = b""
        while not self._stopping.is_set():
            readable, _, _ = select.select([self._control_master], [], [], 0.02)
            if readable:
                try:
                    pending += os.read(self._control_master, 65536)
                except OSError:
                    pending = b""
                now = time.monotonic()
                *lines, pending = pending.split(b"\n")
                with self._state:
                    for line in lines:
                        self._on_report(line.decode(errors="replace"), now)
                    self._state.notify_all()
            with self._state:
                self._check_chip(time.monotonic())
                self._check_requests()

    def _on_report(self, line: str, now: float) -> None:
        stamp, _, report = line.partition(" ")
        if not stamp.isdigit():
            log.warning("simulated chip: a report without its clock: %r", line[:80])
            return
        chip_at = self._chip_seconds(int(stamp))
        name, _, value = report.partition(" ")
        if name == "np":
            pin, _, hexes = value.partition(" ")
            colours = tuple(int(hexes[i : i + 6], 16) for i in range(0, len(hexes), 6))
            self._leds.append(LedWrite(now, int(pin), colours, chip_at))
            return
        if name == "lows":
            gpio, _, count = value.partition(" ")
            self._lows[int(gpio)] = (now, int(count))
            return  # many, one per question: not kept as events
        if name == "wdt":
            self._watchdog_ms = int(value)
            self._last_feed = now
        elif name == "feed":
            self._last_feed = now
        elif name == "reset":
            self._reset_requested = True
        if name != "feed":  # feeds are many; the time of the last one is kept above
            self._events.append(ChipEvent(now, name, value, chip_at))

    def _chip_seconds(self, ticks_us: int) -> float:
        """``ticks_us`` of the chip (it wraps at TICKS_PERIOD) as seconds that only grow."""
        if self._chip_ticks is not None:
            self._chip_us += (ticks_us - self._chip_ticks) % TICKS_PERIOD
        self._chip_ticks = ticks_us
        return self._chip_us / 1e6

    def _check_requests(self) -> None:
        """Ctrl-C and reset asked for by a program playing mpremote."""
        for name, action in ((INTERRUPT_REQUEST, self.interrupt), (RESET_REQUEST, self.reset)):
            request = self.flash_dir / name
            if request.exists():
                request.unlink()
                action()

    def _check_chip(self, now: float) -> None:
        if self._stopping.is_set() or self._proc is None:
            return
        exited = self._proc.poll() is not None
        if exited and self._reset_requested:
            self._boot()
            return
        starved = self._watchdog_ms and now - self._last_feed > self._watchdog_ms / 1000
        if starved:
            log.warning("simulated watchdog: not fed for %d ms, resetting", self._watchdog_ms)
            self._events.append(ChipEvent(now, "watchdog"))
            self.watchdog_resets += 1
            self._kill()
            self._boot()
            self._state.notify_all()
        elif exited and not self._halted:
            self._halted = True
            self._events.append(ChipEvent(now, "halted", str(self._proc.returncode)))
            self._state.notify_all()
