"""The ``sim`` adapter: a board in memory.

Tests and the web page's virtual board set its sensors; it records every LED frame it is
shown, the way gpiozero's ``MockPin`` records its state history.

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

import threading
import time
from collections import Counter
from collections.abc import Iterable

from controller.hardware.port import Board, BoardStatus, LedFrame, LinkState, SensorFrame, Sound


class SimBoard(Board):
    """An in-memory board: sensors set by calls, LED frames recorded."""

    adapter = "sim"

    def __init__(self, channels: int, leds: int, *, history: int = 10_000) -> None:
        super().__init__(channels, leds)
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
    def set_active(self, channels: Iterable[int]) -> SensorFrame | None:
        """Make exactly ``channels`` active; returns the frame delivered, if any changed."""
        new = frozenset(channels)
        old = self.read().active
        for channel in new ^ old:
            self._toggles[channel] += 1
        return self._publish(new)

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

    def status(self) -> BoardStatus:
        return BoardStatus(
            adapter=self.adapter,
            link=LinkState.CONNECTED,
            since=self._started,
            detail="simulated board (no hardware)",
            counters={"frames": self.read().seq, "led_frames": len(self.shown)},
            toggles=dict(self._toggles),
        )
