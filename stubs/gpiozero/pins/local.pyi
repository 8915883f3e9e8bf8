from typing import Any, ClassVar

from gpiozero.pins.pi import PiFactory, PiPin

class LocalPiFactory(PiFactory):
    pins: ClassVar[dict[Any, Any]]  # type: ignore[misc]
    _reservations: ClassVar[dict[Any, list[Any]]]

class LocalPiPin(PiPin): ...
