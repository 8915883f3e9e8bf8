"""The ``serial`` adapter: a Raspberry Pi Pico running firmware/ over USB serial.

The Pico scans the sensors and drives the LEDs; this adapter only speaks wire protocol v1
(:mod:`firmware.protocol`, the very file the firmware runs) through pyserial:

- **Finding the board.** ``port`` is ``"auto"`` (the first USB serial device with
  MicroPython's id 2E8A:0005), a device path (``/dev/ttyACM0``, ``COM3``) or a pyserial
  URL (``loop://``, ``spy:///dev/ttyACM0``, ``socket://host:port``).
- **Handshake.** ``HELLO?`` until ``HELLO pyramid 1 …`` comes back; the protocol version
  must be 1 and the board must have at least the channels and LEDs the channel map names.
- **Sensors.** Each ``S`` line that passes its CRC and the grammar becomes a
  :class:`~controller.hardware.port.SensorFrame`; repeated or older ``seq`` numbers are
  ignored. A line that fails anything is dropped, counted and logged, never acted on.
- **LEDs.** Each :class:`~controller.hardware.port.LedFrame` goes out as one ``F`` line
  with a new command number, brightness already applied; an unanswered frame is sent
  again (as a new command) and the current frame is refreshed every ``refresh`` seconds,
  since the firmware blanks its LEDs after 10 s without one.
- **Healing.** ``silence`` seconds without a valid line (the Pico reports at least once a
  second) or a failing port mean the link is lost: the adapter reports
  :attr:`~controller.hardware.port.LinkState.LOST`, reopens the port with growing pauses
  (``backoff_first`` up to ``backoff_max``), handshakes again and re-sends the frame.
  With ``auto`` each attempt looks the Pico up by USB id again, so a Pico that comes back
  as another device (``/dev/ttyACM1`` for ``/dev/ttyACM0``) is found; with a fixed path the
  status says which path it waits for.
- **The board's own counters and extras.** ``STATS`` (host lines the firmware dropped,
  lines it held back or had cut short while the host did not read) become the counters
  ``device_dropped_lines``, ``device_lines_held``, ``device_lines_cut``; ``HAS buzzer``
  after the HELLO makes :attr:`has_buzzer` true (unless the config says otherwise), and
  :meth:`sound` then sends each cue's tune as one ``T`` line.
- **Levels and unreadable cells.** A reflective board says ``HAS levels``: :meth:`ask_levels`
  sends ``L?`` and :meth:`levels` is its last ``L`` line (every sensor's state, reflection
  and thresholds, for a live view); its ``U`` lines (the sensors it cannot read: too much
  light) become each :class:`~controller.hardware.port.SensorFrame`'s ``unreadable``.
- **Calibration.** One that also says ``HAS calib`` keeps each cell's empty level and
  marks on its flash: :meth:`calibrate` sends ``K`` (``pyramid diag --check`` does),
  :meth:`ask_calibration` ``K?``, and :meth:`calibration` is its last ``K`` line.

What the lines mean, and when to send what, is :mod:`controller.hardware.pico_link`: a
state machine without I/O, as pyserial's ``threaded.Protocol`` is to its
``ReaderThread``. :class:`SerialBoard` is the thin owner: it finds and opens the port,
runs the reader thread that feeds the machine each line and the passing time, and
carries out what it answers (write, close, publish, log). Everything happens on that
thread, except that :meth:`show` and :meth:`sound` write at once when the link is up
(the fastest path from a move to the LEDs).

>>> board = SerialBoard("loop://", channels=33, leds=37)  # doctest: +SKIP
>>> board.start(on_frame=print, on_status=print)          # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol

import serial
from serial.tools import list_ports

from controller.hardware import pico_link
from controller.hardware.channels import ChannelMap
from controller.hardware.pico_link import COUNTERS, WARN_EVERY_S, Link, LinkTiming
from controller.hardware.port import (
    TUNES,
    Board,
    BoardCalibration,
    BoardStatus,
    LedFrame,
    SensorLevels,
    Sound,
)
from firmware import protocol

if TYPE_CHECKING:
    from controller.config_schema import SerialConfig

log = logging.getLogger(__name__)

PICO_USB_ID: Final = (0x2E8A, 0x0005)
"""USB vendor and product id of MicroPython's serial device on a Raspberry Pi Pico."""

BAUDRATE: Final = 115200
"""Ignored by the Pico's USB serial; a USB-UART bridge in between would need it."""

__all__ = [
    "BAUDRATE",
    "COUNTERS",
    "PICO_USB_ID",
    "WARN_EVERY_S",
    "LinkTiming",
    "NoPicoFound",
    "SerialBoard",
    "find_picos",
    "open_port",
    "resolve_port",
]


class NoPicoFound(LookupError):
    """``port = "auto"`` found no USB serial device with id 2E8A:0005."""


class SerialLike(Protocol):
    """What the adapter needs of a pyserial port (``Serial`` and the URL handlers)."""

    name: str | None

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


Opener = Callable[[str, int, float], SerialLike]


def find_picos(
    ports: Iterable[Any] | None = None, usb_id: tuple[int, int] = PICO_USB_ID
) -> list[str]:
    """Device names of the Picos plugged in, sorted (``ports``: ``comports()`` entries).

    >>> from types import SimpleNamespace as Port
    >>> find_picos([Port(device="/dev/ttyACM1", vid=0x2E8A, pid=0x0005),
    ...             Port(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001)])
    ['/dev/ttyACM1']
    """
    found = list_ports.comports() if ports is None else ports
    return sorted(port.device for port in found if (port.vid, port.pid) == usb_id)


def usb_id_text(usb_id: tuple[int, int]) -> str:
    """``2E8A:0005``."""
    return f"{usb_id[0]:04X}:{usb_id[1]:04X}"


def resolve_port(
    spec: str, ports: Iterable[Any] | None = None, usb_id: tuple[int, int] = PICO_USB_ID
) -> str:
    """The device path or URL that ``spec`` names right now (``auto`` looks it up)."""
    if spec != "auto":
        return spec
    picos = find_picos(ports, usb_id)
    if not picos:
        raise NoPicoFound(
            f"no Pico (USB {usb_id_text(usb_id)}) is plugged in; is MicroPython on it? "
            "(see hardware/README.md)"
        )
    if len(picos) > 1:
        log.warning("several Picos are plugged in (%s); using %s", ", ".join(picos), picos[0])
    return picos[0]


def open_port(
    spec: str,
    baudrate: int = BAUDRATE,
    timeout: float = 0.1,
    usb_id: tuple[int, int] = PICO_USB_ID,
) -> SerialLike:
    """Open ``spec`` (``auto``, a path or a pyserial URL) with a short read timeout."""
    target = resolve_port(spec, usb_id=usb_id)
    if "://" in target:
        port: SerialLike = serial.serial_for_url(
            target, baudrate=baudrate, timeout=timeout, write_timeout=0.5
        )
        return port
    # exclusive: a second program (mpremote, another `pyramid run`) must not share the Pico.
    device: SerialLike = serial.Serial(
        target, baudrate=baudrate, timeout=timeout, write_timeout=0.5, exclusive=True
    )
    return device


class SerialBoard(Board):
    """A Pico sensor/LED board on a serial port; see the module docstring."""

    adapter = "serial"

    def __init__(
        self,
        port: str,
        channels: int,
        leds: int,
        *,
        brightness: float = 1.0,
        baudrate: int = BAUDRATE,
        timing: LinkTiming | None = None,
        opener: Opener = open_port,
        buzzer: bool | None = None,
        usb_id: tuple[int, int] = PICO_USB_ID,
    ) -> None:
        """``buzzer``: None (the board says, with ``HAS buzzer``), True or False (the config
        says). ``usb_id``: what ``port = "auto"`` looks for."""
        super().__init__(channels, leds)
        if not isinstance(port, str) or not port.strip():
            raise ValueError("port must be 'auto', a device path or a pyserial URL")
        if leds > protocol.MAX_LEDS:
            raise ValueError(
                f"a Pico board drives at most {protocol.MAX_LEDS} LEDs (one protocol line), "
                f"not {leds}"
            )
        if not 0.0 <= brightness <= 1.0:
            raise ValueError(f"brightness must be 0..1, not {brightness!r}")
        self.port_spec = port.strip()
        self.brightness = brightness
        self.baudrate = baudrate
        self.timing = timing if timing is not None else LinkTiming()
        self.buzzer = buzzer
        self.usb_id = usb_id
        self._opener = opener
        found = f" (found by USB id {usb_id_text(usb_id)})" if self.port_spec == "auto" else ""
        settings = pico_link.Settings(
            self.port_spec, channels, leds, brightness, self.timing, buzzer, found
        )
        # The machine's state, the port and its splitter change together, under this lock:
        # the reader thread feeds lines and time, show() and sound() feed the host's wishes.
        self._lock_link = threading.RLock()
        self._link: Link = pico_link.new(settings, time.monotonic())
        self._port: SerialLike | None = None
        self._splitter = protocol.LineSplitter()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(
        cls, serial_cfg: SerialConfig, channel_map: ChannelMap, brightness: float
    ) -> SerialBoard:
        """Build from ``[board.serial]`` (``port``, ``baudrate``) and the channel map."""
        timing = LinkTiming(
            silence=serial_cfg.silence_s,
            handshake=serial_cfg.handshake_s,
            frame_retry=serial_cfg.frame_retry_s,
            refresh=serial_cfg.refresh_s,
        )
        return cls(
            serial_cfg.port,
            channel_map.channel_count,
            channel_map.led_count,
            brightness=brightness,
            baudrate=serial_cfg.baudrate,
            timing=timing,
            buzzer=serial_cfg.buzzer,
            usb_id=serial_cfg.usb_id,
        )

    # -- lifecycle -----------------------------------------------------------------------
    def _start(self) -> None:
        # Also called by the first show() (LEDs need the link as much as sensors do), so
        # a second call only finds the link already running; it picks up the listener.
        with self._lock_link:
            if self._thread is not None or self._stopping.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="serial-board", daemon=True)
        self._feed(pico_link.started)
        self._thread.start()

    def _stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5 * self.timing.poll + 2)
        self._feed(pico_link.stopped)

    def _run(self) -> None:
        while not self._stopping.is_set():
            port = self._port
            if port is None:
                self._feed(pico_link.tick)  # opens the port when it is time
                wake = pico_link.wake_at(self._link)
                if self._port is None and wake is not None:
                    self._stopping.wait(max(0.0, wake - time.monotonic()))
                continue
            try:
                data = port.read(max(1, port.in_waiting))
                now = time.monotonic()
                with self._lock_link:
                    lines = self._splitter.feed(data) if port is self._port else []
                for line in lines:
                    self._feed(pico_link.received, line, now=now)
                self._feed(pico_link.tick)
            except (serial.SerialException, OSError) as error:
                self._feed(pico_link.port_failed, str(error))
            except Exception:  # a bug must not silently end the link
                log.exception("serial board: unexpected error; reconnecting")
                self._feed(pico_link.port_failed, "unexpected error (see the log)")

    def _feed(
        self, transition: Callable[..., pico_link.Step], *args: object, now: float | None = None
    ) -> None:
        """Give the machine one input and carry out what it answers.

        Lines are written and the port closed under the lock, in order; frames, statuses,
        log lines and opening the port (slow: it may list the USB devices) after it.
        """
        later: list[pico_link.Effect] = []
        failed: Exception | None = None
        with self._lock_link:
            when = time.monotonic() if now is None else now
            self._link, effects = transition(self._link, *args, when)
            for effect in effects:
                if isinstance(effect, pico_link.Send):
                    if failed is None:
                        failed = self._write(effect.line)
                elif isinstance(effect, pico_link.Close):
                    self._close_port()
                else:
                    later.append(effect)
        for effect in later:
            if isinstance(effect, pico_link.Publish):
                try:
                    self._publish(effect.active, at=effect.at, unreadable=effect.unreadable)
                except Exception:  # the listener's fault; the link goes on
                    log.exception("serial board: the frame listener failed")
            elif isinstance(effect, pico_link.StatusChanged):
                self._publish_status()
            elif isinstance(effect, pico_link.Log):
                log.log(effect.level, "serial board: %s", effect.text)
            elif isinstance(effect, pico_link.Open):
                self._open()
        if failed is not None:
            # The reader thread would see it at its next read; the Table goes on meanwhile.
            log.debug("serial board: a line was not written (%s)", failed)

    def _write(self, line: bytes) -> Exception | None:
        port = self._port
        if port is None:
            return None
        try:
            port.write(line)
        except (serial.SerialException, OSError) as error:
            return error
        return None

    def _open(self) -> None:
        """Open the port the machine asked for and tell it how that went."""
        try:
            if self._opener is open_port:
                port = open_port(self.port_spec, self.baudrate, self.timing.poll, self.usb_id)
            else:
                port = self._opener(self.port_spec, self.baudrate, self.timing.poll)
        except NoPicoFound as error:
            self._feed(pico_link.open_failed, f"waiting for a Pico to be plugged in: {error}")
            return
        except (serial.SerialException, OSError, ValueError) as error:
            if "://" not in self.port_spec and not os.path.exists(self.port_spec):
                why = (
                    f"waiting for {self.port_spec} to appear (unplugged, or back as another "
                    'device: port = "auto" follows the Pico by its USB id)'
                )
            else:
                why = f"cannot open {self.port_spec}: {error}"
            self._feed(pico_link.open_failed, why)
            return
        name = port.name or self.port_spec
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError) as error:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
            self._feed(pico_link.open_failed, f"{name} failed during the handshake ({error})")
            return
        with self._lock_link:
            self._port = port
            self._splitter = protocol.LineSplitter()
        self._feed(pico_link.opened, name)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    # -- LEDs and sound ------------------------------------------------------------------
    def _show(self, frame: LedFrame) -> None:
        pico_link.frame_line(frame, 0, 1.0)  # a colour out of range fails here, in the caller
        self._start()  # showing without start() (an LED test) still brings the link up
        self._feed(pico_link.show, frame)

    @property
    def has_buzzer(self) -> bool:
        """What the config says; with ``buzzer = "auto"``, whether the board's ``HAS`` line
        named one (and it has not refused a tune since)."""
        return pico_link.has_buzzer(self._link)

    def sound(self, sound: Sound, volume: float = 1.0) -> None:
        """Send ``sound``'s tune as one ``T`` line; nothing when there is no buzzer, the
        volume is 0 or the link is down (a cue played late is worse than none)."""
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"volume must be 0..1, not {volume!r}")
        notes = tuple((note.hz, note.ms) for note in TUNES[sound])
        self._feed(pico_link.tune, notes, volume)

    # -- diagnostics ---------------------------------------------------------------------
    def ask_levels(self) -> bool:
        """Send ``L?`` when the board said ``HAS levels``; False when it did not (or the
        link is down)."""
        if not pico_link.can_say_levels(self._link):
            return False
        self._feed(pico_link.ask_levels)
        return True

    def levels(self) -> SensorLevels | None:
        return self._link.levels

    def can_calibrate(self) -> bool:
        return pico_link.can_calibrate(self._link)

    def calibrate(self, channel: int, empty: int, off: int, on: int) -> bool:
        """Send ``K`` when the board said ``HAS calib``; False when it did not (or the
        link is down). ``0 < off < on``, each under 4096."""
        if not pico_link.can_calibrate(self._link):
            return False
        protocol.encode(protocol.Calibrate(channel, empty, off, on))  # ValueError: say so now
        self._feed(pico_link.calibrate, channel, empty, off, on)
        return True

    def ask_calibration(self) -> bool:
        if not pico_link.can_calibrate(self._link):
            return False
        self._feed(pico_link.ask_calibration)
        return True

    def calibration(self) -> BoardCalibration | None:
        return self._link.calibration

    @property
    def device(self) -> protocol.Hello | None:
        """The board's HELLO while the link is up."""
        return self._link.device

    def status(self) -> BoardStatus:
        link = self._link  # one immutable value: its fields agree with each other
        return BoardStatus(
            adapter=self.adapter,
            link=link.status,
            since=link.since,
            detail=link.detail,
            counters=dict(link.diagnostics.counters),
            toggles=dict(link.diagnostics.toggles),
        )
