"""APA102 / SK9822 LED chains on SPI, through gpiozero's SPI interface.

The wire format, per LED chain update:

- a start frame of 32 zero bits;
- one 32-bit frame per LED: ``0b111`` and a 5-bit global brightness, then blue, green, red
  (the byte order of APA102 and SK9822; some clones differ, hence ``order``);
- 32 more zero bits, which SK9822 needs to latch the update;
- at least n/2 more clock edges (n LEDs), because each LED delays the data by half a
  clock; zero bytes are used, which no LED takes for colour.

The global brightness limit is applied with both tools the chip offers: the 5-bit
brightness field carries the coarse part (so dim colours keep all 8 bits of each
component) and the colour bytes the rest.

>>> encode([(255, 0, 0), (0, 0, 0)], brightness=1.0).hex()
'00000000ff0000ffe00000000000000000'
>>> encode([(255, 128, 0)], brightness=0.25).hex()   # level 8/31, 255*0.25*31/8 = 247
'00000000e8007cf70000000000'
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Final

from gpiozero.pins import SPI

from controller.hardware.port import Colour

START_FRAME: Final = bytes(4)
LATCH_FRAME: Final = bytes(4)
LEVELS: Final = 31
"""The highest value of the 5-bit global brightness field."""
ORDERS: Final = ("bgr", "brg", "gbr", "grb", "rbg", "rgb")


def brightness_split(brightness: float) -> tuple[int, float]:
    """Split a 0..1 limit into the 5-bit level and the factor for the colour bytes.

    >>> brightness_split(1.0), brightness_split(0.5), brightness_split(0.0)
    ((31, 1.0), (16, 0.96875), (0, 0.0))
    """
    if not 0.0 <= brightness <= 1.0:
        raise ValueError(f"brightness must be from 0 to 1, not {brightness!r}")
    if brightness == 0.0:
        return 0, 0.0
    level = min(LEVELS, math.ceil(brightness * LEVELS))
    return level, brightness * LEVELS / level


def encode(colours: Sequence[Colour], brightness: float, order: str = "bgr") -> bytes:
    """The SPI bytes that show ``colours`` (LED 0 first) with the brightness limit."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    level, scale = brightness_split(brightness)
    header = 0xE0 | level
    picks = ["rgb".index(c) for c in order]
    out = bytearray(START_FRAME)
    for colour in colours:
        if len(colour) != 3 or any(not 0 <= c <= 255 for c in colour):
            raise ValueError(f"colour must be three components 0–255, not {colour!r}")
        scaled = [round(c * scale) for c in colour]
        if not any(scaled):
            out += bytes((0xE0, 0, 0, 0))  # dark: brightness 0 too, so nothing glimmers
            continue
        out.append(header)
        out.extend(scaled[p] for p in picks)
    out += LATCH_FRAME
    out += bytes((len(colours) + 15) // 16)
    return bytes(out)


def apparent(colour: Colour, brightness: float) -> Colour:
    """What :func:`encode` makes of ``colour``: its bytes times level/31, rounded.

    Tests and the mock strip compare decoded LEDs with this.
    """
    level, scale = brightness_split(brightness)
    scaled = [round(c * scale) for c in colour]
    if not any(scaled):
        return (0, 0, 0)
    r, g, b = (round(c * level / LEVELS) for c in scaled)
    return (r, g, b)


class Apa102Chain:
    """A chain of ``count`` LEDs on a gpiozero SPI interface.

    ``spi`` is what ``pin_factory.spi(...)`` returns: hardware SPI through the kernel's
    spidev when the pins are SPI0's (no root needed, only the ``spi`` group), otherwise
    gpiozero's bit-banged SPI. A picture is sent only when it differs from the last one
    sent, so blinking and repeated frames cost nothing while nothing changes.

    >>> class Wire:  # stands in for a gpiozero SPI interface
    ...     def __init__(self): self.sent = []
    ...     def write(self, data): self.sent.append(bytes(data)); return len(data)
    ...     def close(self): pass
    >>> chain = Apa102Chain(Wire(), count=2, brightness=1.0)
    >>> chain.show([(0, 0, 255), (0, 0, 0)]), chain.show([(0, 0, 255), (0, 0, 0)])
    (True, False)
    """

    def __init__(self, spi: SPI, count: int, brightness: float, order: str = "bgr") -> None:
        if count < 0:
            raise ValueError("an LED chain cannot have a negative length")
        brightness_split(brightness)  # checks the range now, not at the first frame
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
        self.count = count
        self.brightness = brightness
        self.order = order
        self.writes = 0
        """How many pictures were sent (diagnostics)."""
        self._spi: SPI | None = spi
        self._lock = threading.Lock()
        self._last: bytes | None = None

    def show(self, colours: Sequence[Colour]) -> bool:
        """Send ``colours`` unless the chain already shows them; True when sent."""
        if len(colours) != self.count:
            raise ValueError(f"{len(colours)} colours for a chain of {self.count} LEDs")
        data = encode(colours, self.brightness, self.order)
        with self._lock:
            if self._spi is None:
                raise RuntimeError("the LED chain is closed")
            if data == self._last:
                return False
            self._spi.write(list(data))
            self._last = data
            self.writes += 1
            return True

    def blank(self) -> None:
        """Turn every LED off (sent even if the chain is thought dark: it may not be)."""
        with self._lock:
            self._last = None
        self.show([(0, 0, 0)] * self.count)

    def close(self) -> None:
        """Blank the chain and release the SPI interface; safe to call twice."""
        with self._lock:
            spi = self._spi
        if spi is None:
            return
        try:
            self.blank()
        finally:
            with self._lock:
                self._spi = None
            spi.close()
