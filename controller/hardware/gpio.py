"""The ``gpio`` adapter: sensors and LEDs wired straight to a Raspberry Pi's 40-pin header.

Three layers, as the port describes them:

1. **Electrical** — a scanner (:mod:`~controller.hardware.scanners`) reads every sensor
   once and returns a raw bitmask (bit n = channel n): one GPIO per sensor, a reed/diode
   matrix (rows pulled low one at a time, columns read with pull-ups) or CD74HC4067
   multiplexers. On a Pi (gpiozero's ``LGPIOFactory``, any model, Pi 5 too) the matrix
   and mux scanners claim lgpio line groups once and then only write and read them;
   on other factories (``MockFactory`` in tests) they use gpiozero pins.
2. **Debounced channels** — :class:`AdaptiveScan` feeds each raw scan into the firmware's
   :class:`~firmware.debounce.Debouncer` and picks the time of the next scan: every
   ``idle_ms`` while nothing moves, every ``fast_ms`` while any raw bit differs from the
   debounced state, until ``agree`` consecutive scans agree. Bounce and one-scan glitches
   never pass; a settled change reaches a frame within ``idle_ms + (agree-1)*fast_ms``.
3. **Meaning** — not here: the channel map names channels, the Table plays moves.

One scan thread per board also does the blinking (2 Hz, re-sent only when the picture
changes). LEDs are an APA102/SK9822 chain on the kernel's SPI0
(:mod:`controller.hardware.apa102`; gpiozero's silent fallback to bit-banging SPI0's
pins is refused with :class:`SpiUnavailable`). A passive piezo plays the board's tunes
(:mod:`controller.hardware.buzzer`), off the scan thread.

Use (the tests do so with pins that model the circuit, from the test rigs in
``rigs``: ``circuits`` on gpiozero's MockFactory, or on the lgpio model)::

    factory = MockFactory()
    circuit = DiodeMatrix(factory, rows=(4, 17), cols=(13, 19))
    board = GpioBoard(GpioConfig(rows=(4, 17), cols=(13, 19)), LedConfig(spi=None), 0,
                      pin_factory=factory)
    circuit.switches.press(3)
    board.scan_until_settled()   # or board.start(on_frame) for the scan thread
    assert board.read().active == {3}
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
import warnings
import weakref
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from gpiozero import Device
from gpiozero.exc import (
    PinFactoryFallback,
    PinPWMUnsupported,
    SPIFixedRate,
    SPISoftwareFallback,
)
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory
from gpiozero.pins.spi import SPISoftware

from controller.hardware.apa102 import Apa102Chain
from controller.hardware.buzzer import TunePlayer, open_buzzer
from controller.hardware.port import (
    Board,
    BoardStatus,
    LedFrame,
    LedMode,
    LinkState,
    Sound,
)
from controller.hardware.scanners import (
    GRAY_CODES,
    DirectScanner,
    LgpioMatrixScanner,
    LgpioMuxScanner,
    MatrixScanner,
    MuxScanner,
    PinClaim,
    Scanner,
    make_scanner,
)
from firmware.debounce import Debouncer

if TYPE_CHECKING:
    from controller.config_schema import BuzzerConfig, GpioConfig, LedConfig

__all__ = [
    "BLINK_HALF_PERIOD_S",
    "GRAY_CODES",
    "SWITCH_INTERVAL_S",
    "AdaptiveScan",
    "BuzzerUnavailable",
    "DirectScanner",
    "GpioBoard",
    "GpioUnavailable",
    "LgpioMatrixScanner",
    "LgpioMuxScanner",
    "MatrixScanner",
    "MuxScanner",
    "PinClaim",
    "Scanner",
    "SpiUnavailable",
    "bits_of",
    "default_pin_factory",
    "make_scanner",
]

_PinClaim = PinClaim  # the name the tests and older code know

log = logging.getLogger(__name__)

BLINK_HALF_PERIOD_S: Final = 0.25
"""Blinking LEDs are on for 250 ms, then off for 250 ms: 2 Hz."""

SWITCH_INTERVAL_S: Final = 0.001
"""How long another Python thread may hold the GIL before the scan thread gets it.

Python's default (5 ms) let a busy thread in the same process (a web request, the
rules engine) push edge-to-frame p99 from 12 ms to 34 ms; 1 ms keeps it under 20 ms
(bench/gpio_scan.py --busy-thread). A running gpio board lowers the interval to this
and puts the old value back when it closes."""

Clock = Callable[[], float]


class GpioUnavailable(RuntimeError):
    """What the config asks of the Pi cannot be had here; ``key`` names the config key.

    No pin factory (not a Raspberry Pi, or lgpio is not installed): ``board.adapter``.
    """

    key = "board.adapter"


class SpiUnavailable(GpioUnavailable):
    """``[leds] spi`` names SPI0, but the kernel's SPI cannot be opened."""

    key = "leds.spi"


class BuzzerUnavailable(GpioUnavailable):
    """``[buzzer] pin`` cannot play PWM with this pin factory."""

    key = "buzzer.pin"


SPI_FIX: Final = (
    "enable SPI: `sudo raspi-config nonint do_spi 0`; add the user to the `spi` group "
    "(`sudo adduser $USER spi`, then log in again; install-pi.sh puts the service's "
    "user in it); `ls -l /dev/spidev0.*` shows both"
)
"""What to do when SPI0 cannot be opened (the error says it, hardware/README.md too)."""


def bits_of(mask: int) -> frozenset[int]:
    """The set bits of ``mask``.

    >>> sorted(bits_of(0b100101))
    [0, 2, 5]
    """
    found = set()
    while mask:
        low = mask & -mask
        found.add(low.bit_length() - 1)
        mask ^= low
    return frozenset(found)


# -- debounced layer: adaptive scanning -----------------------------------------------------


class AdaptiveScan:
    """Debounces raw scans and says when to scan next.

    >>> from controller.config import GpioConfig
    >>> policy = AdaptiveScan(GpioConfig(idle_ms=8, fast_ms=1, agree=3))
    >>> policy.feed(0b1)             # first sight of a change: look again soon
    (None, 0.001)
    >>> policy.feed(0b1), policy.feed(0b1)
    ((None, 0.001), (1, 0.008))
    >>> policy.feed(0b0), policy.feed(0b1)   # a one-scan glitch: confirmed away, no change
    ((None, 0.001), (None, 0.001))
    """

    def __init__(self, timing: GpioConfig, initial: int = 0) -> None:
        self.timing = timing
        self.debouncer = Debouncer(agree=timing.agree, initial=initial)
        self._idle = timing.idle_ms / 1000
        self._fast = timing.fast_ms / 1000
        self.busy = False
        """True while some raw bit differs from the debounced state or is being confirmed."""

    @property
    def state(self) -> int:
        """The debounced bitmask."""
        state: int = self.debouncer.state
        return state

    def feed(self, raw: int) -> tuple[int | None, float]:
        """Take one raw scan: ``(new debounced state or None, seconds to the next scan)``."""
        changed: int | None = self.debouncer.feed(raw)
        self.busy = raw != self.debouncer.state or not self.debouncer.settled()
        return changed, self._fast if self.busy else self._idle


# -- the board --------------------------------------------------------------------------------


def default_pin_factory() -> Factory:
    """gpiozero's pin factory (lgpio on a Pi; ``GPIOZERO_PIN_FACTORY=mock`` for a dry run)."""
    try:
        with warnings.catch_warnings():
            # gpiozero warns once per factory it cannot load on its way down the list;
            # the error below (or the factory named in the board's status) says it better.
            warnings.simplefilter("ignore", PinFactoryFallback)
            Device.ensure_pin_factory()
    except Exception as exc:
        raise GpioUnavailable(
            "'gpio' cannot be used here: no GPIO pin factory: this is not a Raspberry Pi, "
            "or lgpio is missing "
            f"(pip install 'pyramid-board[pi]'); gpiozero said: {exc}"
        ) from exc
    factory = Device.pin_factory
    if factory is None:  # ensure_pin_factory set it; only gpiozero's exit handler unsets it
        raise GpioUnavailable("'gpio' cannot be used here: gpiozero has shut its pins down")
    return factory


class GpioBoard(Board):
    """A board wired to the Pi's header; see the module docstring.

    ``led_count`` is the length of the LED frames the board takes (the channel map's LED
    count). ``leds.spi`` None means no LEDs are wired: frames are accepted and dropped.
    """

    adapter = "gpio"

    def __init__(
        self,
        gpio: GpioConfig,
        leds: LedConfig,
        led_count: int,
        *,
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
        buzzer: BuzzerConfig | None = None,
    ) -> None:
        super().__init__(max(1, gpio.capacity), led_count)
        self.gpio = gpio
        self._factory = pin_factory if pin_factory is not None else default_pin_factory()
        self._clock = clock
        self._claim = PinClaim(f"pyramid-board gpio adapter ({gpio.topology})")
        self._claim.owner = weakref.WeakMethod(self.close)
        self._scanner = make_scanner(gpio, self._factory, self._claim)
        self._chain: Apa102Chain | None = None
        self._spi_in_use = "no LEDs"
        self._buzzer: TunePlayer | None = None
        try:
            if leds.spi is not None and led_count > 0:
                self._chain = self._open_chain(leds, led_count)
            if buzzer is not None:
                try:
                    self._buzzer = open_buzzer(self._factory, buzzer.pin)
                except PinPWMUnsupported as exc:
                    raise BuzzerUnavailable(
                        f"GPIO {buzzer.pin} cannot play tones with "
                        f"{type(self._factory).__name__} ({exc or 'no PWM'}); lgpio on a Pi can"
                    ) from exc
        except Exception:
            if self._chain is not None:
                self._chain.close()
            self._scanner.close()
            raise
        self._buzzer_pin = buzzer.pin if buzzer is not None else None
        self._leds_config = leds
        self._policy = AdaptiveScan(gpio)
        self._toggles: Counter[int] = Counter()
        self._counters: Counter[str] = Counter()
        self._started_at = clock()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._led_lock = threading.Lock()
        self._phase_on = True
        self._blinking = False
        self._closed = False
        self._failure = ""
        self._saved_switch_interval = sys.getswitchinterval()

    def _open_chain(self, leds: LedConfig, count: int) -> Apa102Chain:
        config = leds.spi
        assert config is not None
        with warnings.catch_warnings(record=True) as caught:
            # gpiozero only *warns* when the kernel's SPI cannot be opened, and hands out
            # a bit-banged SPI on the same pins instead: one lgpio call per clock edge,
            # ~3,800 per 37-LED picture, on the scan thread. Catch that, and refuse it.
            warnings.simplefilter("always", SPISoftwareFallback)
            spi = self._factory.spi(
                clock_pin=config.clock,
                mosi_pin=config.mosi,
                miso_pin=None,
                select_pin=config.chip_select,
            )
        fallback = [w for w in caught if issubclass(w.category, SPISoftwareFallback)]
        for w in caught:
            if w not in fallback:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        software = isinstance(spi, SPISoftware)
        # MockFactory has no kernel SPI at all and says so by never warning; any other
        # factory bit-banging SPI0's pins has fallen back.
        mock = isinstance(self._factory, MockFactory)
        if config.hardware and (fallback or (software and not mock)):
            spi.close()
            why = str(fallback[0].message) if fallback else f"gpiozero gave {spi!r}"
            why = why.partition("(error was: ")[2].rstrip(")").strip("'\"") or why
            raise SpiUnavailable(
                f"SPI0 (/dev/spidev0.{config.spidev}) cannot be opened ({why}), so the LEDs "
                "would be bit-banged by the scan thread; " + SPI_FIX + ". To bit-bang the "
                "LEDs on purpose, give [leds] spi other pins (clock, mosi, select)."
            )
        try:
            if spi.clock_mode != 0:
                spi.clock_mode = 0  # APA102 samples on the rising edge
            # Bit-banged SPI has no rate (and, with no MISO, gpiozero 2.0.1 cannot even
            # format the SPIFixedRate message), so only the kernel's SPI is asked.
            if config.hardware and not software:
                with contextlib.suppress(SPIFixedRate):
                    spi.rate = config.rate
            if software:
                why = " (MockFactory has no kernel SPI)" if mock and config.hardware else ""
                self._spi_in_use = f"GPIO {config.clock}/{config.mosi} (bit-banged{why})"
            else:
                rate = f"{spi.rate / 1e6:g} MHz" if isinstance(spi.rate, int | float) else "?"
                self._spi_in_use = f"SPI0 (hardware, /dev/spidev0.{config.spidev}, {rate})"
            chain = Apa102Chain(spi, count, leds.brightness, leds.order)
            chain.blank()  # whatever the LEDs showed before (or at power-on) goes dark
        except Exception:
            spi.close()
            raise
        return chain

    # -- scanning --------------------------------------------------------------------------
    def scan_once(self, now: float | None = None) -> float:
        """Scan once, publish a frame if the debounced state changed; the next scan's time.

        The scan thread calls this; tests with a virtual clock call it directly.
        """
        if now is None:
            now = self._clock()
        before = self._policy.state
        changed, delay = self._policy.feed(self._scanner.scan())
        self._counters["scans"] += 1
        if self._policy.busy:
            self._counters["fast_scans"] += 1
        if changed is not None:
            for channel in bits_of(changed ^ before):
                self._toggles[channel] += 1
            self._counters["frames"] += 1
            self._publish(bits_of(changed), at=now)
        return now + delay

    def scan_until_settled(self, limit: int = 1000) -> None:
        """Scan back to back until the debounced state agrees with the raw one (tests)."""
        for _ in range(limit):
            self.scan_once()
            if not self._policy.busy:
                return
        raise TimeoutError(f"the sensors did not settle in {limit} scans")

    def _start(self) -> None:
        if self._closed:
            raise RuntimeError("this board is closed")
        if self._thread is not None:
            return
        for pin in self._scanner.edge_pins():
            pin.when_changed = self._on_edge
        self._saved_switch_interval = sys.getswitchinterval()
        if self._saved_switch_interval > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="pyramid-gpio-scan", daemon=True)
        self._thread.start()

    def _on_edge(self, ticks: float, state: int) -> None:
        self._wake.set()  # lgpio's (or the mock's) thread: only wake the scan thread

    def _run(self) -> None:
        clock = self._clock
        edge_driven = bool(self._scanner.edge_pins())
        next_scan = clock()
        cpu_start = time.thread_time()
        wall_start = clock()
        while not self._stopping.is_set():
            now = clock()
            try:
                if now >= next_scan:
                    next_scan = max(self.scan_once(now), now)
                next_blink = self.blink(now)
            except Exception as exc:  # keep scanning: a bad frame listener must not blind us
                self._counters["errors"] += 1
                self._failure = f"{type(exc).__name__}: {exc}"
                log.exception("gpio scan failed")
                next_scan = now + self._policy.timing.idle_ms / 1000
                next_blink = None
            self._counters["scan_cpu_us"] = int((time.thread_time() - cpu_start) * 1e6)
            self._counters["scan_wall_us"] = int((clock() - wall_start) * 1e6)
            wake_at = next_scan if next_blink is None else min(next_scan, next_blink)
            timeout = wake_at - clock()
            if timeout <= 0:
                continue
            if not edge_driven:
                # A plain sleep costs half the CPU of a wait on an Event (measured with
                # bench/gpio_scan.py); only direct wiring has edges to wake up for.
                time.sleep(timeout)
            elif self._wake.wait(timeout):
                self._wake.clear()
                next_scan = clock()  # an edge on a direct pin: look now

    def _stop(self) -> None:
        thread = self._thread
        self._stopping.set()
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        if thread is not None and sys.getswitchinterval() == SWITCH_INTERVAL_S:
            sys.setswitchinterval(self._saved_switch_interval)
        self._thread = None
        if self._closed:
            return
        self._closed = True
        try:
            if self._buzzer is not None:
                self._buzzer.close()
            if self._chain is not None:
                with self._led_lock:
                    self._chain.close()
        finally:
            self._scanner.close()

    # -- LEDs ------------------------------------------------------------------------------
    def _phase(self, now: float) -> bool:
        return int(now / BLINK_HALF_PERIOD_S) % 2 == 0

    def _show(self, frame: LedFrame) -> None:
        if self._chain is None:
            return
        with self._led_lock:
            if self._closed:
                raise RuntimeError("this board is closed")
            self._blinking = any(led.mode is LedMode.BLINK for led in frame.leds)
            self._phase_on = self._phase(self._clock())
            self._render(frame)

    def _render(self, frame: LedFrame) -> None:
        assert self._chain is not None
        colours = [frame.colour_at(i, self._phase_on) for i in range(len(frame))]
        if self._chain.show(colours):
            self._counters["led_writes"] += 1

    def blink(self, now: float) -> float | None:
        """Flip the blink phase when due; the time of the next flip, or None if none blink.

        The scan thread calls this; tests with a virtual clock call it directly.
        """
        if self._chain is None or not self._blinking:
            return None
        phase = self._phase(now)
        if phase != self._phase_on:
            with self._led_lock:
                if not self._closed:
                    self._phase_on = phase
                    self._render(self.led_frame)
        return (int(now / BLINK_HALF_PERIOD_S) + 1) * BLINK_HALF_PERIOD_S

    # -- sound ---------------------------------------------------------------------------
    @property
    def has_buzzer(self) -> bool:
        return self._buzzer is not None

    def buzzer_idle(self, timeout: float = 2.0) -> bool:
        """Wait until no tune plays or waits to (tests, diag); False on timeout."""
        return self._buzzer is None or self._buzzer.idle(timeout)

    def sound(self, sound: Sound, volume: float = 1.0) -> None:
        """Play ``sound``'s tune on the piezo at ``volume`` (0–1); returns at once."""
        if self._buzzer is None:
            return
        self._buzzer.play(sound, volume)
        self._counters["sounds"] += 1

    # -- diagnostics -----------------------------------------------------------------------
    @property
    def spi_in_use(self) -> str:
        """The SPI the LEDs really go through: ``SPI0 (hardware, /dev/spidev0.0, 2 MHz)``,
        ``GPIO 21/20 (bit-banged)``, or ``no LEDs``."""
        return self._spi_in_use

    def status(self) -> BoardStatus:
        leds = self._leds_config
        if self._chain is None:
            lights = "no LEDs"
        else:
            lights = f"APA102 ×{self.leds} on {self._spi_in_use}, brightness {leds.brightness:g}"
        if self._buzzer_pin is not None:
            lights += f"; buzzer on GPIO {self._buzzer_pin}"
        pins = type(self._factory).__name__.removesuffix("Factory") or "?"
        lines = (
            "line groups"
            if isinstance(self._scanner, LgpioMatrixScanner | LgpioMuxScanner)
            else "pins"
        )
        detail = f"{self.gpio.describe()} via {pins} {lines}; {lights}"
        if self._failure:
            detail += f"; last error: {self._failure}"
        return BoardStatus(
            adapter=self.adapter,
            link=LinkState.LOST if self._closed else LinkState.CONNECTED,
            since=self._started_at,
            detail=detail,
            counters=dict(self._counters),
            toggles=dict(self._toggles),
        )
