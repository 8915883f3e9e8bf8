"""The firmware on a real Pico's MicroPython, in an emulated RP2040, behind a pty.

:class:`EmulatedPico` runs ``pico.mjs`` (rp2040js under Node) with MicroPython's UF2 for
the Pico and the RP2040 boot ROM (from :func:`rp2040_dir`), a flash image holding the
firmware's files in littlefs (:mod:`flash_image`), and the board's wires modelled at the
pins (switch matrix with diodes and pulls, the WS2812 line, a piezo). Its USB serial is a
pty: open :attr:`EmulatedPico.port` with pyserial, mpremote or ``pyramid run`` as if it
were ``/dev/ttyACM0``.

>>> with EmulatedPico(SimConfig(report_ms=200)) as pico:     # doctest: +SKIP
...     board = SerialBoard(pico.port, channels=33, leds=37, timing=pico.scaled(LinkTiming()))
...     pico.press(3)
...     pico.wait_for("leds", lambda e: e.colours[0] == 0xFF0000)

Time: the emulated clock runs at most ``rate`` x wall time (it would race ahead while the
chip idles in WFE); on a busy machine it falls behind. Every event carries the emulated
time ``t`` (seconds since power-up): tests measure the firmware's rhythm on that clock and
scale the host's patience by ``1 / rate`` (:meth:`EmulatedPico.scaled`).

``PYRAMID_RP2040_DIR`` names the directory with ``micropython-*RPI_PICO*.uf2`` and
``rp2040-bootrom*.bin``; without it, ``../shared/rp2040/`` beside the checkout.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import tty
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.emulator.flash_image import build_image, read_files
from firmware.sim.harness import DEVICE_FILES, FIRMWARE_DIR, SimConfig

log = logging.getLogger(__name__)

EMULATOR_DIR = Path(__file__).resolve().parent
CHECKOUT = FIRMWARE_DIR.parent
PICO_MJS = EMULATOR_DIR / "pico.mjs"
DEFAULT_RATE = 0.25
"""Emulated seconds per wall second: under what rp2040js reaches here (about 0.3)."""


@dataclass(frozen=True, slots=True)
class Rp2040Files:
    uf2: Path
    bootrom: Path


def rp2040_dir() -> Path:
    """Where the UF2 and the boot ROM are looked for."""
    named = os.environ.get("PYRAMID_RP2040_DIR")
    return Path(named) if named else CHECKOUT.parent / "shared" / "rp2040"


def find_rp2040() -> Rp2040Files | str:
    """The two files, or one line saying what to provide."""
    where = rp2040_dir()
    uf2s = sorted(where.glob("micropython*RPI_PICO*.uf2"))
    roms = sorted(where.glob("rp2040-bootrom*.bin"))
    if not uf2s or not roms:
        return (
            f"no MicroPython RPI_PICO .uf2 and rp2040-bootrom*.bin in {where}: set "
            "PYRAMID_RP2040_DIR to a directory with both (hardware/README.md, 'The emulated Pico')"
        )
    return Rp2040Files(uf2s[-1], roms[-1])


def find_node() -> str | None:
    """Why the Node part cannot run (None when it can), installing its pinned packages."""
    if shutil.which("node") is None:
        return "node is not installed (Debian: apt install nodejs npm)"
    if not (EMULATOR_DIR / "node_modules" / "rp2040js").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            return "npm is not installed (Debian: apt install npm)"
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=EMULATOR_DIR,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            return f"npm ci in {EMULATOR_DIR} failed: {done.stderr.strip()[-300:]}"
    return None


def firmware_files(config: SimConfig | None) -> dict[str, bytes]:
    """The files `pyramid flash` copies, config.py written from ``config``."""
    files = {name: (FIRMWARE_DIR / name).read_bytes() for name in DEVICE_FILES[:-1]}
    files["config.py"] = (config if config is not None else SimConfig()).source().encode()
    return files


@dataclass(frozen=True, slots=True)
class Event:
    """One thing the emulated board reported."""

    t: float
    """Emulated seconds since the first power-up."""
    name: str
    """``boot``, ``usb``, ``leds``, ``ws2812_error``, ``tone``, ``out`` and ``in`` (a line
    the device sent, or the host, with ``trace``), ``flash_erase``, ``stats``, ``saved``,
    ``error``."""
    data: Mapping[str, Any]

    @property
    def colours(self) -> tuple[int, ...]:
        """For ``leds``: 0xRRGGBB per LED, decoded from the GRB bytes on the wire."""
        raw = bytes.fromhex(self.data["hex"])
        return tuple(
            (raw[i + 1] << 16) | (raw[i] << 8) | raw[i + 2] for i in range(0, len(raw) - 2, 3)
        )


class EmulatedPico:
    """See the module docstring. ``files``: the flash's littlefs (None: the firmware with
    ``config``; an empty dict: an erased filesystem, as a Pico with only MicroPython)."""

    def __init__(
        self,
        config: SimConfig | None = None,
        *,
        files: Mapping[str, bytes] | None = None,
        rate: float = DEFAULT_RATE,
        trace: bool = True,
        closed: Iterable[int] = (),
        analog: Mapping[str, Any] | None = None,
    ) -> None:
        found = find_rp2040()
        if isinstance(found, str):
            raise FileNotFoundError(found)
        problem = find_node()
        if problem:
            raise FileNotFoundError(problem)
        self.config = config if config is not None else SimConfig()
        self.rate = rate
        self._rp2040 = found
        self._files = dict(files) if files is not None else firmware_files(self.config)
        self._trace = trace
        self._workdir = Path(tempfile.mkdtemp(prefix="emupico-"))
        self.flash_path = self._workdir / "flash.bin"
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        tty.setraw(self._master)
        flags = fcntl.fcntl(self._master, fcntl.F_GETFL)
        fcntl.fcntl(self._master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self.port = os.ttyname(self._slave)
        self._state = threading.Condition()
        self._events: list[Event] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._next_id = 0
        self._closed = {self.config.pins_of(c) for c in closed}
        self._closed_fds = False
        self._analog = dict(analog) if analog is not None else None
        """The reflective build's front end (pico.mjs): ``select``, ``adcs``, ``emitters``
        (GPIOs), ``sensors`` ((channel, mux, input, group), …), ``part`` (``gain``,
        ``tau_us``, ``noise``, ``wall``: rigs/room.py's Part and wall) and ``cc`` ((mux,
        input, volts) of the USB-C CC pins)."""

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, timeout: float = 60.0) -> None:
        """Power up and wait until USB is up (MicroPython enumerated)."""
        image = build_image(self._rp2040.uf2.read_bytes(), self._files or None)
        self.flash_path.write_bytes(bytes(image))
        config = {
            "bootrom": str(self._rp2040.bootrom),
            "flash": str(self.flash_path),
            "rate": self.rate,
            "rows": list(self.config.rows),
            "columns": list(self.config.columns),
            "led_pin": self.config.led_pin,
            "buzzer_pin": self.config.buzzer_pin,
            "trace": self._trace,
            "pty_fd": self._master,
            "analog": self._analog,
        }
        self._proc = subprocess.Popen(
            ["node", str(PICO_MJS), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(self._master,),
            cwd=EMULATOR_DIR,
        )
        self._reader = threading.Thread(target=self._read_events, name="emupico", daemon=True)
        self._reader.start()
        for row, column in self._closed:
            self._command({"cmd": "switch", "row": row, "col": column, "closed": True})
        self.wait_for("usb", timeout=timeout)

    @property
    def analog(self) -> Mapping[str, Any] | None:
        """The front end it was made with (None: the switch matrix)."""
        return self._analog

    def close(self) -> None:
        """Quit the emulator (its flash saved to :attr:`flash_path` first); again: nothing."""
        if self._closed_fds:
            return
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                self._command({"cmd": "quit"})
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait(timeout=5)
        if self._reader is not None:
            self._reader.join(timeout=5)
        for fd in (self._master, self._slave):
            os.close(fd)
        self._closed_fds = True
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> EmulatedPico:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- time ------------------------------------------------------------------------------
    def wall(self, emulated_s: float) -> float:
        """Wall seconds of patience for ``emulated_s`` of the chip's time: eight times
        what the rate needs, and a quarter of a minute more. A wait ends as soon as what it
        waits for is there, so this costs nothing; it only has to outlast a loaded
        machine, where the chip's clock falls far behind ``rate`` (a busy core gives it a
        third of its speed, and the host's own threads are slowed as much)."""
        return 8.0 * emulated_s / self.rate + 15.0

    def scaled(self, timing: Any) -> Any:
        """A :class:`~controller.hardware.serial.LinkTiming` stretched by ``1 / rate``: the
        host waits as long in the chip's time as it would for a real Pico."""
        factor = 1.0 / self.rate
        changes = {
            f.name: getattr(timing, f.name) * factor
            for f in dataclasses.fields(timing)
            if f.name not in ("handshake_tries", "poll")
        }
        changes["refresh"] = min(changes["refresh"], 9.0)
        return dataclasses.replace(timing, **changes)

    @property
    def now(self) -> float:
        """The chip's emulated time right now (seconds since the first power-up)."""
        ident = self._ident()
        self._command({"cmd": "stats", "id": ident})
        return self.wait_for("stats", lambda e: e.data.get("id") == ident).t

    # -- the wires -----------------------------------------------------------------------
    def set_switch(self, channel: int, closed: bool, bounce_ms: float = 0) -> None:
        row, column = self.config.pins_of(channel)
        self._command(
            {
                "cmd": "switch",
                "row": row,
                "col": column,
                "closed": closed,
                "bounce_us": round(bounce_ms * 1000),
            }
        )

    def press(self, channel: int, bounce_ms: float = 0) -> None:
        self.set_switch(channel, True, bounce_ms)

    def release(self, channel: int, bounce_ms: float = 0) -> None:
        self.set_switch(channel, False, bounce_ms)

    def set_active(self, channels: Iterable[int]) -> None:
        """Exactly ``channels`` closed, every switch changed at the same emulated instant."""
        wanted = frozenset(channels)
        changes = []
        for channel in range(self.config.channels):
            row, column = self.config.pins_of(channel)
            changes.append([row, column, channel in wanted])
        self._command({"cmd": "switches", "set": changes})

    def reflect(self, channel: int, counts: int, ambient: int | None = None) -> None:
        """The reflective build: a piece over sensor ``channel`` reflecting ``counts`` while
        its emitters are lit (0: none), in ``ambient`` counts of room light."""
        message: dict[str, Any] = {"cmd": "reflect", "channel": channel, "counts": counts}
        if ambient is not None:
            message["ambient"] = ambient
        self._command(message)

    def room(
        self,
        channel: int,
        *,
        steady: float | None = None,
        ripple: float = 0.0,
        hz: float = 100.0,
        phase: float = 0.0,
        reflection: float | None = None,
    ) -> None:
        """The reflective build: the room at sensor ``channel`` in µA of collector current
        (rigs/room.py): ``steady`` light with a ``ripple`` at ``hz``, and
        ``reflection`` while lit (a pearl, a hand; on a minimum part), each if given."""
        message: dict[str, Any] = {"cmd": "room", "channel": channel}
        if steady is not None:
            message["light"] = {"steady": steady, "ripple": ripple, "hz": hz, "phase": phase}
        if reflection is not None:
            message["reflection"] = reflection
        self._command(message)

    def stall(self, ms: float) -> None:
        """The core executes nothing for ``ms`` while time and peripherals go on."""
        self._command({"cmd": "stall", "ms": ms})

    def reset(self) -> None:
        """The RUN pin pulled low: a hard reset (the flash keeps its files)."""
        self._command({"cmd": "reset"})

    def stats(self, clear: bool = False, timeout: float = 30.0) -> dict[str, Any]:
        """Counters measured at the pins and the USB bridge (see pico.mjs)."""
        ident = self._ident()
        self._command({"cmd": "stats", "id": ident, "clear": clear})
        event = self.wait_for("stats", lambda e: e.data.get("id") == ident, timeout=timeout)
        return {**event.data, "t": event.t}

    def flash_files(self) -> dict[str, bytes]:
        """The files in the emulated flash's littlefs right now."""
        ident = self._ident()
        self._command({"cmd": "save", "id": ident})
        self.wait_for("saved", lambda e: e.data.get("id") == ident)
        return read_files(self.flash_path.read_bytes())

    def _ident(self) -> int:
        with self._state:
            self._next_id += 1
            return self._next_id

    def _command(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise RuntimeError("the emulated Pico is not running")
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    # -- what it did ---------------------------------------------------------------------
    @property
    def events(self) -> list[Event]:
        with self._state:
            return list(self._events)

    def of(self, name: str, after: float = 0.0) -> list[Event]:
        with self._state:
            return [e for e in self._events if e.name == name and e.t >= after]

    def lines(self, after: float = 0.0, name: str = "out") -> list[tuple[float, bytes]]:
        """(emulated time, line) for each line the device sent (``in``: the host sent)."""
        return [(e.t, e.data["line"].encode("latin1") + b"\n") for e in self.of(name, after)]

    def wait_for(
        self,
        name: str,
        predicate: Callable[[Event], bool] = lambda event: True,
        timeout: float = 30.0,
        after: float = 0.0,
    ) -> Event:
        """The first event ``name`` (at emulated time ``after`` or later) ``predicate`` accepts."""

        looked = 0  # the events are only ever appended: each is looked at once

        def found() -> Event | None:
            nonlocal looked
            events = self._events
            for index in range(looked, len(events)):
                event = events[index]
                if event.name == name and event.t >= after and predicate(event):
                    return event
            looked = len(events)
            return None

        with self._state:
            if not self._state.wait_for(lambda: found() is not None, timeout):
                recent = [(e.name, e.t) for e in self._events[-6:]]
                raise TimeoutError(f"no {name!r} from the emulated Pico in {timeout} s: {recent}")
            event = found()
            assert event is not None
            return event

    def _read_events(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                log.warning("emulated Pico said: %r", raw[:200])
                continue
            event = Event(message.pop("t") / 1e9, message.pop("ev"), message)
            if event.name in ("ws2812_error", "error"):
                log.warning("emulated Pico: %s %s", event.name, event.data)
            with self._state:
                self._events.append(event)
                self._state.notify_all()
