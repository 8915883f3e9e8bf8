"""gpiozero's pin factory for a test, always put back: the one place tests swap it.

``mock_pins()`` makes ``Device.pin_factory`` a fresh ``MockFactory`` (as gpiozero's own
suite does); circuits from ``rigs.circuits`` are built on it before
a board asks for its pins. The previous factory is restored afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@contextmanager
def mock_pins() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved
