"""The one TOML config file: board adapter, wiring, channel and LED maps, seats, web, store.

Its keys are declared once, in :mod:`controller.config_schema`: frozen pydantic
dataclasses that are also the values the program reads. This module says where the file
is and reads it; it imports the schema (and pydantic) only when a config is read or a
value named here is first used, so ``pyramid --help`` loads none of it.

Where it is read from (the first that exists wins; see :func:`find_config`):

1. the ``--config FILE`` option (passed to :func:`load_config` as ``path``);
2. ``$PYRAMID_CONFIG`` (an error if it names a missing file);
3. ``$XDG_CONFIG_HOME/pyramid-board/config.toml`` (``~/.config/pyramid-board/config.toml``);
4. ``/etc/pyramid-board/config.toml``.

No file at all gives the defaults: the ``sim`` board with the default channel map
(:meth:`ChannelMap.default`), so ``make run`` works on any computer.

Every value from the file is checked, and every mistake is reported at once: a
:class:`ConfigError` (:class:`ConfigErrors` for several, one per line) names each
dotted key and its problem, so a maker can find the lines to fix:

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
:func:`~controller.config_schema.default_data_dir`.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from controller.hardware import wiring
from controller.hardware.wiring import ConfigError as ConfigError

if TYPE_CHECKING:
    # Every name of the schema and of the header's facts is offered here too (below).
    from controller.config_schema import *  # noqa: F403
    from controller.config_schema import Config
    from controller.hardware.wiring import *  # noqa: F403

CONFIG_ENV: Final = "PYRAMID_CONFIG"


def __getattr__(name: str) -> Any:
    """The header's facts (:mod:`controller.hardware.wiring`), and the schema's values,
    loaded on first use (pydantic costs ``pyramid --help``)."""
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(wiring if hasattr(wiring, name) else config_schema(), name)


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


def load_config(path: Path | None = None) -> Config:
    """Read and check the config; ``path`` None searches the default places.

    Raises :class:`ConfigError` for a missing or unreadable file, bad TOML, or any value
    that cannot be used.
    """
    if path is None:
        path = find_config()
        if path is None:
            return config_from_mapping({})
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
    # Only now: pydantic and the schema cost `pyramid --help` a quarter of a second.
    from controller.checks import validate
    from controller.config_schema import Config

    config = validate(Config, data, context={"source": source})
    return config if source is None else dataclasses.replace(config, source=source)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m controller.config FILE``: FILE checked as ``pyramid run`` checks it, and
    what deploy/install-pi.sh reads of it: the adapter, whether its LEDs need SPI0 (yes or
    no), the page's host and port; every mistake on standard error, exit status 1."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m controller.config FILE", file=sys.stderr)
        return 2
    try:
        config = load_config(Path(args[0]))
    except ConfigError as exc:
        print(f"{args[0]}: {exc}", file=sys.stderr)
        return 1
    spi0 = "yes" if config_schema().needs_spi0(config) else "no"
    print(config.board.adapter, spi0, config.web.host or "0.0.0.0", config.web.port)
    return 0


def config_schema() -> Any:
    """:mod:`controller.config_schema`, loaded now."""
    return importlib.import_module("controller.config_schema")


if __name__ == "__main__":
    sys.exit(main())
