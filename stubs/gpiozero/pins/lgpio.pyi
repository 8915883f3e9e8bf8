# gpiozero/pins/lgpio.py of gpiozero 2.0.1 (line numbers are that file's).
from typing import Any

from gpiozero.pins.local import LocalPiFactory, LocalPiPin

lgpio: Any  # :12, a C extension without types
"""The lgpio module the pins talk to (the real one on a Pi, a model in tests)."""

class LGPIOFactory(LocalPiFactory):  # :40
    _handle: int | None  # the gpiochip handle (:70); None once closed (:78)
    def __init__(self, chip: int | None = None) -> None: ...  # :66
    @property
    def chip(self) -> int: ...  # :81

class LGPIOPin(LocalPiPin): ...  # :91
