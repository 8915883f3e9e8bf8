"""The config file's values: each key of each section declared once, with its range.

(Longer than most modules: it is the file's whole schema, every section beside the others,
because :class:`Config`'s rules across sections (a GPIO used twice, a channel the wiring
lacks, a key of another topology) read them all, and one module is one import of pydantic
for :mod:`controller.config`'s lazy loading. The words of its mistakes are
:mod:`controller.checks`'.)

The sections are frozen pydantic dataclasses, so a value built by code is checked as a
file's is (``GpioConfig("direct", pins=(4, 17))``, ``dataclasses.replace``). The program
reads them as they are; a key's file form (``usb_id = "2E8A:0005"``, ``spi = false``,
``colours = ["#d62728", …]``) is read into the value's. Every mistake of a file is
reported at once (:func:`controller.checks.validate`), the rules across keys (a pin used
twice, a key of another topology) once every key has its type.

:mod:`controller.config` imports this module only when a config is read or built
(pydantic costs ``pyramid --help`` about a quarter of a second; docs/performance.md).

>>> GpioConfig().describe()
'matrix 6×6 (rows GPIO 4,17,27,22,5,6; cols GPIO 13,19,26,16,20,21)'
>>> SpiConfig().hardware, SpiConfig(clock=21, mosi=20, select=12).hardware
(True, False)
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import urllib.parse
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationInfo,
    model_validator,
)
from pydantic.dataclasses import dataclass
from pydantic_core.core_schema import ValidatorFunctionWrapHandler

from controller.checks import (
    Items,
    Key,
    Missing,
    Problems,
    Range,
    Text,
    describe,
    fail,
    fail_at,
    text,
)
from controller.hardware.channels import MATRIX_WIDTH, SEATS, ChannelMap, ChannelMapError
from controller.hardware.port import Colour
from controller.hardware.wiring import (
    DEFAULT_BUZZER_PIN,
    DEFAULT_COLS,
    DEFAULT_ROWS,
    FIRST_GPIO,
    FIXED_PULL_UP,
    LAST_GPIO,
    MUX_CHANNELS,
    SETTLE_US,
    SPI0_PINS,
)
from controller.palette import PaletteError, parse_hex, to_hex

Adapter = Literal["sim", "gpio", "serial"]
Topology = Literal["direct", "matrix", "mux"]
DEFAULT_SEAT_COLOURS: Final[tuple[str, ...]] = ("#d62728", "#1f77b4", "#f2c500", "#2ca02c")
STORE_FILE: Final = "pyramid.sqlite3"
DATA_ENV: Final = "PYRAMID_DATA_DIR"

TABLE: Final = ConfigDict(extra="forbid", defer_build=True)
"""A section of the file: a key it does not declare is a mistake (the values are frozen)."""


def default_data_dir() -> Path:
    """Where the game store lives by default (see :mod:`controller.config` for the order)."""
    named = os.environ.get(DATA_ENV)
    if named:
        return Path(named).expanduser()
    state = os.environ.get("STATE_DIRECTORY")  # set by systemd's StateDirectory=
    if state:
        return Path(state.split(":")[0])
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "pyramid-board"


def _gpio(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"must be a BCM GPIO number, not {describe(value)}")
    if not FIRST_GPIO <= value <= LAST_GPIO:
        fail(
            f"GPIO {value} is not on the 40-pin header "
            f"(BCM GPIO {FIRST_GPIO}–{LAST_GPIO} are valid)"
        )
    return value


Gpio = Annotated[int, PlainValidator(_gpio)]
_LIST = "a list of BCM GPIO numbers"


_Lines = Annotated[tuple[Gpio, ...], Items(1, 16, "GPIOs", _LIST)]
_Pins = Annotated[tuple[Gpio, ...], Items(1, 26, "GPIOs", _LIST)]
_Select = Annotated[tuple[Gpio, ...], Items(4, 4, "GPIOs", _LIST)]
_Signals = Annotated[tuple[Gpio, ...], Items(1, 8, "GPIOs", _LIST)]


_OWNERS = {"pins": ("direct",), "rows": ("matrix",), "cols": ("matrix",), "active": ("direct",
           "mux"), "select": ("mux",), "signals": ("mux",), "enable": ("mux",)}  # fmt: skip
_REQUIRED = {"direct": ("pins",), "matrix": (), "mux": ("select", "signals")}


def _given(data: Any) -> set[str]:
    """The keys a file's table gives (none for a value built by code)."""
    return set(data) if isinstance(data, dict) else set()


@dataclass(frozen=True, config=TABLE)
class GpioConfig:
    """``[board.gpio]``: how the sensors are wired to the Pi's header, and the scan.

    The scan goes slowly while nothing moves, fast while a change settles: a raw change is
    first seen by an idle scan (at most ``idle_ms`` after it happens); from then on the
    adapter scans every ``fast_ms`` until ``agree`` consecutive scans read the new level.
    """

    topology: Topology = "matrix"
    rows: _Lines = Field(
        default_factory=lambda data: DEFAULT_ROWS if data["topology"] == "matrix" else ()
    )
    """matrix: GPIOs of the rows, each pulled low in turn (open drain), row 0 first."""
    cols: _Lines = Field(
        default_factory=lambda data: DEFAULT_COLS if data["topology"] == "matrix" else ()
    )
    """matrix: GPIOs of the columns, read with pull-ups; channel = row * len(cols) + col."""
    pins: _Pins = ()
    """direct: one GPIO per sensor; channel = index in this list."""
    select: _Select = ()
    """mux: GPIOs of the shared select lines S0, S1, S2, S3 (S0 first)."""
    signals: _Signals = ()
    """mux: one GPIO per CD74HC4067 (its SIG pin); channel = mux * 16 + address."""
    enable: Gpio | None = None
    """mux: optional GPIO on the multiplexers' EN pins (held low while scanning)."""
    active: Literal["low", "high"] = "low"
    """direct and mux: the level of an active sensor (reed to ground, open-drain hall: low)."""
    idle_ms: Annotated[float, Range(1.0, 100.0)] = 8.0
    """Period of the scans while the debounced state and the raw reading agree."""
    fast_ms: Annotated[float, Range(0.2, 20.0)] = 1.0
    """Period of the confirmation scans while any raw bit differs from the debounced state."""
    agree: Annotated[int, Range(2, 16)] = 4
    """Consecutive agreeing scans needed before a channel changes."""
    settle_us: Annotated[float, Range(0.0, 1000.0)] = Field(
        default_factory=lambda data: SETTLE_US[data["topology"]]
    )
    """Busy wait after selecting a matrix row or a mux address, so the lines settle before
    they are read; the topology's default is :data:`SETTLE_US`."""

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> GpioConfig:
        gpio: GpioConfig = handler(data)
        problems, topology, given = Problems(), gpio.topology, _given(data)
        for key in sorted(given & _OWNERS.keys(), key=list(_OWNERS).index):
            if topology not in _OWNERS[key]:
                owners = " or ".join(_OWNERS[key])
                problems.add(key, f"belongs to topology {owners}, but topology is {topology!r}")
        for key in _REQUIRED[topology] if isinstance(data, dict) else ():
            if key not in given:
                problems.add(key, f"is required for topology {topology!r}")
        if gpio.fast_ms > gpio.idle_ms:
            problems.add(
                "fast_ms",
                f"the fast scan period ({gpio.fast_ms:g} ms) must not be longer than idle_ms "
                f"({gpio.idle_ms:g} ms)",
            )
        problems.raise_any()
        for pin, key in gpio.roles():
            # An active-high sensor needs a pull-down, which GPIO 2 and 3 cannot have.
            line = key.split("[")[0].removeprefix("board.gpio.")
            if gpio.active == "high" and pin in FIXED_PULL_UP and line in ("pins", "signals"):
                problems.add(
                    key.removeprefix("board.gpio."),
                    f"GPIO {pin} has a fixed 1.8 kΩ pull-up on the Pi and cannot read "
                    "active-high sensors; use another GPIO",
                )
        problems.raise_any()
        return gpio

    @property
    def worst_latency_ms(self) -> float:
        """Longest time from a settled contact to its debounced frame (scan time aside)."""
        return self.idle_ms + (self.agree - 1) * self.fast_ms

    @property
    def glitch_window_ms(self) -> float:
        """Pulses shorter than this are always rejected."""
        return (self.agree - 1) * self.fast_ms

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
        groups = {"direct": ("pins",), "matrix": ("rows", "cols"), "mux": ("select", "signals")}
        used = [(gpio, f"board.gpio.{name}[{i}]") for name in groups[self.topology]
                for i, gpio in enumerate(getattr(self, name))]  # fmt: skip
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


def _usb_id(value: object) -> tuple[int, int]:
    if isinstance(value, tuple):  # built by code
        return value
    match = re.fullmatch(r"([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})", text(value).strip())
    if match is None:
        fail(f"must be VID:PID in hex, not {value!r}")
    return int(match[1], 16), int(match[2], 16)


def _auto_bool(value: object) -> bool | None:
    if value == "auto" or value is None or isinstance(value, bool):
        return None if value in ("auto", None) else bool(value)
    fail(f"must be 'auto', true or false, not {describe(value)}")


@dataclass(frozen=True, config=TABLE)
class SerialConfig:
    """``[board.serial]``: where the Pico sensor board is, and the link's timings."""

    port: Annotated[str, Text("must be 'auto', a device path or a pyserial URL")] = "auto"
    """``auto`` (find USB id 2E8A:0005), a device path, or a pyserial URL (``loop://``)."""
    baudrate: Annotated[int, Range(300, 4_000_000)] = 115_200
    """Only matters for a USB-serial adapter or a real UART; USB CDC ignores it."""
    usb_id: Annotated[tuple[int, int], PlainValidator(_usb_id)] = (0x2E8A, 0x0005)
    """``usb_id = "2E8A:0005"``: the vendor and product id that ``auto`` looks for."""
    buzzer: Annotated[bool | None, PlainValidator(_auto_bool)] = None
    """``buzzer = "auto"`` (the default: the Pico says so after its HELLO), true or false."""
    silence_s: Annotated[float, Range(0.5, 600)] = 3.0
    """Seconds without a valid line before the link counts as lost (the Pico reports ≤ 1 s)."""
    refresh_s: Annotated[float, Range(0.1, 9.5)] = 2.0
    """The LED frame is sent again this often (the firmware blanks after 10 s without one)."""
    frame_retry_s: Annotated[float, Range(0.01, 60)] = 0.25
    """Seconds to wait for a frame's OK before it is sent again."""
    handshake_s: Annotated[float, Range(0.05, 60)] = 0.5
    """Seconds to wait for HELLO after each HELLO?."""


@dataclass(frozen=True, config=TABLE)
class BoardConfig:
    """``[board]``: which adapter, its wiring, and what each channel and LED means."""

    adapter: Adapter = "sim"
    channels: dict[str, Any] | None = None
    """``[board.channels]`` as written (None: the wiring's numbering); see channel_map."""
    leds: dict[str, Any] | None = None
    """``[board.leds]`` as written (None: the LEDs follow the channels, then the seats)."""
    gpio: GpioConfig = GpioConfig()
    serial: SerialConfig = SerialConfig()

    @model_validator(mode="after")
    def _rules(self) -> BoardConfig:
        try:
            self.channel_map  # noqa: B018 (built once, here, to check the two maps)
        except ChannelMapError as exc:
            fail_at(exc.key, exc.problem)
        return self

    @functools.cached_property
    def channel_map(self) -> ChannelMap:
        """The two maps as one; with neither, the numbering of the wiring (a 6 × 6 diode
        matrix, behind a Pi or a Pico, numbers as :meth:`ChannelMap.matrix`, so one board
        reads the same behind either; other wiring, and the sim, in reading order)."""
        gpio = self.gpio
        six = len(gpio.rows) == len(gpio.cols) == MATRIX_WIDTH
        matrix = self.adapter == "serial" or (
            self.adapter == "gpio" and gpio.topology == "matrix" and six
        )
        default = ChannelMap.matrix() if matrix else ChannelMap.default()
        if self.channels is None and self.leds is None:
            return default
        channels = dict(default.channel_by_name if self.channels is None else self.channels)
        if self.leds is not None:
            return ChannelMap.build(channels, self.leds)
        # No LED map: the LEDs follow the channels in channel order, then the seats.
        valid = [n for n, c in channels.items() if isinstance(c, int) and not isinstance(c, bool)]
        order = sorted(valid, key=lambda n: channels[n]) + list(SEATS)
        return ChannelMap.build(channels, {name: i for i, name in enumerate(order)})


@dataclass(frozen=True, config=TABLE)
class SpiConfig:
    """``[leds] spi``: SPI0 by ``port`` and ``device``, or any three pins."""

    clock: Gpio = 11
    mosi: Gpio = 10
    select: Gpio | None = None
    """The chip select gpiozero drives (the LEDs ignore it); None: SPI0's CE of device."""
    port: Annotated[int, Range(0, 0)] = 0
    device: Annotated[int, Range(0, 1)] = 0
    """SPI0's chip select: CE0 (GPIO 8) or CE1 (GPIO 7)."""
    rate: Annotated[int, Range(10_000, 32_000_000)] = 2_000_000
    """Clock rate in Hz for hardware SPI (bit-banged SPI goes as fast as it can)."""

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> SpiConfig:
        spi: SpiConfig = handler(data)
        problems, given = Problems(), _given(data)
        spi0 = (spi.clock, spi.mosi) == (11, 10)
        if {"port", "device"} & given and {"clock", "mosi", "select"} & given:
            problems.add("", "give either port and device, or the clock/mosi/select pins, not both")
        elif spi0 and spi.select not in (None, 8, 7):
            problems.add("select", f"SPI0 uses CE0 (GPIO 8) or CE1 (GPIO 7), not GPIO {spi.select}")
        elif not spi0 and spi.select is None:
            problems.add(
                "select",
                "is required with pins other than SPI0's (clock 11, mosi 10): name a spare "
                "GPIO for gpiozero's chip select (the LEDs ignore it)",
            )
        elif len({spi.clock, spi.mosi, spi.select}) < 3:
            problems.add("", "clock, mosi and select must be three different GPIOs")
        problems.raise_any()
        return spi

    @property
    def chip_select(self) -> int:
        """The chip select's GPIO: ``select``, else SPI0's CE of ``device``."""
        return (8, 7)[self.device] if self.select is None else self.select

    @property
    def hardware(self) -> bool:
        """True for the SPI0 pins, which the kernel drives (fast, no CPU)."""
        return (self.clock, self.mosi) == (11, 10) and self.chip_select in (8, 7)

    @property
    def spidev(self) -> int:
        """The chip select's number on SPI0 (``/dev/spidev0.<spidev>``): CE0 0, CE1 1."""
        return 1 if self.chip_select == 7 else 0

    def roles(self) -> tuple[tuple[int, str], ...]:
        if self.hardware:
            # The kernel takes all of GPIO 7–11 once SPI0 is on; claim them all so a sensor
            # wired to MISO or the other chip select is reported, not silently dead.
            return tuple((gpio, "leds.spi (SPI0 uses GPIO 7–11)") for gpio in sorted(SPI0_PINS))
        return ((self.clock, "leds.spi.clock"), (self.mosi, "leds.spi.mosi"),
                (self.chip_select, "leds.spi.select"))  # fmt: skip


def _spi_table(value: object) -> object:
    if value is False or value is None:
        return None
    if not isinstance(value, dict | SpiConfig):
        fail("must be a table such as { clock = 11, mosi = 10 }, or false")
    return value


@dataclass(frozen=True, config=TABLE)
class LedConfig:
    """``[leds]``: the LED chain, its global brightness limit, SPI pins and colour order."""

    brightness: Annotated[float, Range(0.0, 1.0)] = 0.25
    """Global limit, 0..1: every colour is scaled by it (power budget, and eyes)."""
    spi: Annotated[SpiConfig | None, BeforeValidator(_spi_table)] = SpiConfig()
    """The SPI pins for the gpio adapter; ``None`` (``spi = false``) when no LEDs are wired."""
    order: Literal["bgr", "brg", "gbr", "grb", "rbg", "rgb"] = "bgr"
    """Colour byte order on the wire: ``bgr`` for APA102 and SK9822; some clones differ."""


@dataclass(frozen=True, config=TABLE)
class BuzzerConfig:
    """``[buzzer]``: a passive piezo on one GPIO of the Pi's header (gpio adapter only)."""

    pin: Annotated[
        Gpio,
        Missing(f"is required: the BCM GPIO the piezo is wired to (e.g. {DEFAULT_BUZZER_PIN})"),
    ]
    """The BCM GPIO the piezo (through its series resistor) is wired to."""

    def roles(self) -> tuple[tuple[int, str], ...]:
        return ((self.pin, "buzzer.pin"),)


def _colour(value: object) -> Colour:
    if isinstance(value, tuple):  # built by code
        return value
    try:
        return parse_hex(text(value))
    except PaletteError as exc:
        fail(str(exc))


@dataclass(frozen=True, config=TABLE)
class SeatConfig:
    """``[seats]``: the colour of each seat, index = colour number."""

    colours: Annotated[
        tuple[Annotated[Colour, PlainValidator(_colour)], ...],
        Items(len(SEATS), len(SEATS), "colours (one per seat)", "a list of four '#rrggbb' colours"),
    ] = tuple(parse_hex(h) for h in DEFAULT_SEAT_COLOURS)  # fmt: skip

    @model_validator(mode="after")
    def _rules(self) -> SeatConfig:
        problems = Problems()
        for i, colour in enumerate(self.colours):
            if colour in self.colours[:i]:
                seat = self.colours.index(colour)
                problems.add(
                    f"colours[{i}]", f"{to_hex(colour)} is already the colour of seat {seat}"
                )
            elif colour == (0, 0, 0):
                problems.add(f"colours[{i}]", "black cannot be shown on an LED")
        problems.raise_any()
        return self

    def hex(self, colour: int) -> str:
        """``#rrggbb`` of colour number ``colour``, for the web page."""
        return to_hex(self.colours[colour])


_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*")


def _host_names(value: object) -> tuple[str, ...]:
    problem = "must be a list of the host names the page is opened at, e.g. ['pyramid.fritz.box']"
    if not isinstance(value, list | tuple):
        fail(problem)
    names = []
    for item in value:
        name = item.strip().lower().rstrip(".") if isinstance(item, str) else ""
        if not _HOST_NAME.fullmatch(name):
            fail(f"{problem}; {item!r} is not a host name")
        names.append(name)
    return tuple(names)


def _port(value: object, info: ValidationInfo) -> int:
    if value == 0 and info.context is None:  # `pyramid run --port 0`: any free port
        return 0
    return Range(1, 65535).whole(value)


@dataclass(frozen=True, config=TABLE)
class WebConfig:
    """``[web]``: where the page listens, and the extra names it answers to."""

    host: Annotated[str, Text("must name an address, e.g. '0.0.0.0' or '127.0.0.1'")] = "0.0.0.0"
    port: Annotated[int, PlainValidator(_port)] = 8080
    names: Annotated[tuple[str, ...], PlainValidator(_host_names)] = ()
    """Host names beyond the built-in ones (this machine's name, ``*.local``,
    ``localhost``, its addresses) that the page answers to, e.g. ``pyramid.fritz.box``;
    any other name in a request's Host is refused (DNS rebinding, ``web_ui.hosts``)."""


def _store_path(value: object) -> Path:
    if isinstance(value, Path):  # built by code
        return value
    path = Path(Text("must name a file, e.g. 'games.sqlite3'").check(value)).expanduser()
    # A relative path lives in the data dir: the config file may sit in read-only /etc.
    return path if path.is_absolute() else default_data_dir() / path


@dataclass(frozen=True, config=TABLE)
class StoreConfig:
    """``[store]``: the SQLite game store (a relative path: in the data directory)."""

    path: Annotated[Path, PlainValidator(_store_path)] = Field(
        default_factory=lambda: default_data_dir() / STORE_FILE
    )


def _broker(value: object) -> str:
    written = text(value).strip()
    try:
        url = urllib.parse.urlsplit(written)
        port = url.port
    except ValueError as exc:
        fail(f"is not an address: {exc}")
    if url.scheme not in ("mqtt", "mqtts") or not url.netloc:
        fail(f"must be mqtt://host:port or mqtts://host:port, not {written!r}")
    if url.username is not None or url.password is not None:
        fail("name the user in username and password, not here")
    if url.path not in ("", "/") or url.query or url.fragment:
        fail(f"must be just the scheme, host and port, not {written!r}")
    if not url.hostname:
        fail(f"names no host: {written!r}")
    if port == 0:
        fail("port 0 is no port")
    host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
    return f"{url.scheme}://{host}:{port or (8883 if url.scheme == 'mqtts' else 1883)}"


def _name(value: object) -> str:
    name = text(value).strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        fail(f"must be 1 to 64 printable characters, not {name!r}")
    return name


def _username(value: object) -> str:
    if not 1 <= len(text(value)) <= 256:
        fail("must be 1 to 256 characters")
    return text(value)


def _ca_file(value: object, info: ValidationInfo) -> Path:
    """Relative: beside the config file, wherever the program is run."""
    path = Path(text(value).strip() if not isinstance(value, Path) else value).expanduser()
    source = (info.context or {}).get("source")
    return source.parent / path if isinstance(source, Path) and not path.is_absolute() else path


@dataclass(frozen=True, config=TABLE)
class RemoteConfig:
    """``[remote]``: the MQTT broker through which this board plays a board in another home
    (both connect outwards to it; see controller/remote)."""

    broker: Annotated[
        str, PlainValidator(_broker), Missing("is required, e.g. 'mqtts://broker.example.net:8883'")
    ]
    """``mqtt://host:port`` or ``mqtts://host:port`` (TLS, checked against ``ca_file`` or
    the system's certificates), as read: the port always given."""
    name: Annotated[str, PlainValidator(_name), Missing("is required, e.g. 'Oma and Opa'")]
    """This board's name, shown on the other board."""
    username: Annotated[str, PlainValidator(_username)] | None = None
    password: str | None = dataclasses.field(default=None, repr=False)
    ca_file: Annotated[Path, BeforeValidator(_ca_file)] | None = None

    @model_validator(mode="after")
    def _rules(self) -> RemoteConfig:
        problems = Problems()
        if self.password is not None and self.username is None:
            problems.add("password", "needs a username (remote.username)")
        if self.ca_file is not None and not self.tls:
            problems.add("ca_file", "is for mqtts:// brokers; this one is mqtt://")
        elif self.ca_file is not None and not self.ca_file.is_file():
            problems.add("ca_file", f"{str(self.ca_file)!r} is not a file")
        problems.raise_any()
        return self

    @property
    def tls(self) -> bool:
        return self.broker.startswith("mqtts:")

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.broker).hostname or ""

    @property
    def port(self) -> int:
        return urllib.parse.urlsplit(self.broker).port or 0


def _source(value: Path | None, info: ValidationInfo) -> Path | None:
    if info.context is not None:  # a key of the file: not one of its sections
        fail(f"unknown key (expected one of: {', '.join(_SECTIONS)})")
    return value


@dataclass(frozen=True, config=TABLE)
class Config:
    """The whole config; ``Config()`` is what no file at all gives (a missing section is
    its defaults; [buzzer], [remote]: none)."""

    board: BoardConfig = BoardConfig()
    leds: LedConfig = LedConfig()
    buzzer: BuzzerConfig | None = None
    """``[buzzer]``: the piezo on the Pi's header, or None (no section: no buzzer)."""
    seats: SeatConfig = SeatConfig()
    web: WebConfig = WebConfig()
    store: StoreConfig = Field(default_factory=StoreConfig)
    remote: RemoteConfig | None = None
    """``[remote]``: the broker for games across two homes, or None (no section)."""
    source: Annotated[Path | None, Key(), PlainValidator(_source)] = None
    """The file this came from, or None for the built-in defaults."""

    @model_validator(mode="wrap")
    @classmethod
    def _rules(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Config:
        config: Config = handler(data)
        problems, adapter = Problems(), config.board.adapter
        if config.buzzer is not None and adapter != "gpio":
            problems.add(
                "buzzer",
                f"drives a piezo from the Pi's own header, which the {adapter!r} adapter does "
                "not use (a Pico's buzzer pin is set in firmware/config.py); remove [buzzer]",
            )
        if adapter == "gpio":
            owner: dict[int, str] = {}
            for pin, key in config.pins():
                if pin in owner:
                    problems.add(key, f"GPIO {pin} is already used by {owner[pin]}")
                owner.setdefault(pin, key)
            gpio, channels = config.board.gpio, config.board.channel_map.channel_by_name
            for name, channel in sorted(channels.items(), key=lambda kv: kv[1]):
                if channel >= gpio.capacity:
                    problems.add(
                        f"board.channels.{name}",
                        f"channel {channel} does not exist: the {gpio.topology} wiring has "
                        f"channels 0–{gpio.capacity - 1}",
                    )
        problems.raise_any()
        return config

    def pins(self) -> list[tuple[int, str]]:
        """``(gpio, dotted key)`` of every GPIO the LEDs, sensors and buzzer use."""
        spi = self.leds.spi
        return [*(spi.roles() if spi else ()), *self.board.gpio.roles(),
                *(self.buzzer.roles() if self.buzzer else ())]  # fmt: skip


_SECTIONS = ("board", "leds", "buzzer", "seats", "web", "store", "remote")


def needs_spi0(config: Config) -> bool:
    """True when the config drives LEDs from the Pi's own SPI0 (so SPI must be enabled).

    >>> needs_spi0(Config(board=BoardConfig("gpio"))), needs_spi0(Config(BoardConfig("serial")))
    (True, False)
    """
    spi = config.leds.spi
    return (config.board.adapter == "gpio" and spi is not None and spi.hardware
            and config.board.channel_map.led_count > 0)  # fmt: skip
