from typing import Any

from gpiozero.pins import SPI

class SPISoftware(SPI):
    def __init__(
        self,
        clock_pin: Any,
        mosi_pin: Any,
        miso_pin: Any,
        select_pin: Any,
        *,
        pin_factory: Any,
    ) -> None: ...
