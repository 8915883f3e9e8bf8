"""The ``gpio`` adapter: sensors and LEDs wired straight to a Raspberry Pi's 40-pin header.

Three layers, as the port describes them:

1. **Electrical** — a scanner reads every sensor once and returns a raw bitmask
   (bit n = channel n): :class:`DirectScanner` (one GPIO per sensor), :class:`MatrixScanner`
   (reed switches with a diode each; rows pulled low one at a time, columns read with
   pull-ups) or :class:`MuxScanner` (CD74HC4067 multiplexers with shared select lines).
   Scanners only ask a gpiozero pin factory for pins, so lgpio on a Pi (any model, Pi 5
   too) and gpiozero's ``MockFactory`` in tests run the same code.
2. **Debounced channels** — :class:`AdaptiveScan` feeds each raw scan into the firmware's
   :class:`~firmware.debounce.Debouncer` and picks the time of the next scan: every
   ``idle_ms`` while nothing moves, every ``fast_ms`` while any raw bit differs from the
   debounced state, until ``agree`` consecutive scans agree. Bounce and one-scan glitches
   never pass; a settled change reaches a frame within ``idle_ms + (agree-1)*fast_ms``.
3. **Meaning** — not here: the channel map names channels, the Table plays moves.

One scan thread per board also does the blinking (2 Hz, re-sent only when the picture
changes). LEDs are an APA102/SK9822 chain on SPI (:mod:`controller.hardware.apa102`).

Use (in tests, with pins that model the circuit from :mod:`~controller.hardware.
mock_circuits`)::

    factory = MockFactory()
    circuit = DiodeMatrix(factory, rows=(4, 17), cols=(13, 19))
    board = GpioBoard(GpioConfig(rows=(4, 17), cols=(13, 19)), LedConfig(spi=None), 0,
                      pin_factory=factory)
    circuit.switches.press(3)
    board.scan_until_settled()   # or board.start(on_frame) for the scan thread
    assert board.read().active == {3}
"""

from __future__ import annotations

import abc
import contextlib
import logging
import sys
import threading
import time
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Final

from gpiozero.exc import SPIFixedRate
from gpiozero.pins.spi import SPISoftware

from controller.config import MUX_CHANNELS, GpioConfig, LedConfig, ScanTiming
from controller.hardware.apa102 import Apa102Chain
from controller.hardware.port import (
    Board,
    BoardStatus,
    LedFrame,
    LedMode,
    LinkState,
)
from firmware.debounce import Debouncer

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
    """No pin factory could be had: not a Raspberry Pi, or lgpio is not installed."""


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


def _settle(microseconds: float) -> None:
    # A busy wait: sleep() cannot wait a few microseconds, and this is a few at most.
    end = time.perf_counter() + microseconds / 1e6
    while time.perf_counter() < end:
        pass


class _PinClaim:
    """Holds the factory reservations of one board, as gpiozero devices do for theirs.

    gpiozero closes every reserver when the interpreter exits; the claim passes that on
    to its board, which blanks the LEDs and lets the pins go.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.owner: weakref.WeakMethod[Callable[[], None]] | None = None

    def _conflicts_with(self, other: object) -> bool:
        return True

    def close(self) -> None:
        close = self.owner() if self.owner is not None else None
        if close is not None:
            close()

    def __repr__(self) -> str:
        return self.label


# -- electrical layer: scanners -------------------------------------------------------------


class Scanner(abc.ABC):
    """Reads every sensor once; bit n of :meth:`scan` is channel n, set when active."""

    capacity: int

    def __init__(self, factory: Any, claim: _PinClaim, gpios: Iterable[int]) -> None:
        self._factory = factory
        self._claim = claim
        self._gpios = tuple(gpios)
        factory.reserve_pins(claim, *self._gpios)
        try:
            self._pins = {gpio: factory.pin(gpio) for gpio in self._gpios}
        except Exception:
            factory.release_pins(claim, *self._gpios)
            raise

    @abc.abstractmethod
    def scan(self) -> int: ...

    def edge_pins(self) -> tuple[Any, ...]:
        """Pins whose edges may wake the scan thread (only direct wiring has such)."""
        return ()

    def close(self) -> None:
        """Leave every pin an input without pull (harmless to whatever is wired) and free it."""
        for pin in self._pins.values():
            try:
                pin.when_changed = None
                pin.function = "input"
            except Exception:  # a pin that cannot be reset must not keep others claimed
                log.exception("could not reset %r", pin)
        self._factory.release_pins(self._claim, *self._gpios)


class DirectScanner(Scanner):
    """One GPIO per sensor; channel = position in ``pins``."""

    def __init__(
        self, factory: Any, claim: _PinClaim, pins: tuple[int, ...], active: str = "low"
    ) -> None:
        super().__init__(factory, claim, pins)
        self.capacity = len(pins)
        self._active = active == "high"
        self._inputs = [self._pins[g] for g in pins]
        for pin in self._inputs:
            pin.input_with_pull("down" if self._active else "up")

    def scan(self) -> int:
        bits = 0
        active = self._active
        for channel, pin in enumerate(self._inputs):
            if bool(pin.state) == active:
                bits |= 1 << channel
        return bits

    def edge_pins(self) -> tuple[Any, ...]:
        return tuple(self._inputs)


class MatrixScanner(Scanner):
    """Reed switches with one diode each, at the crossings of rows and columns.

    Each row in turn is pulled low (switched to output, low); the others are left as
    inputs, so they float instead of being driven high. With every diode in place that
    changes nothing; with one missing or reversed it keeps a ghost to a ghost instead of
    a short from one GPIO's high to another's low. Columns are read with pull-ups: a
    column reads low when a closed switch (through its diode) joins it to the low row.
    Channel = row * len(cols) + col.
    """

    def __init__(
        self,
        factory: Any,
        claim: _PinClaim,
        rows: tuple[int, ...],
        cols: tuple[int, ...],
        settle_us: float = 0.0,
    ) -> None:
        super().__init__(factory, claim, rows + cols)
        self.capacity = len(rows) * len(cols)
        self._rows = [self._pins[g] for g in rows]
        self._cols = [self._pins[g] for g in cols]
        self._settle_us = settle_us
        for row in self._rows:
            row.function = "input"
        for col in self._cols:
            col.input_with_pull("up")

    def scan(self) -> int:
        bits = 0
        width = len(self._cols)
        cols = self._cols
        settle = self._settle_us
        for r, row in enumerate(self._rows):
            row.output_with_state(False)
            if settle:
                _settle(settle)
            base = r * width
            for c, col in enumerate(cols):
                if not col.state:
                    bits |= 1 << (base + c)
            # Release before the next row is pulled low, so the columns this row held low
            # have that long to rise through their pull-ups.
            row.function = "input"
        return bits


GRAY_CODES: Final[tuple[int, ...]] = tuple(i ^ (i >> 1) for i in range(MUX_CHANNELS))
"""Mux addresses in Gray-code order: each step changes one select line (one pin write)."""


class MuxScanner(Scanner):
    """CD74HC4067 multiplexers: four shared select lines, one signal GPIO per mux.

    Channel = mux * 16 + address, where address is the S3..S0 value that connects the
    sensor to the mux's signal pin. The addresses are walked in Gray-code order so each
    step costs one pin write, not four.
    """

    def __init__(
        self,
        factory: Any,
        claim: _PinClaim,
        select: tuple[int, ...],
        signals: tuple[int, ...],
        enable: int | None = None,
        active: str = "low",
        settle_us: float = 0.0,
    ) -> None:
        if len(select) != 4:
            raise ValueError("a CD74HC4067 has four select lines S0–S3")
        extra = (enable,) if enable is not None else ()
        super().__init__(factory, claim, select + signals + extra)
        self.capacity = MUX_CHANNELS * len(signals)
        self._select = [self._pins[g] for g in select]
        self._signals = [self._pins[g] for g in signals]
        self._enable = self._pins[enable] if enable is not None else None
        self._active = active == "high"
        self._settle_us = settle_us
        for line in self._select:
            line.output_with_state(False)
        self._address = 0
        for signal in self._signals:
            signal.input_with_pull("down" if self._active else "up")
        if self._enable is not None:
            self._enable.output_with_state(False)  # EN is active low

    def scan(self) -> int:
        bits = 0
        address = self._address
        select = self._select
        signals = self._signals
        active = self._active
        settle = self._settle_us
        for code in GRAY_CODES:
            changed = code ^ address
            if changed:
                line = changed.bit_length() - 1  # Gray code: exactly one bit changed
                select[line].state = (code >> line) & 1
                address = code
            if settle:
                _settle(settle)
            for mux, signal in enumerate(signals):
                if bool(signal.state) == active:
                    bits |= 1 << (mux * MUX_CHANNELS + code)
        self._address = address
        return bits

    def close(self) -> None:
        if self._enable is not None:
            try:
                self._enable.state = 1  # disconnect the muxes before letting go
            except Exception:
                log.exception("could not disable the multiplexers")
        super().close()


def make_scanner(gpio: GpioConfig, factory: Any, claim: _PinClaim) -> Scanner:
    """The scanner for ``gpio.topology``."""
    settle = gpio.scan.settle_us
    if gpio.topology == "direct":
        return DirectScanner(factory, claim, gpio.pins, gpio.active)
    if gpio.topology == "matrix":
        return MatrixScanner(factory, claim, gpio.rows, gpio.cols, settle)
    if gpio.topology == "mux":
        return MuxScanner(
            factory, claim, gpio.select, gpio.signals, gpio.enable, gpio.active, settle
        )
    raise ValueError(f"unknown topology {gpio.topology!r}")


# -- debounced layer: adaptive scanning -----------------------------------------------------


class AdaptiveScan:
    """Debounces raw scans and says when to scan next.

    >>> policy = AdaptiveScan(ScanTiming(idle_ms=8, fast_ms=1, agree=3))
    >>> policy.feed(0b1)             # first sight of a change: look again soon
    (None, 0.001)
    >>> policy.feed(0b1), policy.feed(0b1)
    ((None, 0.001), (1, 0.008))
    >>> policy.feed(0b0), policy.feed(0b1)   # a one-scan glitch: confirmed away, no change
    ((None, 0.001), (None, 0.001))
    """

    def __init__(self, timing: ScanTiming, initial: int = 0) -> None:
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


def default_pin_factory() -> Any:
    """gpiozero's pin factory (lgpio on a Pi; ``GPIOZERO_PIN_FACTORY=mock`` for a dry run)."""
    from gpiozero import Device
    from gpiozero.exc import PinFactoryFallback

    try:
        with warnings.catch_warnings():
            # gpiozero warns once per factory it cannot load on its way down the list;
            # the error below (or the factory named in the board's status) says it better.
            warnings.simplefilter("ignore", PinFactoryFallback)
            Device.ensure_pin_factory()
    except Exception as exc:
        raise GpioUnavailable(
            "no GPIO pin factory: this is not a Raspberry Pi, or lgpio is missing "
            f"(pip install 'pyramid-board[pi]'); gpiozero said: {exc}"
        ) from exc
    return Device.pin_factory


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
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(max(1, gpio.capacity), led_count)
        self.gpio = gpio
        self._factory = pin_factory if pin_factory is not None else default_pin_factory()
        self._clock = clock
        self._claim = _PinClaim(f"pyramid-board gpio adapter ({gpio.topology})")
        self._claim.owner = weakref.WeakMethod(self.close)
        self._scanner = make_scanner(gpio, self._factory, self._claim)
        self._chain: Apa102Chain | None = None
        try:
            if leds.spi is not None and led_count > 0:
                self._chain = self._open_chain(leds, led_count)
        except Exception:
            self._scanner.close()
            raise
        self._leds_config = leds
        self._policy = AdaptiveScan(gpio.scan)
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
        assert leds.spi is not None
        spi = self._factory.spi(
            clock_pin=leds.spi.clock,
            mosi_pin=leds.spi.mosi,
            miso_pin=None,
            select_pin=leds.spi.select,
        )
        try:
            spi.clock_mode = 0  # APA102 samples on the rising edge
            # Bit-banged SPI has no rate (and, with no MISO, gpiozero 2.0.1 cannot even
            # format the SPIFixedRate message), so only the kernel's SPI is asked.
            if leds.spi.hardware and not isinstance(spi, SPISoftware):
                with contextlib.suppress(SPIFixedRate):
                    spi.rate = leds.spi.rate_hz
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
                next_blink = self._blink(now)
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

    def _blink(self, now: float) -> float | None:
        """Flip the blink phase when due; the time of the next flip, or None if none blink."""
        if self._chain is None or not self._blinking:
            return None
        phase = self._phase(now)
        if phase != self._phase_on:
            with self._led_lock:
                if not self._closed:
                    self._phase_on = phase
                    self._render(self.led_frame)
        return (int(now / BLINK_HALF_PERIOD_S) + 1) * BLINK_HALF_PERIOD_S

    # -- diagnostics -----------------------------------------------------------------------
    def status(self) -> BoardStatus:
        leds = self._leds_config
        if self._chain is None:
            lights = "no LEDs"
        else:
            spi = leds.spi
            assert spi is not None
            where = (
                "SPI0 (hardware)" if spi.hardware else f"GPIO {spi.clock}/{spi.mosi} (bit-banged)"
            )
            lights = f"APA102 ×{self.leds} on {where}, brightness {leds.brightness:g}"
        pins = type(self._factory).__name__.removesuffix("Factory") or "?"
        detail = f"{self.gpio.describe()} via {pins}; {lights}"
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
