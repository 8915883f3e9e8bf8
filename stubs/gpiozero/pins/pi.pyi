# gpiozero/pins/pi.py of gpiozero 2.0.1 (line numbers are that file's).
from collections.abc import Callable
from weakref import ReferenceType

from gpiozero.pins import Factory, Pin, PinInfo

class PiFactory(Factory):  # :424
    pins: dict[PinInfo, PiPin]  # :433, filled by pin() (:447)
    pin_class: type[PiPin] | None  # :434
    def _get_revision(self) -> int: ...  # :451

class PiPin(Pin):  # :584
    _number: int  # :619
    # :621, :668-670: a weak reference to the when_changed callback, or None
    _when_changed: ReferenceType[Callable[[float, int], None]] | None
    def __init__(self, factory: PiFactory, info: PinInfo) -> None: ...  # :613
