"""The colours players choose from, each with a letter and a pattern for colour-blind eyes.

The LEDs can only show a colour; the web page shows the letter and an SVG pattern too, so
that a player who cannot tell red from green still finds their pearls. The first four are
the usual seat colours (and the defaults of ``[seats] colours`` in the config):

>>> [c.letter for c in PALETTE[:4]]
['R', 'B', 'Y', 'G']
>>> by_name("blue").hex, by_name("blue").pattern_id
('#1f77b4', 'pattern-dots')
>>> from_rgb((0x2c, 0xa0, 0x2c), seat=3).name
'green'
>>> from_rgb((1, 2, 3), seat=0).name      # a colour from the config that has no name
'seat 1 colour'
>>> parse_hex("#D62728"), to_hex((214, 39, 40))
((214, 39, 40), '#d62728')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from controller.vocabulary import Colour

WHITE: Colour = (255, 255, 255)
"""What a pearl where none belongs flashes (no player may have it)."""


@dataclass(frozen=True, slots=True)
class PaletteColour:
    """One colour a player can have."""

    name: str
    """The word families use: ``red``."""
    letter: str
    """One capital letter shown on the page next to the colour: ``R``."""
    rgb: Colour
    """The colour on the page and, scaled by the brightness limit, on the LEDs."""
    pattern: str
    """The SVG fill pattern drawn over the colour for colour-blind players: ``stripes``."""

    @property
    def hex(self) -> str:
        """``#rrggbb`` for the web page."""
        return to_hex(self.rgb)

    @property
    def pattern_id(self) -> str:
        """The id of the SVG ``<pattern>`` the web page defines for :attr:`pattern`."""
        return f"pattern-{self.pattern}"

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "letter": self.letter,
            "hex": self.hex,
            "pattern": self.pattern_id,
        }


PALETTE: tuple[PaletteColour, ...] = (
    PaletteColour("red", "R", (0xD6, 0x27, 0x28), "stripes"),
    PaletteColour("blue", "B", (0x1F, 0x77, 0xB4), "dots"),
    PaletteColour("yellow", "Y", (0xF2, 0xC5, 0x00), "plain"),
    PaletteColour("green", "G", (0x2C, 0xA0, 0x2C), "cross"),
    PaletteColour("orange", "O", (0xFF, 0x7F, 0x0E), "waves"),
    PaletteColour("purple", "P", (0x94, 0x67, 0xBD), "checks"),
    PaletteColour("pink", "K", (0xE3, 0x77, 0xC2), "rings"),
    PaletteColour("cyan", "C", (0x17, 0xBE, 0xCF), "grid"),
)
"""Every named colour, the four seat defaults first. No colour is white (see :data:`WHITE`)."""

_BY_NAME: Mapping[str, PaletteColour] = {c.name: c for c in PALETTE}
_BY_RGB: Mapping[Colour, PaletteColour] = {c.rgb: c for c in PALETTE}


class PaletteError(ValueError):
    """A colour name that is not in the palette, or colours that cannot go together."""


_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def parse_hex(text: object) -> Colour:
    """``#rrggbb`` (either case) as an RGB colour: the one parser of written colours.

    :class:`PaletteError` says what a colour must look like.
    """
    if not isinstance(text, str) or not _HEX.fullmatch(text):
        raise PaletteError(f"a colour looks like '#d62728', not {text!r}")
    return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))


def to_hex(rgb: Colour) -> str:
    """``#rrggbb`` (lower case) of an RGB colour."""
    r, g, b = rgb
    return f"#{r:02x}{g:02x}{b:02x}"


def by_name(name: str) -> PaletteColour:
    """The palette colour called ``name``; :class:`PaletteError` names the choices."""
    colour = _BY_NAME.get(name) if isinstance(name, str) else None
    if colour is None:
        raise PaletteError(
            f"{name!r} is not a colour here (choose from {', '.join(c.name for c in PALETTE)})"
        )
    return colour


def from_rgb(rgb: Colour, seat: int) -> PaletteColour:
    """The named colour for ``rgb``, or an unnamed one for a colour only the config knows.

    An unnamed colour gets the seat number as its letter and a pattern of its own, so it
    still differs from every other seat on the page.
    """
    named = _BY_RGB.get(tuple(rgb))  # type: ignore[arg-type]
    if named is not None:
        return named
    return PaletteColour(f"seat {seat + 1} colour", str(seat + 1), rgb, f"seat{seat + 1}")


def check_distinct(colours: Iterable[PaletteColour]) -> None:
    """Two players never share a colour (the pearls could not be told apart)."""
    seen: dict[str, PaletteColour] = {}
    for colour in colours:
        if colour.hex in seen:
            raise PaletteError(f"two players cannot both have {colour.name}")
        seen[colour.hex] = colour


def scaled(rgb: Colour, factor: float) -> Colour:
    """``rgb`` dimmed to ``factor`` (0..1), never rounded to black while ``factor`` > 0.

    >>> scaled((200, 100, 0), 0.1)
    (20, 10, 0)
    >>> scaled((5, 0, 0), 0.1)
    (1, 0, 0)
    """
    if not 0.0 <= factor <= 1.0:
        raise ValueError(f"factor must be from 0 to 1, not {factor!r}")
    r, g, b = (round(c * factor) for c in rgb)
    if factor > 0 and (r, g, b) == (0, 0, 0) and rgb != (0, 0, 0):
        # Keep the brightest component at 1 so a dim glow stays visible.
        top = max(rgb)
        r, g, b = (1 if c == top else 0 for c in rgb)
    return (r, g, b)


TERMINAL_LETTERS: Final = "RBYG"
"""A player's mark in a terminal, by player number (readable without colour too)."""
TERMINAL_COLOURS: Final = ("\x1b[1;31m", "\x1b[1;34m", "\x1b[1;33m", "\x1b[1;32m")
"""ANSI colours of :data:`TERMINAL_LETTERS`."""
_RESET: Final = "\x1b[0m"


def terminal_mark(number: int | None, colour: bool) -> str:
    """Player ``number``'s piece in a terminal (``·`` for none), coloured with ANSI codes
    when ``colour``.

    >>> terminal_mark(1, False), terminal_mark(None, True)
    ('B', '·')
    """
    if number is None:
        return "·"
    letter = TERMINAL_LETTERS[number]
    return f"{TERMINAL_COLOURS[number]}{letter}{_RESET}" if colour else letter
