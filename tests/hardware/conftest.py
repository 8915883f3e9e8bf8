"""Fixtures for the hardware tests: a fresh gpiozero MockFactory, always put back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """``Device.pin_factory`` is a new MockFactory for the test, as in gpiozero's own suite.

    Circuits from ``controller.hardware.mock_circuits`` must be built on it before the
    board asks for its pins. The previous factory is restored afterwards.
    """
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved
