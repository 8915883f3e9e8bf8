# gpiozero/pins/__init__.py of gpiozero 2.0.1 (line numbers are that file's).
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol
from weakref import ReferenceType

class PinInfo:  # a namedtuple (:819)
    @property
    def name(self) -> str: ...
    @property
    def pull(self) -> str: ...

class Pin:  # :201
    @property
    def info(self) -> PinInfo: ...  # :286
    function: str  # :301, "input" or "output" for GPIO pins
    state: float  # :322, 0/1 (a bool or int) or, with PWM, the duty cycle 0.0-1.0
    pull: str  # :355
    frequency: float | None  # :377
    bounce: float | None  # :398
    edges: str  # :439
    # :469: called with (ticks, state); gpiozero keeps only a weak reference to it
    when_changed: Callable[[float, int], None] | None
    def close(self) -> None: ...  # :243
    def output_with_state(self, state: float) -> None: ...  # :251
    def input_with_pull(self, pull: str) -> None: ...  # :267

class SPI:  # :495 (a Device)
    clock_mode: int  # :656
    rate: int  # :804
    def read(self, n: int) -> list[int]: ...  # :518
    def write(self, data: Sequence[int]) -> int: ...  # :530
    def transfer(self, data: Sequence[int]) -> list[int]: ...  # :544
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...

class _Reserver(Protocol):
    # What reserve_pins asks of a requester (:87): whether it conflicts with another.
    def _conflicts_with(self, other: object) -> bool: ...

class Factory:  # :42
    _reservations: defaultdict[PinInfo, list[ReferenceType[_Reserver]]]  # :62
    def close(self) -> None: ...  # :126
    def reserve_pins(self, requester: _Reserver, *names: int | str) -> None: ...  # :71
    def release_pins(self, reserver: object, *names: int | str) -> None: ...  # :92
    def release_all(self, reserver: object) -> None: ...  # :112
    def pin(self, name: int | str) -> Pin: ...  # :134
    # :149, by pins (PiFactory._extract_spi_args, pi.py:508; the port/device scheme and
    # `shared` are not used by us). None leaves MOSI or MISO out (spi.py:151-154); the
    # clock and select lines are OutputDevices, which need a pin (spi.py:149, :47).
    def spi(
        self,
        *,
        clock_pin: int | str = ...,
        mosi_pin: int | str | None = ...,
        miso_pin: int | str | None = ...,
        select_pin: int | str = ...,
    ) -> SPI: ...
