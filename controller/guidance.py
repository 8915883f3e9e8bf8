"""What the LEDs say: a pure function from the game to a picture, LED by LED name.

It draws what the user guide (docs/user-guide.md, "What the lights say") promises:

- whose turn: the seat LED of the player to move, in their colour (blinking while a
  computer seat is still thinking);
- a bonus pearl to place: the base footprint of its position blinks in the bonus colour
  (one at a time: the referee passes the one to show first; the confirm button glows in
  its colour);
- a move taken back under bonus pearls: the footprint of the top one flashes white;
- a pearl where none belongs: its cell flashes white; a pearl missing: its cell blinks in
  the colour that belongs there. While anything is wrong only that is shown, so the
  family fixes the board before anything else;
- the computer's chosen cell, or a hint, blinks in the mover's colour;
- help for children: legal cells glow dimly in the mover's colour;
- Pyramidos: each target shows its owner's colour; the top blinks (pulses) in the
  mover's colour once it is open; the end-turn button glows in the mover's colour;
- game over: the winner's colour sweeps the board, one diagonal at a time (frame ``k``
  of the animation is ``GuidanceOptions(sweep_frame=k)``; the referee steps it on a timer).

>>> from controller.rules import perlen
>>> state, _ = perlen.play(perlen.new_game(), "c3")
>>> players = [Light(seat=0, rgb=(200, 0, 0)), Light(1, (0, 0, 200)), Light(2, (200, 200, 0))]
>>> lit = guide(state, players)
>>> lit["seat:1"]
Led(colour=(0, 0, 200), mode=<LedMode.STEADY: 'steady'>)
>>> sorted(lit)            # nothing else is lit: the board matches, no bonus waits
['seat:1']
>>> lit = guide(state, players, mismatches=[Mismatch("d4", MismatchKind.EXTRA)])
>>> lit["d4"].colour, lit["d4"].mode.value
((255, 255, 255), 'blink')

The picture becomes a :class:`~controller.vocabulary.LedFrame` through the board's
channel map with :func:`to_frame`; LEDs the board does not have are left out.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from controller.palette import WHITE, scaled
from controller.rules import perlen, pyramidos
from controller.rules.notation import FILES, Target
from controller.vocabulary import CELLS, OFF, SEATS, TARGETS, Colour, Led, LedFrame, LedMode

Game = perlen.PerlenState | pyramidos.PyramidosState
Picture = dict[str, Led]
"""What each named LED shows; names not in it are off."""

SWEEP_DIAGONALS = 9
"""Diagonals of the 5×5 base (file + rank runs 0..8)."""
SWEEP_GAP = 3
"""Dark frames between two sweeps, so each sweep reads as a new one."""
SWEEP_PERIOD = SWEEP_DIAGONALS + SWEEP_GAP
"""Frames of one sweep across the base (Pyramidos uses the same period over its targets)."""
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
    """A base cell (``c3``) or a Pyramidos target (``t2``, ``top``)."""
    kind: MismatchKind
    colour: int | None = None
    """For a missing pearl: the player (colour number) whose pearl belongs there."""


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
    take_off: tuple[str, ...] = ()
    """A move taken back: the base footprint of the bonus pearl to take off it first
    (flashes white, like every piece that does not belong)."""


def guide(
    game: Game | None,
    players: Sequence[Light],
    pending: Sequence[perlen.Bonus] = (),
    mismatches: Iterable[Mismatch] = (),
    options: GuidanceOptions = GuidanceOptions(),
) -> Picture:
    """The picture for ``game`` (None: no game, all dark).

    ``players`` are indexed by colour number (Perlen-Pyramide) or seat (Pyramidos), as the
    game's states count them; ``pending`` are the bonus pearls still to be placed, in
    order; ``mismatches`` where the board differs from the game.
    """
    if game is None:
        return {}
    wrong = tuple(mismatches)
    if isinstance(game, perlen.PerlenState):
        return perlen_picture(game, players, tuple(pending), wrong, options)
    return pyramidos_picture(game, players, wrong, options)


def _mismatch_picture(wrong: tuple[Mismatch, ...], players: Sequence[Light]) -> Picture:
    picture: Picture = {}
    for m in wrong:
        if m.kind is MismatchKind.EXTRA or m.colour is None:
            picture[m.cell] = Led(WHITE, LedMode.BLINK)
        else:
            picture[m.cell] = Led(players[m.colour].rgb, LedMode.BLINK)
    return picture


def _seat(picture: Picture, players: Sequence[Light], who: int | None, blink: bool) -> None:
    if who is None:
        return
    light = players[who]
    picture[SEATS[light.seat]] = Led(light.rgb, LedMode.BLINK if blink else LedMode.STEADY)


def perlen_picture(
    state: perlen.PerlenState,
    players: Sequence[Light],
    pending: tuple[perlen.Bonus, ...],
    wrong: tuple[Mismatch, ...],
    options: GuidanceOptions,
) -> Picture:
    """Perlen-Pyramide's picture (:func:`guide`'s arguments, read)."""
    mover = state.to_move
    if state.over and not pending and not wrong:
        return _perlen_over(state, players, options)
    picture: Picture = {}
    _seat(picture, players, mover, options.thinking and not wrong and not pending)
    if wrong:
        picture.update(_mismatch_picture(wrong, players))
        for cell in options.take_off:
            picture[cell] = Led(WHITE, LedMode.BLINK)
        return picture
    if pending:
        bonus = pending[0]
        colour = players[bonus.colour].rgb
        for cell in bonus.position.footprint:
            picture[cell] = Led(colour, LedMode.BLINK)
        picture["button:confirm"] = Led(colour, LedMode.STEADY)
        return picture
    if mover is None:
        return picture
    colour = players[mover].rgb
    if options.computer_move is not None:
        picture[options.computer_move] = Led(colour, LedMode.BLINK)
        return picture
    if options.children_help and not options.thinking:
        glow = Led(scaled(colour, options.dim), LedMode.STEADY)
        for legal in perlen.legal_moves(state):
            picture[legal.short] = glow
    if options.hint is not None:
        picture[options.hint] = Led(colour, LedMode.BLINK)
    return picture


def _winner_colour(players: Sequence[Light], winners: tuple[int, ...], frame: int) -> Colour:
    # A shared win takes turns: each sweep shows the next winner's colour.
    return players[winners[(frame // SWEEP_PERIOD) % len(winners)]].rgb


def _perlen_over(
    state: perlen.PerlenState, players: Sequence[Light], options: GuidanceOptions
) -> Picture:
    winners = perlen.outcome(state).winners
    picture: Picture = {}
    for w in winners:
        _seat(picture, players, w, False)
    frame = options.sweep_frame
    if frame is None:
        calm = Led(scaled(players[winners[0]].rgb, options.dim), LedMode.STEADY)
        for cell in CELLS:
            picture[cell] = calm
        return picture
    colour = _winner_colour(players, winners, frame)
    phase = frame % SWEEP_PERIOD
    for cell in CELLS:
        behind = phase - (FILES.index(cell[0]) + int(cell[1]) - 1)
        if 0 <= behind < len(SWEEP_TRAIL):
            picture[cell] = Led(scaled(colour, SWEEP_TRAIL[behind]), LedMode.STEADY)
    return picture


def pyramidos_picture(
    state: pyramidos.PyramidosState,
    players: Sequence[Light],
    wrong: tuple[Mismatch, ...],
    options: GuidanceOptions,
) -> Picture:
    """Pyramidos's picture (:func:`guide`'s arguments, read)."""
    if state.over and not wrong:
        return _pyramidos_over(state, players, options)
    picture: Picture = {}
    for name, owner in state.targets().items():
        if owner is not None:
            picture[name] = Led(players[owner].rgb, LedMode.STEADY)
    if state.over:
        picture.update(_mismatch_picture(wrong, players))
        return picture
    mover = state.to_move
    _seat(picture, players, mover, False)
    if wrong:
        picture.update(_mismatch_picture(wrong, players))
        return picture
    colour = players[mover].rgb
    if state.top_open and state.owner(Target.TOP) is None:
        picture["top"] = Led(colour, LedMode.BLINK)
    if options.children_help:
        glow = Led(scaled(colour, options.dim), LedMode.STEADY)
        for target in TARGETS[:4]:
            if state.targets()[target] is None:
                picture[target] = glow
    picture["button:end_turn"] = Led(colour, LedMode.STEADY)
    return picture


def _pyramidos_over(
    state: pyramidos.PyramidosState, players: Sequence[Light], options: GuidanceOptions
) -> Picture:
    winners = pyramidos.outcome(state).winners
    picture: Picture = {}
    for w in winners:
        _seat(picture, players, w, False)
    frame = options.sweep_frame
    if frame is None:
        for name, owner in state.targets().items():
            if owner is not None:
                picture[name] = Led(players[owner].rgb, LedMode.STEADY)
        return picture
    colour = _winner_colour(players, winners, frame)
    # The five targets in a row (t1..t4, then the top), slowed to the base sweep's period.
    step = (frame % SWEEP_PERIOD) * len(TARGETS) // SWEEP_DIAGONALS
    for i, name in enumerate(TARGETS):
        behind = step - i
        if 0 <= behind < len(SWEEP_TRAIL):
            picture[name] = Led(scaled(colour, SWEEP_TRAIL[behind]), LedMode.STEADY)
    return picture


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
