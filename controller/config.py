"""The one TOML config file: board adapter, wiring, channel and LED maps, seats, web, store.

Its keys are declared once, in :mod:`controller.config_schema` (pydantic models, read
only when a file is); this module says where the file is, and holds the values the
program reads after the check.

Where it is read from (the first that exists wins; see :func:`find_config`):

1. the ``--config FILE`` option (passed to :func:`load_config` as ``path``);
2. ``$PYRAMID_CONFIG`` (an error if it names a missing file);
3. ``$XDG_CONFIG_HOME/pyramid-board/config.toml`` (``~/.config/pyramid-board/config.toml``);
4. ``/etc/pyramid-board/config.toml``.

No file at all gives the defaults: the ``sim`` board with the default channel map
(:meth:`ChannelMap.default`), so ``make run`` works on any computer.

Every value from the file is checked, and every mistake is reported at once: a
:class:`ConfigError` (:class:`~controller.hardware.wiring.ConfigErrors` for several, one per
line) names each dotted key and its problem, so a maker can find the lines to fix:

>>> try:
...     config_from_toml('[board]\\nadapter = "gpoi"')
... except ConfigError as exc:
...     print(exc)
board.adapter: must be one of 'sim', 'gpio', 'serial', not 'gpoi'
>>> try:
...     config_from_toml('[board]\\npitch = 25\\n[web]\\nport = 0\\n[leds]\\nbrightness = 2')
... except ConfigError as exc:
...     print(exc)
3 mistakes:
  board.pitch: unknown key (expected one of: adapter, channels, leds, gpio, serial)
  leds.brightness: must be from 0 to 1, not 2
  web.port: must be from 1 to 65535, not 0
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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from controller.hardware.port import Colour
from controller.hardware.wiring import (
    ADAPTERS,
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
    ConfigErrors,
    GpioConfig,
    LedConfig,
    ScanTiming,
    SerialConfig,
    SpiConfig,
    Topology,
    needs_spi0,
)
from controller.palette import parse_hex, to_hex

if TYPE_CHECKING:
    from controller.config_schema import RemoteFile

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
    "ConfigErrors",
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
    # Only now: pydantic and the models cost `pyramid --help` a quarter of a second.
    from controller.checks import validate
    from controller.config_schema import ConfigFile

    file = validate(ConfigFile, data, context=source)
    board, leds, buzzer = file.hardware()
    store = StoreConfig()
    if file.store.path is not None:
        path = Path(file.store.path).expanduser()
        # A relative path lives in the data dir: the config file may sit in read-only /etc.
        store = StoreConfig(path if path.is_absolute() else default_data_dir() / path)
    return Config(
        board=board,
        leds=leds,
        buzzer=buzzer,
        seats=SeatConfig(file.seats.colours) if file.seats.colours else SeatConfig(),
        web=WebConfig(file.web.host, file.web.port, file.web.names),
        store=store,
        remote=_remote(file.remote, source) if file.remote else None,
        source=source,
    )


def _remote(file: RemoteFile, source: Path | None) -> RemoteConfig:
    host, port, tls = file.broker.host, file.broker.port, file.broker.tls
    return RemoteConfig(host, port, tls, file.name, file.username, file.password,
                        file.ca_path(source))  # fmt: skip
