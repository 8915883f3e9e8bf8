# Minimal typed stubs for the parts of gpiozero 2.0.1 that pyramid-board uses (gpiozero
# ships no type information), written from its source (line numbers in the comments are
# those of the file each stub names); used through mypy's `mypy_path = "stubs"` in
# pyproject.toml. Anything not listed here is not used by us.
from gpiozero.pins import Factory

# devices.py
class Device:  # :223
    pin_factory: Factory | None  # :241, the default factory (class) or the device's own
    @staticmethod
    def ensure_pin_factory() -> None: ...  # :251, sets Device.pin_factory or raises
    def close(self) -> None: ...  # :155
    @property
    def closed(self) -> bool: ...  # :203
    def __enter__(self) -> Device: ...  # :216
    def __exit__(self, *exc: object) -> None: ...  # :219

class GPIODevice(Device):  # :529
    def __init__(
        self, pin: int | str | None = None, *, pin_factory: Factory | None = None
    ) -> None: ...  # :543

# output_devices.py
class OutputDevice(GPIODevice):  # :41
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        active_high: bool = True,
        initial_value: bool | None = False,
        pin_factory: Factory | None = None,
    ) -> None: ...  # :72
    def on(self) -> None: ...  # :92
    def off(self) -> None: ...  # :98

class PWMOutputDevice(OutputDevice):  # :356
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        active_high: bool = True,
        initial_value: float = 0,
        frequency: float = 100,
        pin_factory: Factory | None = None,
    ) -> None: ...  # :386
    value: float  # :426, the duty cycle 0-1
    frequency: float | None  # :465, the pin's; None stops the PWM
