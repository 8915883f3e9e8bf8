# gpiozero/pins/mock.py of gpiozero 2.0.1 (line numbers are that file's).
from typing import NamedTuple

from gpiozero.pins.pi import PiFactory, PiPin

class PinState(NamedTuple):  # :40
    timestamp: float
    state: float  # the pin's _state

class MockPin(PiPin):  # :43
    _function: str  # :49
    # :51, :80: a bool; MockPWMPin keeps the duty cycle there (:278)
    _state: float
    _pull: str  # :50
    _edges: str  # :53
    states: list[PinState]  # :156, appended to by _change_state (:86)
    def clear_states(self) -> None: ...  # :154
    def drive_high(self) -> None: ...  # :142
    def drive_low(self) -> None: ...  # :148
    def _change_state(self, value: float) -> bool: ...  # :82
    def _call_when_changed(self) -> None: ...  # :139
    def _get_state(self) -> float: ...  # :72

class MockPWMPin(MockPin): ...  # :261
class MockSPIClockPin(MockPin): ...  # :291
class MockSPISelectPin(MockPin): ...  # :308

class MockSPIDevice:  # :325
    rx_buf: list[float]  # the MOSI pin's states (:384)
    tx_buf: list[int]  # :356
    def __init__(  # :338
        self,
        clock_pin: int | str,
        mosi_pin: int | str | None = None,
        miso_pin: int | str | None = None,
        select_pin: int | str | None = None,
        *,
        clock_polarity: bool = False,
        clock_phase: bool = False,
        lsb_first: bool = False,
        bits_per_word: int = 8,
        select_high: bool = False,
        pin_factory: MockFactory | None = None,  # None: Device.pin_factory (:342-344)
    ) -> None: ...
    def on_bit(self) -> None: ...  # :405
    def close(self) -> None: ...  # :366

class MockFactory(PiFactory):  # :442
    pin_class: type[MockPin]  # :476
    def __init__(  # :462
        self,
        revision: str | None = None,
        pin_class: type[MockPin] | str | bytes | None = None,
    ) -> None: ...
    def reset(self) -> None: ...  # :481
    # :490: the pin made before (of whatever class), else pin_class(self, info, **kwargs)
    def pin(
        self, name: int | str, pin_class: type[MockPin] | None = None, **kwargs: object
    ) -> MockPin: ...
