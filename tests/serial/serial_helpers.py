"""Helpers for the serial adapter tests: timings, and a listener that records."""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.hardware.port import BoardStatus, Led, LedFrame, LedMode, LinkState, SensorFrame
from controller.hardware.serial import LinkTiming
from firmware.sim.harness import SimConfig
from rigs.poll import wait_until as wait_until  # the tests' one poller

# The firmware reports four times a second, so a second of silence is a lost link; the
# adapter's other clocks shrink with it. (The shipped values are 1 s and 3 s.)
BOARD = SimConfig(report_ms=250)
TIMING = LinkTiming(
    silence=1.0, handshake=0.3, backoff_first=0.05, backoff_max=0.5, frame_retry=0.2, refresh=1.0
)
CHANNELS = 33  # the channel map's a1–e5, t1–t4, top and three buttons
LEDS = 37

# What a busy test machine may add to a wait.
PATIENCE = 5.0


class Recorder:
    """The listener a Table would be: every frame and status, with waits."""

    def __init__(self) -> None:
        self.frames: list[SensorFrame] = []
        self.statuses: list[BoardStatus] = []
        self._changed = threading.Condition()

    def on_frame(self, frame: SensorFrame) -> None:
        with self._changed:
            self.frames.append(frame)
            self._changed.notify_all()

    def on_status(self, status: BoardStatus) -> None:
        with self._changed:
            self.statuses.append(status)
            self._changed.notify_all()

    def wait(self, check: Callable[[], bool], timeout: float = PATIENCE, what: str = "") -> None:
        with self._changed:
            if not self._changed.wait_for(check, timeout):
                raise AssertionError(
                    f"waited {timeout} s for {what or 'a condition'}; "
                    f"frames {[sorted(f.active) for f in self.frames[-5:]]}, "
                    f"statuses {[(s.link.value, s.detail) for s in self.statuses[-4:]]}"
                )

    def wait_for_active(self, active: set[int], timeout: float = PATIENCE) -> SensorFrame:
        self.wait(
            lambda: bool(self.frames) and self.frames[-1].active == active,
            timeout,
            f"a frame with {sorted(active)}",
        )
        return self.frames[-1]

    def wait_for_link(
        self, link: LinkState, timeout: float = PATIENCE, after: float = 0.0
    ) -> BoardStatus:
        def found() -> BoardStatus | None:
            for status in self.statuses:
                if status.link is link and status.since >= after:
                    return status
            return None

        self.wait(lambda: found() is not None, timeout, f"link {link.value}")
        status = found()
        assert status is not None
        return status


def picture(
    *lit: tuple[int, tuple[int, int, int]], blink: frozenset[int] = frozenset()
) -> LedFrame:
    """A frame of :data:`LEDS` LEDs, all dark but ``lit`` (index, colour)."""
    leds = [Led()] * LEDS
    for index, colour in lit:
        leds[index] = Led(colour, LedMode.BLINK if index in blink else LedMode.STEADY)
    return LedFrame(tuple(leds))


def rgb(colour: int) -> tuple[int, int, int]:
    return ((colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF)
