from typing import Any

from gpiozero.pins import Factory, Pin

class PiFactory(Factory):
    pins: dict[Any, Any]
    pin_class: type[Any] | None
    def _get_revision(self) -> int: ...

class PiPin(Pin):
    def __init__(self, factory: Any, info: Any) -> None: ...
    _number: int
