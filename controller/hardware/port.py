"""The Board port: what every board adapter gives and takes.

A Board turns the physical world into *debounced* :class:`SensorFrame` values (the set of
active channel numbers) and shows :class:`LedFrame` values on its LEDs. It knows nothing of
games: what a channel or an LED *means* is the business of :class:`~controller.hardware.
channels.ChannelMap`, built from config.

Three layers, as in peterhinch's ``Pushbutton``: electrical levels (inside an adapter),
debounced channels (this port), meaning (the channel map and the Table).

Adapters (``sim``, ``gpio``, ``serial``) are chosen in exactly one place,
:func:`controller.hardware.build_board`; nothing else names an adapter.
"""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, Self

from controller.vocabulary import (
    BLACK,
    OFF,
    BoardStatus,
    Colour,
    Led,
    LedFrame,
    LedMode,
    LinkState,
    Sound,
)

__all__ = [
    "BLACK",
    "OFF",
    "TUNES",
    "Board",
    "BoardCalibration",
    "BoardStatus",
    "CellCalibration",
    "ChannelLevel",
    "Colour",
    "FrameListener",
    "Led",
    "LedFrame",
    "LedMode",
    "LinkState",
    "Note",
    "SensorFrame",
    "SensorLevels",
    "Sound",
    "StatusListener",
]


@dataclass(frozen=True, slots=True)
class SensorFrame:
    """The debounced state of every sensor channel at one moment."""

    active: frozenset[int]
    """Channel numbers that read active (a pearl, ball or pressed button is there)."""
    seq: int = 0
    """Counts up by one for every frame an adapter delivers."""
    at: float = 0.0
    """``time.monotonic()`` when the adapter accepted the change."""
    unreadable: frozenset[int] = frozenset()
    """Channels whose sensor cannot be read now (too much light). Each keeps its last
    state in :attr:`active`: an unreadable cell is unknown, never a change."""


@dataclass(frozen=True, slots=True)
class ChannelLevel:
    """One sensor's reading for a live view, in ADC counts (0..4095)."""

    state: str
    """``empty``, ``present``, ``unreadable`` (too much light) or ``none`` (not a
    reflective sensor: a switch, or nothing)."""
    level: int
    """Its reflection (emitter lit less dark)."""
    off: int
    """A piece there is gone below this level..."""
    on: int
    """... and one is there above this."""


@dataclass(frozen=True, slots=True)
class SensorLevels:
    """Every channel's reading at one moment (by channel number), for a live view."""

    channels: tuple[ChannelLevel, ...]
    at: float
    """``time.monotonic()`` when it arrived."""


@dataclass(frozen=True, slots=True)
class CellCalibration:
    """One reflective sensor's calibration as the board keeps it, in ADC counts."""

    state: str
    """``calibrated`` (kept on the board's flash), ``unsaved`` (set, but the flash would
    not keep it), ``learning`` (no calibration: the firmware's own marks) or ``none`` (not
    a reflective sensor)."""
    empty: int
    """Its empty level (learnt: a calibrated one stays near what was measured)."""
    off: int
    """Its off mark over the empty level..."""
    on: int
    """... and its on mark."""


@dataclass(frozen=True, slots=True)
class BoardCalibration:
    """Every channel's calibration at one moment (by channel number)."""

    channels: tuple[CellCalibration, ...]
    at: float
    """``time.monotonic()`` when it arrived."""


@dataclass(frozen=True, slots=True)
class Note:
    """One note of a tune: a pitch held for a time (``hz`` 0 is a rest)."""

    hz: int
    ms: int


TUNES: Mapping[Sound, tuple[Note, ...]] = {
    Sound.TURN: (Note(880, 60),),
    Sound.BONUS: (Note(660, 70), Note(0, 30), Note(990, 110)),
    Sound.WRONG: (Note(220, 180),),
    Sound.WINNER: (
        Note(523, 120),
        Note(659, 120),
        Note(784, 120),
        Note(1047, 300),
    ),
}
"""The one statement of every tune: the Pi's buzzer, the Pico's and the page's Web Audio
all play these notes."""


FrameListener = Callable[[SensorFrame], None]
StatusListener = Callable[[BoardStatus], None]


class Touchable(Protocol):
    """A board whose sensors a hand sets through the page: the simulated board is one,
    wood with reed switches is not. :meth:`Board.touchable` says whether a board is."""

    def read(self) -> SensorFrame:
        """The sensors as they are now."""
        ...

    def set_active(self, channels: Iterable[int]) -> SensorFrame | None:
        """Make exactly ``channels`` active; the frame delivered, or None if none changed."""
        ...

    def set_channel(self, channel: int, active: bool) -> SensorFrame | None:
        """Make one channel active or inactive; the frame delivered, or None."""
        ...


class Board(abc.ABC):
    """A sensor/LED board. Subclasses implement :meth:`_start`, :meth:`_stop`, :meth:`show`.

    Frames reach the listener given to :meth:`start` from the adapter's own thread; the
    listener must be quick (the Table only puts the frame on its queue).
    """

    adapter: str = "abstract"

    def __init__(self, channels: int, leds: int) -> None:
        if channels < 1 or leds < 0:
            raise ValueError("a board needs at least one channel and no negative LED count")
        self.channels = channels
        self.leds = leds
        self._listener: FrameListener | None = None
        self._status_listener: StatusListener | None = None
        self._lock = threading.Lock()
        self._frame = SensorFrame(frozenset(), 0, time.monotonic())
        self._led_frame = LedFrame.blank(leds)

    # -- lifecycle -----------------------------------------------------------------------
    def start(
        self,
        on_frame: FrameListener | None = None,
        on_status: StatusListener | None = None,
    ) -> None:
        """Begin delivering frames to ``on_frame`` (and link changes to ``on_status``)."""
        self._listener = on_frame
        self._status_listener = on_status
        self._start()

    def close(self) -> None:
        """Stop scanning, blank the LEDs where possible, release pins and ports."""
        self._stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abc.abstractmethod
    def _start(self) -> None: ...

    @abc.abstractmethod
    def _stop(self) -> None: ...

    # -- sensors -------------------------------------------------------------------------
    def read(self) -> SensorFrame:
        """The latest debounced frame (also before :meth:`start` delivered any)."""
        with self._lock:
            return self._frame

    def _publish(
        self,
        active: Iterable[int],
        at: float | None = None,
        unreadable: Iterable[int] | None = None,
    ) -> SensorFrame | None:
        """Adapters call this with the debounced active set (and, when they know it, the
        channels they cannot read; None keeps the last); repeats are not re-sent."""
        active = frozenset(active)
        dazzled = self._frame.unreadable if unreadable is None else frozenset(unreadable)
        bad = [c for c in active | dazzled if not 0 <= c < self.channels]
        if bad:
            raise ValueError(f"channel(s) {sorted(bad)} out of range 0..{self.channels - 1}")
        with self._lock:
            if active == self._frame.active and dazzled == self._frame.unreadable:
                return None
            when = time.monotonic() if at is None else at
            frame = SensorFrame(active, self._frame.seq + 1, when, dazzled)
            self._frame = frame
        if self._listener is not None:
            self._listener(frame)
        return frame

    def _publish_status(self) -> None:
        if self._status_listener is not None:
            self._status_listener(self.status())

    # -- LEDs ----------------------------------------------------------------------------
    @property
    def led_frame(self) -> LedFrame:
        """The frame most recently asked for."""
        return self._led_frame

    def show(self, frame: LedFrame) -> None:
        """Show ``frame`` (it replaces the previous one whole)."""
        if len(frame) != self.leds:
            raise ValueError(f"LED frame has {len(frame)} LEDs, this board has {self.leds}")
        self._led_frame = frame
        self._show(frame)

    @abc.abstractmethod
    def _show(self, frame: LedFrame) -> None: ...

    # -- sound ---------------------------------------------------------------------------
    @property
    def has_buzzer(self) -> bool:
        """True when this board can play :data:`TUNES` (a buzzer is configured)."""
        return False

    def sound(self, sound: Sound, volume: float = 1.0) -> None:
        """Play ``sound``'s tune at ``volume`` (0.0–1.0) without waiting for it to end.

        A board without a buzzer has nothing to play: this default does nothing.
        """
        return None  # most boards have no buzzer

    # -- capabilities --------------------------------------------------------------------
    def touchable(self) -> Touchable | None:
        """This board as a page touches it, or None: its sensors are only set by hand."""
        return None

    # -- diagnostics ---------------------------------------------------------------------
    @abc.abstractmethod
    def status(self) -> BoardStatus: ...

    def ask_levels(self) -> bool:
        """Ask the board for every sensor's level (:meth:`levels` has it a moment later);
        False: this board cannot say levels (switches, or firmware without them)."""
        return False

    def levels(self) -> SensorLevels | None:
        """The last levels the board said, or None."""
        return None

    def can_calibrate(self) -> bool:
        """The board keeps each cell's calibration (:meth:`calibrate`)."""
        return False

    def calibrate(self, channel: int, empty: int, off: int, on: int) -> bool:
        """Set and keep (on the board) sensor ``channel``'s empty level and its two marks
        over it (ADC counts, ``0 < off < on``); :meth:`calibration` has the board's answer
        a moment later. False: this board cannot (or the link is down)."""
        return False

    def ask_calibration(self) -> bool:
        """Ask for every cell's calibration (:meth:`calibration` a moment later)."""
        return False

    def calibration(self) -> BoardCalibration | None:
        """The last calibration table the board said, or None."""
        return None
