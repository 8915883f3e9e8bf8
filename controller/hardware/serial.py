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

Everything happens on the adapter's own reader thread, except that :meth:`show` writes
its frame at once when the link is up (the fastest path from a move to the LEDs).

(Longer than most modules: one reader thread owns the link's whole life, from finding
the port to the last frame, and the state it keeps is :class:`SerialBoard`'s; split,
each part would reach into the others' fields under the same lock.)

>>> board = SerialBoard("loop://", channels=33, leds=37)  # doctest: +SKIP
>>> board.start(on_frame=print, on_status=print)          # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

import serial
from serial.tools import list_ports

from controller.hardware.channels import ChannelMap
from controller.hardware.port import (
    TUNES,
    Board,
    BoardStatus,
    LedFrame,
    LedMode,
    LinkState,
    Sound,
)
from firmware import protocol

if TYPE_CHECKING:
    from controller.config import SerialConfig

log = logging.getLogger(__name__)

PICO_USB_ID: Final = (0x2E8A, 0x0005)
"""USB vendor and product id of MicroPython's serial device on a Raspberry Pi Pico."""

BAUDRATE: Final = 115200
"""Ignored by the Pico's USB serial; a USB-UART bridge in between would need it."""

WARN_EVERY_S: Final = 10.0
"""Dropped lines are summed up in one warning at most this often (noise must not flood)."""

COUNTERS: Final = (
    "dropped_lines",
    "sensor_lines",
    "duplicate_lines",
    "stale_lines",
    "frames_sent",
    "frames_acked",
    "frame_retries",
    "frame_refreshes",
    "frames_refused",
    "handshakes",
    "reconnects",
    "link_losses",
    "board_restarts",
    "tunes_sent",
    "tunes_refused",
    "device_dropped_lines",
    "device_lines_held",
    "device_lines_cut",
)
"""Counters every status carries, zero or not."""


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


@dataclass(frozen=True)
class LinkTiming:
    """How patient the adapter is. Tests shorten these; the defaults suit a real Pico."""

    silence: float = 3.0
    """Seconds without a valid line before the link counts as lost (the Pico reports ≤ 1 s)."""
    handshake: float = 0.5
    """Seconds to wait for HELLO after each HELLO?."""
    handshake_tries: int = 3
    """HELLO? sent this many times per attempt to open the port."""
    backoff_first: float = 0.1
    """Pause after the first failed attempt to (re)connect; it doubles each time..."""
    backoff_max: float = 1.0
    """...up to this, so a board that comes back is found within about a second."""
    frame_retry: float = 0.25
    """Seconds to wait for OK before a frame is sent again."""
    refresh: float = 2.0
    """The current frame is sent again this often (the firmware blanks after 10 s)."""
    tune_answer: float = 1.0
    """Seconds a ``T`` line may go unanswered before the board counts as having no buzzer
    (firmware older than 1.1.0 drops the line and says nothing)."""
    poll: float = 0.1
    """Read timeout: how often the reader thread looks at its clocks when nothing arrives
    (a line wakes it at once; each idle wake-up costs CPU, so not too often)."""

    def __post_init__(self) -> None:
        for name in (
            "silence",
            "handshake",
            "backoff_first",
            "backoff_max",
            "frame_retry",
            "poll",
            "tune_answer",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"LinkTiming.{name} must be positive")
        if not 0 < self.refresh < 10:
            raise ValueError("LinkTiming.refresh must be under the firmware's 10 s blanking")
        if self.handshake_tries < 1:
            raise ValueError("LinkTiming.handshake_tries must be at least 1")
        if self.backoff_max < self.backoff_first:
            raise ValueError("LinkTiming.backoff_max cannot be below backoff_first")


@dataclass(frozen=True, slots=True)
class _Pending:
    """An F line sent and not yet answered."""

    n: int
    frame: LedFrame
    sent_at: float


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
        self._features: tuple[str, ...] = ()
        self._tune: tuple[int, float] | None = None  # (n, sent at) of a T not yet answered
        self._no_buzzer = False  # the board refused a tune (or ignored one)
        self._link_lock = threading.RLock()
        self._port: SerialLike | None = None
        self._port_name = self.port_spec
        self._device: protocol.Hello | None = None
        self._splitter = protocol.LineSplitter()
        self._link = LinkState.SEARCHING
        self._since = time.monotonic()
        self._detail = f"not started ({self.port_spec})"
        self._ever_connected = False
        self._counters: Counter[str] = Counter(dict.fromkeys(COUNTERS, 0))
        self._toggles: Counter[int] = Counter()
        self._drops_since_warning: Counter[str] = Counter()
        self._last_warning = 0.0
        self._last_seq: int | None = None
        self._last_heard = 0.0
        self._last_resync = 0.0
        self._hello_seen = False
        self._next_n = 0
        self._pending: _Pending | None = None
        self._last_frame_sent = 0.0
        self._refused: LedFrame | None = None
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
        with self._link_lock:
            if self._thread is not None or self._stopping.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="serial-board", daemon=True)
        self._set_link(LinkState.SEARCHING, f"looking for the Pico at {self.port_spec}")
        self._thread.start()

    def _stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5 * self.timing.poll + 2)
        with self._link_lock:
            if self._port is not None and self._device is not None and self._device.leds:
                try:  # best effort: leave the LEDs dark
                    blank = self._frame_line(LedFrame.blank(self.leds), 0, self._device.leds)
                    self._write(blank)
                except (serial.SerialException, OSError):
                    pass
            self._close_port()
        self._set_link(LinkState.LOST, "closed")

    def _run(self) -> None:
        backoff = self.timing.backoff_first
        while not self._stopping.is_set():
            if self._port is None:
                if self._connect():
                    backoff = self.timing.backoff_first
                else:
                    self._stopping.wait(backoff)
                    backoff = min(backoff * 2, self.timing.backoff_max)
                continue
            try:
                self._pump()
            except (serial.SerialException, OSError) as error:
                self._lose(f"the port failed ({error})")
            except Exception:  # a bug must not silently end the link
                log.exception("serial board: unexpected error; reconnecting")
                self._lose("unexpected error (see the log)")

    # -- connecting ----------------------------------------------------------------------
    def _connect(self) -> bool:
        """Open the port and handshake; True when the link is up."""
        lost = LinkState.LOST if self._ever_connected else LinkState.SEARCHING
        try:
            if self._opener is open_port:
                port = open_port(self.port_spec, self.baudrate, self.timing.poll, self.usb_id)
            else:
                port = self._opener(self.port_spec, self.baudrate, self.timing.poll)
        except NoPicoFound as error:
            self._fail_to_connect(lost, f"waiting for a Pico to be plugged in: {error}")
            return False
        except (serial.SerialException, OSError, ValueError) as error:
            if "://" not in self.port_spec and not os.path.exists(self.port_spec):
                why = (
                    f"waiting for {self.port_spec} to appear (unplugged, or back as another "
                    'device: port = "auto" follows the Pico by its USB id)'
                )
            else:
                why = f"cannot open {self.port_spec}: {error}"
            self._fail_to_connect(lost, why)
            return False
        name = port.name or self.port_spec
        try:
            answer = self._handshake(port)
        except (serial.SerialException, OSError) as error:
            answer = None
            problem = f"{name} failed during the handshake ({error})"
        else:
            problem = (
                f"no HELLO from {name}: is the pyramid firmware on it? (`pyramid flash`)"
                if answer is None
                else self._incompatible(answer[0])
            )
        if answer is None or problem:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
            self._fail_to_connect(lost, problem)
            return False
        hello, splitter, rest = answer
        with self._link_lock:
            self._port = port
            self._port_name = name
            self._device = hello
            self._splitter = splitter
            self._last_seq = None
            self._hello_seen = False
            self._last_heard = time.monotonic()
            self._pending = None
            self._refused = None
            self._features = ()
            self._tune = None
            self._no_buzzer = False
            self._count("handshakes")
            if self._ever_connected:
                self._count("reconnects")
            self._ever_connected = True
            self._write(protocol.encode(protocol.AskSensors()))
            self._send_frame_locked()
        found = f" (found by USB id {usb_id_text(self.usb_id)})" if self.port_spec == "auto" else ""
        self._set_link(
            LinkState.CONNECTED,
            f"Pico on {name}{found}: firmware {hello.firmware}, {hello.channels} channels, "
            f"{hello.leds} LEDs",
        )
        log.info("serial board: %s", self._detail)
        for line in rest:
            self._handle(line, time.monotonic())
        return True

    def _fail_to_connect(self, link: LinkState, why: str) -> None:
        if why != self._detail:  # each new reason once, not every retry
            log.warning("serial board: %s", why)
        self._set_link(link, why)

    def _handshake(
        self, port: SerialLike
    ) -> tuple[protocol.Hello, protocol.LineSplitter, list[bytes]] | None:
        """Ask HELLO? until a HELLO comes; the splitter and lines that came after it."""
        port.reset_input_buffer()
        splitter = protocol.LineSplitter()
        ask = protocol.encode(protocol.AskHello())
        for _ in range(self.timing.handshake_tries):
            port.write(ask)
            deadline = time.monotonic() + self.timing.handshake
            while time.monotonic() < deadline and not self._stopping.is_set():
                lines = splitter.feed(port.read(max(1, port.in_waiting)))
                for index, line in enumerate(lines):
                    try:
                        message = protocol.decode(line)
                    except protocol.ProtocolError as error:
                        self._drop(line, error.args[0])
                        continue
                    if type(message) is protocol.Hello:
                        return message, splitter, lines[index + 1 :]
                    if type(message) in (protocol.AskHello, protocol.AskSensors, protocol.Frame):
                        self._drop(line, "not a device message")
                    # A device's other lines (S of a board already running) wait for HELLO.
        return None

    def _incompatible(self, hello: protocol.Hello) -> str:
        """Why this board cannot serve the channel map ('' when it can)."""
        if hello.protocol != protocol.PROTOCOL:
            return (
                f"the Pico's firmware {hello.firmware} speaks protocol {hello.protocol}, this "
                f"program speaks {protocol.PROTOCOL}: update both (`pyramid flash`)"
            )
        if hello.channels < self.channels:
            return (
                f"the Pico reports {hello.channels} channels but the channel map needs "
                f"{self.channels}: widen ROW_PINS/COLUMN_PINS in firmware/config.py and "
                "`pyramid flash`, or fix [board] channels"
            )
        if hello.leds < self.leds:
            return (
                f"the Pico drives {hello.leds} LEDs but the channel map needs {self.leds}: set "
                "LED_COUNT in firmware/config.py and `pyramid flash`, or fix [board] leds"
            )
        return ""

    def _lose(self, reason: str) -> None:
        with self._link_lock:
            name = self._port_name
            self._close_port()
            self._count("link_losses")
        log.warning("serial board: lost %s: %s; reconnecting", name, reason)
        self._set_link(LinkState.LOST, f"lost {name}: {reason}; reconnecting")

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._device = None
        self._pending = None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    # -- the running link ----------------------------------------------------------------
    def _pump(self) -> None:
        """Read what has come (waiting up to ``poll``), act on it, mind the clocks."""
        port = self._port
        assert port is not None
        data = port.read(max(1, port.in_waiting))
        now = time.monotonic()
        for line in self._splitter.feed(data):
            self._handle(line, now)
            if self._port is None:  # the line ended the link (an incompatible HELLO)
                return
        self._mind_clocks(now)

    def _handle(self, line: bytes, now: float) -> None:
        try:
            message = protocol.decode(line)
        except protocol.ProtocolError as error:
            self._drop(line, error.args[0])
            return
        kind = type(message)
        if kind is protocol.Sensors:
            self._last_heard = now
            self._on_sensors(message, now)
        elif kind is protocol.Ok:
            self._last_heard = now
            with self._link_lock:
                if self._pending is not None and self._pending.n == message.n:
                    self._pending = None
                    self._count("frames_acked")
                elif self._tune is not None and self._tune[0] == message.n:
                    self._tune = None
        elif kind is protocol.Err:
            self._last_heard = now
            self._on_refusal(message)
        elif kind is protocol.Hello:
            self._last_heard = now
            self._on_hello(message)
        elif kind is protocol.Stats:
            self._last_heard = now
            with self._link_lock:
                self._counters["device_dropped_lines"] = message.dropped
                self._counters["device_lines_held"] = message.held
                self._counters["device_lines_cut"] = message.cut
        elif kind is protocol.Has:
            self._last_heard = now
            with self._link_lock:
                self._features = message.features
        else:  # our own HELLO?, S?, F or T come back (a loopback, or a board echoing)
            self._drop(line, "not a device message")

    def _on_sensors(self, message: protocol.Sensors, now: float) -> None:
        device = self._device
        if device is None:
            return
        if self._last_seq is not None:
            step = (message.seq - self._last_seq) % protocol.SEQ_MODULO
            behind = step == 0 or step >= protocol.SEQ_MODULO // 2
            if self._hello_seen:
                # The firmware counts S lines from 0 at boot and never repeats one while
                # it runs: a count that went back since its HELLO means it restarted.
                self._hello_seen = False
                if behind:
                    self._on_restart()
            elif step == 0:
                self._count("duplicate_lines")
                return
            elif behind:
                # Older than the last: a replay, or a board that restarted and whose HELLO
                # was lost. Ask who it is; the S after its HELLO settles which.
                self._count("stale_lines")
                if now - self._last_resync > self.timing.handshake:
                    self._last_resync = now
                    with self._link_lock:
                        self._write(protocol.encode(protocol.AskHello()))
                return
        if message.bitmap >> device.channels:
            self._drop(protocol.encode(message), "channel beyond the board's count")
            return
        self._last_seq = message.seq
        self._count("sensor_lines")
        active = frozenset(c for c in range(self.channels) if (message.bitmap >> c) & 1)
        for channel in active ^ self.read().active:
            self._toggles[channel] += 1
        try:
            self._publish(active, at=now)
        except Exception:  # the listener's fault; the link goes on
            log.exception("serial board: the frame listener failed")

    def _on_hello(self, hello: protocol.Hello) -> None:
        """A HELLO while connected: an answer to HELLO?, or a board that restarted.

        Which of the two shows in the next S line (see :meth:`_on_sensors`).
        """
        problem = self._incompatible(hello)
        if problem:
            with self._link_lock:
                self._close_port()
            self._set_link(LinkState.LOST, problem)
            log.error("serial board: %s", problem)
            return
        with self._link_lock:
            self._device = hello
            self._hello_seen = True
            self._features = ()  # a HAS line follows the HELLO of a board that has extras

    def _on_restart(self) -> None:
        """The board restarted: its LEDs went dark, so they get the current frame again."""
        self._count("board_restarts")
        log.info("serial board: the Pico restarted; sending the LED frame again")
        with self._link_lock:
            self._refused = None
            self._send_frame_locked()

    def _on_refusal(self, message: protocol.Err) -> None:
        with self._link_lock:
            if self._tune is not None and self._tune[0] == message.n:
                self._tune = None
                self._no_buzzer = True
                self._count("tunes_refused")
                log.warning("serial board: the Pico refused a tune: %s", message.reason)
                return
            pending = self._pending
            if pending is None or pending.n != message.n:
                return
            self._pending = None
            self._refused = pending.frame
            self._count("frames_refused")
        log.warning("serial board: the Pico refused LED frame %d: %s", message.n, message.reason)

    def _mind_clocks(self, now: float) -> None:
        if now - self._last_heard > self.timing.silence:
            self._lose(f"no valid line for {self.timing.silence:g} s")
            return
        with self._link_lock:
            if self._tune is not None and now - self._tune[1] > self.timing.tune_answer:
                # Firmware before 1.1.0 drops a T line as unknown and answers nothing.
                self._tune = None
                self._no_buzzer = True
                self._count("tunes_refused")
                log.warning("serial board: the Pico did not answer a tune; no buzzer there")
            pending = self._pending
            if pending is not None:
                if now - pending.sent_at > self.timing.frame_retry:
                    self._count("frame_retries")
                    self._send_frame_locked()
            elif (
                now - self._last_frame_sent > self.timing.refresh
                and self._refused is not self.led_frame
            ):
                self._count("frame_refreshes")
                self._send_frame_locked()

    # -- LEDs ----------------------------------------------------------------------------
    def _show(self, frame: LedFrame) -> None:
        self._frame_line(frame, 0)  # a colour out of range fails here, in the caller
        self._start()  # showing without start() (an LED test) still brings the link up
        with self._link_lock:
            if self._port is None or self._device is None:
                return  # sent when the link is up
            try:
                self._send_frame_locked()
            except (serial.SerialException, OSError) as error:
                # The reader thread sees the same failure and reconnects; the Table goes on.
                log.debug("serial board: frame not sent now (%s); sent after reconnecting", error)

    def _send_frame_locked(self) -> None:
        """Send the current frame as a new command (the caller holds the link lock)."""
        device = self._device
        if device is None or not device.leds:
            return
        frame = self.led_frame
        n = self._next_n
        self._next_n = (n + 1) % protocol.SEQ_MODULO
        now = time.monotonic()
        self._pending = _Pending(n, frame, now)
        self._last_frame_sent = now
        self._count("frames_sent")
        self._write(self._frame_line(frame, n, device.leds))

    def _frame_line(self, frame: LedFrame, n: int, device_leds: int | None = None) -> bytes:
        """The F line for ``frame``: brightness applied, padded dark to the board's LEDs."""
        for component in (c for led in frame.leds for c in led.colour):
            if not 0 <= component <= 255:
                raise ValueError(f"colour component {component!r} outside 0..255")
        scale = self.brightness
        colours = []
        blink = 0
        for index, led in enumerate(frame.leds):
            red, green, blue = (round(component * scale) for component in led.colour)
            colours.append((red << 16) | (green << 8) | blue)
            if led.mode is LedMode.BLINK and led.lit:
                blink |= 1 << index
        colours.extend([0] * ((device_leds or len(colours)) - len(colours)))
        if not colours:
            colours = [0]
        return protocol.encode(protocol.Frame(n, tuple(colours), blink))

    def _write(self, line: bytes) -> None:
        port = self._port
        if port is not None:
            port.write(line)

    # -- sound ---------------------------------------------------------------------------
    @property
    def has_buzzer(self) -> bool:
        """What the config says; with ``buzzer = "auto"``, whether the board's ``HAS`` line
        named one (and it has not refused a tune since)."""
        if self.buzzer is not None:
            return self.buzzer and not self._no_buzzer
        return "buzzer" in self._features and not self._no_buzzer

    def sound(self, sound: Sound, volume: float = 1.0) -> None:
        """Send ``sound``'s tune as one ``T`` line; nothing when there is no buzzer, the
        volume is 0 or the link is down (a cue played late is worse than none)."""
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"volume must be 0..1, not {volume!r}")
        percent = round(volume * 100)
        if not self.has_buzzer or not percent:
            return
        notes = tuple((note.hz, note.ms) for note in TUNES[sound])
        with self._link_lock:
            if self._port is None or self._device is None:
                return
            n = self._next_n
            self._next_n = (n + 1) % protocol.SEQ_MODULO
            self._tune = (n, time.monotonic())
            self._count("tunes_sent")
            try:
                self._write(protocol.encode(protocol.Tune(n, percent, notes)))
            except (serial.SerialException, OSError) as error:
                log.debug("serial board: tune not sent (%s)", error)

    # -- diagnostics ---------------------------------------------------------------------
    def _count(self, name: str) -> None:
        with self._link_lock:  # status() copies the counters from another thread
            self._counters[name] += 1

    def _drop(self, line: bytes, reason: str) -> None:
        self._count("dropped_lines")
        self._count("dropped_" + reason.replace(" ", "_").replace("'", ""))
        self._drops_since_warning[reason] += 1
        text = line.rstrip(b"\r\n")
        if reason == "no CRC" and text and all(0x20 <= b <= 0x7E for b in text):
            # Plain text is the firmware (or the REPL) talking: a config problem, a traceback.
            log.info("serial board: the Pico printed: %s", text.decode()[:200])
        else:
            log.debug("serial board: dropped line (%s): %r", reason, text[:80])
        now = time.monotonic()
        if now - self._last_warning >= WARN_EVERY_S:
            summary = ", ".join(f"{why}: {n}" for why, n in self._drops_since_warning.items())
            log.warning("serial board: dropped lines from %s (%s)", self._port_name, summary)
            self._drops_since_warning.clear()
            self._last_warning = now

    def _set_link(self, link: LinkState, detail: str) -> None:
        with self._link_lock:
            if link is self._link and detail == self._detail:
                return
            if link is not self._link:
                self._since = time.monotonic()
            self._link = link
            self._detail = detail
        self._publish_status()

    @property
    def device(self) -> protocol.Hello | None:
        """The board's HELLO while the link is up."""
        return self._device

    def status(self) -> BoardStatus:
        with self._link_lock:
            counters: Mapping[str, int] = dict(self._counters)
            return BoardStatus(
                adapter=self.adapter,
                link=self._link,
                since=self._since,
                detail=self._detail,
                counters=counters,
                toggles=dict(self._toggles),
            )
