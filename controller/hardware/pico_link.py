"""The Pico link without I/O: wire protocol v1's conversation as a state machine.

(Longer than most modules: one conversation, whose handshake, frames, tunes, restarts and
counters all read and replace the same immutable :class:`Link`; split, each part would
need all of it. The thread and the port are apart in :mod:`controller.hardware.serial`.)

pyserial's ``serial.threaded`` keeps the thread that reads a port (``ReaderThread``)
apart from what the bytes mean (``Protocol``). Here :class:`Link` and the functions
below are the meaning, and :class:`~controller.hardware.serial.SerialBoard` the thread
and the port. Each function takes a :class:`Link`, one input and ``now`` (the owner's
monotonic clock, a test's own number) and returns a :class:`Step`: the next
:class:`Link` and the effects the owner carries out in order — a line to write
(:class:`Send`), the port to open or close (:class:`Open`, :class:`Close`), a sensor
frame to publish (:class:`Publish`), a new status (:class:`StatusChanged`), a line for
the log (:class:`Log`). Nothing here reads a clock, a port or a thread.

The inputs: :func:`started`, :func:`tick` (time passed), :func:`opened` and
:func:`open_failed` (the answer to :class:`Open`), :func:`received` (one line),
:func:`port_failed`, :func:`show`, :func:`tune`, :func:`ask_levels`, :func:`calibrate`,
:func:`ask_calibration` and :func:`stopped`.

>>> link = new(Settings("loop://", channels=2, leds=1))
>>> link, effects = started(link, now=0.0)
>>> link, effects = tick(link, now=0.0)
>>> effects
(Open(),)
>>> link, effects = opened(link, "loop://", now=0.1)
>>> effects == (Send(protocol.encode(protocol.AskHello())),)
True
>>> hello = protocol.encode(protocol.Hello(1, "1.1.0", 2, 1))
>>> link, effects = received(link, hello, now=0.2)
>>> link.status, link.detail
(<LinkState.CONNECTED: 'connected'>, 'Pico on loop://: firmware 1.1.0, 2 channels, 1 LEDs')
>>> [type(effect).__name__ for effect in effects]
['Send', 'Send', 'Log', 'StatusChanged']
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Final, NamedTuple, TypeVar

from controller.hardware.port import (
    BoardCalibration,
    CellCalibration,
    ChannelLevel,
    LedFrame,
    LedMode,
    LinkState,
    SensorLevels,
)
from firmware import protocol

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
    "level_lines",
    "unreadable_lines",
    "device_dropped_lines",
    "device_lines_held",
    "device_lines_cut",
)
"""Counters every status carries, zero or not."""

NEVER: Final = float("-inf")
"""The time of something that has not happened yet."""

_ASK_HELLO: Final = protocol.encode(protocol.AskHello())
_HOST_MESSAGES: Final = (
    protocol.AskHello,
    protocol.AskSensors,
    protocol.Frame,
    protocol.Tune,
    protocol.AskLevels,
    protocol.Calibrate,
    protocol.AskCalibration,
)
_ASK_LEVELS: Final = protocol.encode(protocol.AskLevels())
_ASK_CALIBRATION: Final = protocol.encode(protocol.AskCalibration())
_STATES: Final = {"E": "empty", "P": "present", "U": "unreadable", "-": "none"}
_CALIBRATION_STATES: Final = {"C": "calibrated", "N": "unsaved", "L": "learning", "-": "none"}
Cell = TypeVar("Cell")  # a ChannelLevel or a CellCalibration (_table)


@dataclass(frozen=True)
class LinkTiming:
    """How patient the link is. Tests shorten these; the defaults suit a real Pico."""

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


# -- effects: what the owner does ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Send:
    """Write ``line`` to the port."""

    line: bytes


@dataclass(frozen=True, slots=True)
class Open:
    """Open the port now; answer with :func:`opened` or :func:`open_failed`."""


@dataclass(frozen=True, slots=True)
class Close:
    """Close the port (the link starts over, or stops)."""


@dataclass(frozen=True, slots=True)
class Publish:
    """The switches now read ``active`` (channels of the map), as of ``at``; the sensors
    of ``unreadable`` cannot be read (each keeps its state in ``active``)."""

    active: frozenset[int]
    at: float
    unreadable: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class StatusChanged:
    """The link's state or its description changed (:attr:`Link.status`, :attr:`Link.detail`)."""


@dataclass(frozen=True, slots=True)
class Log:
    """A line for the log at ``level`` (a :mod:`logging` level)."""

    level: int
    text: str


Effect = Send | Open | Close | Publish | StatusChanged | Log


# -- the state ---------------------------------------------------------------------------
class Phase(enum.Enum):
    """Where the conversation is."""

    IDLE = "idle"
    """Not started yet."""
    WAITING = "waiting"
    """No port: one is opened at :attr:`Link.retry_at`."""
    OPENING = "opening"
    """:class:`Open` asked for; the owner's answer is due."""
    HANDSHAKING = "handshaking"
    """A port is open and ``HELLO?`` was sent."""
    CONNECTED = "connected"
    """The board said a HELLO this program can use."""
    STOPPED = "stopped"
    """Closed for good."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What the link is for: the board the channel map needs and how to reach it."""

    port: str
    """``auto``, a device path or a pyserial URL (only named in the texts here)."""
    channels: int
    leds: int
    brightness: float = 1.0
    timing: LinkTiming = field(default_factory=LinkTiming)
    buzzer: bool | None = None
    """None: the board says (``HAS buzzer``); True or False: the config says."""
    found_by: str = ""
    """How ``auto`` found the port, for the status (`` (found by USB id 2E8A:0005)``)."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A command sent and not yet answered: ``n``, and the frame it carried (None: a tune)."""

    n: int
    sent_at: float
    frame: LedFrame | None = None


@dataclass(frozen=True, slots=True)
class Session:
    """What holds while one port is open and the board on it has said HELLO."""

    port_name: str
    device: protocol.Hello
    last_heard: float
    last_seq: int | None = None
    hello_seen: bool = False
    """A HELLO came since the last S line (the next S says whether the board restarted)."""
    last_resync: float = NEVER
    frame: Pending | None = None
    last_frame_sent: float = NEVER
    refused: LedFrame | None = None
    tune: Pending | None = None


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """Counters, per-channel toggles and the drops not yet summed up in a warning."""

    counters: Mapping[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))
    toggles: Mapping[int, int] = field(default_factory=dict)
    active: frozenset[int] = frozenset()
    unwarned: Mapping[str, int] = field(default_factory=dict)
    last_warning: float = NEVER

    def count(self, *names: str) -> Diagnostics:
        counters = dict(self.counters)
        for name in names:
            counters[name] = counters.get(name, 0) + 1
        return replace(self, counters=counters)


@dataclass(frozen=True, slots=True)
class Link:
    """The whole state of the link, immutable; each input makes a new one."""

    settings: Settings
    frame: LedFrame
    """The frame the LEDs should show."""
    phase: Phase = Phase.IDLE
    status: LinkState = LinkState.SEARCHING
    detail: str = ""
    since: float = 0.0
    """When :attr:`status` last changed."""
    retry_at: float = 0.0
    backoff: float = 0.0
    port_name: str = ""
    hello_tries: int = 0
    asked_at: float = NEVER
    session: Session | None = None
    ever_connected: bool = False
    next_n: int = 0
    features: tuple[str, ...] = ()
    no_buzzer: bool = False
    """The board refused a tune (or ignored one)."""
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    unreadable: frozenset[int] = frozenset()
    """Channels the board last said it cannot read (``U``)."""
    unreadable_at: float = NEVER
    """When it last said so; a set not said again within ``silence`` lapses."""
    levels: SensorLevels | None = None
    """The board's last ``L`` line."""
    calibration: BoardCalibration | None = None
    """The board's last ``K`` line."""

    @property
    def device(self) -> protocol.Hello | None:
        """The board's HELLO while the link is up."""
        return self.session.device if self.session is not None else None


class Step(NamedTuple):
    """The next link and what the owner must do, in order."""

    link: Link
    effects: tuple[Effect, ...] = ()


def new(settings: Settings, now: float = 0.0) -> Link:
    """The link before :func:`started`: dark LEDs, no port."""
    return Link(
        settings,
        LedFrame.blank(settings.leds),
        detail=f"not started ({settings.port})",
        since=now,
        backoff=settings.timing.backoff_first,
    )


def has_buzzer(link: Link) -> bool:
    """What the config says; with ``buzzer = "auto"``, whether the board's ``HAS`` line
    named one (and it has not refused a tune since)."""
    if link.settings.buzzer is not None:
        return link.settings.buzzer and not link.no_buzzer
    return "buzzer" in link.features and not link.no_buzzer


def wake_at(link: Link) -> float | None:
    """When :func:`tick` next has something to do without a port (None: not before input)."""
    return link.retry_at if link.phase is Phase.WAITING else None


# -- the owner's lifecycle ---------------------------------------------------------------
def started(link: Link, now: float) -> Step:
    """The owner's thread runs: look for the board (once; a stopped link stays stopped)."""
    if link.phase is not Phase.IDLE:
        return Step(link)
    link = replace(link, phase=Phase.WAITING, retry_at=now)
    return _status(link, LinkState.SEARCHING, f"looking for the Pico at {link.settings.port}", now)


def stopped(link: Link, now: float) -> Step:
    """Leave the LEDs dark where a board listens, close the port, and stay closed."""
    effects: list[Effect] = []
    if link.session is not None and link.session.device.leds:
        blank = LedFrame.blank(link.settings.leds)
        effects.append(Send(frame_line(blank, 0, 1.0, link.session.device.leds)))
    if link.phase in (Phase.HANDSHAKING, Phase.CONNECTED):
        effects.append(Close())
    link = replace(link, phase=Phase.STOPPED, session=None)
    return _then(effects, _status(link, LinkState.LOST, "closed", now))


def opened(link: Link, port_name: str, now: float) -> Step:
    """The port is open (its input emptied): ask the board who it is."""
    if link.phase is not Phase.OPENING:
        return Step(link, (Close(),))
    link = replace(link, phase=Phase.HANDSHAKING, port_name=port_name, hello_tries=1, asked_at=now)
    return Step(link, (Send(_ASK_HELLO),))


def open_failed(link: Link, why: str, now: float) -> Step:
    """The port could not be opened, ``why`` said for a person; try again after a pause."""
    return _give_up(link, why, now)


def port_failed(link: Link, reason: str, now: float) -> Step:
    """Reading or writing the open port failed."""
    if link.phase is Phase.HANDSHAKING:
        return _then(
            [Close()],
            _give_up(link, f"{link.port_name} failed during the handshake ({reason})", now),
        )
    if link.phase is Phase.CONNECTED:
        return _lose(link, f"the port failed ({reason})", now)
    return Step(link)


def tick(link: Link, now: float) -> Step:
    """Time passed: open a port when due, ask HELLO? again, mind silence, resends, refreshes."""
    if link.phase is Phase.WAITING and now >= link.retry_at:
        return Step(replace(link, phase=Phase.OPENING), (Open(),))
    if link.phase is Phase.HANDSHAKING and now - link.asked_at >= link.settings.timing.handshake:
        if link.hello_tries < link.settings.timing.handshake_tries:
            link = replace(link, hello_tries=link.hello_tries + 1, asked_at=now)
            return Step(link, (Send(_ASK_HELLO),))
        why = f"no HELLO from {link.port_name}: is the pyramid firmware on it? (`pyramid flash`)"
        return _then([Close()], _give_up(link, why, now))
    if link.phase is Phase.CONNECTED:
        return _mind_clocks(link, now)
    return Step(link)


# -- what the board says -----------------------------------------------------------------
def received(link: Link, line: bytes, now: float) -> Step:
    """One line from the port (as :class:`~firmware.protocol.LineSplitter` cut it)."""
    if link.phase not in (Phase.HANDSHAKING, Phase.CONNECTED):
        return Step(link)
    try:
        message = protocol.decode(line)
    except protocol.ProtocolError as error:
        return _drop(link, line, error.args[0], now)
    if isinstance(message, _HOST_MESSAGES):  # our own lines come back: a loopback, an echo
        return _drop(link, line, "not a device message", now)
    if link.session is None:  # handshaking: a running board's other lines wait for HELLO
        if type(message) is protocol.Hello:
            return _hello_answered(link, message, now)
        return Step(link)
    link = replace(link, session=replace(link.session, last_heard=now))
    kind = type(message)
    if kind is protocol.Sensors:
        return _sensors(link, message, now)
    if kind is protocol.Ok:
        return _answered(link, message.n)
    if kind is protocol.Err:
        return _refused(link, message)
    if kind is protocol.Hello:
        return _hello_again(link, message, now)
    if kind is protocol.Unreadable:
        return _unreadable(link, message, now)
    if kind is protocol.Levels:
        return _levels(link, message, now)
    if kind is protocol.Calibration:
        return _calibration(link, message, now)
    if kind is protocol.Stats:
        counters = {
            **link.diagnostics.counters,
            "device_dropped_lines": message.dropped,
            "device_lines_held": message.held,
            "device_lines_cut": message.cut,
        }
        return Step(replace(link, diagnostics=replace(link.diagnostics, counters=counters)))
    return Step(replace(link, features=message.features))  # protocol.Has


def incompatible(settings: Settings, hello: protocol.Hello) -> str:
    """Why this board cannot serve the channel map ('' when it can)."""
    if hello.protocol != protocol.PROTOCOL:
        return (
            f"the Pico's firmware {hello.firmware} speaks protocol {hello.protocol}, this "
            f"program speaks {protocol.PROTOCOL}: update both (`pyramid flash`)"
        )
    if hello.channels < settings.channels:
        return (
            f"the Pico reports {hello.channels} channels but the channel map needs "
            f"{settings.channels}: widen ROW_PINS/COLUMN_PINS in firmware/config.py and "
            "`pyramid flash`, or fix [board] channels"
        )
    if hello.leds < settings.leds:
        return (
            f"the Pico drives {hello.leds} LEDs but the channel map needs {settings.leds}: set "
            "LED_COUNT in firmware/config.py and `pyramid flash`, or fix [board] leds"
        )
    return ""


def _hello_answered(link: Link, hello: protocol.Hello, now: float) -> Step:
    problem = incompatible(link.settings, hello)
    if problem:
        return _then([Close()], _give_up(link, problem, now))
    diagnostics = link.diagnostics.count("handshakes")
    if link.ever_connected:
        diagnostics = diagnostics.count("reconnects")
    link = replace(
        link,
        phase=Phase.CONNECTED,
        session=Session(link.port_name, hello, last_heard=now),
        ever_connected=True,
        backoff=link.settings.timing.backoff_first,
        features=(),
        no_buzzer=False,
        diagnostics=diagnostics,
        unreadable=frozenset(),
        levels=None,
    )
    effects: list[Effect] = [Send(protocol.encode(protocol.AskSensors()))]
    link = _send_frame(link, now, effects)
    detail = (
        f"Pico on {link.port_name}{link.settings.found_by}: firmware {hello.firmware}, "
        f"{hello.channels} channels, {hello.leds} LEDs"
    )
    effects.append(Log(logging.INFO, detail))
    return _then(effects, _status(link, LinkState.CONNECTED, detail, now))


def _hello_again(link: Link, hello: protocol.Hello, now: float) -> Step:
    """A HELLO while connected: an answer to HELLO?, or a board that restarted.

    Which of the two shows in the next S line (see :func:`_sensors`).
    """
    session = link.session
    assert session is not None
    problem = incompatible(link.settings, hello)
    if problem:
        link = replace(link, phase=Phase.WAITING, retry_at=now, session=None)
        return _then(
            [Close(), Log(logging.ERROR, problem)], _status(link, LinkState.LOST, problem, now)
        )
    session = replace(session, device=hello, hello_seen=True)
    # A HAS line follows the HELLO of a board that has extras.
    return Step(replace(link, session=session, features=()))


def _sensors(link: Link, message: protocol.Sensors, now: float) -> Step:
    session = link.session
    assert session is not None
    effects: list[Effect] = []
    if session.last_seq is not None:
        step = (message.seq - session.last_seq) % protocol.SEQ_MODULO
        behind = step == 0 or step >= protocol.SEQ_MODULO // 2
        if session.hello_seen:
            # The firmware counts S lines from 0 at boot and never repeats one while it
            # runs: a count that went back since its HELLO means it restarted.
            link = replace(link, session=replace(session, hello_seen=False))
            if behind:
                link = _restarted(link, now, effects)
        elif step == 0:
            return Step(replace(link, diagnostics=link.diagnostics.count("duplicate_lines")))
        elif behind:
            # Older than the last: a replay, or a board that restarted and whose HELLO was
            # lost. Ask who it is; the S after its HELLO settles which.
            link = replace(link, diagnostics=link.diagnostics.count("stale_lines"))
            if now - session.last_resync > link.settings.timing.handshake:
                link = replace(link, session=replace(session, last_resync=now))
                effects.append(Send(_ASK_HELLO))
            return Step(link, tuple(effects))
    assert link.session is not None
    if message.bitmap >> link.session.device.channels:
        return _then(
            effects, _drop(link, protocol.encode(message), "channel beyond the board's count", now)
        )
    active = frozenset(c for c in range(link.settings.channels) if (message.bitmap >> c) & 1)
    diagnostics = link.diagnostics.count("sensor_lines")
    if active != diagnostics.active:
        toggles = dict(diagnostics.toggles)
        for channel in active ^ diagnostics.active:
            toggles[channel] = toggles.get(channel, 0) + 1
        diagnostics = replace(diagnostics, toggles=toggles, active=active)
        effects.append(Publish(active, now, link.unreadable))
    session = replace(link.session, last_seq=message.seq)
    return Step(replace(link, session=session, diagnostics=diagnostics), tuple(effects))


def _unreadable(link: Link, message: protocol.Unreadable, now: float) -> Step:
    assert link.session is not None
    if message.bitmap >> link.session.device.channels:
        return _drop(link, protocol.encode(message), "channel beyond the board's count", now)
    dazzled = frozenset(c for c in range(link.settings.channels) if (message.bitmap >> c) & 1)
    diagnostics = link.diagnostics.count("unreadable_lines")
    changed = dazzled != link.unreadable
    link = replace(link, unreadable=dazzled, unreadable_at=now, diagnostics=diagnostics)
    if not changed:
        return Step(link)
    return Step(link, (Publish(link.diagnostics.active, now, dazzled),))


def _levels(link: Link, message: protocol.Levels, now: float) -> Step:
    cells = _table(link, message, _STATES, ChannelLevel, "levels", now)
    if isinstance(cells, Step):
        return cells
    levels = SensorLevels(cells, now)
    return Step(replace(link, levels=levels, diagnostics=link.diagnostics.count("level_lines")))


def _calibration(link: Link, message: protocol.Calibration, now: float) -> Step:
    cells = _table(link, message, _CALIBRATION_STATES, CellCalibration, "calibration", now)
    if isinstance(cells, Step):
        return cells
    return Step(replace(link, calibration=BoardCalibration(cells, now)))


def _table(
    link: Link,
    message: protocol.Levels | protocol.Calibration,
    states: Mapping[str, str],
    cell: Callable[[str, int, int, int], Cell],
    what: str,
    now: float,
) -> tuple[Cell, ...] | Step:
    """An ``L`` or ``K`` line's cells for the map's channels, or the Step that drops a line
    for another channel count."""
    assert link.session is not None
    if len(message.states) != link.session.device.channels:
        return _drop(link, protocol.encode(message), f"{what} of another channel count", now)
    cells = tuple(
        cell(states[state], level, off, on)
        for state, level, off, on in zip(
            message.states, message[1], message.off, message.on, strict=True
        )
    )
    return cells[: link.settings.channels]


def _restarted(link: Link, now: float, effects: list[Effect]) -> Link:
    """The board restarted: its LEDs went dark, so they get the current frame again."""
    assert link.session is not None
    effects.append(Log(logging.INFO, "the Pico restarted; sending the LED frame again"))
    link = replace(
        link,
        session=replace(link.session, refused=None),
        diagnostics=link.diagnostics.count("board_restarts"),
    )
    return _send_frame(link, now, effects)


def _answered(link: Link, n: int) -> Step:
    session = link.session
    assert session is not None
    if session.frame is not None and session.frame.n == n:
        session = replace(session, frame=None)
        return Step(
            replace(link, session=session, diagnostics=link.diagnostics.count("frames_acked"))
        )
    if session.tune is not None and session.tune.n == n:
        return Step(replace(link, session=replace(session, tune=None)))
    return Step(link)


def _refused(link: Link, message: protocol.Err) -> Step:
    session = link.session
    assert session is not None
    if session.tune is not None and session.tune.n == message.n:
        link = replace(
            link,
            session=replace(session, tune=None),
            no_buzzer=True,
            diagnostics=link.diagnostics.count("tunes_refused"),
        )
        return Step(link, (Log(logging.WARNING, f"the Pico refused a tune: {message.reason}"),))
    pending = session.frame
    if pending is None or pending.n != message.n:
        return Step(link)
    session = replace(session, frame=None, refused=pending.frame)
    link = replace(link, session=session, diagnostics=link.diagnostics.count("frames_refused"))
    why = f"the Pico refused LED frame {message.n}: {message.reason}"
    return Step(link, (Log(logging.WARNING, why),))


def _mind_clocks(link: Link, now: float) -> Step:
    session = link.session
    timing = link.settings.timing
    assert session is not None
    if now - session.last_heard > timing.silence:
        return _lose(link, f"no valid line for {timing.silence:g} s", now)
    effects: list[Effect] = []
    if link.unreadable and now - link.unreadable_at > timing.silence:
        # The board says U with every S while a sensor cannot be read: its U 0 was lost.
        link = replace(link, unreadable=frozenset())
        effects.append(Publish(link.diagnostics.active, now))
    if session.tune is not None and now - session.tune.sent_at > timing.tune_answer:
        # Firmware before 1.1.0 drops a T line as unknown and answers nothing.
        session = replace(session, tune=None)
        link = replace(
            link,
            session=session,
            no_buzzer=True,
            diagnostics=link.diagnostics.count("tunes_refused"),
        )
        effects.append(Log(logging.WARNING, "the Pico did not answer a tune; no buzzer there"))
    if session.frame is not None:
        if now - session.frame.sent_at > timing.frame_retry:
            link = replace(link, diagnostics=link.diagnostics.count("frame_retries"))
            link = _send_frame(link, now, effects)
    elif now - session.last_frame_sent > timing.refresh and session.refused is not link.frame:
        link = replace(link, diagnostics=link.diagnostics.count("frame_refreshes"))
        link = _send_frame(link, now, effects)
    return Step(link, tuple(effects))


# -- what the host says ------------------------------------------------------------------
def show(link: Link, frame: LedFrame, now: float) -> Step:
    """The LEDs should show ``frame``: sent at once when the link is up, else once it is."""
    link = replace(link, frame=frame)
    effects: list[Effect] = []
    if link.phase is Phase.CONNECTED:
        link = _send_frame(link, now, effects)
    return Step(link, tuple(effects))


def tune(link: Link, notes: tuple[tuple[int, int], ...], volume: float, now: float) -> Step:
    """Play ``notes`` (hz, ms) at ``volume`` (0..1) as one ``T`` line; nothing when the
    board has no buzzer, the volume rounds to 0 or the link is down (a cue played late is
    worse than none)."""
    percent = round(volume * 100)
    if link.session is None or not percent or not has_buzzer(link):
        return Step(link)
    n = link.next_n
    link = replace(
        link,
        next_n=(n + 1) % protocol.SEQ_MODULO,
        session=replace(link.session, tune=Pending(n, now)),
        diagnostics=link.diagnostics.count("tunes_sent"),
    )
    return Step(link, (Send(protocol.encode(protocol.Tune(n, percent, notes))),))


def ask_levels(link: Link, now: float) -> Step:
    """Ask for every sensor's level (``L?``), when the board said it can (``HAS levels``)."""
    if link.session is None or "levels" not in link.features:
        return Step(link)
    return Step(link, (Send(_ASK_LEVELS),))


def can_say_levels(link: Link) -> bool:
    """The board on the link said ``HAS levels``."""
    return link.session is not None and "levels" in link.features


def can_calibrate(link: Link) -> bool:
    """The board on the link said ``HAS calib``: it keeps each cell's calibration."""
    return link.session is not None and "calib" in link.features


def calibrate(link: Link, channel: int, empty: int, off: int, on: int, now: float) -> Step:
    """Set and keep sensor ``channel``'s empty level and marks (``K``), when the board
    can (``HAS calib``); its ``K`` line answers (:attr:`Link.calibration`)."""
    if not can_calibrate(link):
        return Step(link)
    line = protocol.encode(protocol.Calibrate(channel, empty, off, on))
    return Step(link, (Send(line),))


def ask_calibration(link: Link, now: float) -> Step:
    """Ask for every cell's calibration (``K?``), when the board can say it."""
    if not can_calibrate(link):
        return Step(link)
    return Step(link, (Send(_ASK_CALIBRATION),))


def frame_line(frame: LedFrame, n: int, brightness: float, device_leds: int | None = None) -> bytes:
    """The F line for ``frame``: brightness applied, padded dark to the board's LEDs.

    >>> from controller.hardware.port import Led
    >>> frame_line(LedFrame((Led((255, 0, 0)),)), 3, 0.5, device_leds=2)
    b'F 3 800000000000 0*03FE\\n'
    """
    for component in (c for led in frame.leds for c in led.colour):
        if not 0 <= component <= 255:
            raise ValueError(f"colour component {component!r} outside 0..255")
    colours = []
    blink = 0
    for index, led in enumerate(frame.leds):
        red, green, blue = (round(component * brightness) for component in led.colour)
        colours.append((red << 16) | (green << 8) | blue)
        if led.mode is LedMode.BLINK and led.lit:
            blink |= 1 << index
    colours.extend([0] * ((device_leds or len(colours)) - len(colours)))
    if not colours:
        colours = [0]
    return protocol.encode(protocol.Frame(n, tuple(colours), blink))


# -- helpers -----------------------------------------------------------------------------
def _send_frame(link: Link, now: float, effects: list[Effect]) -> Link:
    """Send the current frame as a new command (appending to ``effects``)."""
    session = link.session
    assert session is not None
    if not session.device.leds:
        return link
    n = link.next_n
    effects.append(Send(frame_line(link.frame, n, link.settings.brightness, session.device.leds)))
    return replace(
        link,
        next_n=(n + 1) % protocol.SEQ_MODULO,
        session=replace(session, frame=Pending(n, now, link.frame), last_frame_sent=now),
        diagnostics=link.diagnostics.count("frames_sent"),
    )


def _lose(link: Link, reason: str, now: float) -> Step:
    """A connected link is lost: close the port and open it again at once."""
    name = link.port_name
    link = replace(
        link,
        phase=Phase.WAITING,
        retry_at=now,
        backoff=link.settings.timing.backoff_first,
        session=None,
        diagnostics=link.diagnostics.count("link_losses"),
    )
    effects: list[Effect] = [Close(), Log(logging.WARNING, f"lost {name}: {reason}; reconnecting")]
    return _then(
        effects, _status(link, LinkState.LOST, f"lost {name}: {reason}; reconnecting", now)
    )


def _give_up(link: Link, why: str, now: float) -> Step:
    """This attempt to connect failed: say why (each new reason once) and wait a while."""
    timing = link.settings.timing
    link = replace(
        link,
        phase=Phase.WAITING,
        retry_at=now + link.backoff,
        backoff=min(link.backoff * 2, timing.backoff_max),
        session=None,
    )
    effects: list[Effect] = [] if why == link.detail else [Log(logging.WARNING, why)]
    state = LinkState.LOST if link.ever_connected else LinkState.SEARCHING
    return _then(effects, _status(link, state, why, now))


def _drop(link: Link, line: bytes, reason: str, now: float) -> Step:
    """Count a line that fails anything, log it, and now and then sum the drops up."""
    diagnostics = link.diagnostics.count(
        "dropped_lines", "dropped_" + reason.replace(" ", "_").replace("'", "")
    )
    unwarned = dict(diagnostics.unwarned)
    unwarned[reason] = unwarned.get(reason, 0) + 1
    effects: list[Effect] = []
    text = line.rstrip(b"\r\n")
    if reason == "no CRC" and text and all(0x20 <= b <= 0x7E for b in text):
        # Plain text is the firmware (or the REPL) talking: a config problem, a traceback.
        effects.append(Log(logging.INFO, f"the Pico printed: {text.decode()[:200]}"))
    else:
        effects.append(Log(logging.DEBUG, f"dropped line ({reason}): {text[:80]!r}"))
    if now - diagnostics.last_warning >= WARN_EVERY_S:
        summary = ", ".join(f"{why}: {n}" for why, n in unwarned.items())
        effects.append(Log(logging.WARNING, f"dropped lines from {link.port_name} ({summary})"))
        diagnostics = replace(diagnostics, unwarned={}, last_warning=now)
    else:
        diagnostics = replace(diagnostics, unwarned=unwarned)
    return Step(replace(link, diagnostics=diagnostics), tuple(effects))


def _status(link: Link, state: LinkState, detail: str, now: float) -> Step:
    if state is link.status and detail == link.detail:
        return Step(link)
    since = now if state is not link.status else link.since
    return Step(replace(link, status=state, detail=detail, since=since), (StatusChanged(),))


def _then(effects: list[Effect], step: Step) -> Step:
    """``effects`` first, then ``step``'s."""
    return Step(step.link, (*effects, *step.effects))
