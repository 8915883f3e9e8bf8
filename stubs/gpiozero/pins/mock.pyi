from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple

from gpiozero.pins.pi import PiFactory, PiPin

class PinState(NamedTuple):
    timestamp: float
    state: Any

class MockPin(PiPin):
    _function: str
    _state: Any
    _pull: str
    _edges: str
    _when_changed: Callable[..., None] | None
    states: list[PinState] | deque[PinState]
    def __init__(self, factory: Any, info: Any) -> None: ...
    def clear_states(self) -> None: ...
    def drive_high(self) -> None: ...
    def drive_low(self) -> None: ...
    def _change_state(self, value: bool) -> bool: ...
    def _call_when_changed(self, ticks: float | None = None, state: Any = None) -> None: ...
    def _get_state(self) -> Any: ...

class MockPWMPin(MockPin): ...
class MockSPIClockPin(MockPin): ...
class MockSPISelectPin(MockPin): ...

class MockSPIDevice:
    rx_buf: list[int]
    tx_buf: list[int]
    def __init__(
        self,
        clock_pin: Any,
        mosi_pin: Any = None,
        miso_pin: Any = None,
        select_pin: Any = None,
        *,
        clock_polarity: bool = False,
        clock_phase: bool = False,
        lsb_first: bool = False,
        bits_per_word: int = 8,
        select_high: bool = False,
        pin_factory: Any = None,
    ) -> None: ...
    def on_bit(self) -> None: ...
    def close(self) -> None: ...

class MockFactory(PiFactory):
    def __init__(
        self,
        revision: str | None = None,
        pin_class: type[Any] | str | None = None,
    ) -> None: ...
    def reset(self) -> None: ...
    def pin(self, name: int | str, pin_class: type[Any] | None = None, **kwargs: Any) -> Any: ...
