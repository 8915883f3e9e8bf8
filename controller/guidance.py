"""What the LEDs say: pure functions from a game's facts to a picture, LED by LED name.

Every game draws its own picture (its package's ``lights.py``: what the user guide,
docs/user-guide.md, "What the lights say", promises for it); the pieces they share are
here: a :class:`Picture` is what each named LED shows, a :class:`Mismatch` where the
board differs from the game (a piece where none belongs flashes white, a missing one
blinks in the colour that belongs there: :func:`mismatch_picture`), the seat LED of the
player to move (:func:`seat`), the winner's sweep (:data:`SWEEP_PERIOD`,
:func:`winner_colour`), the LED test (:func:`led_test`).

>>> players = [Light(seat=0, rgb=(200, 0, 0)), Light(1, (0, 0, 200))]
>>> lit = mismatch_picture((Mismatch("d4", MismatchKind.EXTRA),), players)
>>> lit["d4"].colour, lit["d4"].mode.value
((255, 255, 255), 'blink')

The picture becomes a :class:`~controller.vocabulary.LedFrame` through the board's
channel map with :func:`to_frame`; LEDs the board does not have are left out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from controller.palette import WHITE
from controller.vocabulary import OFF, SEATS, Colour, Led, LedFrame, LedMode

Picture = dict[str, Led]
"""What each named LED shows; names not in it are off."""

SWEEP_DIAGONALS = 9
"""Diagonals of the 5×5 base (file + rank runs 0..8)."""
SWEEP_GAP = 3
"""Dark frames between two sweeps, so each sweep reads as a new one."""
SWEEP_PERIOD = SWEEP_DIAGONALS + SWEEP_GAP
"""Frames of one sweep across the base (every game's sweep has this period)."""
SWEEP_TRAIL = (1.0, 0.3, 0.08)
"""Brightness of the sweeping diagonal and the two behind it."""


class MismatchKind(enum.Enum):
    """How the board differs from the game at one cell or target."""

    EXTRA = "extra"
    """A pearl or ball is there that the game does not have."""
    MISSING = "missing"
    """The game has a pearl or ball there that the board does not."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One place where the board and the game disagree."""

    cell: str
    """A base cell (``c3``) or a target (``t2``, ``top``)."""
    kind: MismatchKind
    colour: int | None = None
    """For a missing piece: the player (by number) whose piece belongs there."""


@dataclass(frozen=True, slots=True)
class Light:
    """What guidance needs to know of a player: their seat LED and their colour."""

    seat: int
    """The physical seat (0–3): the seat LED ``seat:N`` that lights on their turn."""
    rgb: Colour


@dataclass(frozen=True, slots=True)
class GuidanceOptions:
    """Choices that change the picture but not the game."""

    children_help: bool = False
    """Legal cells glow dimly in the mover's colour."""
    dim: float = 0.12
    """How bright a dim glow is, 0..1 of the full colour."""
    hint: str | None = None
    """A base cell suggested to the player to move (blinks in their colour)."""
    computer_move: str | None = None
    """The cell a computer seat chose (blinks in its colour until its pearl is placed)."""
    thinking: bool = False
    """A computer seat is to move and has not chosen yet (its seat LED blinks)."""
    sweep_frame: int | None = 0
    """Game over: the frame of the sweep animation; None for the calm picture after it."""
    pending_shown: int = 0
    """Which of the pieces waiting to be placed by hand (a game's ``pending``) is shown
    now: several take turns."""
    removals: tuple[object, ...] = ()
    """Pieces of a move taken back still to come off first, in order (the game's own
    values: Perlen-Pyramide's bonus pearls)."""


CALM: Final = GuidanceOptions()
"""The options when nothing changes the picture (no help, no hint, the sweep's first frame)."""


def mismatch_picture(wrong: tuple[Mismatch, ...], players: Sequence[Light]) -> Picture:
    picture: Picture = {}
    for m in wrong:
        if m.kind is MismatchKind.EXTRA or m.colour is None:
            picture[m.cell] = Led(WHITE, LedMode.BLINK)
        else:
            picture[m.cell] = Led(players[m.colour].rgb, LedMode.BLINK)
    return picture


def seat(picture: Picture, players: Sequence[Light], who: int | None, blink: bool) -> None:
    if who is None:
        return
    light = players[who]
    picture[SEATS[light.seat]] = Led(light.rgb, LedMode.BLINK if blink else LedMode.STEADY)


def winner_colour(players: Sequence[Light], winners: tuple[int, ...], frame: int) -> Colour:
    # A shared win takes turns: each sweep shows the next winner's colour.
    return players[winners[(frame // SWEEP_PERIOD) % len(winners)]].rgb


def led_test(names: Sequence[str], colour: Colour, step: int | None = None) -> Picture:
    """The LED test: every LED in ``names`` in ``colour``, or only ``names[step % n]``.

    >>> led_test(["c3", "c4"], (9, 9, 9), step=3)
    {'c4': Led(colour=(9, 9, 9), mode=<LedMode.STEADY: 'steady'>)}
    """
    lit = Led(colour, LedMode.STEADY)
    if step is None:
        return {name: lit for name in names}
    if not names:
        return {}
    return {names[step % len(names)]: lit}


class LedMap(Protocol):
    """Where a board's LEDs are, by name (:class:`controller.hardware.channels.ChannelMap`)."""

    @property
    def led_count(self) -> int: ...
    def led(self, name: str) -> int | None: ...


def to_frame(picture: Mapping[str, Led], channel_map: LedMap, count: int | None = None) -> LedFrame:
    """The :class:`LedFrame` for ``picture`` on a board with ``channel_map``'s LEDs.

    ``count`` is the board's LED count when it has more LEDs than the map names.

    >>> from controller.hardware.channels import ChannelMap
    >>> cmap = ChannelMap.build({"t1": 0, "t2": 1, "t3": 2, "t4": 3, "top": 4}, {"top": 1})
    >>> frame = to_frame({"top": Led((1, 2, 3)), "c3": Led((9, 9, 9))}, cmap)
    >>> [led.colour for led in frame.leds]
    [(0, 0, 0), (1, 2, 3)]
    """
    leds = [OFF] * max(channel_map.led_count, count or 0)
    for name, led in picture.items():
        index = channel_map.led(name)
        if index is not None:
            leds[index] = led
    return LedFrame(tuple(leds))
