"""The one TOML config file: board adapter, wiring, channel and LED maps, seats, web, store.

(Longer than most modules: every key of the file is checked here, one function per
section, so that each error can name its dotted key.)

Where it is read from (the first that exists wins; see :func:`find_config`):

1. the ``--config FILE`` option (passed to :func:`load_config` as ``path``);
2. ``$PYRAMID_CONFIG`` (an error if it names a missing file);
3. ``$XDG_CONFIG_HOME/pyramid-board/config.toml`` (``~/.config/pyramid-board/config.toml``);
4. ``/etc/pyramid-board/config.toml``.

No file at all gives the defaults: the ``sim`` board with the default channel map
(:meth:`ChannelMap.default`), so ``make run`` works on any computer.

Every value from the file is checked; a :class:`ConfigError` names the dotted key and the
problem, so a maker can find the line to fix:

>>> try:
...     config_from_toml('[board]\\nadapter = "gpoi"')
... except ConfigError as exc:
...     print(exc)
board.adapter: must be one of 'sim', 'gpio', 'serial', not 'gpoi'
>>> cfg = config_from_toml('[board]\\nadapter = "gpio"\\n[board.gpio]\\ntopology = "direct"\\n'
...                        'pins = [5, 6, 13, 19, 26]\\n[board.channels]\\n'
...                        't1 = 0\\nt2 = 1\\nt3 = 2\\nt4 = 3\\ntop = 4')
>>> cfg.board.gpio.capacity, sorted(cfg.board.channel_map.channel_by_name)
(5, ['t1', 't2', 't3', 't4', 'top'])

The data directory (where the game store lives unless ``[store] path`` says otherwise) is
``$PYRAMID_DATA_DIR``, else systemd's ``$STATE_DIRECTORY``, else
``$XDG_DATA_HOME/pyramid-board`` (``~/.local/share/pyramid-board``); see
:func:`default_data_dir`.
"""

from __future__ import annotations

import os
import re
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, cast

from controller.checks import choice as _choice
from controller.checks import describe as _describe
from controller.checks import integer as _integer
from controller.checks import known as _known
from controller.checks import number as _number
from controller.checks import string as _string
from controller.checks import table as _table
from controller.hardware.channels import MATRIX_WIDTH, SEATS, ChannelMap, ChannelMapError
from controller.hardware.port import Colour
from controller.hardware.wiring import (
    ADAPTERS,
    DEFAULT_BUZZER_PIN,
    DEFAULT_COLS,
    DEFAULT_ROWS,
    FIRST_GPIO,
    FIXED_PULL_UP,
    HEADER_PIN,
    LAST_GPIO,
    MUX_CHANNELS,
    SETTLE_US,
    SPI0_PINS,
    TOPOLOGIES,
    Adapter,
    BoardConfig,
    BuzzerConfig,
    ConfigError,
    GpioConfig,
    LedConfig,
    ScanTiming,
    SerialConfig,
    SpiConfig,
    Topology,
    needs_spi0,
)
from controller.palette import PaletteError, parse_hex, to_hex

__all__ = [
    "ADAPTERS",
    "CONFIG_ENV",
    "DATA_ENV",
    "DEFAULT_COLS",
    "DEFAULT_ROWS",
    "DEFAULT_SEAT_COLOURS",
    "FIRST_GPIO",
    "FIXED_PULL_UP",
    "HEADER_PIN",
    "LAST_GPIO",
    "MUX_CHANNELS",
    "SETTLE_US",
    "SPI0_PINS",
    "STORE_FILE",
    "TOPOLOGIES",
    "Adapter",
    "BoardConfig",
    "BuzzerConfig",
    "Config",
    "ConfigError",
    "GpioConfig",
    "LedConfig",
    "RemoteConfig",
    "ScanTiming",
    "SeatConfig",
    "SerialConfig",
    "SpiConfig",
    "StoreConfig",
    "Topology",
    "WebConfig",
    "config_from_mapping",
    "config_from_toml",
    "default_config_paths",
    "default_data_dir",
    "find_config",
    "load_config",
    "needs_spi0",
]

DEFAULT_SEAT_COLOURS: Final[tuple[str, ...]] = ("#d62728", "#1f77b4", "#f2c500", "#2ca02c")

CONFIG_ENV: Final = "PYRAMID_CONFIG"
DATA_ENV: Final = "PYRAMID_DATA_DIR"
STORE_FILE: Final = "pyramid.sqlite3"


# -- values --------------------------------------------------------------------------------
# The [board], [leds] and [buzzer] values live in controller/hardware/wiring.py, beside the
# adapters that use them; the rest of the file's sections are here.


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """``[seats]``: the colour of each seat, index = colour number."""

    colours: tuple[Colour, ...] = tuple(parse_hex(h) for h in DEFAULT_SEAT_COLOURS)

    def hex(self, colour: int) -> str:
        """``#rrggbb`` of colour number ``colour``, for the web page."""
        return to_hex(self.colours[colour])


@dataclass(frozen=True, slots=True)
class WebConfig:
    """``[web]``: where the web page listens."""

    host: str = "0.0.0.0"
    port: int = 8080
    names: tuple[str, ...] = ()
    """Host names beyond the built-in ones (this machine's name, ``*.local``,
    ``localhost``, its addresses) that the page answers to, e.g. ``pyramid.fritz.box``;
    any other name in a request's Host is refused (DNS rebinding, ``web_ui.hosts``)."""


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """``[store]``: the SQLite game store."""

    path: Path = field(default_factory=lambda: default_data_dir() / STORE_FILE)


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """``[remote]``: the MQTT broker through which this board plays a board in another home
    (both connect outwards to it; see controller/remote)."""

    host: str
    port: int
    tls: bool
    """``mqtts://``: TLS, checked against ``ca_file`` or the system's certificates."""
    name: str
    """This board's name, shown on the other board."""
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None

    @property
    def broker(self) -> str:
        """The broker's address as the config file spells it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Config:
    """The whole config; ``Config()`` is what no file at all gives."""

    board: BoardConfig = field(default_factory=BoardConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    seats: SeatConfig = field(default_factory=SeatConfig)
    web: WebConfig = field(default_factory=WebConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    buzzer: BuzzerConfig | None = None
    """``[buzzer]``: the piezo on the Pi's header, or None (no section: no buzzer)."""
    remote: RemoteConfig | None = None
    """``[remote]``: the broker for games across two homes, or None (no section)."""
    source: Path | None = None
    """The file this came from, or None for the built-in defaults."""


# -- where the file is -----------------------------------------------------------------------


def default_config_paths() -> tuple[Path, ...]:
    """The places searched when neither ``--config`` nor ``$PYRAMID_CONFIG`` is given."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return (
        Path(xdg) / "pyramid-board" / "config.toml",
        Path("/etc/pyramid-board/config.toml"),
    )


def find_config() -> Path | None:
    """The config file to use when none is given on the command line, or None."""
    named = os.environ.get(CONFIG_ENV)
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise ConfigError(CONFIG_ENV, f"names {str(path)!r}, which is not a file")
        return path
    for path in default_config_paths():
        if path.is_file():
            return path
    return None


def default_data_dir() -> Path:
    """Where the game store lives by default (see the module docstring for the order)."""
    named = os.environ.get(DATA_ENV)
    if named:
        return Path(named).expanduser()
    state = os.environ.get("STATE_DIRECTORY")  # set by systemd's StateDirectory=
    if state:
        return Path(state.split(":")[0])
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "pyramid-board"


def load_config(path: Path | None = None) -> Config:
    """Read and check the config; ``path`` None searches the default places.

    Raises :class:`ConfigError` for a missing or unreadable file, bad TOML, or any value
    that cannot be used.
    """
    if path is None:
        path = find_config()
        if path is None:
            return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), "no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), f"cannot read it: {exc}") from None
    return config_from_toml(text, source=path)


def config_from_toml(text: str, source: Path | None = None) -> Config:
    """Parse and check config text (``source`` only names the file in messages)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(source) if source else "config", f"not valid TOML: {exc}") from None
    return config_from_mapping(data, source=source)


def config_from_mapping(data: Mapping[str, Any], source: Path | None = None) -> Config:
    """Check an already parsed TOML document and build the :class:`Config`."""
    _known(data, "", ("board", "leds", "buzzer", "seats", "web", "store", "remote"))
    board_data = _table(data.get("board", {}), "board")
    leds = _leds(_table(data.get("leds", {}), "leds"))
    adapter = _choice(board_data.get("adapter", "sim"), "board.adapter", ADAPTERS)
    buzzer = _buzzer(_table(data["buzzer"], "buzzer"), adapter) if "buzzer" in data else None
    board = _board(board_data, leds, buzzer)
    return Config(
        board=board,
        leds=leds,
        buzzer=buzzer,
        seats=_seats(_table(data.get("seats", {}), "seats")),
        web=_web(_table(data.get("web", {}), "web")),
        store=_store(_table(data.get("store", {}), "store")),
        remote=_remote(_table(data["remote"], "remote"), source) if "remote" in data else None,
        source=source,
    )


# -- checking ------------------------------------------------------------------------------


def _gpio(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"must be a BCM GPIO number, not {_describe(value)}")
    if not FIRST_GPIO <= value <= LAST_GPIO:
        raise ConfigError(
            key,
            f"GPIO {value} is not on the 40-pin header "
            f"(BCM GPIO {FIRST_GPIO}–{LAST_GPIO} are valid)",
        )
    return value


def _gpio_list(value: object, key: str, *, low: int, high: int) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ConfigError(key, f"must be a list of BCM GPIO numbers, not {_describe(value)}")
    if not low <= len(value) <= high:
        count = f"{low}" if low == high else f"{low} to {high}"
        raise ConfigError(key, f"must list {count} GPIOs, not {len(value)}")
    return tuple(_gpio(item, f"{key}[{i}]") for i, item in enumerate(value))


_SCAN_KEYS = ("idle_ms", "fast_ms", "agree", "settle_us")
_TOPOLOGY_KEYS: dict[str, tuple[str, ...]] = {
    "direct": ("pins", "active"),
    "matrix": ("rows", "cols"),
    "mux": ("select", "signals", "enable", "active"),
}
_GPIO_KEYS = ("topology", "rows", "cols", "pins", "select", "signals", "enable", "active",
              *_SCAN_KEYS)  # fmt: skip


def _gpio_config(table: dict[str, Any]) -> GpioConfig:
    prefix = "board.gpio"
    _known(table, prefix, _GPIO_KEYS)
    topology = cast(
        Topology, _choice(table.get("topology", "matrix"), f"{prefix}.topology", TOPOLOGIES)
    )
    for key in table:
        owners = [t for t, keys in _TOPOLOGY_KEYS.items() if key in keys]
        if owners and topology not in owners:
            raise ConfigError(
                f"{prefix}.{key}",
                f"belongs to topology {' or '.join(owners)}, but topology is {topology!r}",
            )

    def required(name: str) -> object:
        if name not in table:
            raise ConfigError(f"{prefix}.{name}", f"is required for topology {topology!r}")
        return table[name]

    scan = _scan_timing(table, prefix)
    active = cast(
        Literal["low", "high"],
        _choice(table.get("active", "low"), f"{prefix}.active", ("low", "high")),
    )
    if topology == "direct":
        pins = _gpio_list(required("pins"), f"{prefix}.pins", low=1, high=26)
        config = GpioConfig(topology, rows=(), cols=(), pins=pins, active=active, scan=scan)
    elif topology == "matrix":
        rows = _gpio_list(table.get("rows", list(DEFAULT_ROWS)), f"{prefix}.rows", low=1, high=16)
        cols = _gpio_list(table.get("cols", list(DEFAULT_COLS)), f"{prefix}.cols", low=1, high=16)
        config = GpioConfig(topology, rows=rows, cols=cols, scan=scan)
    else:
        select = _gpio_list(required("select"), f"{prefix}.select", low=4, high=4)
        signals = _gpio_list(required("signals"), f"{prefix}.signals", low=1, high=8)
        enable = _gpio(table["enable"], f"{prefix}.enable") if "enable" in table else None
        config = GpioConfig(
            topology,
            rows=(),
            cols=(),
            select=select,
            signals=signals,
            enable=enable,
            active=active,
            scan=scan,
        )
    if active == "high":
        # An active-high sensor needs a pull-down, which GPIO 2 and 3 cannot have.
        for gpio, key in config.roles():
            if gpio in FIXED_PULL_UP and key.split("[")[0] in (
                f"{prefix}.pins",
                f"{prefix}.signals",
            ):
                raise ConfigError(
                    key,
                    f"GPIO {gpio} has a fixed 1.8 kΩ pull-up on the Pi and cannot read "
                    "active-high sensors; use another GPIO",
                )
    return config


def _scan_timing(table: dict[str, Any], prefix: str) -> ScanTiming:
    default = ScanTiming()
    idle = _number(table.get("idle_ms", default.idle_ms), f"{prefix}.idle_ms", 1.0, 100.0)
    fast = _number(table.get("fast_ms", default.fast_ms), f"{prefix}.fast_ms", 0.2, 20.0)
    agree = _integer(table.get("agree", default.agree), f"{prefix}.agree", 2, 16)
    settle = (
        _number(table["settle_us"], f"{prefix}.settle_us", 0.0, 1000.0)
        if "settle_us" in table
        else None  # the topology's default (SETTLE_US)
    )
    if fast > idle:
        raise ConfigError(
            f"{prefix}.fast_ms",
            f"the fast scan period ({fast:g} ms) must not be longer than idle_ms ({idle:g} ms)",
        )
    return ScanTiming(idle_ms=idle, fast_ms=fast, agree=agree, settle_us=settle)


def _board(table: dict[str, Any], leds: LedConfig, buzzer: BuzzerConfig | None) -> BoardConfig:
    _known(table, "board", ("adapter", "channels", "leds", "gpio", "serial"))
    adapter = cast(Adapter, _choice(table.get("adapter", "sim"), "board.adapter", ADAPTERS))
    gpio = _gpio_config(_table(table["gpio"], "board.gpio")) if "gpio" in table else GpioConfig()
    serial = _serial_config(_table(table.get("serial", {}), "board.serial"))
    channel_map = _channel_map(table, _default_map(adapter, gpio))
    if adapter == "gpio":
        _check_pins_once(gpio, leds, buzzer)
        for name, channel in sorted(channel_map.channel_by_name.items(), key=lambda kv: kv[1]):
            if channel >= gpio.capacity:
                raise ConfigError(
                    f"board.channels.{name}",
                    f"channel {channel} does not exist: the {gpio.topology} wiring has "
                    f"channels 0–{gpio.capacity - 1}",
                )
    return BoardConfig(adapter, channel_map, gpio, serial)


def _serial_config(table: dict[str, Any]) -> SerialConfig:
    """``[board.serial]``; the timings' defaults are the serial adapter's own."""
    default = SerialConfig()
    _known(
        table,
        "board.serial",
        (
            "port",
            "baudrate",
            "usb_id",
            "buzzer",
            "silence_s",
            "refresh_s",
            "frame_retry_s",
            "handshake_s",
        ),
    )
    port = _string(table.get("port", "auto"), "board.serial.port").strip()
    if not port:
        raise ConfigError("board.serial.port", "must be 'auto', a device path or a pyserial URL")
    baudrate = _integer(
        table.get("baudrate", default.baudrate), "board.serial.baudrate", 300, 4_000_000
    )
    usb_id = default.usb_id
    if "usb_id" in table:
        text = _string(table["usb_id"], "board.serial.usb_id")
        match = re.fullmatch(r"([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})", text.strip())
        if match is None:
            raise ConfigError("board.serial.usb_id", f"must be VID:PID in hex, not {text!r}")
        usb_id = (int(match[1], 16), int(match[2], 16))
    buzzer_value = table.get("buzzer", "auto")
    if buzzer_value == "auto":
        buzzer: bool | None = None
    elif isinstance(buzzer_value, bool):
        buzzer = buzzer_value
    else:
        raise ConfigError(
            "board.serial.buzzer", f"must be 'auto', true or false, not {_describe(buzzer_value)}"
        )
    silence = _number(table.get("silence_s", default.silence_s), "board.serial.silence_s", 0.5, 600)
    refresh = _number(table.get("refresh_s", default.refresh_s), "board.serial.refresh_s", 0.1, 9.5)
    retry = _number(
        table.get("frame_retry_s", default.frame_retry_s), "board.serial.frame_retry_s", 0.01, 60
    )
    handshake = _number(
        table.get("handshake_s", default.handshake_s), "board.serial.handshake_s", 0.05, 60
    )
    return SerialConfig(port, baudrate, usb_id, buzzer, silence, refresh, retry, handshake)


def _default_map(adapter: Adapter, gpio: GpioConfig) -> ChannelMap:
    """The numbering of a board whose config names no channels: a 6 × 6 diode matrix,
    behind a Pi or a Pico, numbers as :meth:`ChannelMap.matrix` (one board reads the same
    behind either); other wiring, and the sim, in reading order (:meth:`ChannelMap.default`).
    """
    six = len(gpio.rows) == len(gpio.cols) == MATRIX_WIDTH
    if adapter == "serial" or (adapter == "gpio" and gpio.topology == "matrix" and six):
        return ChannelMap.matrix()
    return ChannelMap.default()


def _channel_map(table: dict[str, Any], default: ChannelMap) -> ChannelMap:
    if "channels" not in table and "leds" not in table:
        return default
    channels = dict(
        _table(table["channels"], "board.channels")
        if "channels" in table
        else default.channel_by_name
    )
    if "leds" in table:
        leds = dict(_table(table["leds"], "board.leds"))
    else:
        # No LED map: the LEDs follow the channels in channel order, then the seats.
        valid = [n for n, c in channels.items() if isinstance(c, int) and not isinstance(c, bool)]
        order = sorted(valid, key=lambda n: channels[n]) + list(SEATS)
        leds = {name: i for i, name in enumerate(order)}
    try:
        return ChannelMap.build(channels, leds)
    except ChannelMapError as exc:
        raise ConfigError(f"board.{exc.key}", exc.problem) from None


def _check_pins_once(gpio: GpioConfig, leds: LedConfig, buzzer: BuzzerConfig | None) -> None:
    owner: dict[int, str] = {}
    roles = list(leds.spi.roles()) if leds.spi is not None else []
    roles += gpio.roles()
    roles += buzzer.roles() if buzzer is not None else ()
    for pin, key in roles:
        if pin in owner:
            raise ConfigError(key, f"GPIO {pin} is already used by {owner[pin]}")
        owner[pin] = key


def _spi(value: object) -> SpiConfig | None:
    key = "leds.spi"
    if value is False:
        return None
    table = _table(value, key) if not isinstance(value, bool) else None
    if table is None:
        raise ConfigError(key, "must be a table such as { clock = 11, mosi = 10 }, or false")
    _known(table, key, ("clock", "mosi", "select", "port", "device", "rate"))
    default = SpiConfig()
    rate = _integer(table.get("rate", default.rate_hz), f"{key}.rate", 10_000, 32_000_000)
    by_port = {"port", "device"} & table.keys()
    by_pins = {"clock", "mosi", "select"} & table.keys()
    if by_port and by_pins:
        raise ConfigError(
            key, "give either port and device, or the clock/mosi/select pins, not both"
        )
    if by_port:
        _integer(table.get("port", 0), f"{key}.port", 0, 0)
        device = _integer(table.get("device", 0), f"{key}.device", 0, 1)
        return SpiConfig(select=(8, 7)[device], rate_hz=rate)
    clock = _gpio(table.get("clock", default.clock), f"{key}.clock")
    mosi = _gpio(table.get("mosi", default.mosi), f"{key}.mosi")
    if (clock, mosi) == (default.clock, default.mosi):
        select = _gpio(table.get("select", default.select), f"{key}.select")
        if select not in (8, 7):
            raise ConfigError(
                f"{key}.select", f"SPI0 uses CE0 (GPIO 8) or CE1 (GPIO 7), not GPIO {select}"
            )
    elif "select" in table:
        select = _gpio(table["select"], f"{key}.select")
    else:
        raise ConfigError(
            f"{key}.select",
            "is required with pins other than SPI0's (clock 11, mosi 10): name a spare GPIO "
            "for gpiozero's chip select (the LEDs ignore it)",
        )
    spi = SpiConfig(clock=clock, mosi=mosi, select=select, rate_hz=rate)
    if len({spi.clock, spi.mosi, spi.select}) < 3:
        raise ConfigError(key, "clock, mosi and select must be three different GPIOs")
    return spi


_ORDERS = ("bgr", "brg", "gbr", "grb", "rbg", "rgb")


def _leds(table: dict[str, Any]) -> LedConfig:
    _known(table, "leds", ("brightness", "spi", "order"))
    default = LedConfig()
    brightness = _number(table.get("brightness", default.brightness), "leds.brightness", 0.0, 1.0)
    spi = _spi(table["spi"]) if "spi" in table else default.spi
    order = _choice(table.get("order", default.order), "leds.order", _ORDERS)
    return LedConfig(brightness=brightness, spi=spi, order=order)


def _seats(table: dict[str, Any]) -> SeatConfig:
    _known(table, "seats", ("colours",))
    if "colours" not in table:
        return SeatConfig()
    value = table["colours"]
    key = "seats.colours"
    if not isinstance(value, list):
        raise ConfigError(key, f"must be a list of four '#rrggbb' colours, not {_describe(value)}")
    if len(value) != len(SEATS):
        raise ConfigError(key, f"must list {len(SEATS)} colours (one per seat), not {len(value)}")
    colours: list[Colour] = []
    for i, item in enumerate(value):
        text = _string(item, f"{key}[{i}]")
        try:
            colour = parse_hex(text)
        except PaletteError as exc:
            raise ConfigError(f"{key}[{i}]", str(exc)) from None
        if colour in colours:
            raise ConfigError(
                f"{key}[{i}]", f"{text} is already the colour of seat {colours.index(colour)}"
            )
        if colour == (0, 0, 0):
            raise ConfigError(f"{key}[{i}]", "black cannot be shown on an LED")
        colours.append(colour)
    return SeatConfig(tuple(colours))


def _buzzer(table: dict[str, Any], adapter: str) -> BuzzerConfig:
    _known(table, "buzzer", ("pin",))
    if adapter != "gpio":
        raise ConfigError(
            "buzzer",
            f"drives a piezo from the Pi's own header, which the {adapter!r} adapter does "
            "not use (a Pico's buzzer pin is set in firmware/config.py); remove [buzzer]",
        )
    if "pin" not in table:
        raise ConfigError(
            "buzzer.pin",
            f"is required: the BCM GPIO the piezo is wired to (e.g. {DEFAULT_BUZZER_PIN})",
        )
    return BuzzerConfig(pin=_gpio(table["pin"], "buzzer.pin"))


def _web(table: dict[str, Any]) -> WebConfig:
    _known(table, "web", ("host", "port", "names"))
    default = WebConfig()
    host = _string(table.get("host", default.host), "web.host").strip()
    if not host:
        raise ConfigError("web.host", "must name an address, e.g. '0.0.0.0' or '127.0.0.1'")
    port = _integer(table.get("port", default.port), "web.port", 1, 65535)
    return WebConfig(host, port, _host_names(table.get("names", [])))


_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*")


def _host_names(value: object) -> tuple[str, ...]:
    problem = "must be a list of the host names the page is opened at, e.g. ['pyramid.fritz.box']"
    if not isinstance(value, list):
        raise ConfigError("web.names", problem)
    names = []
    for item in value:
        name = item.strip().lower().rstrip(".") if isinstance(item, str) else ""
        if not _HOST_NAME.fullmatch(name):
            raise ConfigError("web.names", f"{problem}; {item!r} is not a host name")
        names.append(name)
    return tuple(names)


def _store(table: dict[str, Any]) -> StoreConfig:
    _known(table, "store", ("path",))
    if "path" not in table:
        return StoreConfig()
    text = _string(table["path"], "store.path").strip()
    if not text:
        raise ConfigError("store.path", "must name a file, e.g. 'games.sqlite3'")
    path = Path(text).expanduser()
    # A relative path lives in the data dir: the config file may sit in read-only /etc.
    return StoreConfig(path if path.is_absolute() else default_data_dir() / path)


_SCHEMES: Final = {"mqtt": (False, 1883), "mqtts": (True, 8883)}


def _remote(table: dict[str, Any], source: Path | None) -> RemoteConfig:
    _known(table, "remote", ("broker", "username", "password", "ca_file", "name"))
    for key in ("broker", "name"):
        if key not in table:
            example = "'mqtts://broker.example.net:8883'" if key == "broker" else "'Oma and Opa'"
            raise ConfigError(f"remote.{key}", f"is required, e.g. {example}")
    text = _string(table["broker"], "remote.broker").strip()
    try:
        url = urllib.parse.urlsplit(text)
        port = url.port
    except ValueError as exc:
        raise ConfigError("remote.broker", f"is not an address: {exc}") from None
    if url.scheme not in _SCHEMES or not url.netloc:
        raise ConfigError(
            "remote.broker", f"must be mqtt://host:port or mqtts://host:port, not {text!r}"
        )
    if url.username is not None or url.password is not None:
        raise ConfigError("remote.broker", "name the user in username and password, not here")
    if url.path not in ("", "/") or url.query or url.fragment:
        raise ConfigError("remote.broker", f"must be just the scheme, host and port, not {text!r}")
    if not url.hostname:
        raise ConfigError("remote.broker", f"names no host: {text!r}")
    tls, default_port = _SCHEMES[url.scheme]
    if port == 0:
        raise ConfigError("remote.broker", "port 0 is no port")
    name = _string(table["name"], "remote.name").strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        raise ConfigError("remote.name", f"must be 1 to 64 printable characters, not {name!r}")
    username = password = None
    if "username" in table:
        username = _string(table["username"], "remote.username")
        if not username or len(username) > 256:
            raise ConfigError("remote.username", "must be 1 to 256 characters")
    if "password" in table:
        password = _string(table["password"], "remote.password")
        if username is None:
            raise ConfigError("remote.password", "needs a username (remote.username)")
    ca_file = None
    if "ca_file" in table:
        if not tls:
            raise ConfigError("remote.ca_file", "is for mqtts:// brokers; this one is mqtt://")
        ca_file = Path(_string(table["ca_file"], "remote.ca_file").strip()).expanduser()
        if not ca_file.is_absolute() and source is not None:
            ca_file = source.parent / ca_file  # beside the config file, wherever it is run
        if not ca_file.is_file():
            raise ConfigError("remote.ca_file", f"{str(ca_file)!r} is not a file")
    return RemoteConfig(
        host=url.hostname,
        port=port or default_port,
        tls=tls,
        name=name,
        username=username,
        password=password,
        ca_file=ca_file,
    )
