"""The ``sim`` adapter: a board in memory.

Tests and the web page's virtual board set its sensors; it records every LED frame it is
shown, the way gpiozero's ``MockPin`` records its state history.

Real wood keeps its pearls through a restart; so does the virtual board when it is given
a file to keep them in (``keep``, ``pyramid run`` puts it beside the game store): the
pieces (cells and targets, never the buttons, which are only pressed) are written there
by name on every change and read back when the board is built.

>>> board = SimBoard(channels=4, leds=2)
>>> board.start()
>>> board.set_channel(2, True).active
frozenset({2})
>>> board.set_channel(2, True) is None  # no change, no frame
True
>>> board.sound(Sound.BONUS, volume=0.5); board.sounds, board.has_buzzer
([(<Sound.BONUS: 'bonus'>, 0.5)], False)
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from controller.hardware.port import (
    Board,
    BoardStatus,
    ChannelLevel,
    LedFrame,
    LinkState,
    SensorFrame,
    SensorLevels,
    Sound,
    Touchable,
)
from firmware import config as pico_config

log = logging.getLogger(__name__)

SIM_EMPTY = 12
"""What a simulated empty cell reads (ADC counts, the reflective Pico's units)."""
SIM_PIECE = 400
"""What a simulated piece reads: the darkest pearl the reflective build's model allows."""
SIM_OFF, SIM_ON = pico_config.OFF_COUNTS, pico_config.ON_COUNTS


class SimBoard(Board):
    """An in-memory board: sensors set by calls, LED frames recorded."""

    adapter = "sim"

    def __init__(
        self,
        channels: int,
        leds: int,
        *,
        history: int = 10_000,
        keep: Path | None = None,
        pieces: Mapping[int, str] | None = None,
    ) -> None:
        super().__init__(channels, leds)
        self._keep = keep
        self._pieces = dict(pieces or {})
        """The channels kept in ``keep``, by name (cells and targets)."""
        self.shown: list[LedFrame] = []
        """Every LED frame shown, oldest first (the last ``history`` of them)."""
        self._history = history
        self._toggles: Counter[int] = Counter()
        self._started = time.monotonic()
        self._running = False
        self._shown_changed = threading.Condition()
        self.sounds: list[tuple[Sound, float]] = []
        """Every cue asked of the board with its volume, oldest first (it has no buzzer:
        tests assert on this which cue the Table played)."""

        if keep is not None:
            kept = self._read_kept(keep)
            if kept:
                self._frame = SensorFrame(kept, 0, time.monotonic())

    def _read_kept(self, path: Path) -> frozenset[int]:
        """The pieces kept in ``path``; a missing or unreadable file keeps none."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return frozenset()
        except (OSError, ValueError) as exc:
            log.warning("virtual board: %s cannot be read (%s); it starts empty", path, exc)
            return frozenset()
        names = data.get("pieces") if isinstance(data, dict) else None
        if data.get("version") != 1 or not isinstance(names, list):
            log.warning("virtual board: %s is not a board this version keeps", path)
            return frozenset()
        by_name = {name: channel for channel, name in self._pieces.items()}
        return frozenset(by_name[n] for n in names if isinstance(n, str) and n in by_name)

    def _write_kept(self, active: frozenset[int]) -> None:
        if self._keep is None:
            return
        names = sorted(self._pieces[c] for c in active if c in self._pieces)
        temporary = self._keep.with_name(self._keep.name + ".tmp")
        try:
            self._keep.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps({"version": 1, "pieces": names}), encoding="utf-8")
            os.replace(temporary, self._keep)  # whole or not at all
        except OSError as exc:
            log.warning("virtual board: cannot keep its pieces in %s (%s)", self._keep, exc)

    def _start(self) -> None:
        self._running = True

    def _stop(self) -> None:
        self._running = False
        self._listener = None  # a closed board delivers no more frames (the port's promise)

    def _show(self, frame: LedFrame) -> None:
        with self._shown_changed:
            self.shown.append(frame)
            if len(self.shown) > self._history:
                del self.shown[: len(self.shown) - self._history]
            self._shown_changed.notify_all()

    def wait_for_frame(self, count: int, timeout: float = 2.0) -> LedFrame:
        """Wait until at least ``count`` frames have been shown; return the newest."""
        with self._shown_changed:
            if not self._shown_changed.wait_for(lambda: len(self.shown) >= count, timeout):
                raise TimeoutError(f"only {len(self.shown)} of {count} LED frames shown")
            return self.shown[-1]

    def sound(self, sound: Sound, volume: float = 1.0) -> None:
        """Record the cue (nothing to play it on: ``has_buzzer`` stays False)."""
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"volume must be from 0 to 1, not {volume!r}")
        with self._shown_changed:
            self.sounds.append((sound, volume))
            del self.sounds[: max(0, len(self.sounds) - self._history)]
            self._shown_changed.notify_all()

    def wait_for_sound(self, count: int, timeout: float = 2.0) -> tuple[Sound, float]:
        """Wait until at least ``count`` cues were asked for; return the newest."""
        with self._shown_changed:
            if not self._shown_changed.wait_for(lambda: len(self.sounds) >= count, timeout):
                raise TimeoutError(f"only {len(self.sounds)} of {count} sounds asked for")
            return self.sounds[-1]

    # -- sensors, as the virtual board or a test sets them ------------------------------
    def touchable(self) -> Touchable | None:
        """The page may touch this board (:class:`~controller.hardware.port.Touchable`)."""
        return self

    def set_active(self, channels: Iterable[int]) -> SensorFrame | None:
        """Make exactly ``channels`` active; returns the frame delivered, if any changed."""
        new = frozenset(channels)
        old = self.read().active
        for channel in new ^ old:
            self._toggles[channel] += 1
        frame = self._publish(new)
        if frame is not None and {c for c in new ^ old if c in self._pieces}:
            self._write_kept(new)
        return frame

    def set_channel(self, channel: int, active: bool) -> SensorFrame | None:
        """Make one channel active or inactive."""
        if not 0 <= channel < self.channels:
            raise ValueError(f"channel {channel} out of range 0..{self.channels - 1}")
        current = set(self.read().active)
        if active:
            current.add(channel)
        else:
            current.discard(channel)
        return self.set_active(current)

    def set_unreadable(self, channels: Iterable[int]) -> SensorFrame | None:
        """Make exactly ``channels`` unreadable (as the sun would a reflective board's
        sensors), each keeping its state; the frame delivered, or None."""
        return self._publish(self.read().active, unreadable=channels)

    def ask_levels(self) -> bool:
        return True  # nothing to ask: levels() reads the simulated sensors as they are

    def levels(self) -> SensorLevels:
        """The simulated sensors as a reflective board would read them: a piece there at
        :data:`SIM_PIECE` counts, an empty cell at :data:`SIM_EMPTY`, against the shipped
        firmware's thresholds over an empty cell (``OFF_COUNTS``, ``ON_COUNTS``)."""
        frame = self.read()
        off, on = SIM_EMPTY + SIM_OFF, SIM_EMPTY + SIM_ON
        channels = []
        for channel in range(self.channels):
            if channel in frame.unreadable:
                channels.append(ChannelLevel("unreadable", 0, off, on))
            elif channel in frame.active:
                channels.append(ChannelLevel("present", SIM_PIECE, off, on))
            else:
                channels.append(ChannelLevel("empty", SIM_EMPTY, off, on))
        return SensorLevels(tuple(channels), frame.at)

    def status(self) -> BoardStatus:
        return BoardStatus(
            adapter=self.adapter,
            link=LinkState.CONNECTED,
            since=self._started,
            detail="simulated board (no hardware)",
            counters={"frames": self.read().seq, "led_frames": len(self.shown)},
            toggles=dict(self._toggles),
        )
