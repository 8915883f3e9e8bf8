"""A stand-in for MicroPython's ``neopixel`` module, for the simulator.

It keeps the real module's interface and byte layout (GRB order in ``buf``) and reports
every ``write()`` to the test harness as RRGGBB colours, so a test sees exactly what the
LEDs would show. Colour components outside 0–255 raise ValueError.
"""

import chip


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1) -> None:
        if not hasattr(pin, "id"):
            raise TypeError("NeoPixel needs a machine.Pin")
        if bpp != 3:
            raise ValueError("the simulator models RGB (bpp=3) strips only")
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.timing = timing
        self.buf = bytearray(n * bpp)
        self._chip = chip.get()

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, index, colour) -> None:
        if not 0 <= index < self.n:
            raise IndexError("pixel index out of range")
        offset = index * self.bpp
        for i in range(self.bpp):
            component = colour[i]
            if not 0 <= component <= 255:
                raise ValueError(f"colour component {component!r} outside 0..255")
            self.buf[offset + self.ORDER[i]] = component

    def __getitem__(self, index) -> tuple:
        offset = index * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, colour) -> None:
        for index in range(self.n):
            self[index] = colour

    def write(self) -> None:
        colours = []
        for index in range(self.n):
            red, green, blue = self[index]
            colours.append((red << 16) | (green << 8) | blue)
        self._chip.show_pixels(self.pin.id, colours)
