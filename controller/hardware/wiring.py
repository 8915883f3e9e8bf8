"""How a board is wired, as values: the ``[board]``, ``[leds]`` and ``[buzzer]`` sections.

These values live beside the adapters that use them, so nothing in
``controller.hardware`` imports :mod:`controller.config` (which reads the TOML file,
checks every key and builds these values; it re-exports every name here, so
``from controller.config import GpioConfig, ConfigError`` keeps working). This module
imports only the standard library and the meaning layer (:mod:`~controller.hardware.
channels`), so the install script can run it with the system's plain ``python3``.

>>> GpioConfig().describe()
'matrix 6×6 (rows GPIO 4,17,27,22,5,6; cols GPIO 13,19,26,16,20,21)'
>>> SpiConfig().hardware, SpiConfig(clock=21, mosi=20, select=12).hardware
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from controller.hardware.channels import ChannelMap

Adapter = Literal["sim", "gpio", "serial"]
Topology = Literal["direct", "matrix", "mux"]

ADAPTERS: Final[tuple[str, ...]] = ("sim", "gpio", "serial")
TOPOLOGIES: Final[tuple[str, ...]] = ("direct", "matrix", "mux")

FIRST_GPIO: Final = 2
LAST_GPIO: Final = 27
"""BCM GPIO 2–27 are the GPIOs on the 40-pin header (0 and 1 belong to the HAT EEPROM)."""

HEADER_PIN: Final[Mapping[int, int]] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33,
    19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32,
    16: 36, 20: 38, 21: 40,
}  # fmt: skip
"""BCM GPIO number -> physical pin on the 40-pin header (the same on every Pi, Pi 5 too)."""

FIXED_PULL_UP: Final = frozenset({2, 3})
"""GPIO 2 and 3 carry 1.8 kΩ pull-ups on the Pi itself (I²C); they cannot be pulled down."""

SPI0_PINS: Final = frozenset({7, 8, 9, 10, 11})
"""With SPI0 enabled (``dtparam=spi=on``) the kernel owns GPIO 7–11 (CE1, CE0, MISO, MOSI,
SCLK), whether or not the LED chain uses MISO and both chip selects."""

MUX_CHANNELS: Final = 16
"""Inputs of one CD74HC4067 multiplexer."""

DEFAULT_ROWS: Final[tuple[int, ...]] = (4, 17, 27, 22, 5, 6)
DEFAULT_COLS: Final[tuple[int, ...]] = (13, 19, 26, 16, 20, 21)
"""The default 6×6 matrix pins (configs/matrix.toml): clear of SPI0, I²C and the UART."""

SETTLE_US: Final[Mapping[str, float]] = {"matrix": 5.0, "mux": 7.0, "direct": 0.0}
"""The default ``settle_us`` of each topology: twice the longest a line takes to settle
in ngspice (``hardware/spice/``, ``hardware/spice.py``) on the build
hardware/README.md describes, 10 kΩ pull-ups and 150 pF of wire: 2.2 µs for a matrix
column to rise after its row lets go, 3.3 µs for a mux SIG line after the address
changes; direct wiring waits for nothing. ``tests/hardware/test_circuits.py`` holds
these to the simulation."""

DEFAULT_BUZZER_PIN: Final = 18
"""The buzzer's GPIO in the shipped configs (header pin 12): free in every build."""


class ConfigError(ValueError):
    """A config value that cannot be used; ``key`` is the dotted key, ``problem`` says why.

    Also raised when the hardware a key names cannot be had (``leds.spi`` when SPI0 is
    off), so a maker reads which line of the config it is about.

    >>> str(ConfigError("board.gpio.rows[2]", "GPIO 28 is not on the 40-pin header"))
    'board.gpio.rows[2]: GPIO 28 is not on the 40-pin header'
    """

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}" if key else problem)
        self.key = key
        self.problem = problem

    @property
    def errors(self) -> tuple[ConfigError, ...]:
        """Every mistake this reports (itself)."""
        return (self,)


class ConfigErrors(ConfigError):
    """Every mistake found in one file at once, printed one per line; ``key`` and
    ``problem`` are the first's, so one mistake reads as a plain :class:`ConfigError`.

    >>> print(ConfigErrors((ConfigError("web.port", "must be from 1 to 65535, not 0"),
    ...                     ConfigError("leds.order", "must be one of 'bgr', 'rgb', not 'x'"))))
    2 mistakes:
      web.port: must be from 1 to 65535, not 0
      leds.order: must be one of 'bgr', 'rgb', not 'x'
    """

    def __init__(self, errors: tuple[ConfigError, ...]) -> None:
        first = errors[0]
        super().__init__(first.key, first.problem)
        if len(errors) > 1:
            lines = "\n".join(f"  {error}" for error in errors)
            self.args = (f"{len(errors)} mistakes:\n{lines}",)
        self._errors = errors

    @property
    def errors(self) -> tuple[ConfigError, ...]:
        return self._errors


@dataclass(frozen=True, slots=True)
class ScanTiming:
    """How the gpio adapter scans: slowly while nothing moves, fast while a change settles.

    A raw change is first seen by an idle scan (at most ``idle_ms`` after it happens);
    from then on the adapter scans every ``fast_ms`` until ``agree`` consecutive scans read
    the new level. So edge to debounced frame takes at most about
    ``idle_ms + (agree - 1) * fast_ms`` after the contact stops bouncing, and any glitch or
    chatter shorter than ``(agree - 1) * fast_ms`` never passes.
    """

    idle_ms: float = 8.0
    """Period of the scans while the debounced state and the raw reading agree."""
    fast_ms: float = 1.0
    """Period of the confirmation scans while any raw bit differs from the debounced state."""
    agree: int = 4
    """Consecutive agreeing scans needed before a channel changes (2–16)."""
    settle_us: float | None = None
    """Busy wait after selecting a matrix row or a mux address, so the lines settle before
    they are read; None: the topology's default (:data:`SETTLE_US`)."""

    @property
    def worst_latency_ms(self) -> float:
        """Longest time from a settled contact to its debounced frame (scan time aside)."""
        return self.idle_ms + (self.agree - 1) * self.fast_ms

    @property
    def glitch_window_ms(self) -> float:
        """Pulses shorter than this are always rejected."""
        return (self.agree - 1) * self.fast_ms


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """How the sensors are wired to the Pi's header (``[board.gpio]``)."""

    topology: Topology = "matrix"
    rows: tuple[int, ...] = DEFAULT_ROWS
    """matrix: GPIOs of the rows, each pulled low in turn (open drain), row 0 first."""
    cols: tuple[int, ...] = DEFAULT_COLS
    """matrix: GPIOs of the columns, read with pull-ups; channel = row * len(cols) + col."""
    pins: tuple[int, ...] = ()
    """direct: one GPIO per sensor; channel = index in this list."""
    select: tuple[int, ...] = ()
    """mux: GPIOs of the shared select lines S0, S1, S2, S3 (S0 first)."""
    signals: tuple[int, ...] = ()
    """mux: one GPIO per CD74HC4067 (its SIG pin); channel = mux * 16 + address."""
    enable: int | None = None
    """mux: optional GPIO on the multiplexers' EN pins (held low while scanning)."""
    active: Literal["low", "high"] = "low"
    """direct and mux: the level of an active sensor (reed to ground, open-drain hall: low)."""
    scan: ScanTiming = field(default_factory=ScanTiming)

    @property
    def settle_us(self) -> float:
        """The busy wait per matrix row or mux address: the config's, else the default."""
        configured = self.scan.settle_us
        return SETTLE_US[self.topology] if configured is None else configured

    @property
    def capacity(self) -> int:
        """How many channels this wiring can read."""
        if self.topology == "direct":
            return len(self.pins)
        if self.topology == "matrix":
            return len(self.rows) * len(self.cols)
        return MUX_CHANNELS * len(self.signals)

    def roles(self) -> tuple[tuple[int, str], ...]:
        """``(gpio, dotted key)`` for every GPIO this wiring uses, in config order."""
        used: list[tuple[int, str]] = []
        by_topology: dict[str, dict[str, tuple[int, ...]]] = {
            "direct": {"pins": self.pins},
            "matrix": {"rows": self.rows, "cols": self.cols},
            "mux": {"select": self.select, "signals": self.signals},
        }
        groups = by_topology[self.topology]
        for name, gpios in groups.items():
            used.extend((gpio, f"board.gpio.{name}[{i}]") for i, gpio in enumerate(gpios))
        if self.topology == "mux" and self.enable is not None:
            used.append((self.enable, "board.gpio.enable"))
        return tuple(used)

    def describe(self) -> str:
        """One line for people: ``matrix 6×6 (rows GPIO 4,17,…; cols GPIO 13,…)``."""

        def gpios(values: tuple[int, ...]) -> str:
            return ",".join(str(v) for v in values)

        if self.topology == "direct":
            return f"direct, {len(self.pins)} sensors (GPIO {gpios(self.pins)})"
        if self.topology == "matrix":
            return (
                f"matrix {len(self.rows)}×{len(self.cols)} "
                f"(rows GPIO {gpios(self.rows)}; cols GPIO {gpios(self.cols)})"
            )
        return (
            f"mux, {len(self.signals)}×CD74HC4067 "
            f"(select GPIO {gpios(self.select)}; signals GPIO {gpios(self.signals)})"
        )


@dataclass(frozen=True, slots=True)
class SerialConfig:
    """Where the Pico sensor board is (``[board.serial]``)."""

    port: str = "auto"
    """``auto`` (find USB id 2E8A:0005), a device path, or a pyserial URL (``loop://``)."""
    baudrate: int = 115_200
    """Only matters for a USB-serial adapter or a real UART; USB CDC ignores it."""
    usb_id: tuple[int, int] = (0x2E8A, 0x0005)
    """``usb_id = "2E8A:0005"``: the vendor and product id that ``auto`` looks for."""
    buzzer: bool | None = None
    """``buzzer = "auto"`` (the default: the Pico says so after its HELLO), true or false."""
    silence_s: float = 3.0
    """Seconds without a valid line before the link counts as lost (the Pico reports ≤ 1 s)."""
    refresh_s: float = 2.0
    """The LED frame is sent again this often (the firmware blanks after 10 s without one)."""
    frame_retry_s: float = 0.25
    """Seconds to wait for a frame's OK before it is sent again."""
    handshake_s: float = 0.5
    """Seconds to wait for HELLO after each HELLO?."""


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """``[board]``: which adapter, its wiring, and what each channel and LED means."""

    adapter: Adapter = "sim"
    channel_map: ChannelMap = field(default_factory=ChannelMap.default)
    """``[board.channels]`` and ``[board.leds]``, checked and built into one map."""
    gpio: GpioConfig = field(default_factory=GpioConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)

    @property
    def channels(self) -> Mapping[str, int]:
        """``[board.channels]``: channel number by name."""
        return self.channel_map.channel_by_name

    @property
    def leds(self) -> Mapping[str, int]:
        """``[board.leds]``: LED number (position in the chain) by name."""
        return self.channel_map.led_by_name


@dataclass(frozen=True, slots=True)
class SpiConfig:
    """The SPI pins of the APA102/SK9822 chain (``[leds] spi``)."""

    clock: int = 11
    mosi: int = 10
    select: int = 8
    """gpiozero always drives a chip select; the LEDs ignore it. CE0 (8) for SPI0."""
    rate_hz: int = 2_000_000
    """Clock rate for hardware SPI (bit-banged SPI goes as fast as it can)."""

    @property
    def hardware(self) -> bool:
        """True for the SPI0 pins, which the kernel drives (fast, no CPU)."""
        return (self.clock, self.mosi) == (11, 10) and self.select in (8, 7)

    @property
    def device(self) -> int:
        """The chip select's number on SPI0 (``/dev/spidev0.<device>``): CE0 0, CE1 1."""
        return 1 if self.select == 7 else 0

    def roles(self) -> tuple[tuple[int, str], ...]:
        if self.hardware:
            # The kernel takes all of GPIO 7–11 once SPI0 is on; claim them all so a sensor
            # wired to MISO or the other chip select is reported, not silently dead.
            return tuple((gpio, "leds.spi (SPI0 uses GPIO 7–11)") for gpio in sorted(SPI0_PINS))
        return (
            (self.clock, "leds.spi.clock"),
            (self.mosi, "leds.spi.mosi"),
            (self.select, "leds.spi.select"),
        )


@dataclass(frozen=True, slots=True)
class LedConfig:
    """``[leds]``: the LED chain and its global brightness limit."""

    brightness: float = 0.25
    """Global limit, 0..1: every colour is scaled by it (power budget, and eyes)."""
    spi: SpiConfig | None = field(default_factory=SpiConfig)
    """The SPI pins for the gpio adapter; ``None`` (``spi = false``) when no LEDs are wired."""
    order: str = "bgr"
    """Colour byte order on the wire: ``bgr`` for APA102 and SK9822; some clones differ."""


@dataclass(frozen=True, slots=True)
class BuzzerConfig:
    """``[buzzer]``: a passive piezo on one GPIO of the Pi's header (gpio adapter only)."""

    pin: int = DEFAULT_BUZZER_PIN
    """The BCM GPIO the piezo (through its series resistor) is wired to."""

    def roles(self) -> tuple[tuple[int, str], ...]:
        return ((self.pin, "buzzer.pin"),)


class HardwareConfig(Protocol):
    """What :func:`~controller.hardware.build_board` reads of a config
    (:class:`controller.config.Config` has it)."""

    @property
    def board(self) -> BoardConfig: ...

    @property
    def leds(self) -> LedConfig: ...

    @property
    def buzzer(self) -> BuzzerConfig | None: ...


def needs_spi0(config: HardwareConfig) -> bool:
    """True when the config drives LEDs from the Pi's own SPI0 (so SPI must be enabled).

    >>> from types import SimpleNamespace as Cfg
    >>> needs_spi0(Cfg(board=BoardConfig("gpio"), leds=LedConfig(), buzzer=None))
    True
    >>> needs_spi0(Cfg(board=BoardConfig("serial"), leds=LedConfig(), buzzer=None))
    False
    """
    spi = config.leds.spi
    return (
        config.board.adapter == "gpio"
        and spi is not None
        and spi.hardware
        and config.board.channel_map.led_count > 0
    )
