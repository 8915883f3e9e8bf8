from typing import Any

from gpiozero.pins.local import LocalPiFactory, LocalPiPin

lgpio: Any
"""The lgpio module the pins talk to (the real one on a Pi, a model in tests)."""

class LGPIOFactory(LocalPiFactory):
    _handle: int
    def __init__(self, chip: int | None = None) -> None: ...
    @property
    def chip(self) -> int: ...

class LGPIOPin(LocalPiPin): ...
