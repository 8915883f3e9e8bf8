"""Fixtures for the hardware tests: a fresh gpiozero MockFactory, or gpiozero's real
LGPIOFactory over the lgpio model; both always put back."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from rigs.lgpio_model import LgpioModel, close_factory, lgpio_factory
from rigs.pins import mock_pins

if TYPE_CHECKING:  # importing it needs lgpio, which is the model only once a rig is made
    from gpiozero.pins.lgpio import LGPIOFactory


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """``Device.pin_factory`` is a new MockFactory for the test (rigs/pins.py)."""
    with mock_pins() as factory:
        yield factory


@dataclass
class LgpioRig:
    """gpiozero's real ``LGPIOFactory`` over the lgpio model (one Pi 4B, SPI0 on or off)."""

    model: LgpioModel
    factory: LGPIOFactory


@pytest.fixture
def lgpio_pi() -> Iterator[LgpioRig]:
    """A Pi with SPI0 enabled (``/dev/spidev0.0`` and ``.1`` open) on the lgpio model."""
    yield from _rig(spi=True)


@pytest.fixture
def lgpio_pi_without_spi() -> Iterator[LgpioRig]:
    """A Pi whose SPI is off (no ``/dev/spidev0.*``): the kernel's SPI cannot be opened."""
    yield from _rig(spi=False)


def _rig(spi: bool) -> Iterator[LgpioRig]:
    saved = sys.modules.get("lgpio")
    model = LgpioModel(spi_devices={"/dev/spidev0.0", "/dev/spidev0.1"} if spi else ())
    factory = lgpio_factory(model)
    # gpiozero's software SPI bus asks Device.pin_factory (not the one it was given) for
    # its lines, and on a Pi that is this factory too.
    saved_factory, Device.pin_factory = Device.pin_factory, factory
    try:
        yield LgpioRig(model, factory)
    finally:
        Device.pin_factory = saved_factory
        close_factory(factory)
        if saved is None:
            sys.modules.pop("lgpio", None)
        else:
            sys.modules["lgpio"] = saved
