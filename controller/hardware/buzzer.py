"""A passive piezo on one GPIO: the board's tunes (:data:`~controller.hardware.port.TUNES`).

gpiozero's ``TonalBuzzer`` does not fit: it always drives a 50 % duty cycle (no volume)
and its range is its mid tone ± up to a few octaves, where the tunes want 220–1047 Hz
*and* a volume. So the player drives a ``PWMOutputDevice``: the note's pitch is the PWM
frequency, the volume the duty cycle. A piezo's loudness follows the fundamental of the
square wave, whose amplitude is ``sin(π·duty)`` of the loudest (at 50 %), so volume ``v``
becomes duty ``asin(v)/π``:

>>> [round(duty_for(v), 3) for v in (0.0, 0.25, 0.5, 1.0)]
[0.0, 0.08, 0.167, 0.5]

Tunes play on the player's own thread, never on the scan thread; a new cue cuts the one
playing short (the newest cue is the one that matters), and between tunes the PWM is
stopped (lgpio's software PWM costs CPU while it runs, even at 0 %).
"""

from __future__ import annotations

import logging
import math
import threading

from gpiozero import PWMOutputDevice
from gpiozero.pins import Factory

from controller.hardware.port import TUNES, Sound

log = logging.getLogger(__name__)


def duty_for(volume: float) -> float:
    """The PWM duty cycle (0–0.5) that gives ``volume`` (0–1) of a piezo's loudest."""
    if not 0.0 <= volume <= 1.0:
        raise ValueError(f"volume must be from 0 to 1, not {volume!r}")
    return math.asin(volume) / math.pi


class TunePlayer:
    """Plays :data:`TUNES` on a gpiozero ``PWMOutputDevice`` from a thread of its own.

    ``device`` is the PWM output; the player owns it from here on and closes it in
    :meth:`close`.
    """

    def __init__(self, device: PWMOutputDevice) -> None:
        self._device = device
        self._lock = threading.Condition()
        self._next: tuple[Sound, float] | None = None
        self._closed = False
        self.played: list[tuple[Sound, float]] = []
        """Every cue the player started, with its volume (diagnostics and tests)."""
        self._thread = threading.Thread(target=self._run, name="pyramid-buzzer", daemon=True)
        self._thread.start()

    def play(self, sound: Sound, volume: float) -> None:
        """Start ``sound``'s tune at ``volume`` (0–1), cutting short whatever plays; returns
        at once."""
        duty_for(volume)  # checks the range here, in the caller's thread
        with self._lock:
            if self._closed:
                return
            self._next = (sound, volume)
            self._lock.notify_all()

    def idle(self, timeout: float = 2.0) -> bool:
        """Wait until nothing plays or is waiting to (tests); False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: self._next is None and not self._busy, timeout)

    _busy = False

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._next is not None or self._closed)
                if self._closed:
                    return
                assert self._next is not None
                sound, volume = self._next
                self._next = None
                self._busy = True
                self.played.append((sound, volume))
            try:
                self._play(sound, volume)
            except Exception:  # a buzzer that fails must not take the board with it
                log.exception("the buzzer failed to play %s", sound.value)
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def _play(self, sound: Sound, volume: float) -> None:
        duty = duty_for(volume)
        device = self._device
        try:
            for note in TUNES[sound]:
                if note.hz and duty > 0:
                    device.frequency = note.hz
                    device.value = duty
                else:
                    device.value = 0
                with self._lock:
                    # The note lasts its time, unless a new cue (or close) cuts it short.
                    if self._lock.wait_for(
                        lambda: self._next is not None or self._closed, note.ms / 1000
                    ):
                        return
        finally:
            device.value = 0
            device.frequency = None  # PWM stopped between tunes; the line rests low

    def close(self) -> None:
        """Stop playing, end the thread and let the GPIO go; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._lock.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        try:
            self._device.close()
        except Exception:
            log.exception("could not release the buzzer's GPIO")


def open_buzzer(factory: Factory, pin: int) -> TunePlayer:
    """A :class:`TunePlayer` on a new ``PWMOutputDevice`` on ``pin`` of ``factory``."""
    device = PWMOutputDevice(pin, initial_value=0, frequency=440, pin_factory=factory)
    device.frequency = None  # silent and no PWM running until the first note
    return TunePlayer(device)
