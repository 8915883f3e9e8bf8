# Minimal typed stubs for the parts of gpiozero 2.0.1 that pyramid-board uses (gpiozero
# ships no type information). Written from gpiozero's documentation; used through mypy's
# `mypy_path = "stubs"` in pyproject.toml. Anything not listed here is not used by us.
from typing import Any

from gpiozero.pins import Factory, Pin

class Device:
    pin_factory: Factory | None
    @classmethod
    def ensure_pin_factory(cls) -> Factory: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Device: ...
    def __exit__(self, *exc: object) -> None: ...

class GPIODevice(Device):
    def __init__(
        self, pin: int | str | None = None, *, pin_factory: Factory | None = None
    ) -> None: ...
    @property
    def pin(self) -> Pin: ...

class OutputDevice(GPIODevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        active_high: bool = True,
        initial_value: bool | None = False,
        pin_factory: Factory | None = None,
    ) -> None: ...
    def on(self) -> None: ...
    def off(self) -> None: ...
    value: Any

class PWMOutputDevice(OutputDevice):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        active_high: bool = True,
        initial_value: float = 0,
        frequency: float = 100,
        pin_factory: Factory | None = None,
    ) -> None: ...
    value: float
    frequency: float | None
    @property
    def is_lit(self) -> bool: ...

class TonalBuzzer(Device):
    def __init__(
        self,
        pin: int | str | None = None,
        *,
        initial_value: float | None = None,
        mid_tone: Any = ...,
        octaves: int = 1,
        pin_factory: Factory | None = None,
    ) -> None: ...
    def play(self, tone: Any) -> None: ...
    def stop(self) -> None: ...
