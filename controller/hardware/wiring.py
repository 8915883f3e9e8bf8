"""The facts of the Pi's header that wiring a board obeys, and the config's errors.

The ``[board]``, ``[leds]`` and ``[buzzer]`` values themselves are declared, with their
ranges, in :mod:`controller.config_schema`; this module holds only the standard library's
part, so the adapters and the command line read it without loading pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

FIRST_GPIO: Final = 2
LAST_GPIO: Final = 27
"""BCM GPIO 2–27 are the GPIOs on the 40-pin header (0 and 1 belong to the HAT EEPROM)."""

HEADER_PIN: Final[Mapping[int, int]] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33,
    19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32,
    16: 36, 20: 38, 21: 40,
}  # fmt: skip
"""BCM GPIO number -> physical pin on the 40-pin header (the same on every Pi, Pi 5 too)."""

FIXED_PULL_UP: Final = frozenset({2, 3})
"""GPIO 2 and 3 carry 1.8 kΩ pull-ups on the Pi itself (I²C); they cannot be pulled down."""

SPI0_PINS: Final = frozenset({7, 8, 9, 10, 11})
"""With SPI0 enabled (``dtparam=spi=on``) the kernel owns GPIO 7–11 (CE1, CE0, MISO, MOSI,
SCLK), whether or not the LED chain uses MISO and both chip selects."""

MUX_CHANNELS: Final = 16
"""Inputs of one CD74HC4067 multiplexer."""

DEFAULT_ROWS: Final[tuple[int, ...]] = (4, 17, 27, 22, 5, 6)
DEFAULT_COLS: Final[tuple[int, ...]] = (13, 19, 26, 16, 20, 21)
"""The default 6×6 matrix pins (configs/matrix.toml): clear of SPI0, I²C and the UART."""

SETTLE_US: Final[Mapping[str, float]] = {"matrix": 5.0, "mux": 7.0, "direct": 0.0}
"""The default ``settle_us`` of each topology: twice the longest a line takes to settle
in ngspice (``hardware/spice/``, ``hardware/spice.py``) on the build
hardware/README.md describes, 10 kΩ pull-ups and 150 pF of wire: 2.2 µs for a matrix
column to rise after its row lets go, 3.3 µs for a mux SIG line after the address
changes; direct wiring waits for nothing. ``tests/hardware/test_circuits.py`` holds
these to the simulation."""

DEFAULT_BUZZER_PIN: Final = 18
"""The buzzer's GPIO in the shipped configs (header pin 12): free in every build."""


class ConfigError(ValueError):
    """A config value that cannot be used; ``key`` is the dotted key, ``problem`` says why.

    Also raised when the hardware a key names cannot be had (``leds.spi`` when SPI0 is
    off), so a maker reads which line of the config it is about.

    >>> str(ConfigError("board.gpio.rows[2]", "GPIO 28 is not on the 40-pin header"))
    'board.gpio.rows[2]: GPIO 28 is not on the 40-pin header'
    """

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}" if key else problem)
        self.key = key
        self.problem = problem

    @property
    def errors(self) -> tuple[ConfigError, ...]:
        """Every mistake this reports (itself)."""
        return (self,)


class ConfigErrors(ConfigError):
    """Every mistake found in one file at once, printed one per line; ``key`` and
    ``problem`` are the first's, so one mistake reads as a plain :class:`ConfigError`.

    >>> print(ConfigErrors((ConfigError("web.port", "must be from 1 to 65535, not 0"),
    ...                     ConfigError("leds.order", "must be one of 'bgr', 'rgb', not 'x'"))))
    2 mistakes:
      web.port: must be from 1 to 65535, not 0
      leds.order: must be one of 'bgr', 'rgb', not 'x'
    """

    def __init__(self, errors: tuple[ConfigError, ...]) -> None:
        first = errors[0]
        super().__init__(first.key, first.problem)
        if len(errors) > 1:
            lines = "\n".join(f"  {error}" for error in errors)
            self.args = (f"{len(errors)} mistakes:\n{lines}",)
        self._errors = errors

    @property
    def errors(self) -> tuple[ConfigError, ...]:
        return self._errors
