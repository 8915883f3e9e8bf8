"""Board adapters, chosen in exactly one place: :func:`build_board`.

Nothing else in the program names an adapter; the Table, ``pyramid run`` and ``pyramid
diag`` all ask for ``build_board(config)`` and get a :class:`~controller.hardware.port.
Board` plus the :class:`~controller.hardware.channels.ChannelMap` that names its channels
and LEDs. This module sits above the adapters and imports them all: gpiozero and pyserial
are the product's dependencies on every machine, and lgpio, the one that is not, is
loaded by gpiozero only when its pin factory is made (a Pi). ``pyramid run`` imports this
module only once it runs (pyramid_board/run.py), so the command line stays light.

>>> from controller.config import Config
>>> board, channel_map = build_board(Config())
>>> board.adapter, board.channels, board.leds
('sim', 33, 37)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gpiozero.pins import Factory

from controller.hardware.channels import BUTTONS, ChannelMap
from controller.hardware.gpio import GpioBoard, GpioUnavailable
from controller.hardware.port import Board
from controller.hardware.serial import SerialBoard
from controller.hardware.sim import SimBoard
from controller.hardware.wiring import ConfigError

if TYPE_CHECKING:
    from controller.config_schema import Config

__all__ = ["build_board"]


def build_board(
    config: Config, *, pin_factory: Factory | None = None, data_dir: Path | None = None
) -> tuple[Board, ChannelMap]:
    """Build the board ``config.board.adapter`` names; it is not started yet.

    ``data_dir`` is where the simulated board keeps its pieces across restarts (as real
    wood keeps its pearls); without it the simulated board starts empty.

    ``pin_factory`` overrides gpiozero's for the gpio adapter (tests pass a
    ``MockFactory`` or an ``LGPIOFactory`` over :mod:`~rigs.lgpio_model`;
    otherwise ``Device.pin_factory``, i.e. lgpio on a Pi). Raises
    :class:`~controller.config.ConfigError` naming the key when the adapter, or what
    the config asks of it (SPI0 for the LEDs, a pin), cannot be had here.
    """
    channel_map = config.board.channel_map
    adapter = config.board.adapter
    board: Board
    if adapter == "sim":
        pieces = {c: n for c, n in channel_map.name_by_channel.items() if n not in BUTTONS}
        keep = data_dir / "virtual-board.json" if data_dir is not None else None
        board = SimBoard(channel_map.channel_count, channel_map.led_count, keep=keep, pieces=pieces)
        return board, channel_map
    if adapter == "gpio":
        try:
            board = GpioBoard(
                config.board.gpio,
                config.leds,
                channel_map.led_count,
                pin_factory=pin_factory,
                buzzer=config.buzzer,
            )
        except GpioUnavailable as exc:
            raise ConfigError(exc.key, str(exc)) from exc
        return board, channel_map
    if adapter == "serial":
        board = SerialBoard.from_config(config.board.serial, channel_map, config.leds.brightness)
        return board, channel_map
    raise ConfigError("board.adapter", f"unknown adapter {adapter!r}")
