"""The config file's schema: each key of each section declared once, with its range.

:func:`controller.config.config_from_mapping` imports this module only when a file is
read (pydantic costs ``pyramid --help`` about a quarter of a second otherwise;
docs/performance.md), checks the document against :class:`ConfigFile` and builds the
frozen values of :mod:`controller.config` and :mod:`controller.hardware.wiring` from it.
Every mistake is reported at once (:func:`controller.checks.validate`); the rules across
keys (a pin used twice, a key of another topology) once every key has its type.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BeforeValidator, ValidationInfo, model_validator

from controller.checks import (
    Annotated,
    Choice,
    Items,
    Missing,
    Parse,
    Problems,
    Range,
    Schema,
    Text,
    describe,
    fail,
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
    Adapter,
    BoardConfig,
    BuzzerConfig,
    GpioConfig,
    LedConfig,
    ScanTiming,
    SerialConfig,
    SpiConfig,
    Topology,
)
from controller.palette import PaletteError, parse_hex, to_hex


def _gpio(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"must be a BCM GPIO number, not {describe(value)}")
    if not FIRST_GPIO <= value <= LAST_GPIO:
        fail(
            f"GPIO {value} is not on the 40-pin header "
            f"(BCM GPIO {FIRST_GPIO}–{LAST_GPIO} are valid)"
        )
    return value


Gpio = Annotated[int, Parse(_gpio)]
Gpios = tuple[Gpio, ...]
_LIST = "a list of BCM GPIO numbers"
_SCAN, _SERIAL, _SPI, _LEDS = ScanTiming(), SerialConfig(), SpiConfig(), LedConfig()
_OWNERS = {"pins": ("direct",), "rows": ("matrix",), "cols": ("matrix",), "active": ("direct",
           "mux"), "select": ("mux",), "signals": ("mux",), "enable": ("mux",)}  # fmt: skip
_REQUIRED = {"direct": ("pins",), "matrix": (), "mux": ("select", "signals")}


class GpioFile(Schema):
    """``[board.gpio]``: the sensors' wiring on the Pi's header, and the scan's timing."""

    topology: Annotated[Topology, Choice()] = "matrix"
    rows: Annotated[Gpios, Items(1, 16, "GPIOs", _LIST)] = DEFAULT_ROWS
    cols: Annotated[Gpios, Items(1, 16, "GPIOs", _LIST)] = DEFAULT_COLS
    pins: Annotated[Gpios, Items(1, 26, "GPIOs", _LIST)] = ()
    select: Annotated[Gpios, Items(4, 4, "GPIOs", _LIST)] = ()
    signals: Annotated[Gpios, Items(1, 8, "GPIOs", _LIST)] = ()
    enable: Gpio | None = None
    active: Annotated[Literal["low", "high"], Choice()] = "low"
    idle_ms: Annotated[float, Range(1.0, 100.0)] = _SCAN.idle_ms
    fast_ms: Annotated[float, Range(0.2, 20.0)] = _SCAN.fast_ms
    agree: Annotated[int, Range(2, 16)] = _SCAN.agree
    settle_us: Annotated[float, Range(0.0, 1000.0)] | None = None  # None: SETTLE_US

    @model_validator(mode="after")
    def _rules(self) -> GpioFile:
        problems, topology = Problems(), self.topology
        for key in sorted(self.model_fields_set & _OWNERS.keys(), key=list(_OWNERS).index):
            if topology not in _OWNERS[key]:
                owners = " or ".join(_OWNERS[key])
                problems.add(key, f"belongs to topology {owners}, but topology is {topology!r}")
        for key in _REQUIRED[topology]:
            if key not in self.model_fields_set:
                problems.add(key, f"is required for topology {topology!r}")
        if self.fast_ms > self.idle_ms:
            problems.add(
                "fast_ms",
                f"the fast scan period ({self.fast_ms:g} ms) must not be longer than idle_ms "
                f"({self.idle_ms:g} ms)",
            )
        problems.raise_any()
        for gpio, key in self.value().roles():
            # An active-high sensor needs a pull-down, which GPIO 2 and 3 cannot have.
            line = key.split("[")[0].removeprefix("board.gpio.")
            if self.active == "high" and gpio in FIXED_PULL_UP and line in ("pins", "signals"):
                problems.add(
                    key.removeprefix("board.gpio."),
                    f"GPIO {gpio} has a fixed 1.8 kΩ pull-up on the Pi and cannot read "
                    "active-high sensors; use another GPIO",
                )
        problems.raise_any()
        return self

    def value(self) -> GpioConfig:
        scan = ScanTiming(self.idle_ms, self.fast_ms, self.agree, self.settle_us)
        if self.topology == "matrix":
            return GpioConfig("matrix", self.rows, self.cols, scan=scan)
        enable = self.enable if self.topology == "mux" else None
        return GpioConfig(self.topology, (), (), self.pins, self.select, self.signals, enable,
                          self.active, scan)  # fmt: skip


def _usb_id(value: object) -> tuple[int, int]:
    match = re.fullmatch(r"([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})", text(value).strip())
    if match is None:
        fail(f"must be VID:PID in hex, not {value!r}")
    return int(match[1], 16), int(match[2], 16)


def _auto_bool(value: object) -> bool | None:
    if value == "auto" or isinstance(value, bool):
        return None if value == "auto" else bool(value)
    fail(f"must be 'auto', true or false, not {describe(value)}")


class SerialFile(Schema):
    """``[board.serial]``; the timings' defaults are the serial adapter's own."""

    port: Annotated[str, Text("must be 'auto', a device path or a pyserial URL")] = _SERIAL.port
    baudrate: Annotated[int, Range(300, 4_000_000)] = _SERIAL.baudrate
    usb_id: Annotated[tuple[int, int], Parse(_usb_id)] = _SERIAL.usb_id
    buzzer: Annotated[bool | None, Parse(_auto_bool)] = _SERIAL.buzzer
    silence_s: Annotated[float, Range(0.5, 600)] = _SERIAL.silence_s
    refresh_s: Annotated[float, Range(0.1, 9.5)] = _SERIAL.refresh_s
    frame_retry_s: Annotated[float, Range(0.01, 60)] = _SERIAL.frame_retry_s
    handshake_s: Annotated[float, Range(0.05, 60)] = _SERIAL.handshake_s


class BoardFile(Schema):
    """``[board]``: the adapter, its wiring, and the channel and LED maps."""

    adapter: Annotated[Adapter, Choice()] = "sim"
    channels: dict[str, Any] | None = None
    leds: dict[str, Any] | None = None
    gpio: GpioFile = GpioFile()
    serial: SerialFile = SerialFile()

    @model_validator(mode="after")
    def _rules(self) -> BoardFile:
        problems = Problems()
        try:
            self.channel_map()
        except ChannelMapError as exc:
            problems.add(exc.key, exc.problem)
        problems.raise_any()
        return self

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

    def value(self) -> BoardConfig:
        return BoardConfig(self.adapter, self.channel_map(), self.gpio.value(),
                           SerialConfig(**dict(self.serial)))  # fmt: skip


def _spi_table(value: object) -> object:
    if value is False:
        return None
    if not isinstance(value, dict):
        fail("must be a table such as { clock = 11, mosi = 10 }, or false")
    return value


class SpiFile(Schema):
    """``[leds] spi``: SPI0 by ``port`` and ``device``, or any three pins."""

    clock: Gpio = _SPI.clock
    mosi: Gpio = _SPI.mosi
    select: Gpio | None = None
    port: Annotated[int, Range(0, 0)] = 0
    device: Annotated[int, Range(0, 1)] = 0
    rate: Annotated[int, Range(10_000, 32_000_000)] = _SPI.rate_hz

    @model_validator(mode="after")
    def _rules(self) -> SpiFile:
        problems, given = Problems(), self.model_fields_set
        spi0 = (self.clock, self.mosi) == (_SPI.clock, _SPI.mosi)
        if {"port", "device"} & given and {"clock", "mosi", "select"} & given:
            problems.add("", "give either port and device, or the clock/mosi/select pins, not both")
        elif spi0 and self.select not in (None, 8, 7):
            problems.add(
                "select", f"SPI0 uses CE0 (GPIO 8) or CE1 (GPIO 7), not GPIO {self.select}"
            )
        elif not spi0 and self.select is None:
            problems.add(
                "select",
                "is required with pins other than SPI0's (clock 11, mosi 10): name a spare "
                "GPIO for gpiozero's chip select (the LEDs ignore it)",
            )
        elif len({self.clock, self.mosi, self.select}) < 3:
            problems.add("", "clock, mosi and select must be three different GPIOs")
        problems.raise_any()
        return self

    def value(self) -> SpiConfig:
        select = (8, 7)[self.device] if self.select is None else self.select
        return SpiConfig(self.clock, self.mosi, select, self.rate)


_Order = Literal["bgr", "brg", "gbr", "grb", "rbg", "rgb"]


class LedsFile(Schema):
    """``[leds]``: the chain's brightness limit, its SPI pins and colour order."""

    brightness: Annotated[float, Range(0.0, 1.0)] = _LEDS.brightness
    spi: Annotated[SpiFile | None, BeforeValidator(_spi_table)] = SpiFile()
    order: Annotated[_Order, Choice()] = "bgr"

    def value(self) -> LedConfig:
        return LedConfig(self.brightness, self.spi.value() if self.spi else None, self.order)


class BuzzerFile(Schema):
    """``[buzzer]``: a piezo on one GPIO of the Pi's header."""

    pin: Annotated[
        Gpio,
        Missing(f"is required: the BCM GPIO the piezo is wired to (e.g. {DEFAULT_BUZZER_PIN})"),
    ]


def _colour(value: object) -> Colour:
    try:
        return parse_hex(text(value))
    except PaletteError as exc:
        fail(str(exc))


class SeatsFile(Schema):
    """``[seats]``: one ``#rrggbb`` colour per seat."""

    colours: Annotated[
        tuple[Annotated[Colour, Parse(_colour)], ...],
        Items(len(SEATS), len(SEATS), "colours (one per seat)", "a list of four '#rrggbb' colours"),
    ] | None = None  # fmt: skip

    @model_validator(mode="after")
    def _rules(self) -> SeatsFile:
        problems = Problems()
        for i, colour in enumerate(self.colours or ()):
            if colour in (self.colours or ())[:i]:
                seat = (self.colours or ()).index(colour)
                problems.add(
                    f"colours[{i}]", f"{to_hex(colour)} is already the colour of seat {seat}"
                )
            elif colour == (0, 0, 0):
                problems.add(f"colours[{i}]", "black cannot be shown on an LED")
        problems.raise_any()
        return self


_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*")


def _host_names(value: object) -> tuple[str, ...]:
    problem = "must be a list of the host names the page is opened at, e.g. ['pyramid.fritz.box']"
    if not isinstance(value, list):
        fail(problem)
    names = []
    for item in value:
        name = item.strip().lower().rstrip(".") if isinstance(item, str) else ""
        if not _HOST_NAME.fullmatch(name):
            fail(f"{problem}; {item!r} is not a host name")
        names.append(name)
    return tuple(names)


class WebFile(Schema):
    """``[web]``: where the page listens, and the extra names it answers to."""

    host: Annotated[str, Text("must name an address, e.g. '0.0.0.0' or '127.0.0.1'")] = "0.0.0.0"
    port: Annotated[int, Range(1, 65535)] = 8080
    names: Annotated[tuple[str, ...], Parse(_host_names)] = ()


class StoreFile(Schema):
    """``[store]``: the game store's file (relative: in the data directory)."""

    path: Annotated[str, Text("must name a file, e.g. 'games.sqlite3'")] | None = None


class Broker(NamedTuple):
    tls: bool
    host: str
    port: int


def _broker(value: object) -> Broker:
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
    tls = url.scheme == "mqtts"
    return Broker(tls, url.hostname, port or (8883 if tls else 1883))


def _name(value: object) -> str:
    name = text(value).strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        fail(f"must be 1 to 64 printable characters, not {name!r}")
    return name


def _username(value: object) -> str:
    if not 1 <= len(text(value)) <= 256:
        fail("must be 1 to 256 characters")
    return text(value)


class RemoteFile(Schema):
    """``[remote]``: the MQTT broker for games between two homes."""

    broker: Annotated[
        Broker, Parse(_broker), Missing("is required, e.g. 'mqtts://broker.example.net:8883'")
    ]
    name: Annotated[str, Parse(_name), Missing("is required, e.g. 'Oma and Opa'")]
    username: Annotated[str, Parse(_username)] | None = None
    password: Annotated[str, Text(strip=False)] | None = None
    ca_file: Annotated[str, Text()] | None = None

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> RemoteFile:
        problems = Problems()
        if self.password is not None and self.username is None:
            problems.add("password", "needs a username (remote.username)")
        ca_file = self.ca_path(info.context)
        if ca_file is not None and not self.broker.tls:
            problems.add("ca_file", "is for mqtts:// brokers; this one is mqtt://")
        elif ca_file is not None and not ca_file.is_file():
            problems.add("ca_file", f"{str(ca_file)!r} is not a file")
        problems.raise_any()
        return self

    def ca_path(self, source: object) -> Path | None:
        """``ca_file``; relative: beside the config file, wherever the program is run."""
        if self.ca_file is None:
            return None
        path = Path(self.ca_file).expanduser()
        return source.parent / path if isinstance(source, Path) and not path.is_absolute() else path


class ConfigFile(Schema):
    """The whole file; a missing section is its defaults ([buzzer], [remote]: none)."""

    board: BoardFile = BoardFile()
    leds: LedsFile = LedsFile()
    buzzer: BuzzerFile | None = None
    seats: SeatsFile = SeatsFile()
    web: WebFile = WebFile()
    store: StoreFile = StoreFile()
    remote: RemoteFile | None = None

    @model_validator(mode="after")
    def _rules(self) -> ConfigFile:
        problems, adapter = Problems(), self.board.adapter
        if self.buzzer is not None and adapter != "gpio":
            problems.add(
                "buzzer",
                f"drives a piezo from the Pi's own header, which the {adapter!r} adapter does "
                "not use (a Pico's buzzer pin is set in firmware/config.py); remove [buzzer]",
            )
        if adapter == "gpio":
            owner: dict[int, str] = {}
            for pin, key in self.pins():
                if pin in owner:
                    problems.add(key, f"GPIO {pin} is already used by {owner[pin]}")
                owner.setdefault(pin, key)
            gpio, channels = self.board.gpio.value(), self.board.channel_map().channel_by_name
            for name, channel in sorted(channels.items(), key=lambda kv: kv[1]):
                if channel >= gpio.capacity:
                    problems.add(
                        f"board.channels.{name}",
                        f"channel {channel} does not exist: the {gpio.topology} wiring has "
                        f"channels 0–{gpio.capacity - 1}",
                    )
        problems.raise_any()
        return self

    def pins(self) -> list[tuple[int, str]]:
        """``(gpio, dotted key)`` of every GPIO the LEDs, sensors and buzzer use."""
        spi = self.leds.value().spi
        return [*(spi.roles() if spi else ()), *self.board.gpio.value().roles(),
                *(BuzzerConfig(self.buzzer.pin).roles() if self.buzzer else ())]  # fmt: skip

    def hardware(self) -> tuple[BoardConfig, LedConfig, BuzzerConfig | None]:
        buzzer = BuzzerConfig(self.buzzer.pin) if self.buzzer else None
        return self.board.value(), self.leds.value(), buzzer
