"""The words the game, the board and the page share: places, LEDs, sounds, the link.

The referee speaks of base cells (``a1``–``e5``), Pyramidos targets (``t1``–``t4``,
``top``), the board's buttons and seat LEDs by name, shows :class:`Led` pictures and asks
for :class:`Sound` cues; a board adapter (:mod:`controller.hardware`) turns the same names
into channels and LED numbers. Both import them from here, so the pure referee loads
nothing of the hardware. Only the standard library and :mod:`controller.rules`.

>>> len(CELLS), TARGETS[-1], SEATS[0], Led((1, 2, 3)).lit, OFF.lit
(25, 'top', 'seat:0', True, False)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.rules.notation import FILES

__all__ = [
    "BLACK",
    "BUTTONS",
    "CELLS",
    "OFF",
    "SEATS",
    "TARGETS",
    "BoardStatus",
    "Colour",
    "Led",
    "LedFrame",
    "LedMode",
    "LinkState",
    "Sound",
]

CELLS: tuple[str, ...] = tuple(f"{f}{r}" for r in range(1, 6) for f in FILES)
"""The 25 base cells in reading order (rank 1 first, then file a first)."""
TARGETS: tuple[str, ...] = ("t1", "t2", "t3", "t4", "top")
"""The targets of Pyramidos."""
BUTTONS: tuple[str, ...] = ("button:confirm", "button:end_turn", "button:undo")
"""The board's buttons, in the order the referee handles presses that come together."""
SEATS: tuple[str, ...] = ("seat:0", "seat:1", "seat:2", "seat:3")
"""The LEDs that light a seat on its turn."""

Colour = tuple[int, int, int]
"""An RGB colour, each component 0–255."""

BLACK: Colour = (0, 0, 0)


class LedMode(enum.Enum):
    """How one LED shows its colour."""

    STEADY = "steady"
    BLINK = "blink"


@dataclass(frozen=True, slots=True)
class Led:
    """What one LED shows."""

    colour: Colour = BLACK
    """The colour when lit; black is off."""
    mode: LedMode = LedMode.STEADY
    """Steady, or blinking (the adapter or the firmware does the blinking)."""

    @property
    def lit(self) -> bool:
        return self.colour != BLACK


OFF = Led()


@dataclass(frozen=True, slots=True)
class LedFrame:
    """A whole picture for every LED of a board, by LED number."""

    leds: tuple[Led, ...]

    @classmethod
    def blank(cls, count: int) -> LedFrame:
        return cls((OFF,) * count)

    def __len__(self) -> int:
        return len(self.leds)

    def colour_at(self, index: int, blink_phase_on: bool = True) -> Colour:
        """The colour LED ``index`` shows right now, given the blink phase."""
        led = self.leds[index]
        if led.mode is LedMode.BLINK and not blink_phase_on:
            return BLACK
        return led.colour


class LinkState(enum.Enum):
    """Whether the board can be heard."""

    CONNECTED = "connected"
    SEARCHING = "searching"
    LOST = "lost"


@dataclass(frozen=True, slots=True)
class BoardStatus:
    """What an adapter reports about itself, for diagnostics and the web page."""

    adapter: str
    link: LinkState = LinkState.CONNECTED
    since: float = 0.0
    """``time.monotonic()`` when ``link`` last changed."""
    detail: str = ""
    """A human sentence: the port name, the wiring topology, why the link was lost."""
    counters: Mapping[str, int] = field(default_factory=dict)
    """Named counters, e.g. ``dropped_lines``, ``scans``, ``frames``."""
    toggles: Mapping[int, int] = field(default_factory=dict)
    """How often each channel has changed its debounced state (chatter shows here)."""


class Sound(enum.Enum):
    """A cue for the players' ears: a board with a buzzer plays its tune, the page too."""

    TURN = "turn"
    """It is the next player's turn."""
    BONUS = "bonus"
    """A bonus pearl is owed and must be placed."""
    WRONG = "wrong"
    """A pearl or ball sits where none belongs."""
    WINNER = "winner"
    """The game is over and has a winner."""
